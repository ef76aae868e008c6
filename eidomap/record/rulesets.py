"""Rule sets by name: the seam between a map and the rules it is drawn for.

A map's ``eidomap`` member names its rule set (``"rules": "eido"``, the
default, or ``"d20"``).  A :class:`RuleSet` says what that name means to the
rest of eidomap:

* ``edge_kinds`` -- the kinds of :data:`eidomap.model.network.KINDS` its network
  has (the Eido rules: borders, roads of Pousas, teleports; the d20 rules:
  borders and roads followed Eido by Eido, not hopped);
* ``actor(catalog, who, **options)`` -- who moves and their cost table
  (:class:`~eidomap.rules.eido.Actor`), or None when its answers are not
  searches over that network; every answer asks for it through
  :func:`eidomap.rules.actors.resolve_actor`;
* ``answers`` -- the questions it answers (:class:`Question`: ``route``,
  ``reach``, ``batch``, ``planner``, ``travel``, ``grid``), checked once where
  each is asked (:func:`require`);
* ``pousa_roads`` and ``road_classes`` -- how its maps draw roads (chains of
  Pousas; the classes a road must have).

The registry lives here, in the record's layer, so that a reader can check a
map's ``rules`` as it reads it and the map's network is built with its edge
kinds; the rule sets themselves are registered by the package's root
(:mod:`eidomap`).  docs/design.md says how a third one is added.

>>> import eidomap
>>> from eidomap.record import rulesets
>>> rulesets.names()
('eido', 'd20')
>>> rulesets.get("d20").edge_kinds, "travel" in rulesets.get("d20").answers
(('border', 'road_eido'), True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.modes import Mode
from eidomap.base.names import shown

__all__ = ["Question", "RuleSet", "get", "names", "register", "require", "unregister"]


class Question(Mode):
    """A question eidomap asks a map's rule set, where each answer starts (:func:`require`): a route, a reach, a
    batch, the planner page (the Eido rules); a journey's travel, a battle grid's answers (the d20 rules)."""

    ROUTE = "route"
    REACH = "reach"
    BATCH = "batch"
    PLANNER = "planner"
    TRAVEL = "travel"
    GRID = "grid"


@dataclass(frozen=True)
class RuleSet:
    """What a rule set adds to eidomap (see the module docstring).

    Attributes
    ----------
    name : str
        The name maps give in their ``eidomap`` member (``"rules": "eido"``).
    edge_kinds : tuple of str
        The kinds of edge its network has (``"border"`` always): a map's network is built with these
        (:func:`eidomap.model.network.build_network`).
    actor : callable or None
        ``actor(catalog, who, **options)``: who moves and their cost table, an :class:`eidomap.rules.eido.Actor`
        (the searches' one form of a mover; :func:`eidomap.rules.actors.resolve_actor` checks it is one), made
        from a name (``who``) and the rule set's own keywords (the Eido rules': ``mount``, ``party``, ``gifts``,
        ``vmv``, ``dice``; an option it does not take is refused before it is called); None when its answers
        are not searches over that network.
    answers : frozenset of Question
        The questions it answers (each a :class:`Question` or its word: ``route``, ``reach``, ``batch``,
        ``planner``, ``travel``, ``grid``); held as members.
    pousa_roads : bool
        Whether its maps draw roads as chains of Pousas.
    road_classes : tuple of str
        The classes a road must have (none: any).
    """

    name: str
    edge_kinds: tuple[str, ...]
    actor: Callable[..., object] | None = None
    answers: frozenset[Question] | frozenset[str] = frozenset()
    pousa_roads: bool = False
    road_classes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.answers, str) or not isinstance(self.answers, set | frozenset | tuple | list):
            raise params.refused("answers", "a set of questions (eidomap.record.rulesets.Question)", self.answers)
        object.__setattr__(self, "answers", frozenset(Question.checked(q, "answers") for q in self.answers))


_RULE_SETS: dict[str, RuleSet] = {}


def register(rule_set: RuleSet) -> None:
    """Make ``rule_set`` known by its name.

    Parameters
    ----------
    rule_set : RuleSet
        The rule set.

    Raises
    ------
    RequestError
        For a name that is not a word or is already known (:func:`unregister` it first), or a network without
        ``"border"`` edges.

    See Also
    --------
    unregister : Forget one.

    Examples
    --------
    >>> import dataclasses
    >>> register(dataclasses.replace(get("eido"), name="house"))
    >>> names()
    ('eido', 'd20', 'house')
    >>> unregister("house")
    """
    rule_set = params.instance(rule_set, "rule_set", RuleSet)
    if not isinstance(rule_set.name, str) or not rule_set.name.isidentifier():
        raise RequestError(f"a rule set's name is a word (letters, digits, '_'), got {rule_set.name!r}")
    if rule_set.name in _RULE_SETS:
        raise RequestError(f"a rule set named {rule_set.name!r} is already registered")
    if "border" not in rule_set.edge_kinds:
        raise RequestError(f"rule set {rule_set.name!r}: its network must have the 'border' edges (movement goes"
                           " across shared borders)")
    _RULE_SETS[rule_set.name] = rule_set


def unregister(name: str) -> None:
    """Forget the rule set ``name``.

    Parameters
    ----------
    name : str
        Its name.

    Raises
    ------
    RequestError
        When no rule set has that name.

    See Also
    --------
    register : Make one known.

    Examples
    --------
    >>> import dataclasses
    >>> register(dataclasses.replace(get("d20"), name="variant"))
    >>> unregister("variant")
    >>> "variant" in names()
    False
    """
    _RULE_SETS.pop(get(name).name)


def names() -> tuple[str, ...]:
    """The names of the rule sets known, in the order they were registered.

    Returns
    -------
    tuple of str
        ``('eido', 'd20')`` and any registered since.

    See Also
    --------
    get : One by name.

    Examples
    --------
    >>> names()[:2]
    ('eido', 'd20')
    """
    return tuple(_RULE_SETS)


def get(name: str) -> RuleSet:
    """The rule set ``name``.

    Parameters
    ----------
    name : str
        Its name.

    Returns
    -------
    RuleSet
        The rule set.

    Raises
    ------
    RequestError
        When no rule set has that name (the message names those known).

    See Also
    --------
    require : The rule set, when it answers a question.

    Examples
    --------
    >>> sorted(str(q) for q in get("eido").answers)
    ['batch', 'planner', 'reach', 'route']
    """
    try:
        return _RULE_SETS[name]
    except (KeyError, TypeError):
        raise RequestError(f"rules must be one of {', '.join(_RULE_SETS)}, got {name!r}") from None


def require(name: str, question: Question | str, where: object) -> RuleSet:
    """The rule set ``name`` when it answers ``question``.

    Parameters
    ----------
    name : str
        The map's rule set.
    question : Question or str
        The answer asked for (``"route"``, ``"travel"``...).
    where : object
        The map (its path or name), for the message.

    Returns
    -------
    RuleSet
        The rule set.

    Raises
    ------
    RequestError
        Saying that the map ``where`` is drawn for rules that do not answer ``question``, and which rule sets
        do.

    See Also
    --------
    get : The rule set, whatever it answers.

    Examples
    --------
    >>> require("d20", "travel", "map.geojson").name
    'd20'
    >>> require("d20", "route", "map.geojson")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: map.geojson: the map is drawn for the d20 rules, and route applies ...
    """
    rule_set = get(name)
    question = Question.checked(question, "question")
    if question not in rule_set.answers:
        others = [r.name for r in _RULE_SETS.values() if question in r.answers]
        raise RequestError(f"{shown(where)}: the map is drawn for the {name} rules, and {question}"
                           f" applies the {' or '.join(others) or 'no'} rules (the {name} rules answer:"
                           f" {', '.join(sorted(rule_set.answers)) or 'nothing'})")
    return rule_set
