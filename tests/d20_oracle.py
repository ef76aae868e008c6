"""Brute-force oracles of the d20 battle grid, written from the rules' text with no code of eidomap's.

Plain Dijkstra over (square, squares left of the round, diagonal parity) for move and double
rounds, over round ends for a runner's rounds (straight runs, double moves, the full-round
one-square move), and a replay that checks a plan round by round.  The property tests of
tests/rules/d20/test_grid.py compare eidomap's searches with them; ``benchmarks/d20.py`` runs
the same comparison on 20,000 ally-dense grids.

A search asks for the same steps, the same round's costs and the same runs again and again (at each state of a
square, from each of a test's many starts): they are worked out once per grid and kept for the last grids seen,
as read-only mappings and tuples (hypothesis's examples share nothing they could change).
"""

from __future__ import annotations

import heapq
from functools import cache, lru_cache
from itertools import pairwise
from types import MappingProxyType

__all__ = ["HAMPER", "brute_force", "brute_force_journey", "brute_force_run", "check_plan", "full_round_squares",
           "neighbours", "random_rows", "round_costs", "run_lines", "step_cost", "straight", "tie_rule_plan"]

HAMPER = {".": 0, "a": 0, "e": 0, "d": 1, "o": 1, "v": 1, "B": 2, "D": 2, "O": 2, "X": 3}


def step_cost(rows, u, v, parity, flying):
    """Cost in squares and parity after a step (None: not allowed), written from the rules' text."""
    (r0, c0), (r1, c1) = u, v
    if not (0 <= r1 < len(rows) and 0 <= c1 < len(rows[0])) or rows[r1][c1] in "#e":
        return None
    if r0 != r1 and c0 != c1 and "#" in (rows[r0][c1], rows[r1][c0]):
        return None
    k = HAMPER[rows[r1][c1]] - (flying and rows[r1][c1] in "dBDX")
    if r0 == r1 or c0 == c1:
        return 2**k, parity
    if k == 0:
        return (1, 1) if parity == 0 else (2, 0)
    return 3 * 2**k // 2, parity


def neighbours(u):
    return [(u[0] + a, u[1] + b) for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b]


@lru_cache(maxsize=64)
def _steps_of(rows, flying):
    """Every step :func:`step_cost` allows on the grid ``rows`` (a tuple): square -> (the steps from it at diagonal
    parity 0, at parity 1), each ``(square entered, cost, parity after)``."""
    return MappingProxyType({(r, c): tuple(tuple((v, *step) for v in neighbours((r, c))
                                                 if (step := step_cost(rows, (r, c), v, p, flying)))
                                           for p in (0, 1))
                             for r in range(len(rows)) for c in range(len(rows[0]))})


def steps(rows, flying):
    """:func:`_steps_of` of the grid ``rows`` (a list of strings or a tuple)."""
    return _steps_of(tuple(rows), flying)


def round_costs(rows, u, budget, flying, parity=0):
    """Fewest squares a round's movement from ``u`` (a fresh round; ``parity`` 1: an odd number of diagonals moved
    before ``u`` in a round under way) pays to enter each square, within ``budget``: Dijkstra over (square, diagonal
    parity), allies passed."""
    return dict(_round_costs(tuple(rows), u, budget, flying, parity))


@lru_cache(maxsize=4096)
def _round_costs(rows, u, budget, flying, parity):
    """:func:`round_costs`, read-only."""
    table = _steps_of(rows, flying)
    best, seen, heap = {}, set(), [(0, u, parity)]
    while heap:
        d, x, p = heapq.heappop(heap)
        if (x, p) in seen:
            continue
        seen.add((x, p))
        best.setdefault(x, d)
        for v, cost, after in table[x][p]:
            if d + cost <= budget:
                heapq.heappush(heap, (d + cost, v, after))
    return MappingProxyType(best)


def full_round_squares(rows, u, budget, flying):
    """The neighbours of ``u`` the full-round one-square move may take: enterable, free, not past a wall's
    corner, and reached by no movement of the round."""
    return list(_full_round_squares(tuple(rows), u, budget, flying))


