"""Multi-round searches on a battle grid: fewest rounds, then fewest squares.

Plain Python over arrays (``eidomap.base.compiled`` compiles the same
functions with numba).  Both searches read the grid's step masks and
multipliers (no graph is built) and hold only what they reach: memory and time
grow with the squares searched, never with the speed (a budget larger than the
grid reaches no farther than the grid).

* :func:`plan_labels` -- a round's movement adds up step costs within the
  round's budget (a step that does not fit waits for the next round: the
  ``forbid`` rule), over ``node = 2 * square + parity``.  A label is a node,
  its round, the squares left of the round and the squares spent; a node keeps
  only the labels no other of its labels beats (as many squares left or more,
  and an earlier round, or the same round and no more spent: :func:`_offer`).
  Labels are settled in the order of (round, squares used of the round)
  through Dial's ring (:mod:`.buckets`), so the search is exact for "fewest
  rounds, then fewest squares".  From the first (then cheapest) label of a square where a
  round may end, the next round starts there: every step a fresh budget pays,
  the full-round one-square move into a neighbour no such movement reaches
  (:func:`_reaches`), and for a runner the straight runs (:func:`lines_from`).
  A route first counts the rounds backwards from the goal (:func:`rounds_to`:
  exact where every square may end a round, else a lower bound) and keeps to
  the labels that can still make that many, widening the bound until the goal
  is found.  Through stops (issue 48) a label also counts the stops passed,
  and a node's labels are kept apart by that count (the layers of
  :mod:`eidomap.search.stops`, without building a layered grid): the round and
  what is left of it go on across a stop, so the whole journey is found, not
  legs each best on its own; the count from the goal bounds the labels past
  the last stop, the count from the next stop (and the legs after it) those
  before it.
* :func:`lines_from` -- the straight lines from a square (a run, a charge),
  each walked square by square as it is tried: no table of lines is built.

>>> import numpy as np
>>> # a row of 3 squares, entering the last costs 2: budget 2 a round
>>> mult = np.array([1, 1, 2]); mask = np.array([8, 12, 4], np.uint8); free = np.ones(3, np.bool_)
>>> rounds, first = rounds_to(mult, mask, 3, 2, 2)
>>> rounds.tolist(), first.tolist()  # from square 0: 2 rounds, the first of 1 square
([2, 1, 0], [1, 2, 3])
>>> none, rows_none = np.zeros(0, np.int64), np.zeros((0, 3), np.int32)  # no stops; a fresh round 1: 2 squares
>>> lab, best, _ = plan_labels(mult, mask, free, np.zeros(3, np.int64), 1, 3, 0, 2, 2, 0, 2, rounds, first,
...                            none, none, rows_none, rows_none, none, 2, 0)
>>> int(lab[best, T]), int(lab[best, SPENT])  # round 2, 3 squares spent
(2, 3)
"""

from __future__ import annotations

import numpy as np

from eidomap.rules.d20.grid import DIR_COL, DIR_ROW, line_cost, line_square, offsets, step_cost
from eidomap.rules.d20.grid import JIT_HELPERS as GRID_HELPERS
from eidomap.search.buckets import JIT_HELPERS as RING_HELPERS
from eidomap.search.buckets import least_key, link, new_ring, take, unlink, wide

#: Columns of a label row: round, squares left of it, squares spent, node, parent label, how it was
#: reached; dropped (beaten by a later label of its node), stops passed, next of its node.
T, LEFT, SPENT, NODE, PRED, KIND, DEAD, LAYER, NNEXT = 0, 1, 2, 3, 4, 5, 6, 7, 8
COLUMNS = 9
#: The columns of the label rows :func:`plan_labels` returns (``T`` to ``LAYER``).
LABEL_COLUMNS = NNEXT
#: How a label was reached: a step in the round, a step that starts the next round, a full-round
#: one-square move, the start, a straight run (a round of its own).
STEP, WAIT, FULL, START, LINE = 0, 1, 2, 3, 4
#: The occupant code of an enemy (:data:`eidomap.record.grid.ENEMY`).
_ENEMY = 2
_NONE = np.iinfo(np.int64).max
_NO_ROUND = np.iinfo(np.int32).max
#: Most squares times layers (the stops plus one) a route's search keeps a list of labels, a round's start and a
#: count for (about 28 bytes each): a 1,000 x 1,000 grid through 15 stops.
MAX_LAYERED_SQUARES = 16_000_000
#: Most label rows a search of :func:`plan_labels` sets aside before it makes any (36 MiB): more are made as needed.
MAX_LABELS = 1 << 20


