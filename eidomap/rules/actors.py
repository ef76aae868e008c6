"""Who moves on a map, asked of the map's rule set: the one way an answer gets its actor.

A map names its rule set (``m.rules``); the rule set's ``actor`` (a callable
:mod:`eidomap.record.rulesets` holds, registered by the rules) makes the mover
from a name -- under the Eido rules a species of the catalog, perhaps riding,
with companions or other dice.  Every answer that moves someone over a map's
network -- a route, a reach, a batch, the planner page, the ``unreachable``
check -- asks here, so that a map drawn for a third rule set is answered with
that rule set's costs, or refused in its words, never with the Eido costs.

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> resolve_actor(m, "human", "reach", mount="horse").name
'human on horse'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.names import shown
from eidomap.model.map import Map
from eidomap.record import rulesets
from eidomap.record.record import MapRecord
from eidomap.rules.eido import Actor

__all__ = ["resolve_actor"]

#: What an ``m`` parameter takes, for its message.
_A_MAP = "a Map (eidomap.load) or a MapRecord (m.record)"


def resolve_actor(m: Map | MapRecord, who: Actor | str, question: str | None = "route", **options: object) -> Actor:
    """The actor who moves: ``who`` as given, or made by the map's rule set from a name.

    Parameters
    ----------
    m : Map or MapRecord
        The map, whose rule set and catalog are used.
    who : Actor or str
        An :class:`~eidomap.rules.eido.Actor`, or a name the rule set's actor takes (under the Eido rules a
        species of the map's catalog).
    question : str or None
        The answer asked for (``"route"``, ``"reach"``, ``"batch"``...): the map's rule set must give it; None
        asks for the actor alone (the ``unreachable`` check of :func:`eidomap.validate.checks.validate`).
    **options
        The rule set's own words for who moves, passed to its actor with a name (the Eido rules': ``mount``,
        ``party``, ``gifts``, ``vmv``, ``dice``; see :func:`eidomap.rules.eido.actor`).

    Returns
    -------
    Actor
        The actor, with its cost table and dice.

    Raises
    ------
    RequestError
        When the map's rule set does not answer ``question`` (:func:`eidomap.record.rulesets.require`), has no
        actor, or takes none of an option given; when ``who`` is neither an Actor nor a name, or the rule set's
        actor refuses it (a species not in the catalog); for options given with an Actor.
    TypeError
        When the rule set's actor gives something that is not an :class:`~eidomap.rules.eido.Actor`.

    See Also
    --------
    eidomap.record.rulesets.require : The rule set, when it answers a question.
    eidomap.rules.eido.actor : The Eido rules' actor.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> a = resolve_actor(m, "human")
    >>> a.name, a.vmv, str(a.dice)
    ('human', 0, '1d6')
    >>> resolve_actor(m, "human", dice="2d6").largest_budget
    12
    """
    if not isinstance(m, (Map, MapRecord)):
        raise params.refused("m", _A_MAP, m)
    where = m.path or m.name
    rule_set = rulesets.get(m.rules) if question is None else rulesets.require(m.rules, question, where)
    if isinstance(who, str):
        if rule_set.actor is None:
            others = [name for name in rulesets.names() if rulesets.get(name).actor is not None]
            raise RequestError(f"{shown(where)}: the map is drawn for the {rule_set.name} rules, which have no actor"
                               f" (who moves over the map's network, and what each step costs) to make"
                               f" {shown(who, quoted=True)} of: the {' and '.join(others) or 'no'} rules have one")
        _check_options(rule_set.actor, options, rule_set.name, where)
        made = rule_set.actor(m.catalog, who, **options)
        if not isinstance(made, Actor):  # (the rule set's own mistake, not the caller's)
            raise TypeError(f"the {rule_set.name} rules' actor gave {type(made).__name__}, not an Actor"
                            " (eidomap.rules.eido.Actor)")
        return made
    if options:
        name = next(iter(options))
        raise RequestError(f"{name} goes with a name of who moves, not with an Actor (it is made already)",
                           param=name)
    return params.instance(who, "who", Actor, "an Actor (eidomap.rules.eido.actor) or a species name")


def _check_options(actor: Callable[..., object], options: dict[str, object], rules: str, where: object) -> None:
    """Refuse, naming it, an option the rule set's actor does not take (its parameters after the catalog and the
    name), before the actor is asked."""
    if not options:
        return
    found = list(inspect.signature(actor).parameters.values())
    if any(p.kind is p.VAR_KEYWORD for p in found):
        return
    takes = [p.name for p in found[2:] if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for name in options:
        if name not in takes:
            said = f"only {', '.join(takes)}" if takes else "a name alone"
            raise RequestError(f"{name} does not apply: {shown(where)} is drawn for the {rules} rules, whose actor"
                               f" takes {said}", param=name)
