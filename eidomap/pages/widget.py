"""The planner page in a notebook: a widget whose plan comes back to Python (``eidomap.PlannerWidget``).

The widget shows the page :func:`eidomap.pages.planner.planner` writes -- the same scripts, style and data, run by
the widget's script (``eidomap/data/planner/widget.mjs``, on `anywidget <https://anywidget.dev>`_) -- and keeps
the page's plan and the widget's traits in step both ways: a trait set in Python restores the plan on the board,
as the page's link and its undo do; a click on the board (or the page's controls, or its undo) sets the traits
the plan changed.  ``route`` is what :func:`eidomap.route` answers for the traits, computed in Python.

Needs the ``widget`` extra (``pip install "eidomap[widget]"``): without anywidget, importing this module raises
an :class:`ImportError` saying so, and :func:`eidomap.planner` still writes and shows the page.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from eidomap.answers.routing import Route, route
from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.model.map import Map
from eidomap.pages.planner import default_species, planner
from eidomap.rules.actors import resolve_actor

#: What to install for the widget.
INSTALL = 'pip install "eidomap[widget]"'

try:
    import anywidget
    import traitlets
except ImportError as exc:
    raise ImportError(f"eidomap.PlannerWidget needs anywidget (the widget extra): {INSTALL}", name=exc.name) from exc

#: The traits that make the plan, in the order the page's controls say them.
PLAN = ("start", "goal", "stops", "species", "mount", "companions", "partial", "rolls", "dice")


class PlannerWidget(anywidget.AnyWidget):
    """The planner page of an Eido map as a notebook widget, its plan in traits kept in step with the board.

    Set a trait and the board shows it (``w.goal = "porto-norte"``); click the board, or change the page's
    controls, and the traits follow.  A value the map cannot take is refused (a ``traitlets.TraitError`` naming
    the trait and what is wrong), and the trait keeps its value.  Change several at once with
    ``w.hold_trait_notifications()`` (a mount and the species who rides it).

    Parameters
    ----------
    m : Map
        An Eido map (rule set ``eido``), of at most :data:`~eidomap.pages.planner.MAX_PAGE_EIDOS` Eidos.
    start, goal : str, optional
        Eido or Pousa ids (None: not chosen yet; the page asks for a click).
    stops : sequence of str
        Eidos or Pousas to go through, in order (``via`` of :func:`eidomap.route`).
    species : str, optional
        Who moves (default: ``human`` when the catalog has it, else its first species).
    mount : str, optional
        A species ridden (None: on foot).
    companions : sequence of str
        Species travelling alongside (the party moves at its slowest).
    partial : {"carry", "forbid"}
        A step that does not fit the points left: carry the debt, or wait for the next turn.
    rolls : sequence of int
        The rolls of turns 1, 2, ... (empty: the arrival odds under the dice).
    dice : str
        The roll each turn (``NdM+K``).
    title : str, optional
        The page's title (default: the map's name).

    Attributes
    ----------
    route : Route or None
        What :func:`eidomap.route` answers for the traits now (None without a start and a goal); read-only, and
        observable (``w.observe(fn, "route")``).
    map : Map
        The map.

    Raises
    ------
    ImportError
        Without anywidget (``pip install "eidomap[widget]"``).
    RequestError
        For a map drawn for another rule set or too big for a page (as :func:`eidomap.planner`).
    traitlets.TraitError
        For a plan the map cannot take (an unknown id or species, dice it cannot read, a roll they cannot give).

    See Also
    --------
    eidomap.planner : The same page as one HTML file.
    eidomap.route : What ``route`` holds.

    Examples
    --------
    >>> import eidomap
    >>> w = eidomap.PlannerWidget(eidomap.load(eidomap.demo_map_path()), start="bouza-vella", rolls=[3, 5, 2, 6])
    >>> w.route is None
    True
    >>> w.goal = "porto-norte"
    >>> w.route.arrival_turn
    2
    """

    _esm = resources.files("eidomap").joinpath("data", "planner", "widget.mjs").read_text(encoding="utf-8")
    #: The page (``eidomap planner``'s HTML): the widget's script runs it in a frame.
    _page = traitlets.Unicode().tag(sync=True)

    start = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    goal = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    stops = traitlets.List(traitlets.Unicode()).tag(sync=True)
    species = traitlets.Unicode().tag(sync=True)
    mount = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    companions = traitlets.List(traitlets.Unicode()).tag(sync=True)
    partial = traitlets.Enum(("carry", "forbid"), "carry").tag(sync=True)
    rolls = traitlets.List(traitlets.Int()).tag(sync=True)
    dice = traitlets.Unicode("1d6").tag(sync=True)
    route = traitlets.Instance(Route, allow_none=True, read_only=True)

    def __init__(self, m: Map, *, start: str | None = None, goal: str | None = None, stops=(),
                 species: str | None = None, mount: str | None = None, companions=(), partial: str = "carry",
                 rolls=(), dice: str = "1d6", title: str | None = None) -> None:
        m = params.instance(m, "m", Map)
        self._map = m
        self._answered: tuple[tuple, Route | None] | None = None  # (the plan, its route): the last one asked
        page = planner(m, species, title=title)  # (a map the page cannot show, an unknown species: its error)
        super().__init__(_page=page.html, start=start, goal=goal, stops=list(stops),
                         species=species if species is not None else default_species(m.catalog), mount=mount,
                         companions=list(companions), partial=partial, rolls=list(rolls), dice=dice)

    @property
    def map(self) -> Map:
        """The map the widget plans on."""
        return self._map

    def _plan(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in PLAN}

    def _answer(self, plan: dict[str, Any]) -> Route | None:
        """The route of ``plan`` (None without a start and a goal); a RequestError for a plan the map cannot take.
        The last plan asked is kept: each trait of a change of several checks the same plan."""
        key = tuple(tuple(v) if isinstance(v, list) else v for v in plan.values())
        if self._answered is not None and self._answered[0] == key:
            return self._answered[1]
        m = self._map
        options = {"mount": plan["mount"], "party": plan["companions"] or None, "dice": plan["dice"]}
        who = resolve_actor(m, plan["species"], "route", **{k: v for k, v in options.items() if v is not None})
        for v in [plan["start"], plan["goal"], *plan["stops"]]:
            if v is not None:
                m.node_index(v)  # (an id the map lacks: its one line, before a route is asked)
        for r in plan["rolls"]:
            who.dice.check_roll(r)
        answer = None
        if plan["start"] is not None and plan["goal"] is not None:
            answer = route(m, plan["start"], plan["goal"], who, via=plan["stops"], rolls=plan["rolls"] or None,
                           partial=plan["partial"])
        self._answered = (key, answer)
        return answer

    @traitlets.validate(*PLAN)
    def _check(self, proposal):
        """A trait's new value, if the plan it makes is one the map can take."""
        name = proposal["trait"].name
        try:
            self._answer({**self._plan(), name: proposal["value"]})
        except RequestError as exc:  # (named by the trait, unless the message starts with its name)
            said = str(exc)
            raise traitlets.TraitError(said if said.partition(" ")[0] == name else f"{name}: {said}") from exc
        return proposal["value"]

    @traitlets.observe(*PLAN)
    def _replan(self, change) -> None:
        self.set_trait("route", self._answer(self._plan()))
