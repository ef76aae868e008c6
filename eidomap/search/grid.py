"""Multi-round searches on a battle grid: fewest rounds, then fewest squares.

Plain Python over arrays (``eidomap.search._compiled`` compiles the same
functions with numba).  Both return label rows ``(round, left, spent, node,
parent label, kind, ...)`` and settle them through a bucket queue (every move
strictly increases a small integer key).

* :func:`plan_labels` -- moves of a round add up step costs within the
  round's budget (a step that does not fit waits for the next round: the
  ``forbid`` rule), over ``node = 2 * square + parity`` with the grid's step
  masks and multipliers (no graph is built).  A state
  is a node and the squares left of its round; it keeps its best (round,
  spent), and a label that another with as much left or more dominates is
  dropped (see :func:`_dominated`).  States are settled in the order of
  (round, squares used of the round), so the search is exact for "fewest
  rounds, then fewest squares".  From the labels of a square that may end a
  round, in its first round and cheapest, the next round starts there: every
  step that fits a fresh budget, and the full-round one-square move into each
  neighbour that no fresh budget can pay.  A route first counts the rounds
  backwards from the goal (:func:`rounds_to`: exact where every square may
  end a round, else a lower bound) and searches only the states that can
  still make that many, widening the bound until the goal is found.
* :func:`line_labels` -- a round is one straight line (run): one label per
  square, ``(round, spent)`` lexicographic, settled round by round; a
  hampered neighbour may be entered with the full-round one-square move
  instead.

>>> import numpy as np
>>> # a row of 3 squares, entering the last costs 2: budget 2 a round
>>> mult = np.array([1, 1, 2]); mask = np.array([8, 12, 4], np.uint8); free = np.ones(3, np.bool_)
>>> rounds, first = rounds_to(mult, mask, 3, 2, 2)
>>> rounds.tolist(), first.tolist()  # from square 0: 2 rounds, the first of 1 square
([2, 1, 0], [1, 2, 3])
>>> lab, best, _ = plan_labels(mult, mask, free, 3, 0, 2, 2, 2, rounds, first, work_space(3, 2))
>>> int(lab[best, 0]), int(lab[best, 2])  # round 2, 3 squares spent
(2, 3)
"""

from __future__ import annotations

import numpy as np

from ..rules.d20.tactical import offsets, step_cost

__all__ = ["FULL", "KIND", "NODE", "PRED", "SPENT", "START", "STEP", "WAIT", "T", "line_labels",
           "plan_labels", "rounds_to", "work_space"]

#: Columns of a label row.
T, LEFT, SPENT, NODE, PRED, KIND, DEAD, BNEXT = 0, 1, 2, 3, 4, 5, 6, 7
COLUMNS = 8
#: How a label was reached: a step in the round, a step that starts the next
#: round, a full-round one-square move, the start.
STEP, WAIT, FULL, START = 0, 1, 2, 3
_NONE = np.iinfo(np.int64).max
_NO_ROUND = np.iinfo(np.int32).max


def _add(lab, count, bucket, size, key, v, t, left, spent, parent, kind):
    """A new label of node ``v`` queued under ``key``; returns ``(lab, count, size)`` (grown when full).

    ``lab[:count]`` are the labels, ``bucket[key % len(bucket)]`` the first queued label of each key
    in the bucket queue's window, ``size`` the number queued.
    """
    if count == lab.shape[0]:
        bigger = np.empty((2 * count, COLUMNS), lab.dtype)
        bigger[:count] = lab
        lab = bigger
    lab[count, T], lab[count, LEFT], lab[count, SPENT] = t, left, spent
    lab[count, NODE], lab[count, PRED], lab[count, KIND] = v, parent, kind
    lab[count, DEAD] = 0
    b = key % len(bucket)
    lab[count, BNEXT] = bucket[b]
    bucket[b] = count
    return lab, count + 1, size + 1


def _pop(lab, bucket, size, key):
    """The next queued label (its key at least ``key``): ``(label, key, size)``."""
    while bucket[key % len(bucket)] < 0:
        key += 1
    b = key % len(bucket)
    x = bucket[b]
    bucket[b] = lab[x, BNEXT]
    return x, key, size - 1


def _queue(state, key, bucket, q_state, q_next, free, used):
    """Queue ``state`` under ``key``; returns ``(free, used)``.

    The queue is a ring of buckets over the keys in reach (two rounds), each a
    linked list through a pool of entries (``q_state``, ``q_next``); popped
    entries go to the ``free`` list and are reused.  The caller keeps the pool
    large enough (:func:`_room`).
    """
    if free >= 0:
        x = free
        free = q_next[x]
    else:
        x = used
        used += 1
    b = key % len(bucket)
    q_state[x] = state
    q_next[x] = bucket[b]
    bucket[b] = x
    return free, used


