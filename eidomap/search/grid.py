"""Multi-round searches on a battle grid: fewest rounds, then fewest squares.

Plain Python over arrays (``eidomap.search._compiled`` compiles the same
functions with numba).  Both return label rows ``(round, left, spent, node,
parent label, kind, ...)`` and settle them through a bucket queue (every move
strictly increases a small integer key).

* :func:`plan_labels` -- moves of a round add up step costs within the
  round's budget (a step that does not fit waits for the next round: the
  ``forbid`` rule), on the CSR over ``node = 2 * square + parity``.  A state
  is a node and the squares left of its round; it keeps its best (round,
  spent), and a label that another with as much left or more dominates is
  dropped (see :func:`_dominated`).  States are settled in the order of
  (round, squares used of the round), so the search is exact for "fewest
  rounds, then fewest squares".  From the labels of a square that may end a
  round, in its first round and cheapest, the next round starts there: every
  step that fits a fresh budget, and the full-round one-square move into each
  neighbour that no fresh budget can pay.
* :func:`line_labels` -- a round is one straight line (run): one label per
  square, ``(round, spent)`` lexicographic, settled round by round; a
  hampered neighbour may be entered with the full-round one-square move
  instead.

>>> import numpy as np
>>> # squares 0 -> 1 -> 2 in a row, entering 2 costs 2: budget 2 a round
>>> indptr = np.array([0, 1, 2, 3, 4, 4, 4]); dst = np.array([2, 3, 4, 5])
>>> cost = np.array([1, 1, 2, 2]); can_end = np.ones(3, np.bool_)
>>> lab, best = plan_labels(indptr, dst, cost, can_end, 0, 2, 2, 1 << 40)
>>> int(lab[best, 0]), int(lab[best, 2])  # round 2, 3 squares spent
(2, 3)
"""

from __future__ import annotations

import numpy as np

__all__ = ["FULL", "KIND", "NODE", "PRED", "SPENT", "START", "STEP", "WAIT", "T", "line_labels", "plan_labels"]

#: Columns of a label row.
T, LEFT, SPENT, NODE, PRED, KIND, NEXT, DEAD, BNEXT = 0, 1, 2, 3, 4, 5, 6, 7, 8
#: How a label was reached: a step in the round, a step that starts the next
#: round, a full-round one-square move, the start.
STEP, WAIT, FULL, START = 0, 1, 2, 3
_NONE = np.iinfo(np.int64).max
_NO_ROUND = np.iinfo(np.int32).max


def _add(lab, count, head, bucket, size, key, v, t, left, spent, parent, kind):
    """A new label of node ``v`` queued under ``key``; returns ``(lab, count, size)`` (grown when full).

    ``lab[:count]`` are the labels, ``head[node]`` the first live label of
    each node, ``bucket[key % len(bucket)]`` the first queued label of each key
    in the bucket queue's window, ``size`` the number queued.
    """
    if count == lab.shape[0]:
        bigger = np.empty((2 * count, 9), lab.dtype)
        bigger[:count] = lab
        lab = bigger
    lab[count, T], lab[count, LEFT], lab[count, SPENT] = t, left, spent
    lab[count, NODE], lab[count, PRED], lab[count, KIND] = v, parent, kind
    lab[count, NEXT], lab[count, DEAD] = head[v], 0
    head[v] = count
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


def _room(q_state, q_next, used, more):
    """The pool, doubled when fewer than ``more`` entries are left unused."""
    if used + more <= len(q_state):
        return q_state, q_next
    return np.concatenate((q_state, np.empty(len(q_state), q_state.dtype))), np.concatenate(
        (q_next, np.empty(len(q_next), q_next.dtype)))


def _dominated(bt, bs, base, left, width, t, spent) -> bool:
    """Whether a label of the node (states ``base .. base + width - 1``) with at least
    ``left`` squares left is in an earlier round, or the same round with no more spent."""
    for s2 in range(base + left, base + width):
        if bt[s2] < t or (bt[s2] == t and bs[s2] <= spent):
            return True
    return False