@lru_cache(maxsize=4096)
def _full_round_squares(rows, u, budget, flying):
    """:func:`full_round_squares`, a tuple."""
    moved = _round_costs(rows, u, budget, flying, 0)
    return tuple(v for v, _, _ in _steps_of(rows, flying)[u][0] if rows[v[0]][v[1]] != "a" and v not in moved)


def brute_force(rows, start, goal, budget, flying):
    """Fewest (rounds, squares) over states (square, squares left, diagonal parity), Dijkstra on (round, spent)."""
    if start == goal:
        return 0, 0
    if rows[goal[0]][goal[1]] in "#ae":
        return None
    rows = tuple(rows)
    table = _steps_of(rows, flying)
    heap = [(1, 0, start, budget, 0)]
    seen = set()
    while heap:
        t, f, u, left, p = heapq.heappop(heap)
        if u == goal:
            return t, f
        if (u, left, p) in seen:
            continue
        seen.add((u, left, p))
        for v, cost, after in table[u][p]:
            if cost <= left:
                heapq.heappush(heap, (t, f + cost, v, left - cost, after))
        if left == budget and p == 0:  # a fresh round at u
            for v in _full_round_squares(rows, u, budget, flying):
                heapq.heappush(heap, (t, f + 1, v, 0, 0))
        if rows[u[0]][u[1]] != "a" and not (left == budget and p == 0):
            heapq.heappush(heap, (t + 1, f, u, budget, 0))  # end the round here
    return None


def _ways_on(rows, u, left, p, budget, flying, stops=(), passed=0):
    """The ways on from a state ``(square, squares left, parity, stops passed)``: ``(state, rounds, squares, move)``,
    ``move`` the move made as ``(square, squares left after it)`` (None for the end of a round, which makes none)."""
    rows = tuple(rows)
    out = [((v, left - cost, after, _past(stops, passed, v)), 0, cost, (v, left - cost))
           for v, cost, after in _steps_of(rows, flying)[u][p] if cost <= left]
    if left == budget and p == 0:  # a fresh round at u
        out += [((v, 0, 0, _past(stops, passed, v)), 0, 1, (v, 0))
                for v in _full_round_squares(rows, u, budget, flying)]
    elif rows[u[0]][u[1]] != "a":
        out.append(((u, budget, 0, passed), 1, 0, None))  # end the round here
    return out


def _past(stops, passed, sq):
    """The stops passed once square ``sq`` is entered, ``passed`` of them before: the next one if it is ``sq``, and
    each following one that is ``sq`` again."""
    while passed < len(stops) and stops[passed] == sq:
        passed += 1
    return passed


def brute_force_journey(rows, start, goal, speed, mode, flying=False, heavy=False, stops=(), used=0, odd=False):
    """Fewest (rounds, squares) from ``start`` through ``stops`` in order to ``goal``, ``used`` squares of round 1
    already moved (an odd number of diagonals among them: ``odd``): Dijkstra on (round, spent) over states
    (square, squares left, diagonal parity, stops passed).  A stop is passed when any square entered is it (each
    square of a run's line too); from a fresh round: the steps of the round, the full-round one-square move, and for
    a runner the straight runs; a round under way (round 1 after ``used``) goes on step by step only."""
    squares = speed // 5
    budget = squares * (1 if mode == "move" else 2)
    run = squares * (3 if heavy else 4) if mode == "run" else 0
    rows = tuple(rows)
    first = (start, budget - used, int(odd), _past(stops, 0, start))
    if start == goal and first[3] == len(stops):
        return 0, 0
    if rows[goal[0]][goal[1]] in "#ae":
        return None
    heap, seen = [(1, 0, first)], set()
    while heap:
        t, f, state = heapq.heappop(heap)
        u, left, p, passed = state
        if u == goal and passed == len(stops):
            return t, f
        if state in seen:
            continue
        seen.add(state)
        for nxt, dt, df, _ in _ways_on(rows, u, left, p, budget, flying, stops, passed):
            heapq.heappush(heap, (t + dt, f + df, nxt))
        if run and left == budget and p == 0:
            for end, cost in _run_lines(rows, u, run).items():
                line = [(u[0] + a, u[1] + b) for a, b in _straight(end[0] - u[0], end[1] - u[1])]
                after = passed
                for sq in line:
                    after = _past(stops, after, sq)
                heapq.heappush(heap, (t, f + cost, (end, 0, 0, after)))
    return None