def _next(ring, q_state, q_next, free, key):
    """The next queued state, at ``key`` or later: ``(state, key, free)``; its entry goes to the free list."""
    while ring[key % len(ring)] < 0:
        key += 1
    b = key % len(ring)
    x = ring[b]
    ring[b] = q_next[x]
    q_next[x] = free
    return q_state[x], key, x


def _room(q_state, q_next, used, more):
    """The pool, doubled when fewer than ``more`` entries are left unused."""
    if used + more <= len(q_state):
        return q_state, q_next
    return np.concatenate((q_state, np.empty(len(q_state), q_state.dtype))), np.concatenate(
        (q_next, np.empty(len(q_next), q_next.dtype)))


#: Fields of a state's record in :func:`plan_labels`: round (0: none yet), squares
#: spent, parent state, how it was reached (+ :data:`_SETTLED` once settled with
#: these values).  Records start as zeros, so pages the search never reaches are
#: never touched.
_ROUND, _SPENT, _PARENT, _HOW = 0, 1, 2, 3
_SETTLED = 8


def _dominated(rec, base, left, width, t, spent) -> bool:
    """Whether a label of the node (states ``base .. base + width - 1``) with at least
    ``left`` squares left is in an earlier round, or the same round with no more spent."""
    for s2 in range(base + left, base + width):
        r = rec[s2, _ROUND]
        if r != 0 and (r < t or (r == t and rec[s2, _SPENT] <= spent)):
            return True
    return False