def plan_labels(indptr, dst, cost, can_end, source, goal, budget, max_round):
    """Labels of the round-by-round search from square ``source`` (see the module docstring).

    A state is a node and the squares left of its round, ``node * (budget + 1)
    + left``; it keeps its best ``(round, spent)``, and a label that one with
    as much left or more beats (an earlier round whatever it spent: it can do
    all the other does a round sooner; the same round with no more spent) is
    dropped.  States are settled in the order of (round, squares used of the
    round) through a bucket queue; one improved in the bucket being settled is
    settled again, so the order within a round's bucket does not matter.
    ``cost[e] > budget`` steps are taken only as full-round one-square moves.
    Stops past the goal's round (``goal`` a square, or -1 for none) or past
    ``max_round``.  Returns ``(labels, best)``: rows of label columns (see
    :data:`T` ...) -- with a goal the goal's chain from the start, else every
    state reached -- and the row of the goal's best label (-1 if not reached).
    """
    width = budget + 1
    n_states = (len(indptr) - 1) * width
    bt = np.full(n_states, _NO_ROUND, np.int32)
    bs = np.zeros(n_states, np.int32)
    par = np.full(n_states, -1, np.int32)
    kind = np.zeros(n_states, np.int8)
    done_t = np.full(n_states, _NO_ROUND, np.int32)
    done_s = np.zeros(n_states, np.int32)
    wait_round = np.full(len(can_end), _NONE, np.int64)
    wait_spent = np.zeros(len(can_end), np.int64)
    bucket = np.full(2 * width + 1, -1, np.int64)
    q_state = np.empty(1 << 16, np.int32)
    q_next = np.empty(1 << 16, np.int32)
    free, used, size = -1, 0, 1
    start = 2 * source * width + budget
    bt[start], kind[start] = 1, START
    free, used = _queue(start, width, bucket, q_state, q_next, free, used)
    key = width
    best = -1
    while size > 0:
        b = key % len(bucket)
        x = bucket[b]
        if x < 0:
            key += 1
            continue
        bucket[b] = q_next[x]
        q_next[x] = free
        free = x
        size -= 1
        s = q_state[x]
        t, spent = bt[s], bs[s]
        node, left = s // width, s % width
        if t * width + budget - left != key or (done_t[s] == t and done_s[s] <= spent):
            continue  # improved since it was queued, or already settled with these values
        if _dominated(bt, bs, s + 1, 0, width - left - 1, t, spent):
            continue
        if t > max_round or (best >= 0 and t > bt[best]):
            break
        done_t[s], done_s[s] = t, spent
        q_state, q_next = _room(q_state, q_next, used, 2 * (indptr[node + 1] - indptr[node]))
        sq = node // 2
        if sq == goal:
            if best < 0 or spent < bs[best]:
                best = s
            continue
        for e in range(indptr[node], indptr[node + 1]):
            c = cost[e]
            if c <= left:
                v = dst[e] * width + left - c
                if not _dominated(bt, bs, v, 0, width - (left - c), t, spent + c):
                    bt[v], bs[v], par[v], kind[v] = t, spent + c, s, STEP
                    free, used = _queue(v, key + c, bucket, q_state, q_next, free, used)
                    size += 1
        if not can_end[sq] or (wait_round[sq] != _NONE and (wait_round[sq] < t or wait_spent[sq] <= spent)):
            continue  # an earlier label of this square started the next round sooner or cheaper
        wait_round[sq], wait_spent[sq] = t, spent
        fresh = kind[s] == START
        nxt = t if fresh else t + 1
        if nxt > max_round:
            continue
        for e in range(indptr[2 * sq], indptr[2 * sq + 1]):
            c = cost[e]
            w = dst[e]
            if c <= budget:
                if fresh:
                    continue
                v, k, new_key = w * width + budget - c, WAIT, nxt * width + c
            elif can_end[w // 2]:
                v, k, new_key = (w - w % 2) * width, FULL, nxt * width + budget
            else:
                continue
            if not _dominated(bt, bs, v - v % width, v % width, width, nxt, spent + (c if k == WAIT else 1)):
                bt[v], bs[v], par[v], kind[v] = nxt, spent + (c if k == WAIT else 1), s, k
                free, used = _queue(v, new_key, bucket, q_state, q_next, free, used)
                size += 1
    return _label_rows(bt, bs, par, kind, width, best, goal)


def _label_rows(bt, bs, par, kind, width, best, goal):
    """The label rows of :func:`plan_labels`: the goal's chain, or every state reached."""
    if goal >= 0:
        n = 0
        s = best
        while s >= 0:
            n += 1
            s = par[s]
        chosen = np.empty(n, np.int64)
        s = best
        for k in range(n - 1, -1, -1):
            chosen[k] = s
            s = par[s]
    else:
        chosen = np.flatnonzero(bt != _NO_ROUND)
    row = np.full(len(bt), -1, np.int64)
    row[chosen] = np.arange(len(chosen))
    lab = np.zeros((len(chosen), 9), np.int64)
    for k in range(len(chosen)):
        s = chosen[k]
        lab[k, T], lab[k, LEFT], lab[k, SPENT] = bt[s], s % width, bs[s]
        lab[k, NODE], lab[k, PRED], lab[k, KIND] = s // width, row[par[s]] if par[s] >= 0 else -1, kind[s]
    return lab, (row[best] if best >= 0 else -1)


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


def _relax(lab, count, head, bucket, size, label, v, t, spent, parent, kind):
    """One label per square: keep ``(t, spent)`` if lexicographically better than ``v``'s."""
    old = label[v]
    if old >= 0 and (lab[old, T] < t or (lab[old, T] == t and lab[old, SPENT] <= spent)):
        return lab, count, size
    if old >= 0:
        lab[old, DEAD] = 1
    label[v] = count
    return _add(lab, count, head, bucket, size, t, v, t, 0, spent, parent, kind)


def line_labels(mult, occupant, rows, cols, source, goal, end_dr, end_dc, line_cost, start, dr, dc, min_cost,
                charge, max_round):
    """Labels of the search where each round is one straight line (a table of
    :func:`eidomap.rules.d20.tactical.line_table`) of at least ``min_cost``
    squares, or -- not when charging -- a full-round one-square move into a
    hampered neighbour.  Same returns as :func:`plan_labels`; ``node`` is the
    square, round 0 the start; a label's key is its round."""
    n = rows * cols
    head = np.full(n, -1, np.int64)
    label = np.full(n, -1, np.int64)
    bucket = np.full(2, -1, np.int64)
    lab = np.empty((1024, 9), np.int32)
    lab, count, size = _add(lab, 0, head, bucket, 0, 0, source, 0, 0, 0, -1, START)
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
                lab, count, size = _relax(lab, count, head, bucket, size, label, er * cols + ec, t + 1,
                                          spent + line_cost[k], x, STEP)
        if charge:
            continue
        for k in range(8):  # the table starts with the 8 neighbours (cost 1)
            er, ec = r + end_dr[k], c + end_dc[k]
            if 0 <= er < rows and 0 <= ec < cols:
                q = er * cols + ec
                if mult[q] > 1 and occupant[q] == 0 and _corner_ok(mult, cols, r, c, er, ec):
                    lab, count, size = _relax(lab, count, head, bucket, size, label, q, t + 1, spent + 1, x, FULL)
    return lab[:count], label[goal] if goal >= 0 else -1