#: Most plans :func:`tie_rule_plan` lists before it gives up.
MANY = 20_000


def tie_rule_plan(rows, start, goal, budget, flying=False, stops=(), used=0, odd=False):
    """The squares of the plan the tie rule (docs/d20.md) takes of every plan with the fewest rounds, then the
    fewest squares: each listed -- a way back from the goal over moves that keep every state at its least
    (rounds, squares) --, then read back move by move, the first difference: the lesser square (row, then
    column), then the earlier round, then more of the round left.  None when there is no plan or too many.
    Through ``stops`` in order, ``used`` squares of round 1 already moved (``odd``: an odd number of diagonals)."""
    rows = tuple(rows)
    first = (start, budget - used, int(odd), _past(stops, 0, start))
    if start == goal and first[3] == len(stops):
        return [start]

    def arrived(state):
        return state[0] == goal and state[3] == len(stops)

    least, heap = {}, [(1, 0, first)]
    while heap:
        t, f, state = heapq.heappop(heap)
        if state in least:
            continue
        least[state] = (t, f)
        if not arrived(state):  # a plan ends where it first enters the goal
            for nxt, dt, df, _ in _ways_on(rows, *state[:3], budget, flying, stops, state[3]):
                heapq.heappush(heap, (t + dt, f + df, nxt))
    ends = [x for x in least if arrived(x)]
    if not ends:
        return None
    best = min(least[x] for x in ends)
    into: dict = {}
    for state, (t, f) in least.items():
        if not arrived(state):
            for nxt, dt, df, move in _ways_on(rows, *state[:3], budget, flying, stops, state[3]):
                if least.get(nxt) == (t + dt, f + df):
                    into.setdefault(nxt, []).append((state, move))
    plans = []

    def back(state, moves):
        if state == first:
            plans.append(moves[::-1])
            if len(plans) > MANY:
                raise OverflowError
            return
        for before, move in into.get(state, ()):
            back(before, moves if move is None else [*moves, (*move, least[state][0])])

    try:
        for end in ends:
            if least[end] == best:
                back(end, [])
    except OverflowError:
        return None
    cols = len(rows[0])

    def read_back(moves):  # (square, round, -left) of each move from the goal back, then the start's
        back = [(r * cols + c, t, -left) for (r, c), left, t in moves[::-1]]
        return [*back, (start[0] * cols + start[1], 1, -first[1])]

    return [start, *(sq for sq, _, _ in min(plans, key=read_back))]


def straight(dr, dc):
    """The squares of the straight line from (0, 0) to ``(dr, dc)``: the exact line's, rounded half away."""
    return list(_straight(dr, dc))