def rounds_to(mult, mask, cols, goal, budget, stop=-1):
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
    whole round (the full-round one-square move).  Settled through a bucket
    queue, up to the rounds of square ``stop`` (-1: every square).
    """
    n = len(mult)
    width = 2 * budget + 4  # 2 v + q of a round: v up to budget + 1 (a full-round move)
    off = offsets(cols)
    rounds = np.full(n, -1, np.int32)
    first = np.zeros(n, np.int32)
    best = np.full(n, _NONE, np.int64)
    ring = np.full(2 * width + 1, -1, np.int64)
    q_state = np.empty(1 << 16, np.int32)
    q_next = np.empty(1 << 16, np.int32)
    full = 2 * budget + 2  # the key of a label that must begin its round (it takes a whole one)
    best[goal] = full  # the goal: no more rounds, and a round ends there
    free, used = _queue(goal, full, ring, q_state, q_next, -1, 0)
    key, size, last = full, 1, _NONE
    while size > 0:
        y, key, free = _next(ring, q_state, q_next, free, key)
        size -= 1
        if rounds[y] >= 0 or best[y] != key:
            continue
        g, rest = key // width, key % width
        if g > last:
            break
        v, q = rest // 2, rest % 2
        rounds[y], first[y] = g, v
        if y == stop:
            last = g
        q_state, q_next = _room(q_state, q_next, used, 8)
        for k in range(8):
            x = y - off[k]
            if x < 0 or x >= n or not (mask[x] >> k) & 1 or rounds[x] >= 0:
                continue
            c, p = step_cost(mult, y, q, k)
            if v + c <= budget:  # on in this round
                nkey = key + 2 * c + p - q
            else:  # a round ends at y: the step begins it, or takes a whole one
                c, p = step_cost(mult, y, 0, k)
                nkey = (g + 1) * width + (2 * c + p if c <= budget else full)
            if nkey < best[x]:
                best[x] = nkey
                free, used = _queue(x, nkey, ring, q_state, q_next, free, used)
                size += 1
    return rounds, first


def _rounds_left(rounds, first, square, left):
    """Fewest rounds after this one a way on from ``square`` with ``left`` squares of this round takes."""
    g = np.int64(rounds[square])
    if g < 0:
        return np.int64(_NO_ROUND >> 1)
    return g - 1 if first[square] <= left else g


def plan_labels(mult, mask, can_end, cols, source, goal, budget, max_round, rounds, first, rec):
    """Labels of the round-by-round search from square ``source`` (see the module docstring).

    Steps come from the grid's :func:`~eidomap.rules.d20.tactical.step_masks`
    and multipliers.  A state is a node (``2 * square + parity``) and the
    squares left of its round, ``node * (budget + 1) + left``; it keeps its
    best ``(round, spent)``, and a label that one with as much left or more
    beats (:func:`_dominated`) is dropped.  States are settled in the order of
    (round, squares used of the round) through a bucket queue; one improved in
    the bucket being settled is settled again.  A step dearer than ``budget``
    is taken only as a full-round one-square move.  Stops past the goal's
    round (``goal`` a square, or -1 for none).

    A label whose round plus the fewest rounds it still needs
    (:func:`_rounds_left` of :func:`rounds_to`'s ``rounds`` and ``first``;
    ones and zeros for none) passes ``max_round`` is never queued: with
    ``max_round`` the answer, the search keeps to the ways that make it.

    ``rec`` is the work space, one record a state: zeros of shape ``(2 *
    squares * (budget + 1), 4)``, int32, from :func:`work_space` (NumPy's
    zeros are pages the system fills only where the search goes).

    Returns ``(labels, best, pruned)``: rows of label columns (see :data:`T`
    ...) -- with a goal the goal's chain from the start, else every state
    reached --, the row of the goal's best label (-1 if not reached) and
    whether any label was pruned.
    """
    width = budget + 1
    off = offsets(cols)
    wait_round = np.full(len(mult), _NO_ROUND, np.int32)
    wait_spent = np.zeros(len(mult), np.int32)
    bucket = np.full(2 * width + 1, -1, np.int64)
    q_state = np.empty(1 << 16, np.int32)
    q_next = np.empty(1 << 16, np.int32)
    start = 2 * source * width + budget
    rec[start, _ROUND], rec[start, _SPENT], rec[start, _PARENT], rec[start, _HOW] = 1, 0, -1, START
    free, used = _queue(start, width, bucket, q_state, q_next, -1, 0)
    key, size, best, pruned = width, 1, -1, False
    while size > 0:
        s, key, free = _next(bucket, q_state, q_next, free, key)
        size -= 1
        t, spent = rec[s, _ROUND], rec[s, _SPENT]
        node, left = s // width, s % width
        if t * width + budget - left != key or rec[s, _HOW] >= _SETTLED:
            continue  # improved since it was queued, or already settled with these values
        if _dominated(rec, s + 1, 0, width - left - 1, t, spent):
            continue
        if best >= 0 and t > rec[best, _ROUND]:
            break
        rec[s, _HOW] += _SETTLED
        sq, parity = node // 2, node % 2
        if sq == goal:
            if best < 0 or spent < rec[best, _SPENT]:
                best = s
            continue
        q_state, q_next = _room(q_state, q_next, used, 16)
        steps = mask[sq]
        # phase 0: steps within the round; phase 1: the next round, from a fresh budget (diagonal
        # parity 0), begun by the first (or cheapest) label of a square where a round may end
        ends = can_end[sq] and not (wait_round[sq] != _NO_ROUND and (wait_round[sq] < t or wait_spent[sq] <= spent))
        if ends:
            wait_round[sq], wait_spent[sq] = t, spent
        fresh = rec[s, _HOW] == START + _SETTLED
        nxt = t if fresh else t + 1  # at the start: its own first round
        for phase in range(2 if ends else 1):
            for k in range(8):
                if not (steps >> k) & 1:
                    continue
                v = sq + off[k]
                c, p = step_cost(mult, v, parity if phase == 0 else 0, k)
                if phase == 0:
                    if c > left:
                        continue
                    nt, nl, ns, how, nkey = t, left - c, spent + c, STEP, key + c
                elif c <= budget:
                    if fresh:
                        continue
                    nt, nl, ns, how, nkey = nxt, budget - c, spent + c, WAIT, nxt * width + c
                elif can_end[v]:  # no budget pays it: a full-round one-square move
                    p, nt, nl, ns, how, nkey = 0, nxt, 0, spent + 1, FULL, nxt * width + budget
                else:
                    continue
                base = (2 * v + p) * width
                if nt + _rounds_left(rounds, first, v, nl) > max_round:
                    pruned = True
                    continue
                if _dominated(rec, base, nl, width, nt, ns):
                    continue
                r = base + nl
                rec[r, _ROUND], rec[r, _SPENT], rec[r, _PARENT], rec[r, _HOW] = nt, ns, s, how
                free, used = _queue(base + nl, nkey, bucket, q_state, q_next, free, used)
                size += 1
    lab, row = _label_rows(rec, width, best, goal)
    return lab, row, pruned


def work_space(squares: int, budget: int) -> np.ndarray:
    """The zeroed records :func:`plan_labels` works in (one cache line a state)."""
    return np.zeros((2 * squares * (budget + 1), 4), np.int32)


def _label_rows(rec, width, best, goal):
    """The label rows of :func:`plan_labels`: the goal's chain, or every state reached."""
    if goal >= 0:
        n = 0
        s = best
        while s >= 0:
            n += 1
            s = rec[s, _PARENT]
        chosen = np.empty(n, np.int64)
        s = best
        for k in range(n - 1, -1, -1):
            chosen[k] = s
            s = rec[s, _PARENT]
    else:
        chosen = np.flatnonzero(rec[:, _ROUND])
    ids = np.sort(chosen)  # a state's row: where it stands in ``chosen``
    at = np.argsort(chosen)
    lab = np.zeros((len(chosen), COLUMNS), np.int64)
    for k in range(len(chosen)):
        s = chosen[k]
        parent = rec[s, _PARENT]
        lab[k, T], lab[k, LEFT], lab[k, SPENT] = rec[s, _ROUND], s % width, rec[s, _SPENT]
        lab[k, NODE], lab[k, PRED] = s // width, at[np.searchsorted(ids, parent)] if parent >= 0 else -1
        lab[k, KIND] = rec[s, _HOW] % _SETTLED
    return lab, (at[np.searchsorted(ids, best)] if best >= 0 else -1)