def _moves(lab: np.ndarray, x: int, cols: int) -> int:
    """How many squares label ``x`` enters: a run's squares, one for any other move (none before the start)."""
    if x < 0:
        return 0
    if lab[x, KIND] != LINE:
        return 1
    e, p = lab[x, NODE] // 2, lab[lab[x, PRED], NODE] // 2
    return max(abs(e // cols - p // cols), abs(e % cols - p % cols))


def _square(lab: np.ndarray, x: int, i: int, cols: int) -> int:
    """Square ``i`` (from 1) of those label ``x`` enters (:func:`_moves`)."""
    e = lab[x, NODE] // 2
    if lab[x, KIND] != LINE:
        return e
    p = lab[lab[x, PRED], NODE] // 2
    dr, dc = e // cols - p // cols, e % cols - p % cols
    r, c = line_square(i, dr, dc, max(abs(dr), abs(dc)))
    return p + r * cols + c


def _ahead(lab: np.ndarray, a: int, b: int, cols: int) -> bool:
    """Whether the way to label ``a`` comes before the way to label ``b`` (both on one square) under the tie rule
    (docs/d20.md): read back move by move (a run's squares one by one), the first move where they differ goes
    into the lesser square; into the same square, in the earlier round; in the same round, with more of it
    left (a run and the full-round move leave none)."""
    ia, ib = _moves(lab, a, cols), _moves(lab, b, cols)
    while a != b or ia != ib:
        if a < 0 or b < 0:  # (one way back at the start before the other: never as cheap, a step costs a square)
            return a < 0
        sa, sb = _square(lab, a, ia, cols), _square(lab, b, ib, cols)
        if sa != sb:
            return sa < sb
        if lab[a, T] != lab[b, T]:
            return lab[a, T] < lab[b, T]
        if lab[a, LEFT] != lab[b, LEFT]:
            return lab[a, LEFT] > lab[b, LEFT]
        ia, ib = ia - 1, ib - 1
        if ia == 0:
            a = wide(lab[a, PRED])
            ia = _moves(lab, a, cols)
        if ib == 0:
            b = wide(lab[b, PRED])
            ib = _moves(lab, b, cols)
    return False


def _offer(lab: np.ndarray, count: int, head: np.ndarray, v: int, layer: int, n: int, t: int, left: int, spent: int,
           parent: int, kind: int, cols: int) -> bool:
    """Row ``count`` of ``lab`` (which has it): a label of node ``v`` with ``layer`` stops passed (its list:
    ``head[v + 2 n layer]``, ``n`` the squares), unless one of that list's labels beats it; those it beats leave
    the list (and are dropped from the queue).  Returns whether it is kept; the caller queues a label kept.
    (Neither the queue nor its key is passed, and no array is handed back -- the caller grows ``lab`` before
    its offers: each array an inner call of the compiled search takes or returns costs it time.)

    A label beats another with as many squares left or more, and an earlier round or the same round and no
    more spent: every way on from the other makes more rounds or squares, or the same and comes after it under
    the tie rule (:func:`_ahead`: on the same square in the same round, more left first).  The same label by
    another way is not queued again: it keeps, of the two ways, the rule's (it is not settled yet: its key is
    its parent's and a step more: :func:`_first`).
    No label of a node beats another of it: one that beat the new label would also beat those the
    new one beats, so the scan stops at the first that beats it before dropping any.
    """
    h = v + 2 * n * layer
    prev = -1
    x = wide(head[h])
    while x >= 0:
        nx = wide(lab[x, NNEXT])
        xl, xt, xs = lab[x, LEFT], lab[x, T], lab[x, SPENT]
        if xl >= left and (xt < t or (xt == t and xs <= spent)):
            if xl == left and xt == t and xs == spent and _first(lab, count, x, v, layer, t, left, spent, parent,
                                                                 kind, cols):
                lab[x, PRED], lab[x, KIND] = parent, kind
            return False
        if left >= xl and (t < xt or (t == xt and spent <= xs)):
            lab[x, DEAD] = 1
            if prev < 0:
                head[h] = nx
            else:
                lab[prev, NNEXT] = nx
        else:
            prev = x
        x = nx
    _write(lab, count, v, layer, t, left, spent, parent, kind)
    lab[count, NNEXT] = head[h]
    head[h] = count
    return True


def _first(lab: np.ndarray, count: int, x: int, v: int, layer: int, t: int, left: int, spent: int, parent: int,
           kind: int, cols: int) -> bool:
    """Whether the new way (from label ``parent`` by a move of ``kind``) to label ``x``'s node, round, squares
    left and spent comes before ``x``'s own under the tie rule.  Two single-square moves from different squares
    differ in the square each comes from: compared at once (most ties on an open grid), no way read back.
    Otherwise the new label is written in row ``count`` of ``lab`` (it is not kept either way) and read back as
    any other (:func:`_ahead`)."""
    if kind != LINE and lab[x, KIND] != LINE and parent >= 0 and lab[x, PRED] >= 0:
        mine, theirs = lab[parent, NODE] // 2, lab[lab[x, PRED], NODE] // 2
        if mine != theirs:
            return mine < theirs
    _write(lab, count, v, layer, t, left, spent, parent, kind)
    return _ahead(lab, count, x, cols)


def _twin_ahead(lab: np.ndarray, head: np.ndarray, x: int, n: int, cols: int) -> bool:
    """Whether label ``x``'s square holds, on its other parity, a label of the same round, squares left and spent
    whose way the tie rule puts first: that one starts the next round from the square (when it is popped, or
    it was).  Its list is that of ``x``'s node and layer (:func:`_offer`), the parity flipped."""
    y = wide(head[(lab[x, NODE] + 2 * n * lab[x, LAYER]) ^ 1])
    while y >= 0:
        if lab[y, T] == lab[x, T] and lab[y, LEFT] == lab[x, LEFT] and lab[y, SPENT] == lab[x, SPENT]:
            return _ahead(lab, y, x, cols)
        y = wide(lab[y, NNEXT])
    return False


def _write(lab: np.ndarray, count: int, v: int, layer: int, t: int, left: int, spent: int, parent: int,
           kind: int) -> None:
    """Row ``count`` of ``lab``: the label of node ``v`` with ``layer`` stops passed."""
    lab[count, T], lab[count, LEFT], lab[count, SPENT] = t, left, spent
    lab[count, NODE], lab[count, PRED], lab[count, KIND] = v, parent, kind
    lab[count, DEAD], lab[count, LAYER] = 0, layer


#: How much more than its key a label's potential weighs in the order of :func:`rounds_to` (see :func:`_order`).
_TIE = 64


def _order(key: int, potential: int) -> int:
    """The queue order of a label of :func:`rounds_to`: its key plus potential, :data:`_TIE` times, and its key
    once more.  Along a step it never falls (neither does the sum); among a square's labels a lesser key always
    comes first (the potential falls by at most one as the key rises by one), even where the sums are equal."""
    return _TIE * (key + potential) + key


def _units(r: int, c: int, sr: int, sc: int) -> int:
    """The least key a way from square ``(r, c)`` to ``(sr, sc)`` adds step by step: 2 an orthogonal step, 3 a
    diagonal one (a step adds ``2 c + p - q`` in its round, and no step less)."""
    a, b = abs(r - sr), abs(c - sc)
    return 2 * max(a, b) + min(a, b)


def _potential(units: int, rest: int, budget: int) -> int:
    """The least key a label of round part ``rest`` (``2 v + q``) still adds on a way of ``units`` (:func:`_units`):
    the units themselves, and 3 more for each round they spill into (a round holds at most ``2 budget + 1``
    of them and its key's width is ``2 budget + 4``).  A label that must begin its round (``rest`` past
    ``2 budget + 1``) counts as a full round less one a unit past it.

    Consistent: no step adds less key than it takes off the potential, and a later key of a square never has a
    lower key plus potential -- so an A* order settles a square at its least key, as Dijkstra's does
    (``tests/rules/d20/test_grid.py`` checks both over every step and round part for budgets 1 to 16).
    """
    if units <= 0:
        return 0
    per = 2 * budget + 1
    drop = max(rest - per, 0)
    over = units + min(rest, per) - per
    return units + (3 * ((over + per - 1) // per) if over > 0 else 0) - drop


def rounds_to(mult: np.ndarray, mask: np.ndarray, cols: int, goal: int, budget: int,
              stop: int = -1, limit: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Per square, the fewest rounds from a fresh round there to square ``goal``, and the
    squares of the first of them: ``(rounds, first)``; ``rounds`` -1 where there is no way.

    The goal has 0 rounds.  A backward search of the round rules with one label a square, every square
    taken as one where a round may end (so, where a round may not end, a lower
    bound).  The label ``(g, v, q)`` of square ``x`` says a way on from ``x``
    reaches the end of its round after ``v`` squares (diagonal parity ``q``)
    and the goal in ``g`` rounds.  Labels compare in the order of ``(g, 2 v +
    q)``: a round may end at ``x`` (a fresh budget beats any later round) and
    an odd count of diagonals is worth at most one square (5-10-5: ``n``
    diagonals cost ``n + n // 2`` whichever way they are read, so a round
    costs the same read backwards).  A step no fresh budget pays takes a
    whole round (the full-round one-square move).

    With a square ``stop`` (-1: none, every square counted) the search is an A* toward it, in the order of
    the key plus :func:`_potential` (ties: the lesser key first, so each square is settled at its least key
    even among equal sums), and counts only the squares a way of at most ``limit`` rounds from ``stop`` to
    the goal may pass (``limit`` -1: ``stop``'s own rounds): each keeps its rounds and first squares exactly;
    every other square is given ``limit + 1`` rounds, none of them first -- no such way passes it, which is
    all a search kept to ``limit`` rounds asks (:func:`plan_labels`) --, unless the search ran out first
    (then, as without a stop, -1 says there is no way).  On a corner-to-corner route of a
    1,000 x 1,000 grid that is about two fifths of the squares.

    The order of a square queued is at most a few rounds past the last one settled, so the squares queued
    sit on Dial's ring (:mod:`.buckets`): each on the list of its order's bucket, moved in constant time when
    a cheaper key is found -- no pool, no stale entries.
    """
    n = len(mult)
    width = 2 * budget + 4  # 2 v + q of a round: v up to budget + 1 (a full-round move)
    off = offsets(cols)
    rounds = np.full(n, -1, np.int32)
    first = np.zeros(n, np.int32)
    best = np.full(n, _NONE, np.int64)  # a queued square's key (its bucket: :func:`_order`); -1 once settled
    # a step's key is at most two rounds past the one it is taken from, and its potential at most a round and a
    # step more
    head, links = new_ring(_order(4 * width + 16, 4 * width + 16) + 1, n)
    full = 2 * budget + 2  # the key of a label that must begin its round (it takes a whole one)
    aim = stop >= 0
    sr, sc = stop // cols, stop % cols
    # the first order past every key plus potential below the limit's end (an order is at most _TIE + 1 sums)
    end = _NONE if limit < 0 or not aim else _order((limit + 1) * width, 0)
    best[goal] = full  # the goal: no more rounds, and a round ends there
    f = _order(full, _potential(_units(goal // cols, goal % cols, sr, sc) if aim else 0, full, budget))
    link(head, links, goal, f)
    queued = 1
    stopped = False
    while queued > 0:
        f = least_key(head, f)
        if f >= end:
            stopped = True
            break
        y = wide(take(head, links, f))
        queued -= 1
        key = best[y]
        g, rest = key // width, key % width
        v, q = rest // 2, rest % 2
        rounds[y], first[y] = g, v
        best[y] = -1
        if y == stop and limit < 0:  # the stop's own rounds: the limit
            limit = g
            end = _order((g + 1) * width, 0)
        yr, yc = y // cols, y % cols
        for k in range(8):
            x = y - off[k]
            if x < 0 or x >= n or not (mask[x] >> k) & 1 or best[x] < 0:
                continue
            c, p = step_cost(mult, y, q, k)
            if v + c <= budget:  # on in this round
                nrest = rest + 2 * c + p - q
                nkey = key + 2 * c + p - q
            else:  # a round ends at y: the step begins it, or takes a whole one
                c, p = step_cost(mult, y, 0, k)
                nrest = 2 * c + p if c <= budget else full
                nkey = (g + 1) * width + nrest
            old = best[x]
            if nkey < old:
                units = _units(yr - DIR_ROW[k], yc - DIR_COL[k], sr, sc) if aim else 0
                nf = _order(nkey, _potential(units, nrest, budget))  # (no potential without a stop: units 0)
                if old == _NONE:
                    queued += 1
                else:  # off the list of its dearer key (its order found again: an array of them would be 8 bytes
                    unlink(head, links, x, _order(old, _potential(units, old % width, budget)))  # a square more)
                best[x] = nkey
                link(head, links, x, nf)
    if stopped:  # (else every square with a way was counted: the others have none)
        rounds[rounds < 0] = limit + 1
    return rounds, first


def _rounds_left(rounds: np.ndarray, first: np.ndarray, square: int, left: int) -> np.int64:
    """Fewest rounds after this one a way on from ``square`` with ``left`` squares of this round takes."""
    g = np.int64(rounds[square])
    if g < 0:
        return np.int64(_NO_ROUND >> 1)
    return g - 1 if first[square] <= left else g


def _beyond(rounds: np.ndarray, first: np.ndarray, square: int, left: int, t: int, max_round: int) -> np.bool_:
    """Whether a label of round ``t`` at ``square`` with ``left`` squares of its round cannot reach
    the goal by round ``max_round`` (``rounds`` -1: by no round)."""
    return t + _rounds_left(rounds, first, square, left) > max_round


def _reaches(mult: np.ndarray, mask: np.ndarray, rows: int, cols: int, source: int, target: int, budget: int) -> bool:
    """Whether a round's movement of at most ``budget`` squares from ``source`` (a fresh round)
    enters square ``target``: Dial's buckets over the squares within ``budget`` of ``source`` (a
    step costs at least one square, so no way of that cost leaves them) and the diagonal parity."""
    r0, c0 = source // cols, source % cols
    top, lft = max(0, r0 - budget), max(0, c0 - budget)
    h, w = min(rows, r0 + budget + 1) - top, min(cols, c0 + budget + 1) - lft
    dist = np.full(2 * h * w, budget + 1, np.int64)
    dist[2 * ((r0 - top) * w + c0 - lft)] = 0
    off = offsets(cols)
    for level in range(budget + 1):  # every state of a level is final once the levels below are done
        for i in range(2 * h * w):
            if dist[i] != level:
                continue
            sq = (top + (i // 2) // w) * cols + lft + (i // 2) % w
            if sq == target:
                return True
            for k in range(8):
                if not (mask[sq] >> k) & 1:
                    continue
                v = sq + off[k]
                vr, vc = v // cols - top, v % cols - lft
                if vr < 0 or vr >= h or vc < 0 or vc >= w:
                    continue
                c, p = step_cost(mult, v, i % 2, k)
                j = 2 * (vr * w + vc) + p
                if level + c < dist[j]:
                    dist[j] = level + c
    return False


def _corner_ok(mult: np.ndarray, cols: int, r0: int, c0: int, r1: int, c1: int) -> bool:
    """A step from ``(r0, c0)`` to ``(r1, c1)`` does not pass the corner of an impassable square."""
    return r0 == r1 or c0 == c1 or (mult[r0 * cols + c1] != 0 and mult[r1 * cols + c0] != 0)


def _clear_line(mult: np.ndarray, occupant: np.ndarray, cols: int, r: int, c: int, er: int, ec: int,
                charge: bool) -> bool:
    """The straight line from ``(r, c)`` to ``(er, ec)`` (both on the grid) crosses clear squares
    only, past no enemy (a charge: no creature) and past no wall corner."""
    dr, dc = er - r, ec - c
    major = max(abs(dr), abs(dc))
    pr, pc = r, c
    for i in range(1, major + 1):
        qr, qc = line_square(i, dr, dc, major)
        qr, qc = r + qr, c + qc
        q = qr * cols + qc
        if mult[q] != 1 or occupant[q] == _ENEMY or (charge and occupant[q] != 0):
            return False
        if not _corner_ok(mult, cols, pr, pc, qr, qc):
            return False
        pr, pc = qr, qc
    return True


def _clear_between(mult: np.ndarray, occupant: np.ndarray, cols: int, r: int, c: int, er: int, ec: int) -> bool:
    """No line from a point of square ``(r, c)`` to a point of square ``(er, ec)`` passes through (the inside of)
    a hampered, impassable or occupied square, the start's own excepted: a charge's clear path, as 3.5 states it.

    The lines fill the convex hull of the two squares; a square's inside meets it when, ``(y, x)`` its offset from
    the start within the box the two squares span, ``|dr x - dc y| < |dr| + |dc|`` (the hull's edges run along
    ``(dr, dc)`` through the start square's corners).  Walked along the longer axis, a few squares a step.
    """
    dr, dc = er - r, ec - c
    a, b = abs(dr), abs(dc)
    major, minor = max(a, b), min(a, b)
    if major == 0:
        return True
    sr, sc = (1 if dr >= 0 else -1), (1 if dc >= 0 else -1)
    for i in range(major + 1):
        low = max(0, (minor * i - a - b) // major + 1)  # |minor i - major j| < a + b
        high = min(minor, (minor * i + a + b - 1) // major)
        for j in range(low, high + 1):
            y, x = (j, i) if b >= a else (i, j)
            if y == 0 and x == 0:
                continue
            q = (r + sr * y) * cols + c + sc * x
            if mult[q] != 1 or occupant[q] != 0:
                return False
    return True


def _line_end(mult: np.ndarray, occupant: np.ndarray, can_end: np.ndarray, cols: int, r: int, c: int, e: int, low: int,
              high: int, charge: bool, rounds: np.ndarray, first: np.ndarray, slack: int) -> int:
    """Square ``e`` as the end of a straight line from ``(r, c)`` (see :func:`lines_from`): its cost,
    -1 if it is no such end, -2 if the bound leaves it out."""
    er, ec = e // cols, e % cols
    cost = line_cost(er - r, ec - c)
    if cost < low or cost > high or not can_end[e]:
        return -1
    if _beyond(rounds, first, e, 0, 0, slack):
        return -2 if rounds[e] >= 0 else -1
    if not _clear_line(mult, occupant, cols, r, c, er, ec, charge):
        return -1
    return cost if not charge or _clear_between(mult, occupant, cols, r, c, er, ec) else -1


def lines_from(mult: np.ndarray, occupant: np.ndarray, can_end: np.ndarray, rows: int, cols: int, source: int, low: int,
               high: int, charge: bool, rounds: np.ndarray, first: np.ndarray, slack: int, near: np.ndarray,
               n_near: int, ends: np.ndarray, costs: np.ndarray) -> tuple[int, bool]:
    """The straight lines from square ``source`` that cost ``low`` to ``high`` squares, end where a
    move may end and cross clear squares only (:func:`_clear_line`; a ``charge`` passes no
    creature, and no line from its start square to its end square passes a square that is not clear:
    :func:`_clear_between`): their ends and costs written to ``ends`` and ``costs``.  An end from which the goal
    takes more than ``slack`` rounds more (:func:`_beyond` of ``rounds``, ``first``) is left out
    before its line is walked.

    The ends tried are the squares of the grid within ``high`` of ``source`` or, when ``n_near`` is
    not negative and they are fewer, ``near[:n_near]`` (the squares close enough to the goal), so the
    work is bounded by the grid whatever ``high``; the buffers need ``min((2 high + 1) ** 2,
    squares)`` places.  Returns ``(count, pruned)``: the number of ends written and whether the
    bound left out any of the squares tried from which the goal can be reached.
    """
    r, c = source // cols, source % cols
    r0, r1, c0, c1 = max(0, r - high), min(rows, r + high + 1), max(0, c - high), min(cols, c + high + 1)
    count, pruned = 0, False
    if 0 <= n_near < (r1 - r0) * (c1 - c0):
        for j in range(n_near):
            cost = _line_end(mult, occupant, can_end, cols, r, c, near[j], low, high, charge, rounds, first, slack)
            if cost >= 0:
                ends[count], costs[count] = near[j], cost
                count += 1
        return count, False  # the caller knows whether ``near`` left any out
    for er in range(r0, r1):
        for ec in range(c0, c1):
            e = er * cols + ec
            cost = _line_end(mult, occupant, can_end, cols, r, c, e, low, high, charge, rounds, first, slack)
            pruned = pruned or cost == -2
            if cost >= 0:
                ends[count], costs[count] = e, cost
                count += 1
    return count, pruned


def _by_need(rounds: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The squares by the rounds the goal still takes after a run ends on them (``rounds``, one less where
    ``first`` is 0: the goal's first round may then begin with the run's), those with no way (``rounds`` -1)
    last, ties in square order; and how many squares take ``g`` rounds or fewer, at place ``g + 1`` (``g``
    from -1; the last place: every square with a way).  A stable counting sort over ``rounds``, which counts
    at most a round a square: as ``np.argsort(kind="stable")``, whose compiled form takes a second to build."""
    n = len(rounds)
    most = -1
    for i in range(n):
        if rounds[i] >= 0:
            most = max(most, rounds[i] - (first[i] == 0))
    at_most = np.zeros(most + 3, np.int64)  # first the squares of each need below g, at place g + 1 ...
    for i in range(n):
        if rounds[i] >= 0:
            at_most[rounds[i] - (first[i] == 0) + 2] += 1
    for g in range(1, most + 3):
        at_most[g] += at_most[g - 1]
    order = np.empty(n, np.int64)
    for i in range(n):  # ... then, each square placed, of each need g or below
        if rounds[i] >= 0:
            g = rounds[i] - (first[i] == 0) + 1
            order[at_most[g]] = i
            at_most[g] += 1
    k = at_most[-1]
    for i in range(n):
        if rounds[i] < 0:
            order[k] = i
            k += 1
    return order, at_most[:-1]


def _passed(stops: np.ndarray, jump: np.ndarray, layer: int, v: int) -> int:
    """The stops passed after entering square ``v`` with ``layer`` passed: the next stop (``stops[layer]``) moves
    on to ``jump[layer]`` (past each following stop that is ``v`` again)."""
    if layer < len(stops) and stops[layer] == v:
        return jump[layer]
    return layer


def _line_layer(stops: np.ndarray, jump: np.ndarray, layer: int, cols: int, source: int, end: int) -> int:
    """The stops passed after a straight line from square ``source`` to ``end`` with ``layer`` passed: each square
    of the line is entered (:func:`eidomap.rules.d20.grid.line_square`)."""
    if layer >= len(stops):
        return layer
    dr, dc = end // cols - source // cols, end % cols - source % cols
    major = max(abs(dr), abs(dc))
    for i in range(1, major + 1):
        r, c = line_square(i, dr, dc, major)
        layer = _passed(stops, jump, layer, source + r * cols + c)
    return layer


def _cut(rounds: np.ndarray, first: np.ndarray, ahead_rounds: np.ndarray, ahead_first: np.ndarray, more: np.ndarray,
         square: int, left: int, t: int, max_round: int, layer: int, last: int) -> int:
    """Whether a label of round ``t`` at ``square`` with ``left`` squares of its round and ``layer`` stops passed
    cannot reach the goal by round ``max_round``: 0 it can (kept), 1 not within the bound (a wider one may), 2 by no
    round.  Past the last stop (``last``) the count from the goal bounds it (``rounds``, ``first``); before, the
    count from the next stop (row ``layer`` of ``ahead_rounds``, ``ahead_first``) and the rounds the legs after it
    add at least (``more[layer]``)."""
    if layer < last:
        if ahead_rounds[layer, square] < 0:
            return 2
        need = t + _rounds_left(ahead_rounds[layer], ahead_first[layer], square, left) + more[layer]
        return 1 if need > max_round else 0
    return _cut_goal(rounds, first, square, left, t, max_round)


def _cut_goal(rounds: np.ndarray, first: np.ndarray, square: int, left: int, t: int, max_round: int) -> int:
    """:func:`_cut` past the last stop: the count from the goal bounds the label (``rounds``, ``first``)."""
    if rounds[square] < 0:
        return 2
    return 1 if t + _rounds_left(rounds, first, square, left) > max_round else 0


def plan_labels(mult: np.ndarray, mask: np.ndarray, can_end: np.ndarray, occupant: np.ndarray, rows: int, cols: int,
                source: int, goal: int, budget: int, run_budget: int, max_round: int, rounds: np.ndarray,
                first: np.ndarray, stops: np.ndarray, jump: np.ndarray, ahead_rounds: np.ndarray,
                ahead_first: np.ndarray, more: np.ndarray, left0: int, parity0: int) -> tuple[np.ndarray, int, bool]:
    """Labels of the round-by-round search from square ``source`` (see the module docstring).

    ``budget`` is what a round's step-by-step movement may cost; ``run_budget``
    (0: none) the longest straight run a round may take instead.  A step
    dearer than ``budget`` is taken only as a full-round one-square move, and
    only into a square no movement of ``budget`` reaches.  Stops past the
    goal's round (``goal`` a square, or -1 for none).

    The route passes the squares ``stops`` in order (none: an empty array) before it may end at the goal: a label
    also holds how many it has passed (:data:`LAYER`), a stop passed when any square entered is it -- each
    square of a run too --, and the next stop from layer ``i`` leads to layer ``jump[i]`` (``i + 1``, past the
    following stops that are the same square).  A label is kept against the labels of its own square, diagonal
    parity and layer only, so the search stays exact across a stop: the round and what is left of it go on.

    Round 1 begins with ``left0`` squares of it left and diagonal parity ``parity0`` (``budget`` and 0: a fresh
    round; less: movement already made this round, after which neither a run nor the full-round move may begin
    before round 2).

    A label whose round plus the fewest rounds it still needs passes ``max_round`` is never made (:func:`_cut`):
    past the last stop, :func:`_rounds_left` of :func:`rounds_to`'s ``rounds`` and ``first`` (ones and zeros for
    none); before it, of the count from the next stop (``ahead_rounds[i]``, ``ahead_first[i]`` for ``i`` stops
    passed: one row a stop) and ``more[i]`` rounds for the legs after it.  With ``max_round`` the answer, the search
    keeps to the ways that make it.

    Returns ``(labels, best, pruned)``: rows of label columns (see :data:`T`
    ...) -- with a goal the goal's chain from the start, else every label
    made --, the row of the goal's best label (-1 if not reached) and whether
    the bound left out any label from which the goal can be reached (a wider
    bound may then find it).
    """
    n = rows * cols
    last = len(stops)
    layers = last + 1
    width = budget + 1
    off = offsets(cols)
    head = np.full(2 * n * layers, -1, np.int32)
    wait_round = np.full(n * layers, _NO_ROUND, np.int32)
    wait_spent = np.zeros(n * layers, np.int32)
    wait_left = np.zeros(n * layers, np.int32)
    wait_label = np.full(n * layers, -1, np.int32)
    room = min((2 * run_budget + 1) ** 2, n) if run_budget > 0 else 0
    ends = np.empty(room, np.int64)
    costs = np.empty(room, np.int64)
    # a run's possible ends by the rounds the goal still takes after them: a round with little slack
    # left tries only the few squares near the goal
    near, at_most = _by_need(rounds, first) if run_budget > 0 else (ends, np.zeros(1, np.int64))
    n_finite = at_most[-1]
    # room for a label a square and layer (up to MAX_LABELS), grown when more are kept: rows never written are never
    # paged in, while rows grown from a thousand are copied over and over (two fifths of a 200 x 200 route's time)
    capacity = min(max(1024, n * layers), MAX_LABELS)
    lab = np.empty((capacity, COLUMNS), np.int32)
    # the labels queued, on Dial's ring (a label's key is at most two rounds past the last one popped)
    bucket, links = new_ring(2 * width + 1, capacity)
    layer0 = _passed(stops, jump, 0, source)  # (a stop the route starts on is passed at once)
    _offer(lab, 0, head, 2 * source + parity0, layer0, n, 1, left0, 0, -1, START, cols)
    key = width + budget - left0
    link(bucket, links, 0, key)
    count = queued = 1
    best, pruned = -1, False
    while queued > 0:
        key = least_key(bucket, key)
        x = wide(take(bucket, links, key))
        queued -= 1
        if lab[x, DEAD]:
            continue
        if len(lab) < count + 16 + room:  # a step and a round's start in each direction, and the runs
            lab = np.concatenate((lab, np.empty((len(lab) + 16 + room, COLUMNS), np.int32)))
            links = np.concatenate((links, np.empty((len(links) + 16 + room, 2), np.int32)))
        t, left, spent = wide(lab[x, T]), wide(lab[x, LEFT]), wide(lab[x, SPENT])
        node, layer = wide(lab[x, NODE]), wide(lab[x, LAYER])
        if best >= 0 and t > lab[best, T]:
            break
        sq, parity = node // 2, node % 2
        if sq == goal and layer == last:  # (of ways as cheap, the rule's)
            if best < 0 or spent < lab[best, SPENT] or (spent == lab[best, SPENT]
                                                         and _ahead(lab, x, best, cols)):
                best = x
            continue
        steps = mask[sq]
        for k in range(8):  # on within the round
            if not (steps >> k) & 1:
                continue
            v = sq + off[k]
            c, p = step_cost(mult, v, parity, k)
            if c > left:
                continue
            if last == 0:  # (no stops: the goal's count alone, and two arrays an inner call less)
                nlayer, why = 0, _cut_goal(rounds, first, v, left - c, t, max_round)
            else:
                nlayer = _passed(stops, jump, layer, v)
                why = _cut(rounds, first, ahead_rounds, ahead_first, more, v, left - c, t, max_round, nlayer, last)
            if why:
                pruned = pruned or why == 1
                continue
            kept = _offer(lab, count, head, 2 * v + p, nlayer, n, t, left - c, spent + c, x, STEP, cols)
            if kept:
                link(bucket, links, count, key + c)
                count, queued = count + 1, queued + 1
        # the next round, from the first (then cheapest) label of a square where a round may end -- of those as
        # cheap, the first has the most left, the rule's way there.  One with as much left (the other parity)
        # offers the same labels, each behind or ahead of the other's as the two labels are: of the two, the one
        # the rule puts first starts the round (the other, popped first, leaves it to its twin: _twin_ahead;
        # popped second, it starts it again only if it is ahead, and each label then takes its way: _offer)
        fresh = lab[x, KIND] == START and left == budget
        state = layer * n + sq
        if not can_end[sq]:
            continue
        if wait_round[state] != _NO_ROUND and (wait_round[state] < t or wait_spent[state] < spent or (
                wait_spent[state] == spent and (wait_left[state] > left or (
                    wait_left[state] == left and not _ahead(lab, x, wide(wait_label[state]), cols))))):
            continue
        if (wait_round[state] != t or wait_spent[state] != spent or wait_left[state] != left) and _twin_ahead(
                lab, head, x, n, cols):
            continue
        wait_round[state], wait_spent[state], wait_left[state], wait_label[state] = t, spent, left, x
        nt = t if fresh else t + 1  # the start begins its own first round (unless some of it is already used)
        if nt > max_round or (best >= 0 and nt > lab[best, T]):
            pruned = pruned or nt > max_round
            continue
        for k in range(8):
            if not (steps >> k) & 1:
                continue
            v = sq + off[k]
            c, p = step_cost(mult, v, 0, k)
            if c <= budget:
                if fresh:  # the start's own round took these steps already
                    continue
                nl, ns, how, nkey = budget - c, spent + c, WAIT, nt * width + c
            elif can_end[v] and (mult[v] > budget or not _reaches(mult, mask, rows, cols, sq, v, budget)):
                p, nl, ns, how, nkey = 0, 0, spent + 1, FULL, nt * width + budget
            else:
                continue
            if last == 0:
                nlayer, why = 0, _cut_goal(rounds, first, v, nl, nt, max_round)
            else:
                nlayer = _passed(stops, jump, layer, v)
                why = _cut(rounds, first, ahead_rounds, ahead_first, more, v, nl, nt, max_round, nlayer, last)
            if why:
                pruned = pruned or why == 1
                continue
            kept = _offer(lab, count, head, 2 * v + p, nlayer, n, nt, nl, ns, x, how, cols)
            if kept:
                link(bucket, links, count, nkey)
                count, queued = count + 1, queued + 1
        if run_budget > 0:
            bound_r, bound_f = rounds, first
            if layer == last:
                n_near = at_most[min(max_round - nt + 1, len(at_most) - 1)]  # (nt <= max_round: see above)
                slack = max_round - nt
            elif max(abs(stops[layer] // cols - sq // cols), abs(stops[layer] % cols - sq % cols)) > run_budget:
                # no run from here reaches the next stop: every end stays in this layer, bounded by its count
                bound_r, bound_f = ahead_rounds[layer], ahead_first[layer]
                n_near, slack = -1, max_round - nt - more[layer]
            else:  # a run may pass the stop: every end of the window tried, each bounded at its own layer below
                n_near, slack = -1, _NO_ROUND >> 2
            m, cut = lines_from(mult, occupant, can_end, rows, cols, sq, 1, run_budget, False, bound_r, bound_f,
                                slack, near, n_near, ends, costs)
            pruned = pruned or cut or (layer == last and n_near < n_finite)
            nkey = nt * width + budget
            for j in range(m):
                nlayer = _line_layer(stops, jump, layer, cols, sq, ends[j])
                why = _cut(rounds, first, ahead_rounds, ahead_first, more, ends[j], 0, nt, max_round, nlayer, last)
                if why:
                    pruned = pruned or why == 1
                    continue
                kept = _offer(lab, count, head, 2 * ends[j], nlayer, n, nt, 0, spent + costs[j], x, LINE, cols)
                if kept:
                    link(bucket, links, count, nkey)
                    count, queued = count + 1, queued + 1
    lab, row = _label_rows(lab, count, best, goal)
    return lab, row, pruned


def _label_rows(lab: np.ndarray, count: int, best: int, goal: int) -> tuple[np.ndarray, int]:
    """The label rows of :func:`plan_labels` (columns ``T`` to ``DEAD``): the goal's chain, parents
    renumbered along it, or every label made."""
    if goal < 0:
        return lab[:count, :LABEL_COLUMNS].copy(), -1
    n = 0
    x = best
    while x >= 0:
        n += 1
        x = lab[x, PRED]
    out = np.empty((n, LABEL_COLUMNS), lab.dtype)
    x = best
    for k in range(n - 1, -1, -1):
        for j in range(LABEL_COLUMNS):  # (no row assigned: see eidomap.base.compiled)
            out[k, j] = lab[x, j]
        out[k, PRED] = k - 1
        x = lab[x, PRED]
    return out, n - 1


#: The functions the battle-grid searches call (:func:`eidomap.base.compiled.compiled` registers them).
JIT_HELPERS = (*GRID_HELPERS, *RING_HELPERS, _order, _units, _potential, _moves, _square, _ahead, _first,
               _twin_ahead, _offer, _write, _label_rows, _rounds_left, _beyond, _reaches, _corner_ok, _clear_line,
               _clear_between, _line_end, lines_from, _by_need, _passed, _line_layer, _cut, _cut_goal)