@cache
def _straight(dr, dc):
    """:func:`straight`, a tuple: step ``i`` of ``major`` is ``i * |x| / major`` rounded half away from zero, the
    floor of ``(2 i |x| + major) / (2 major)`` in integers."""
    major = max(abs(dr), abs(dc))
    return tuple(((2 * i * abs(dr) + major) // (2 * major) * (1 if dr >= 0 else -1),
                  (2 * i * abs(dc) + major) // (2 * major) * (1 if dc >= 0 else -1)) for i in range(1, major + 1))


def run_lines(rows, u, budget):
    """The straight runs from ``u`` of at most ``budget`` squares: end -> cost."""
    return dict(_run_lines(tuple(rows), u, budget))


@lru_cache(maxsize=4096)
def _run_lines(rows, u, budget):
    """:func:`run_lines`, read-only."""
    h, w = len(rows), len(rows[0])
    out = {}
    for r in range(h):
        for c in range(w):
            dr, dc = r - u[0], c - u[1]
            cost = max(abs(dr), abs(dc)) + min(abs(dr), abs(dc)) // 2
            if (dr or dc) and cost <= budget and rows[r][c] == ".":
                path = [u, *((u[0] + a, u[1] + b) for a, b in _straight(dr, dc))]
                if all(rows[a][b] in ".a" for a, b in path[1:]) and all(
                        step_cost(rows, x, y, 0, False) is not None for x, y in pairwise(path)):
                    out[(r, c)] = cost
    return MappingProxyType(out)


def brute_force_run(rows, start, goal, speed, heavy=False):
    """Fewest (rounds, squares) when each round is one straight run, or a double move, or the full-round
    one-square move into a square no double move reaches."""
    squares, run = speed // 5, speed // 5 * (3 if heavy else 4)
    rows = tuple(rows)
    best = {start: (0, 0)}
    heap = [(0, 0, start)]
    while heap:
        t, f, u = heapq.heappop(heap)
        if u == goal:
            return t, f
        if best[u] < (t, f):
            continue
        moves = list(_run_lines(rows, u, run).items())
        moves += [(v, d) for v, d in _round_costs(rows, u, 2 * squares, False, 0).items()
                  if v != u and rows[v[0]][v[1]] != "a"]
        moves += [(v, 1) for v in _full_round_squares(rows, u, 2 * squares, False)]
        for v, cost in moves:
            if (t + 1, f + cost) < best.get(v, (1 << 30, 0)):
                best[v] = (t + 1, f + cost)
                heapq.heappush(heap, (t + 1, f + cost, v))
    return None


def random_rows(rng, max_side: int = 7, chars: str = "..aaadB#") -> list[str]:
    """A random grid of 2 to ``max_side`` rows and columns drawn from ``chars`` (by default: many allies)."""
    h, w = rng.integers(2, max_side + 1, 2)
    return ["".join(rng.choice(list(chars), w)) for _ in range(h)]


def check_plan(rows, plan, speed, mode, flying=False, heavy=False, stops=(), used=0, odd=False):
    """Replay a plan round by round: each round's movement is legal for its action, and its action the
    least one that makes it (a 5-ft step, a move, a double move, a run; the full-round 5-ft move only
    into a square no movement of the round reaches).  Round 1 goes on from ``used`` squares already moved
    (``odd``: an odd number of diagonals among them), step by step, and its action counts them; the path passes
    the ``stops`` in order, and its legs end where each is first passed."""
    squares = speed // 5
    step_budget, run_budget = squares * (1 if mode == "move" else 2), squares * (3 if heavy else 4)
    rounds = [leg.round for leg in plan.legs]
    assert rounds == list(range(rounds[0], plan.rounds + 1)) and (rounds[0] == 1 or (used and rounds[0] == 2))
    assert plan.path[0] == plan.start and plan.path[-1] == plan.goal
    here = plan.start
    for leg in plan.legs:
        assert rows[leg.end[0]][leg.end[1]] not in "ae"
        before = used if leg.round == 1 else 0
        if leg.action == "full-round 5 ft":
            assert leg.squares == [leg.end] and leg.feet == 5 and not before
            assert leg.end in full_round_squares(rows, here, step_budget, flying)
            here = leg.end
            continue
        line = [(here[0] + a, here[1] + b) for a, b in straight(leg.end[0] - here[0], leg.end[1] - here[1])]
        if mode == "run" and not before and leg.squares == line and leg.end in run_lines(rows, here, run_budget):
            spent = run_lines(rows, here, run_budget)[leg.end]
        else:  # step by step, within the round's budget
            p, spent = int(odd and bool(before)), 0
            for sq in leg.squares:
                c, p = step_cost(rows, here, sq, p, flying)
                spent += c
                here = sq
            assert spent + before <= step_budget
        here = leg.end
        assert spent * 5 == leg.feet
        total = spent + before
        want = ("5-ft step" if len(leg.squares) == 1 and total == 1 and squares > 1 else "move" if total <= squares
                else "double move" if total <= 2 * squares else "run")
        assert leg.action == want
    passed, ends = 0, []
    for k, sq in enumerate(plan.path):
        while passed < len(stops) and stops[passed] == sq:
            passed += 1
            ends.append(k)
    assert passed == len(stops)
    starts = [0, *ends]
    assert [(leg.start, leg.goal, leg.squares) for leg in plan.via_legs] == [
        (plan.path[a], goal, b - a) for a, b, goal in zip(starts, [*ends, len(plan.path) - 1], [*stops, plan.goal],
                                                           strict=True)]
    assert sum(leg.feet for leg in plan.via_legs) == plan.feet