def _corner_ok(mult, cols, r0, c0, r1, c1) -> bool:
    """A step from ``(r0, c0)`` to ``(r1, c1)`` does not pass the corner of an impassable square."""
    return r0 == r1 or c0 == c1 or (mult[r0 * cols + c1] != 0 and mult[r1 * cols + c0] != 0)


def _line_ok(mult, occupant, rows, cols, r, c, k, start, dr, dc, charge) -> bool:
    """Line ``k`` of the table from ``(r, c)`` stays on the grid, on clear squares, past no enemy
    (a charge: no creature), and past no wall corner."""
    pr, pc = r, c
    for j in range(start[k], start[k + 1]):
        qr, qc = r + dr[j], c + dc[j]
        if qr < 0 or qr >= rows or qc < 0 or qc >= cols:
            return False
        q = qr * cols + qc
        if mult[q] != 1 or occupant[q] == 2 or (charge and occupant[q] != 0):
            return False
        if not _corner_ok(mult, cols, pr, pc, qr, qc):
            return False
        pr, pc = qr, qc
    return True


def _relax(lab, count, bucket, size, label, v, t, spent, parent, kind):
    """One label per square: keep ``(t, spent)`` if lexicographically better than ``v``'s."""
    old = label[v]
    if old >= 0 and (lab[old, T] < t or (lab[old, T] == t and lab[old, SPENT] <= spent)):
        return lab, count, size
    if old >= 0:
        lab[old, DEAD] = 1
    label[v] = count
    return _add(lab, count, bucket, size, t, v, t, 0, spent, parent, kind)


def line_labels(mult, occupant, rows, cols, source, goal, end_dr, end_dc, line_cost, start, dr, dc, min_cost,
                charge, max_round):
    """Labels of the search where each round is one straight line (a table of
    :func:`eidomap.rules.d20.tactical.line_table`) of at least ``min_cost``
    squares, or -- not when charging -- a full-round one-square move into a
    hampered neighbour.  Same returns as :func:`plan_labels`; ``node`` is the
    square, round 0 the start; a label's key is its round."""
    n = rows * cols
    label = np.full(n, -1, np.int64)
    bucket = np.full(2, -1, np.int64)
    lab = np.empty((1024, COLUMNS), np.int32)
    lab, count, size = _add(lab, 0, bucket, 0, 0, source, 0, 0, 0, -1, START)
    label[source] = 0
    key = 0
    while size > 0:
        x, key, size = _pop(lab, bucket, size, key)
        if lab[x, DEAD]:
            continue
        t, spent, u = lab[x, T], lab[x, SPENT], lab[x, NODE]
        if u == goal or t >= max_round:
            break
        r, c = u // cols, u % cols
        for k in range(len(end_dr)):
            er, ec = r + end_dr[k], c + end_dc[k]
            if line_cost[k] < min_cost or not (0 <= er < rows and 0 <= ec < cols) or occupant[er * cols + ec] != 0:
                continue
            if _line_ok(mult, occupant, rows, cols, r, c, k, start, dr, dc, charge):
                lab, count, size = _relax(lab, count, bucket, size, label, er * cols + ec, t + 1,
                                          spent + line_cost[k], x, STEP)
        if charge:
            continue
        for k in range(8):  # the table starts with the 8 neighbours (cost 1)
            er, ec = r + end_dr[k], c + end_dc[k]
            if 0 <= er < rows and 0 <= ec < cols:
                q = er * cols + ec
                if mult[q] > 1 and occupant[q] == 0 and _corner_ok(mult, cols, r, c, er, ec):
                    lab, count, size = _relax(lab, count, bucket, size, label, q, t + 1, spent + 1, x, FULL)
    return lab[:count], label[goal] if goal >= 0 else -1
