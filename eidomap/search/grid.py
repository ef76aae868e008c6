"""Multi-round searches on a battle grid: fewest rounds, then fewest squares.

Plain Python over arrays (``eidomap.search._compiled`` compiles the same
functions with numba).  Labels live in one ``int64`` pool, a row each:
``(round, left, spent, node, parent label, kind, next label of the node, dead)``.

* :func:`plan_labels` -- moves of a round add up step costs within the
  round's budget (a step that does not fit waits for the next round: the
  ``forbid`` rule), on the CSR over ``node = 2 * square + parity``.  One node
  holds every label not dominated in (earlier round, more squares left, fewer
  squares spent), settled in that order, so the search is exact for "fewest
  rounds, then fewest squares".  From the first label of a square that may
  end a round with the fewest squares spent, the next round starts there:
  every step that fits a fresh budget, and the full-round one-square move
  into each neighbour that no fresh budget can pay.
* :func:`line_labels` -- a round is one straight line (run): one label per
  square, ``(round, spent)`` lexicographic; a hampered neighbour may be
  entered with the full-round one-square move instead.

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

__all__ = ["FULL", "KIND", "PRED", "START", "STEP", "WAIT", "line_labels", "plan_labels"]

#: Columns of a label row.
T, LEFT, SPENT, NODE, PRED, KIND, NEXT, DEAD = 0, 1, 2, 3, 4, 5, 6, 7
#: How a label was reached: a step in the round, a step that starts the next
#: round, a full-round one-square move, the start.
STEP, WAIT, FULL, START = 0, 1, 2, 3
_NONE = np.iinfo(np.int64).max


def _before(lab, a, b) -> bool:
    """Label ``a`` comes before ``b``: earlier round, then more left, then fewer spent."""
    if lab[a, T] != lab[b, T]:
        return lab[a, T] < lab[b, T]
    if lab[a, LEFT] != lab[b, LEFT]:
        return lab[a, LEFT] > lab[b, LEFT]
    return lab[a, SPENT] < lab[b, SPENT]


def _pop(heap, size, lab):
    """The first label of the heap (an array of label indices) and the new size."""
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _before(lab, heap[child + 1], heap[child]):
            child += 1
        if not _before(lab, heap[child], heap[i]):
            break
        heap[i], heap[child] = heap[child], heap[i]
        i = child
    return top, size


def _add(lab, heap, count, size, head, v, t, left, spent, parent, kind):
    """A new label of node ``v`` on the heap; returns ``(lab, heap, count, size)`` (grown when full)."""
    if count == lab.shape[0]:
        bigger = np.empty((2 * count, 8), np.int64)
        bigger[:count] = lab
        lab = bigger
        more = np.empty(2 * count, np.int64)
        more[:size] = heap[:size]
        heap = more
    lab[count, T], lab[count, LEFT], lab[count, SPENT] = t, left, spent
    lab[count, NODE], lab[count, PRED], lab[count, KIND] = v, parent, kind
    lab[count, NEXT], lab[count, DEAD] = head[v], 0
    head[v] = count
    i = size
    heap[i] = count
    while i > 0:
        up = (i - 1) // 2
        if not _before(lab, heap[i], heap[up]):
            break
        heap[i], heap[up] = heap[up], heap[i]
        i = up
    return lab, heap, count + 1, size + 1


def _offer(lab, heap, count, size, head, v, t, left, spent, parent, kind):
    """:func:`_add` unless a label of ``v`` dominates it; labels it dominates die."""
    k = head[v]
    while k >= 0:
        if lab[k, DEAD] == 0:
            if lab[k, T] <= t and lab[k, LEFT] >= left and lab[k, SPENT] <= spent:
                return lab, heap, count, size
            if lab[k, T] >= t and lab[k, LEFT] <= left and lab[k, SPENT] >= spent:
                lab[k, DEAD] = 1
        k = lab[k, NEXT]
    return _add(lab, heap, count, size, head, v, t, left, spent, parent, kind)


def plan_labels(indptr, dst, cost, can_end, source, goal, budget, max_round):
    """Labels of the round-by-round search from square ``source`` (see the module docstring).

    ``cost[e] > budget`` steps are taken only as full-round one-square moves.
    Stops past the goal's round (``goal`` a square, or -1 for none) or past
    ``max_round``.  Returns ``(labels, best)``: the label rows and the goal's
    best label (-1 if not reached).
    """
    head = np.full(len(indptr) - 1, -1, np.int64)
    wait_spent = np.full(len(can_end), _NONE, np.int64)
    lab = np.empty((1024, 8), np.int64)
    heap = np.empty(1024, np.int64)
    lab, heap, count, size = _add(lab, heap, 0, 0, head, 2 * source, 1, budget, 0, -1, START)
    best = -1
    while size > 0:
        x, size = _pop(heap, size, lab)
        if lab[x, DEAD]:
            continue
        t, left, spent, node = lab[x, T], lab[x, LEFT], lab[x, SPENT], lab[x, NODE]
        if t > max_round or (best >= 0 and t > lab[best, T]):
            break
        sq = node // 2
        if sq == goal:
            if best < 0 or spent < lab[best, SPENT]:
                best = x
            continue
        for e in range(indptr[node], indptr[node + 1]):
            c = cost[e]
            if c <= left:
                lab, heap, count, size = _offer(lab, heap, count, size, head, dst[e], t, left - c, spent + c, x,
                                                STEP)
        if not can_end[sq] or spent >= wait_spent[sq]:
            continue
        wait_spent[sq] = spent
        fresh = lab[x, KIND] == START
        nxt = t if fresh else t + 1
        if nxt > max_round:
            continue
        for e in range(indptr[2 * sq], indptr[2 * sq + 1]):
            c = cost[e]
            v = dst[e]
            if c <= budget:
                if not fresh:
                    lab, heap, count, size = _offer(lab, heap, count, size, head, v, nxt, budget - c, spent + c, x,
                                                    WAIT)
            elif can_end[v // 2]:
                lab, heap, count, size = _offer(lab, heap, count, size, head, v - v % 2, nxt, 0, spent + 1, x, FULL)
    return lab[:count], best


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


def line_labels(mult, occupant, rows, cols, source, goal, end_dr, end_dc, line_cost, start, dr, dc, min_cost,
                charge, max_round):
    """Labels of the search where each round is one straight line (a table of
    :func:`eidomap.rules.d20.tactical.line_table`) of at least ``min_cost``
    squares, or -- not when charging -- a full-round one-square move into a
    hampered neighbour.  Same returns as :func:`plan_labels`; ``node`` is the
    square, round 0 the start."""
    n = rows * cols
    head = np.full(n, -1, np.int64)
    label = np.full(n, -1, np.int64)
    lab = np.empty((1024, 8), np.int64)
    heap = np.empty(1024, np.int64)
    lab, heap, count, size = _add(lab, heap, 0, 0, head, source, 0, 0, 0, -1, START)
    label[source] = 0
    while size > 0:
        x, size = _pop(heap, size, lab)
        if lab[x, DEAD]:
            continue
        t, spent, u = lab[x, T], lab[x, SPENT], lab[x, NODE]
        if u == goal or t >= max_round:
            break
        r, c = u // cols, u % cols
        for k in range(len(end_dr)):
            er, ec = r + end_dr[k], c + end_dc[k]
            moves = line_cost[k] >= min_cost and 0 <= er < rows and 0 <= ec < cols
            if moves and _line_ok(mult, occupant, rows, cols, r, c, k, start, dr, dc, charge):
                if occupant[er * cols + ec] == 0:
                    lab, heap, count, size = _relax(lab, heap, count, size, head, label, er * cols + ec, t + 1,
                                                    spent + line_cost[k], x, STEP)
        if charge:
            continue
        for k in range(8):  # the table starts with the 8 neighbours (cost 1)
            er, ec = r + end_dr[k], c + end_dc[k]
            if 0 <= er < rows and 0 <= ec < cols:
                q = er * cols + ec
                if mult[q] > 1 and occupant[q] == 0 and _corner_ok(mult, cols, r, c, er, ec):
                    lab, heap, count, size = _relax(lab, heap, count, size, head, label, q, t + 1, spent + 1, x,
                                                    FULL)
    return lab[:count], label[goal] if goal >= 0 else -1


def _relax(lab, heap, count, size, head, label, v, t, spent, parent, kind):
    """One label per square: keep ``(t, spent)`` if lexicographically better than ``v``'s."""
    old = label[v]
    if old >= 0 and (lab[old, T] < t or (lab[old, T] == t and lab[old, SPENT] <= spent)):
        return lab, heap, count, size
    if old >= 0:
        lab[old, DEAD] = 1
    label[v] = count
    return _add(lab, heap, count, size, head, v, t, 0, spent, parent, kind)
