"""Plan movement on a map: routes with turn-by-turn itineraries, and reachability.

Plain functions over a :class:`~eidomap.model.map.Map`, returning dataclasses.

>>> import eidomap
>>> from eidomap.answers.routing import route
>>> m = eidomap.load(eidomap.demo_map_path())
>>> r = route(m, "porto-norte", "aldea-do-cabo", "human", rolls=[3, 5, 2, 6, 4, 4, 1, 6])
>>> r.arrival_turn, [t.end for t in r.turns]
(4, ['estreito', 'cd-6', 'cd-9', 'aldea-do-cabo'])
>>> route(m, "porto-norte", "porto-sur", "horse").reason
'horse cannot enter sea: porto-sur lies beyond'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import partial as bind  # (``partial`` is the step rule, a parameter of route and reach)
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.modes import Partial
from eidomap.base.names import plural, shown
from eidomap.model.map import Map
from eidomap.model.network import KIND, KINDS, LAYERS, CostTable
from eidomap.record.catalog import MAX_NUMBER
from eidomap.rules.actors import resolve_actor
from eidomap.rules.dice import budget_pmf
from eidomap.rules.eido import Actor
from eidomap.search.arrival import arrival_cdf, arrival_within, expected_turns
from eidomap.search.policy import forbid_policy, forbid_reach
from eidomap.search.stops import through_stops
from eidomap.search.ties import cheapest_path
from eidomap.search.turns import earliest, payable, simulate, soonest_route
from eidomap.search.weighted import EPS, dijkstra, entry_offsets, node_thresholds, threshold_steps, threshold_to

if TYPE_CHECKING:
    import pandas as pd

    from eidomap.model.network import Network

__all__ = ["MAX_DEBT", "MAX_TURNS", "Leg", "Reach", "Route", "Step", "Turn", "reach", "reach_rolls", "route", "weight"]

#: What a ``start`` or ``goal`` parameter takes, for its message.
_ID = "an Eido or Pousa id (text)"
#: Longest arrival distribution reported (turns).
MAX_TURNS = 10_000
#: Largest debt carried into a route's first turn: what is left of one step's cost, which the catalog bounds.
MAX_DEBT = MAX_NUMBER


@dataclass(frozen=True)
class Step:
    """One step of a route: the node stepped into, how, and its PtMv.

    Attributes
    ----------
    node : str
        The Eido, Pousa or teleport hub (``"@teleport"``) stepped into.
    kind : str
        How: ``"start"`` (the first step of a path: where it begins), ``"border"``, ``"board"`` (onto a road),
        ``"road"``, ``"alight"``, ``"teleport"``... (the edge kinds of the map's rule set).
    cost : float
        The PtMv the step costs the actor.
    """

    node: str
    kind: str
    cost: float


@dataclass(frozen=True)
class Turn:
    """One turn of an itinerary.

    Attributes
    ----------
    turn : int
        Its number, from 1.
    roll : int
        The die roll of the turn.
    budget : float
        The PtMv the turn gives: the roll plus the actor's VMv.
    steps : list of Step
        The steps taken in the turn, in order (none while a debt is paid off).
    spent : float
        The PtMv paid in the turn: the debt carried in, then the steps.
    lost : float
        The points left unused at the end of the turn (they are not kept).
    debt_after : float
        The debt carried into the next turn (a step started and not paid for).
    end : str
        The node where the turn ends.
    """

    turn: int
    roll: int
    budget: float
    steps: list[Step]
    spent: float
    lost: float
    debt_after: float
    end: str


@dataclass(frozen=True)
class Leg:
    """One leg of a route through stops: from the start or a stop to the next stop or the goal.

    Attributes
    ----------
    start, goal : str
        Where the leg begins and ends: the start, the stops in order, the goal.
    steps : int
        How many steps of the route's ``path`` the leg takes (0: the leg's goal is where it begins).
    cost : float
        The PtMv of those steps.
    arrival_turn : int or None
        With rolls: the turn the actor is in the leg's goal (0: from the start); None without rolls, or when the
        rolls given end before.
    """

    start: str
    goal: str
    steps: int
    cost: float
    arrival_turn: int | None = None


@dataclass(frozen=True)
class Route:
    """The answer of :func:`route`.

    With rolls, ``turns`` is the itinerary; without, ``p_by_turn`` is the arrival distribution under the dice
    when playing to arrive soonest, and ``path`` the route that play takes (docs/rules.md, "What a route
    answers").  Under the debt rule a route has arrived by turn k exactly when the first k budgets add up to its
    own threshold (the PtMv paid before its last step, rounded up past a point left to start it); ``path`` is,
    of the routes whose threshold is the least (the goal's, from which ``p_by_turn`` is computed), the cheapest,
    then the tie rule's (docs/rules.md, "Ties") -- not always the cheapest route, whose last step may start
    later.  Through ``via`` stops that is one route on the network layered by the stops passed; a ``debt``
    adds to every threshold alike.  When the rolls given run out before the goal, the itinerary walks that same
    route as far as they go.  Under ``forbid``, ``path`` is the likeliest course of the roll-by-roll optimal
    play, and no step dearer than the largest budget the dice can give is ever planned: a goal only such steps
    lead to is not ``reachable``.

    Attributes
    ----------
    start, goal : str
        The ids asked for.
    actor : str
        Who moves, as named (``"human"``, ``"human on horse"``...).
    partial : Partial
        The step rule: carry the debt, or forbid a step the turn cannot pay.
    reachable : bool
        Whether the goal can be reached at all.
    total_cost : float or None
        The PtMv of ``path`` (more than ``cheapest_cost`` when a dearer route arrives sooner).
    cheapest_cost : float or None
        The least PtMv to the goal, by any route.
    path : list of Step
        The route, beginning with the start (kind ``"start"``).
    turns : list of Turn
        With rolls: the itinerary, turn by turn.
    arrival_turn : int or None
        With rolls: the turn the actor is in the goal.
    crossed_turn : int or None
        With rolls: the turn it has finished paying for the step into the goal.
    p_by_turn : list of float
        Without rolls: ``p_by_turn[k - 1]`` is P(arrived by turn k).
    expected_turns : float or None
        Without rolls: the mean arrival turn.
    best_turns, worst_turns : int or None
        Without rolls: the fewest and most turns the dice can make it.
    dice : str
        The actor's dice (``"1d6"``).
    vmv : int
        The actor's VMv, added to every roll.
    reason : str or None
        When the goal cannot be reached: why, in one sentence.
    via : list of str
        The stops the route goes through, in order.
    debt : int
        The debt carried into the first turn (PtMv still owed for the start), paid before any step.
    legs : list of Leg
        The route's legs: from the start to the first stop, from stop to stop, from the last stop to the goal (one
        leg without stops); none when the goal cannot be reached.
    """

    start: str
    goal: str
    actor: str
    partial: Partial
    reachable: bool
    total_cost: float | None = None
    cheapest_cost: float | None = None
    path: list[Step] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    arrival_turn: int | None = None
    crossed_turn: int | None = None
    p_by_turn: list[float] = field(default_factory=list)
    expected_turns: float | None = None
    best_turns: int | None = None
    worst_turns: int | None = None
    dice: str = "1d6"
    vmv: int = 0
    reason: str | None = None
    via: list[str] = field(default_factory=list)
    debt: int = 0
    legs: list[Leg] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The route as plain data: what ``eidomap route --json`` prints.

        Returns
        -------
        dict
            Its fields by name (``start`` as ``"from"``, ``goal`` as ``"to"``, in the route and in each leg).
        """
        out = asdict(self)
        for part in (out, *out["legs"]):
            part["from"] = part.pop("start")
            part["to"] = part.pop("goal")
        for key in ("total_cost", "cheapest_cost", "expected_turns"):
            if out[key] is not None and not np.isfinite(out[key]):
                out[key] = None
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per step of ``path`` (a pandas DataFrame; ``id`` joins it to :meth:`Map.to_geodataframe
        <eidomap.Map.to_geodataframe>`).

        Returns
        -------
        pandas.DataFrame
            Columns ``step`` (0 is the start), ``id``, ``kind``, ``cost``, ``total`` (PtMv so far) and, with rolls,
            ``turn`` (the turn taking the step; 0 for the start, None beyond the rolls given).
        """
        from eidomap.model.frames import frame

        cols = {"step": range(len(self.path)), "id": [s.node for s in self.path], "kind": [s.kind for s in self.path],
                "cost": [s.cost for s in self.path], "total": np.cumsum([s.cost for s in self.path])}
        if self.turns:  # the turns take the steps in order; those beyond the rolls given have none
            taken = [0] + [t.turn for t in self.turns for _ in t.steps]
            cols["turn"] = taken + [None] * (len(self.path) - len(taken))
        return frame(cols)


@dataclass(frozen=True)
class Reach:
    """The answer of :func:`reach` and :func:`reach_rolls`: per Eido, a debt, a probability or a turn.

    Attributes
    ----------
    start : str
        The node the actor starts from.
    actor : str
        Who moves, as named.
    partial : Partial
        The step rule.
    roll : int or None
        The roll asked for (:func:`reach` with ``roll``).
    turns : int or None
        The turns asked for (:func:`reach` with ``turns``).
    debt : dict of str to float
        With ``roll``: each Eido where the turn can end, with the least debt carried there.
    p_within : dict of str to float
        With ``turns``: every Eido, with P(arrived there within ``turns`` turns).
    arrival_turn : dict of str to int
        From :func:`reach_rolls`: each Eido reached, with the first turn the actor can be in it.
    """

    start: str
    actor: str
    partial: Partial
    roll: int | None = None
    turns: int | None = None
    debt: dict[str, float] = field(default_factory=dict)
    p_within: dict[str, float] = field(default_factory=dict)
    arrival_turn: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The answer as plain data: what ``eidomap reach --json`` prints.

        Returns
        -------
        dict
            ``from``, ``actor``, ``partial`` and what was asked: ``roll`` and ``reachable`` (the debts),
            ``turns`` and ``p_within``, or ``arrival_turn``.
        """
        out: dict[str, Any] = {"from": self.start, "actor": self.actor, "partial": self.partial}
        if self.roll is not None:
            out["roll"] = self.roll
            out["reachable"] = self.debt
        if self.turns is not None:
            out["turns"] = self.turns
            out["p_within"] = self.p_within
        if self.arrival_turn:
            out["arrival_turn"] = self.arrival_turn
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per Eido reached (a pandas DataFrame; ``id`` joins it to :meth:`Map.to_geodataframe
        <eidomap.Map.to_geodataframe>`).

        Returns
        -------
        pandas.DataFrame
            ``id`` and the column the Reach holds: ``p_within`` (every Eido), ``debt`` or ``arrival_turn``
            (the Eidos reached).
        """
        from eidomap.model.frames import frame

        name = next((k for k in ("p_within", "debt", "arrival_turn") if getattr(self, k)), "p_within")
        values = getattr(self, name)
        return frame({"id": list(values), name: list(values.values())})


def plan_table(a: Actor, carry: bool) -> CostTable:
    """The actor's PtMv table for a plan under the step rule.

    Under ``forbid`` a step dearer than the largest budget the dice can give is never planned: its cost is
    ``inf`` in the table.  The searches take the table as it is; gathered per edge, it gives
    :func:`plan_weights`.

    Parameters
    ----------
    a : Actor
        Who moves.
    carry : bool
        True under the debt rule (``partial="carry"``), False under ``forbid``.

    Returns
    -------
    CostTable
        The PtMv of each kind of step (rows) into each terrain (columns); ``inf`` where the actor cannot go.

    See Also
    --------
    plan_weights : The same costs on every edge of a map's network.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> plan_table(resolve_actor(m, "human"), carry=True).array.shape  # kinds of step x terrain codes
    (9, 19)
    """
    a = params.instance(a, "a", Actor, "an Actor (eidomap.rules.eido.actor)")
    return CostTable(payable(a.table, a.largest_budget, params.flag(carry, "carry")))


def plan_weights(m: Map, a: Actor, carry: bool) -> np.ndarray:
    """The actor's PtMv on every edge of ``m.network`` that a plan under the step rule may use.

    Parameters
    ----------
    m : Map
        The map.
    a : Actor
        Who moves.
    carry : bool
        True under the debt rule, False under ``forbid`` (see :func:`plan_table`).

    Returns
    -------
    numpy.ndarray of float
        One PtMv per edge of the network, ``inf`` where the actor cannot step.

    See Also
    --------
    plan_table : The costs by kind of step and terrain.
    weight : The same costs as a NetworkX weight function.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> w = plan_weights(m, resolve_actor(m, "human"), carry=True)
    >>> w.shape == m.network.dst.shape
    True
    """
    table = plan_table(a, carry)
    return params.instance(m, "m", Map).network.edge_weights(table)


def weight(m: Map, who: Actor | str = "human",
           partial: Partial | str = Partial.CARRY) -> Callable[[str, str, dict], float | None]:
    """A NetworkX weight function giving the PtMv of a step of ``m.graph`` for ``who``.

    Use it as ``weight=`` in any NetworkX algorithm on :attr:`Map.graph <eidomap.Map.graph>`; a step ``who``
    cannot take weighs ``None`` (NetworkX then leaves it out), and so, under ``partial="forbid"``, does a step
    dearer than its largest roll.  Parallel edges weigh their cheapest.

    Parameters
    ----------
    m : Map
        The map.
    who : Actor or str
        An actor (:func:`eidomap.rules.eido.actor`) or a species name.
    partial : {"carry", "forbid"}
        The step rule (see :func:`eidomap.answers.routing.route`).

    Returns
    -------
    callable
        ``weight(u, v, data)``: the PtMv of the cheapest step from ``u`` to ``v``, or None.

    Raises
    ------
    RequestError
        For an unknown species or step rule.

    See Also
    --------
    eidomap.Map.graph_for : The graph with these costs on its edges.
    eidomap.answers.routing.route : The cheapest route, by a compiled search.

    Examples
    --------
    >>> import eidomap, networkx as nx
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> nx.shortest_path_length(m.graph, "bouza-vella", "porto-norte", weight=eidomap.weight(m, "human"))
    6.0
    """
    m = params.instance(m, "m", Map)
    a = resolve_actor(m, who)
    table = plan_table(a, Partial.checked(partial, "partial").carry)
    names = m.catalog.terrain_names
    column = {name: k for k, name in enumerate(names)} | {None: len(names)}

    def cost(u, v, d) -> float | None:
        edges = [d] if "kind" in d else d.values()
        c = min(float(table.array[KIND[e["kind"]], column[e["terrain"]]]) for e in edges)
        return c if np.isfinite(c) else None

    return cost


def _budgets(a: Actor, rolls) -> tuple[list[int], np.ndarray]:
    rolls = [a.dice.check_roll(r) for r in params.wholes(rolls, "rolls",
                                                          what="whole numbers (the results of turns 1, 2, ...)")]
    return rolls, np.maximum(np.asarray(rolls, dtype=float) + a.vmv, 0.0)


def _check_turns(value: object, name: str) -> int:
    """Turns asked (``turns``, ``max_turns``) are a whole number from 1 to :data:`MAX_TURNS`: the work is bounded."""
    return params.whole(value, name, 1, MAX_TURNS)


def _beyond_horizon(goal: str, cost: float, high: int, max_turns: int, fewest: int | None = None,
                    debt: int = 0) -> str:
    """Why ``goal``, ``cost`` PtMv away (after a ``debt`` carried in), is not reached within ``max_turns`` turns of
    at most ``high`` PtMv.

    ``fewest``: under ``forbid``, the turns the highest roll every turn takes (a step never split between
    turns may lose points at the end of each) -- within ``max_turns`` when only the play that arrives soonest on
    average is later.
    """
    turns = f"{max_turns:,} turn{'s' if max_turns > 1 else ''}"
    owed = f" after a debt of {debt:,} carried in" if debt else ""
    away = f"{shown(goal)} is {cost:,.10g} PtMv away{owed} and a turn gives at most {high}"
    if fewest is None or cost + debt > max_turns * high:
        return f"{away}: more than {turns}"
    if fewest > max_turns:
        return f"{away}, a step never split between two turns: {fewest:,} turns at the least, more than {turns}"
    return (f"the play that arrives soonest on average takes more than {turns} to {goal}, even with the highest"
            f" rolls; another play can arrive in {fewest:,} (reach with turns={max_turns:,} gives its best chance)")


def _entered(net: Network, v: int) -> str:
    """What a step into node ``v`` enters, in words."""
    layer = LAYERS[net.node_layer[v]]
    if layer == "eido":
        return shown(str(net.terrain_names[net.node_terrain[v]]))
    return "the roads" if layer == "pousa" else "the fountains (no teleport gift)"


def _words(names: list[str]) -> str:
    names = [shown(n) for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def unreachable_reason(m: Map, a: Actor, start: int, goal: int, carry: bool) -> str:
    """One sentence on why ``goal`` cannot be reached from ``start``.

    Of the ways across the map (every border, road and teleport, whoever
    moves), the one with the fewest steps ``a`` cannot take names them: the
    terrains it cannot enter -- or, under ``forbid``, enters only at a cost
    above its largest roll -- and whether that is the goal's own terrain.
    """
    net = m.network
    ids = net.node_ids
    raw = a.weights(net)
    plan = payable(raw, a.largest_budget, carry)
    blocked = ~np.isfinite(plan)
    toll = np.where(blocked, 1.0, 1e-6)  # the fewest blocked steps first, then the fewest steps
    dist = dijkstra(net, toll, start)
    goal_id = shown(ids[goal])
    if not np.isfinite(dist[goal]):
        return f"no border, road or teleport leads from {shown(ids[start])} to {goal_id} at all"
    edges = [e for e in cheapest_path(net, toll, dist, start, goal) if blocked[e]]
    # (a step off the start's Pousa into a terrain the unit enters is closed by the roads, not by that terrain;
    # a Pousa further on is closed to it as "the roads" already)
    table = np.asarray(a.table)
    off_roads = [e for e in edges if net.src[e] == start and net.kind[e] == KIND["alight"]
                 and np.isfinite(table[KIND["border"], net.node_terrain[net.dst[e]]])]
    closed = [w for w in dict.fromkeys(_entered(net, int(net.dst[e])) for e in edges
                                       if not np.isfinite(raw[e]) and e not in off_roads)
              if not (off_roads and w == "the roads")]
    dear = [e for e in edges if np.isfinite(raw[e])]
    cannot = [f"use the roads, where its start {shown(ids[start])} lies"] if off_roads else []
    cannot += [f"enter {_words(closed)}"] if closed else []
    parts = [f"{shown(a.name)} cannot {', and cannot '.join(cannot)}"] if cannot else []
    if dear:
        names = list(dict.fromkeys(_entered(net, int(net.dst[e])) for e in dear))
        low, high = min(raw[dear]), max(raw[dear])
        cost = f"{low:g} PtMv" if low == high else f"{low:g} PtMv or more"
        parts.append(f"under forbid a step into {_words(names)} costs {cost}, more than the {a.largest_budget}"
                     " a turn can give")
    own = not np.isfinite(plan[net.dst == goal]).any()
    return "; ".join(parts) + (f": {_itself(net, goal, goal_id)}" if own else f": {goal_id} lies beyond")


def _itself(net: Network, v: int, name: str) -> str:
    """The goal's own way in, said when no step into it can be taken: its terrain, the roads or a fountain."""
    layer = LAYERS[net.node_layer[v]]
    if layer == "eido":
        return f"the terrain of {name} is {_entered(net, v)}"
    return f"{name} lies on the roads" if layer == "pousa" else f"{name} is a fountain"


def _course_edges(net: Network, w, course: list[int], reach: float = np.inf) -> list[int]:
    """The cheapest steps from each turn end of ``course`` to the next (the tie rule's: :mod:`eidomap.search.ties`).

    ``reach``: the most any step of the course costs (the largest budget, each turn end being within a turn's
    reach of the one before), when known: the search from each turn end stops past it, beyond every node
    :func:`~eidomap.search.ties.cheapest_path` reads (those within :data:`EPS` of the next turn end's cost, and
    the tight steps into them), and gives it the same costs.
    """
    edges: list[int] = []
    for a, b in pairwise(course):
        edges += cheapest_path(net, w, dijkstra(net, w, a, limit=reach + 3 * EPS), a, b)
    return edges


def _steps(net: Network, w, start: int, edges: list[int]) -> list[Step]:
    """The path's steps; ``w``: edge weights or a table."""
    cost = net.weights_of(np.asarray(edges, dtype=np.intp), w).tolist()
    out = [Step(str(net.node_ids[start]), "start", 0.0)]
    out += [Step(str(net.node_ids[net.dst[e]]), KINDS[net.kind[e]], c) for e, c in zip(edges, cost, strict=True)]
    return out


def route(m: Map, start: str, goal: str, who: Actor | str = "human", *, via: Iterable[str] = (), debt: int = 0,
          rolls: Iterable[int] | None = None, partial: Partial | str = Partial.CARRY,
          max_turns: int = MAX_TURNS) -> Route:
    """Plan a route from Eido ``start`` to Eido ``goal``, through stops on the way.

    Parameters
    ----------
    m : Map
        The map.
    start, goal : str
        Eido or Pousa ids (a turn can end on a Pousa, and the next start there).
    who : Actor or str
        The moving unit (see :func:`eidomap.rules.eido.actor`) or a species name.
    via : sequence of str
        Eidos or Pousas to go through, in this order (at most 100), on the way
        to ``goal``.  The turns go on across a stop as across any Eido -- one reached mid-turn leaves the rest of
        the turn's points for the way on, and a debt still owed is paid off after it -- and the answer is the best
        journey through them all, not a chain of legs each best on its own (docs/rules.md, "A debt carried in, and
        stops on the way").
    debt : int
        PtMv still owed for the start when the first turn begins (an Eido not finished last turn: docs/rules.md,
        as above), from 0 to :data:`~eidomap.answers.routing.MAX_DEBT` (1,000,000): paid first out of the rolls,
        before any step.  Under ``partial="forbid"`` no step leaves a debt: only 0.
    rolls : sequence of int, optional
        The dice results of turns 1, 2, ... known in advance.  The route returned arrives soonest and, among
        those, costs least, with its itinerary; when the rolls run out first, the itinerary goes as far as they
        allow, along the route drawn without rolls under the debt rule (docs/rules.md).  Without rolls: the exact
        arrival distribution under the dice, and the route it describes (see :class:`Route`).
    partial : {"carry", "forbid"}
        A step that does not fit the points left: start it and carry the debt (the Eido rules), or wait for
        the next turn and lose the remainder.
    max_turns : int
        The horizon of the arrival distribution (1 to :data:`~eidomap.answers.routing.MAX_TURNS`): a goal not
        even the highest rolls reach within it -- under ``forbid``, by the play the route describes -- is not
        ``reachable``, and the ``reason`` says so.

    Returns
    -------
    Route
        The route, with its ``legs``; ``reachable`` False, with the ``reason``, when the goal cannot be reached.

    Raises
    ------
    RequestError
        For an unknown Eido (start, goal or stop) or species, a roll the dice cannot give, a ``debt`` or
        ``max_turns`` out of range, or a map whose rule set plans no routes (a d20 map:
        :func:`eidomap.answers.overland.travel`).

    See Also
    --------
    reach : Where the actor can be after one roll, or within K turns.
    reach_rolls : The first turn in every Eido, with given rolls.
    eidomap.plot.plot_route : Draw the route.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> r = route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6])
    >>> r.arrival_turn, r.total_cost
    (2, 6.0)
    >>> [s.node for s in r.turns[0].steps], r.turns[0].end
    (['cr-4', 'cr-5', 'cr-6'], 'cr-6')

    Without rolls, the arrival turn under the dice:

    >>> d = route(m, "bouza-vella", "porto-norte", "human")
    >>> d.best_turns, d.worst_turns, round(d.expected_turns, 3)
    (1, 6, 2.161)
    >>> route(m, "bouza-vella", "porto-sur", "horse").reason
    'horse cannot enter sea: porto-sur lies beyond'

    Through a stop, with 2 PtMv still owed for the start (turn 1 pays them, then starts into Monte Louro):

    >>> r = route(m, "bouza-vella", "porto-norte", "human", via=["monte-louro"], debt=2, rolls=[3, 5, 2, 6, 4])
    >>> [(leg.goal, leg.arrival_turn) for leg in r.legs], r.turns[0].debt_after
    ([('monte-louro', 1), ('porto-norte', 4)], 3.0)
    """
    partial = Partial.checked(partial, "partial")
    carry = partial.carry
    _check_turns(max_turns, "max_turns")
    m = params.instance(m, "m", Map)
    a = resolve_actor(m, who, "route")
    start, goal = (params.text(v, name, _ID) for v, name in ((start, "start"), (goal, "goal")))
    stops = [params.text(v, "via", _ID) for v in params.listed(via, "via", "Eido or Pousa ids")]
    debt = params.whole(debt, "debt", 0, MAX_DEBT)
    if debt and not carry:
        raise RequestError(f"debt must be 0 under partial='forbid', got {debt}: a step starts only when the turn pays"
                           " all of it, so no debt is ever carried (docs/rules.md)", param="debt")
    played = None if rolls is None else _budgets(a, rolls)  # (checked here: a goal out of reach is no excuse)
    table = plan_table(a, carry)  # gathered into the search's CSR: no pass over every edge
    s, g = m.node_index(start), m.node_index(goal)
    at = [m.node_index(v) for v in stops]
    net = m.network
    layers = 1
    if at:  # the journey through the stops is one route on the network layered by the stops passed
        layered = through_stops(net, at)
        net, s, g, layers = layered.network, layered.start(s), layered.goal(g), layered.layers
    dist = dijkstra(net, table, s)
    answer = bind(Route, str(start), str(goal), a.name, partial, dice=str(a.dice), vmv=a.vmv, via=stops, debt=debt)
    if not np.isfinite(dist[g]):
        return answer(False, reason=_unreachable_leg(m, a, [m.node_index(start), *at, m.node_index(goal)], carry))
    cheapest = float(dist[g])
    legs = bind(_legs, [str(start), *stops, str(goal)], net, layers, s)
    if played is not None:
        return _route_with_rolls(bind(answer, True, cheapest_cost=cheapest), net, net.edge_weights(table), s, g,
                                 played, dist, carry, debt, legs)
    pmf = budget_pmf(a.dice, a.vmv)
    if s == g:
        path = _steps(net, table, s, [])
        return answer(True, cheapest_cost=cheapest, total_cost=0.0, path=path, arrival_turn=0,
                      expected_turns=0.0, best_turns=0, worst_turns=0, legs=legs([], path))
    high = a.largest_budget
    if carry:
        theta = threshold_to(net, dist, table, g) + debt  # the debt is paid first: the rolls must add up to both
        low = int(np.flatnonzero(pmf)[0])
        if theta > max_turns * high:  # not even the highest rolls get there within the horizon
            return answer(False, cheapest_cost=cheapest,
                          reason=_beyond_horizon(goal, cheapest, high, max_turns, debt=debt))
        worst = max(1, int(np.ceil(theta / low))) if low > 0 else None
        p = arrival_cdf(pmf, np.array([theta]), min(max_turns, worst or max_turns))[:, 0]
        if worst is None:
            done = np.flatnonzero(p >= 1.0 - 1e-12)
            p = p[: done[0] + 1] if len(done) else p
        p_by_turn: list[float] = p.tolist()
        expected = float(max(1.0, expected_turns(pmf, [theta])[0]))
        best = max(1, int(np.ceil(theta / high)))
        edges = _soonest_edges(net, table, dist, s, g)
    else:
        w = net.edge_weights(table)
        values = np.flatnonzero(pmf)
        try:
            res = forbid_policy(net, w, s, g, values.astype(float), pmf[values], max_turns)
        except RequestError as exc:  # (its nodes are the layered network's: say so)
            if layers == 1:
                raise
            raise RequestError(f"{exc} (through {plural(len(stops), 'stop')}: the map's {m.network.n_nodes:,} nodes"
                               f" once for each of the {layers} legs)") from None
        if not np.isfinite(res.expected):
            return answer(False, cheapest_cost=cheapest)
        if not res.p_by_turn[-1] > 0:  # never there within the horizon: no arrival to describe, as under carry
            fewest = int(earliest(net, w, s, [high], partial, cycle=True)[0][g])  # the highest roll every turn
            return answer(False, cheapest_cost=cheapest,
                          reason=_beyond_horizon(goal, cheapest, high, max_turns, fewest))
        p_by_turn, expected, worst = [float(v) for v in res.p_by_turn], float(res.expected), res.worst
        positive = np.flatnonzero(np.asarray(res.p_by_turn) > 0)
        best = int(positive[0]) + 1
        edges = _course_edges(net, w, res.course, high)
    path = _steps(net, table, s, edges)
    return answer(True, cheapest_cost=cheapest, total_cost=float(sum(st.cost for st in path)), path=path,
                  p_by_turn=p_by_turn, expected_turns=expected, best_turns=best, worst_turns=worst,
                  legs=legs(edges, path))


def _unreachable_leg(m: Map, a: Actor, nodes: list[int], carry: bool) -> str:
    """Why the route through ``nodes`` (start, stops, goal) cannot be made: the first leg that cannot, said by
    :func:`unreachable_reason` (a journey through stops can be made exactly when each leg can)."""
    table = plan_table(a, carry)
    for x, y in pairwise(nodes):
        if x != y and not np.isfinite(dijkstra(m.network, table, x)[y]):
            said = unreachable_reason(m, a, x, y, carry)
            ids = m.network.node_ids
            return said if len(nodes) == 2 else f"from {shown(str(ids[x]))} to {shown(str(ids[y]))}: {said}"
    raise AssertionError("every leg can be made")  # (the caller found the journey cannot)


def _legs(names: list[str], net: Network, layers: int, s: int, edges: list[int], path: list[Step],
          turns: list[Turn] | None = None) -> list[Leg]:
    """The legs of a route (its ``edges`` on a network of ``layers`` layers, from node ``s``; its ``path``, and
    with rolls its ``turns``): each ends where the route first has passed one more stop, the last at the goal."""
    passed = np.r_[s, net.dst[np.asarray(edges, dtype=np.intp)]] % layers  # stops passed at each node of the path
    ends = [0, *np.searchsorted(passed, np.arange(1, layers)).tolist(), len(path) - 1]
    taken = None if turns is None else [0, *(t.turn for t in turns for _ in t.steps)]  # the turn of each step
    return [Leg(names[j], names[j + 1], b - a, float(sum(st.cost for st in path[a + 1 : b + 1])),
                None if taken is None or b >= len(taken) else int(taken[b]))
            for j, (a, b) in enumerate(pairwise(ends))]


def _soonest_edges(net: Network, w: np.ndarray | CostTable, dist: np.ndarray, s: int, g: int) -> list[int]:
    """Under the debt rule, the route without rolls: of the routes that arrive soonest whatever the rolls (those
    whose own arrival threshold is the goal's), the cheapest, the tie rule's (docs/rules.md, "What a route
    answers").  ``w``: the edge weights or the plan's table; ``dist``: the cheapest costs from ``s``."""
    return cheapest_path(net, w, dist, s, g, last=threshold_steps(net, dist, w, g))


def _farthest_edges(net: Network, w: np.ndarray, s: int, g: int, budgets: np.ndarray) -> list[int]:
    """Under ``forbid``, rolls that run out before the goal: as far towards it as they take the actor, then on.

    Of the nodes the rolls can take the actor to, the one the goal is cheapest from (of those, the one it is in
    soonest; then the first): the way that gets there soonest, then the cheapest way on.  (Under the debt rule
    the route drawn without rolls goes as far: with points left, any step starts.)
    """
    from scipy.sparse.csgraph import dijkstra as _dijkstra

    turn = earliest(net, w, s, budgets, Partial.FORBID)[0]
    reached = np.flatnonzero(turn >= 0)
    to_goal = _dijkstra(net.csr(w).T, directed=True, indices=g)[reached]
    far = int(reached[np.lexsort((turn[reached], to_goal))[0]])
    edges, _ = soonest_route(net, w, s, far, budgets, False)
    return [*(edges or []), *_course_edges(net, w, [far, g])]


def _route_with_rolls(answer: Callable[..., Route], net: Network, w, s, g,
                      played: tuple[list[int], np.ndarray], dist, carry: bool, debt: int,
                      legs: Callable[..., list[Leg]]) -> Route:
    """The route with its itinerary: ``answer`` builds it from what is found (the asked fields already bound),
    ``legs`` its legs from its edges, path and turns."""
    rolls, budgets = played
    edges, _ = soonest_route(net, w, s, g, budgets, carry, debt)
    if edges is None:  # not there within these rolls: as far as they go, on the way on
        edges = _soonest_edges(net, w, dist, s, g) if carry else _farthest_edges(net, w, s, g, budgets)
    steps = _steps(net, w, s, edges)
    log, arrival, crossed = simulate([st.cost for st in steps[1:]], rolls, budgets, carry, debt)
    turns = [
        Turn(int(t.turn), int(t.roll), float(t.budget), [steps[k + 1] for k in t.steps], float(t.spent),
             float(t.lost), float(t.debt_after), steps[t.end + 1].node)
        for t in log
    ]
    return answer(path=steps, total_cost=float(sum(st.cost for st in steps)), turns=turns,
                  arrival_turn=int(arrival) if arrival >= 0 else None,
                  crossed_turn=int(crossed) if crossed >= 0 else None, legs=legs(edges, steps, turns))


def reach(m: Map, start: str, who: Actor | str = "human", *, roll: int | None = None, turns: int | None = None,
          partial: Partial | str = Partial.CARRY) -> Reach:
    """Where the actor can be: after one roll, or with what chance within K turns.

    Parameters
    ----------
    m : Map
        The map.
    start : str
        The Eido or Pousa the actor starts from.
    who : Actor or str
        An actor (:func:`eidomap.rules.eido.actor`) or a species name.
    roll : int, optional
        This turn's roll: the Eidos where the actor can end the turn, each with the least debt it would carry
        there.
    turns : int, optional
        For every Eido, the probability of having arrived there within that many turns under the dice (each
        Eido with the play that is best for reaching it).
    partial : {"carry", "forbid"}
        The step rule (see :func:`route`).

    Returns
    -------
    Reach
        ``debt`` (with ``roll``) or ``p_within`` (with ``turns``).

    Raises
    ------
    RequestError
        Unless exactly one of ``roll`` and ``turns`` is given; for an unknown Eido or species, a roll the dice
        cannot give, or ``turns`` out of range (1 to :data:`~eidomap.answers.routing.MAX_TURNS`).

    See Also
    --------
    reach_rolls : The first turn in every Eido, with given rolls.
    route : The way to one goal.
    eidomap.plot.plot_reach : Draw the answer.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> this_turn = reach(m, "porto-sur", "human", roll=4)
    >>> len(this_turn.debt), this_turn.debt["castro"]
    (24, 0.0)
    >>> round(reach(m, "porto-sur", "human", turns=3).p_within["porto-norte"], 4)
    0.9537
    """
    partial = Partial.checked(partial, "partial")
    carry = partial.carry
    if (roll is None) == (turns is None):
        raise RequestError("give exactly one of roll or turns")
    m = params.instance(m, "m", Map)
    a = resolve_actor(m, who, "reach")
    start = params.text(start, "start", _ID)
    net = m.network
    table = plan_table(a, carry)
    s = m.node_index(start)
    n_e = len(m.eido_ids)
    ids = m.eido_ids
    if roll is not None:
        roll = a.dice.check_roll(roll)
        budget = float(max(roll + a.vmv, 0))
        w = net.edge_weights(table)
        dist = dijkstra(net, table, s)
        debt = np.where(dist <= budget + EPS, 0.0, np.inf)
        if carry:  # a last step started with points left, finished next turn
            src = net.src
            ok = np.isfinite(w) & np.where(w > EPS, dist[src] < budget - EPS, dist[src] <= budget + EPS)
            over = np.full(net.n_nodes, np.inf)
            np.minimum.at(over, net.dst[ok], dist[src[ok]] + w[ok] - budget)
            debt = np.minimum(debt, np.maximum(over, 0.0))
        return Reach(str(start), a.name, partial, roll=roll,
                     debt={ids[k]: float(debt[k]) for k in np.flatnonzero(np.isfinite(debt[:n_e]))})
    turns = _check_turns(turns, "turns")
    pmf = budget_pmf(a.dice, a.vmv)
    if carry:
        dist = dijkstra(net, table, s)
        theta = node_thresholds(net, dist, s, entry_offsets(a.table, net))[:n_e]
        p = arrival_within(pmf, theta, turns)
    else:
        values = np.flatnonzero(pmf)
        p = forbid_reach(net, net.edge_weights(table), s, np.arange(n_e), values.astype(float), pmf[values], turns)
    return Reach(str(start), a.name, partial, turns=turns, p_within={ids[k]: float(p[k]) for k in range(n_e)})


def reach_rolls(m: Map, start: str, who: Actor | str = "human", *, rolls: Iterable[int],
                partial: Partial | str = Partial.CARRY, cycle: bool = False) -> Reach:
    """For every Eido, the turn the actor can first be in it with these rolls.

    This is the compiled multi-turn search: one pass gives every Eido.

    Parameters
    ----------
    m : Map
        The map.
    start : str
        The Eido or Pousa the actor starts from.
    who : Actor or str
        An actor (:func:`eidomap.rules.eido.actor`) or a species name.
    rolls : sequence of int
        The rolls of turns 1, 2, ...
    partial : {"carry", "forbid"}
        The step rule (see :func:`route`).
    cycle : bool
        Repeat the rolls (a fixed budget each turn is ``rolls=[b]``).

    Returns
    -------
    Reach
        ``arrival_turn``: each Eido reached, with its first turn.

    Raises
    ------
    RequestError
        For an unknown Eido or species, or a roll the dice cannot give.

    See Also
    --------
    reach : The chance of arriving within K turns, under the dice.
    route : The way to one goal, with its itinerary.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> first = reach_rolls(m, "porto-sur", "human", rolls=[4, 2, 6])
    >>> first.arrival_turn["porto-sur"], first.arrival_turn["agra-de-riba"]
    (0, 3)
    """
    m = params.instance(m, "m", Map)
    a = resolve_actor(m, who, "reach")
    start = params.text(start, "start", _ID)
    _, budgets = _budgets(a, rolls)
    partial = Partial.checked(partial, "partial")
    cycle = params.flag(cycle, "cycle")
    w = plan_weights(m, a, partial.carry)
    arrive, *_ = earliest(m.network, w, m.node_index(start), budgets, partial, cycle=cycle)
    ids = m.eido_ids
    return Reach(str(start), a.name, partial,
                 arrival_turn={ids[k]: int(arrive[k]) for k in np.flatnonzero(arrive[: len(ids)] >= 0)})
