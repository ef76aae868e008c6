"""Analyst's questions across many places and species (under the dice; debt rule or forbid).

* :func:`expected_turns_matrix` -- expected turns between every pair of places,
  from one multi-source Dijkstra and a table of the dice's renewal function;
* :func:`race` -- the chance that each actor arrives first, or that some tie for first;
* :func:`bottlenecks` -- Eidos that many cheapest routes pass through;
* :func:`load_batch` -- the result of ``eidomap batch`` (:mod:`eidomap.answers.batch`).

>>> import numpy as np
>>> race(np.array([0.5, 1.0]), np.array([0.0, 1.0]))  # A: turn 1 or 2, B: turn 2
(0.5, 0.5, 0.0)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from eidomap.answers.batch.kernels import carry_block, forbid_block
from eidomap.answers.batch.store import TEXT
from eidomap.answers.routing import Route, plan_weights
from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.modes import Partial
from eidomap.base.names import shown
from eidomap.model.map import Map
from eidomap.rules.actors import resolve_actor
from eidomap.rules.dice import budget_pmf
from eidomap.search.weighted import entry_offsets

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from eidomap.rules.eido import Actor

__all__ = ["BATCH_CELLS", "BatchResult", "bottlenecks", "expected_turns_matrix", "load_batch", "race"]

#: Distances held at once by :func:`expected_turns_matrix` (sources x nodes).
BATCH_CELLS = 50_000_000


def expected_turns_matrix(m: Map, places: Sequence[str], who: Actor | str = "human",
                          partial: Partial | str = Partial.CARRY) -> np.ndarray:
    """Expected turns to arrive from each place (rows) to each place (columns).

    Under the actor's dice; ``inf`` where unreachable, 0 on the diagonal.  Under the debt rule: multi-source
    Dijkstra, then vectorised look-ups on the edges into the places only: no per-pair search.  Sources go in
    batches so that no more than about :data:`BATCH_CELLS` distances are held at once.  Under ``forbid``: the
    optimal roll-by-roll play's value from every node, one solve per target place (maps up to a few thousand
    nodes).  The kernels are those of ``eidomap batch``.

    Parameters
    ----------
    m : Map
        The map.
    places : sequence of str
        Eido or Pousa ids: the rows and the columns, in this order.
    who : Actor or str
        An actor (:func:`eidomap.rules.eido.actor`) or a species name.
    partial : {"carry", "forbid"}
        The step rule (see :func:`eidomap.answers.routing.route`).

    Returns
    -------
    numpy.ndarray of float, shape (len(places), len(places))
        The expected turns.

    Raises
    ------
    RequestError
        For an unknown place, species or step rule.

    See Also
    --------
    eidomap.answers.routing.route : The whole arrival distribution between two places.
    eidomap.answers.batch.run_batch : Every start and target, into files.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> expected_turns_matrix(m, ["porto-norte", "porto-sur", "chousa"], "human").round(3)
    array([[0.   , 2.161, 1.361],
           [2.161, 0.   , 2.775],
           [1.361, 3.043, 0.   ]])
    """
    m = params.instance(m, "m", Map)
    a = resolve_actor(m, who)
    net = m.network
    idx = np.array([m.index(p) for p in params.names(places, "places", "Eido ids")], dtype=np.int64)
    pmf = budget_pmf(a.dice, a.vmv)
    if not Partial.checked(partial, "partial").carry:
        return forbid_block(net, plan_weights(m, a, carry=False), pmf, idx, idx, 0).expected
    offsets = entry_offsets(a.table, net)
    step = max(1, BATCH_CELLS // max(net.n_nodes, 1))
    blocks = [carry_block(net, a.costs, pmf, idx[k : k + step], idx, 0, offsets).expected
              for k in range(0, len(idx), step)]
    return np.vstack(blocks) if blocks else np.empty((0, 0))


def race(p_a: np.ndarray | Route, p_b: np.ndarray | Route, *more: np.ndarray | Route) -> tuple[float, ...]:
    """P(A arrives first), P(a tie for first), P(B first) -- and P(first) of each further actor -- from their
    ``P(arrived by turn k)``, or from their routes.

    The actors roll independently.  A distribution shorter than the others is extended with its last value (an
    actor that never arrives has 0s); past the longest one (the horizon) an actor that has not arrived never
    does.  Each actor's P(first) is the chance that it arrives in some turn and every other actor arrives in a
    later turn or never.  A *tie* is the earliest arrival turn shared: two or more actors arrive in the same
    turn and none before it -- whoever else arrives later or never (with A and B in turn 3 and C in turn 5 it
    is a tie; with A alone in turn 2 and B and C together in turn 4, A is first).  When no actor arrives within
    the horizon there is neither a first nor a tie: the numbers add up to P(at least one arrives).  Exact, for
    any number of actors: per turn, P(exactly m actors arrive in it and the rest later) are the coefficients of
    the product over the actors of ``P(later) + P(in it) x``, each a sum of products of probabilities (no
    difference of nearly equal numbers), and a tie is m >= 2.

    A route says more than its distribution: a route that is already at the goal (reachable, no turn: an empty
    ``p_by_turn``, as a route that cannot arrive has) arrives before any turn, so before every actor that must
    move -- first alone, or in a tie with the others already there.  The planner page's race of several tokens
    reads its routes so too.

    Parameters
    ----------
    p_a, p_b, *more : array of float or Route
        ``p[k - 1]`` = P(arrived by turn k), as ``Route.p_by_turn`` (:func:`eidomap.answers.routing.route`),
        of each actor -- or the actor's ``Route`` itself.

    Returns
    -------
    tuple of float
        P(A first), P(a tie), P(B first), then P(first) of each further actor, in the order given.

    See Also
    --------
    eidomap.answers.routing.route : The arrival distribution of each actor.

    Examples
    --------
    >>> import numpy as np
    >>> [round(p, 3) for p in race(np.array([0.5, 1.0]), np.array([0.2, 0.6, 1.0]))]
    [0.6, 0.3, 0.1]

    Three actors: A first, a tie, B first, C first.

    >>> [round(p, 3) for p in race([0.5, 1.0], [0.2, 0.6, 1.0], [1.0])]
    [0.0, 0.6, 0.0, 0.4]
    """
    named = [("p_a", p_a), ("p_b", p_b), *((f"more[{i}]", p) for i, p in enumerate(more))]
    there = [isinstance(p, Route) and p.reachable and not p.p_by_turn for _, p in named]
    dists = [np.asarray(params.reals(p.p_by_turn if isinstance(p, Route) else p, name, 0, 1), dtype=float)
             for name, p in named]
    if any(there):  # (a turn 0 before the others' first: the actors already there arrive in it)
        dists = [np.ones(1) if at else np.concatenate(([0.0], p)) if len(p) else p
                 for at, p in zip(there, dists, strict=True)]
    n = max(len(p) for p in dists)
    cdf = np.zeros((len(dists), n + 1))  # P(arrived by turn k), k = 0..n
    for row, p in zip(cdf, dists, strict=True):
        row[1:] = np.pad(p, (0, n - len(p)), mode="edge") if len(p) else 0.0
    now = np.diff(cdf, axis=1)  # P(arrives in turn k), k = 1..n
    later = 1.0 - cdf[:, 1:]  # P(arrives after turn k, or never)
    first = [float(np.sum(now[i] * np.prod(np.delete(later, i, axis=0), axis=0))) for i in range(len(dists))]
    # per turn, P(exactly m arrive in it and the others later): the coefficients of prod_i (later_i + now_i x)
    exactly = np.zeros((len(dists) + 1, n))
    exactly[0] = 1.0
    for i in range(len(dists)):
        exactly[1:] = exactly[1:] * later[i] + exactly[:-1] * now[i]
        exactly[0] = exactly[0] * later[i]
    tie = float(np.sum(np.sum(exactly[2:], axis=0)))
    return first[0], tie, *first[1:]


def bottlenecks(m: Map, who: Actor | str = "human", top: int = 10, partial: Partial | str = Partial.CARRY,
                sample: int | None = None) -> list[tuple[str, float]]:
    """The Eidos with the highest betweenness on the actor's cost-weighted graph.

    Uses NetworkX's ``betweenness_centrality`` over the cheapest pair weights (impassable steps removed, and
    under ``forbid`` the steps no roll can pay); with ``sample``, estimated from that many source nodes (fixed
    seed) instead of all of them: a search per source, so big maps want a sample.

    Parameters
    ----------
    m : Map
        The map.
    who : Actor or str
        An actor (:func:`eidomap.rules.eido.actor`) or a species name.
    top : int
        How many Eidos to return.
    partial : {"carry", "forbid"}
        The step rule (see :func:`eidomap.answers.routing.route`).
    sample : int, optional
        Source nodes to estimate from (default: every node).

    Returns
    -------
    list of (str, float)
        The Eidos and their betweenness, highest first.

    Raises
    ------
    RequestError
        For an unknown species or step rule.

    See Also
    --------
    eidomap.Map.graph_for : The weighted graph, for other NetworkX measures.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> [(e, round(b, 3)) for e, b in bottlenecks(m, "human", top=3)]
    [('fraga', 0.283), ('estreito', 0.25), ('porto-sur', 0.225)]
    """
    import networkx as nx

    m = params.instance(m, "m", Map)
    a = resolve_actor(m, who)
    top, sample = params.whole(top, "top", 0), params.maybe(params.whole, sample, "sample", 1)
    net = m.network
    coo = net.csr(plan_weights(m, a, Partial.checked(partial, "partial").carry)).tocoo()
    ok = np.isfinite(coo.data)
    g = nx.DiGraph()
    g.add_nodes_from(range(net.n_nodes))
    g.add_weighted_edges_from(zip(coo.row[ok].tolist(), coo.col[ok].tolist(), coo.data[ok].tolist(), strict=True))
    pivots = sample if sample is not None and sample < net.n_nodes else None
    score = nx.betweenness_centrality(g, k=pivots, weight="weight", seed=0 if pivots else None)
    n_e = len(m.eido_ids)
    ranked = sorted(((score[k], m.eido_ids[k]) for k in range(n_e)), reverse=True)[:top]
    return [(eid, s) for s, eid in ranked]


@dataclass(repr=False)
class BatchResult:
    """A batch's result folder: its record (``_batch.json``) and its proven parts, read on demand.

    Every column read is checked against the digest its part's proof gives, every part's columns (names, types,
    order) against the query's.  Made by :func:`load_batch`.

    Attributes
    ----------
    folder : Path
        The result folder.
    record : dict
        The record of the query (``_batch.json``): the maps with their SHA-256, the actors, starts, targets,
        turns, the number of chunks and rows.
    parts : dict of int to (Path, dict)
        Each finished chunk's file and proof (its query, its rows, each column's digest).
    """

    folder: Path
    record: dict
    parts: dict[int, tuple[Path, dict]]

    @property
    def complete(self) -> bool:
        """False while some parts are missing (a run still going, or stopped: run the same command again)."""
        return (len(self.parts) == self.record["chunks"]
                and sum(proof["rows"] for _, proof in self.parts.values()) == self.record["rows"])

    @property
    def turns(self) -> int:
        """The horizon K of the ``p_1`` ... ``p_K`` columns."""
        return int(self.record["query"]["turns"])

    @property
    def missing(self) -> list[str]:
        """The file names of the chunks not (yet) there."""
        from eidomap.answers.batch.store import chunk_name

        fmt = self.record["query"]["format"]
        return [chunk_name(k, fmt) for k in range(self.record["chunks"]) if k not in self.parts]

    @cached_property
    def table(self) -> pa.Table:
        """Every row (a ``pyarrow.Table``, chunk after chunk): the whole result in memory."""
        import pyarrow as pa

        tables = [self._read(path, proof) for _, (path, proof) in sorted(self.parts.items())]
        return pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})

    def to_pandas(self) -> pd.DataFrame:
        """The rows as a pandas ``DataFrame`` (pandas must be installed).

        Returns
        -------
        pandas.DataFrame
            Every row, in chunk order.
        """
        return self.table.to_pandas()

    def _read(self, path: Path, proof: dict, columns=None):
        from eidomap.answers.batch.store import read_part

        return read_part(path, self.record["query"]["format"], proof, self.turns, columns)

    def rows(self, map_name: str, actor: str, columns: Sequence[str] | None = None, *,
             starts: Sequence[str] | None = None, targets: Sequence[str] | None = None, loops: bool = True,
             positions: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """One map's rows for one actor, as numpy columns (ids as strings, ``nan`` for nulls).

        Only the parts of that map and actor are read, and of them only ``columns`` and what the filters need.
        Memory: the rows kept and one part.

        Parameters
        ----------
        map_name : str
            The map's file name, as the ``map`` column holds it (``"demo.geojson"``).
        actor : str
            The actor, as the batch was asked for it (``"human@horse"``).
        columns : sequence of str, optional
            The columns (default all).
        starts, targets : sequence of str, optional
            Keep the rows from and to these ids.
        loops : bool
            False drops the rows from a place to itself.
        positions : sequence of str, optional
            Ids (such as a network's node ids): ``from`` and ``to`` then come as each id's position in it (int32, -1
            for an id not there) instead of text.

        Returns
        -------
        dict of str to numpy.ndarray
            One array per column.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        names = list(columns) if columns is not None else self.column_names
        need = list(dict.fromkeys([*names, *(["from"] if starts is not None or not loops else []),
                                   *(["to"] if targets is not None or not loops else [])]))
        mine = [(path, proof) for _, (path, proof) in sorted(self.parts.items())
                if proof["map"] == map_name and proof["actor"] == actor]
        # filled part by part: at most as many rows as the parts hold (pages never written are never held)
        ids = None if positions is None else pa.array(list(positions), pa.string())
        coded = {name for name in names if ids is not None and name in ("from", "to")}
        total = sum(proof["rows"] for _, proof in mine)
        out = {name: np.empty(total, np.int32) if name in coded else
               np.empty(total if name not in TEXT else 0, dtype=_dtype(name)) for name in names}
        filled = 0
        for path, proof in mine:
            keep = np.ones(proof["rows"], dtype=bool)
            if starts is not None:  # a part of other starts is left after its 'from' column
                keep &= pc.is_in(self._read(path, proof, ["from"])["from"],
                                 value_set=pa.array(list(starts), pa.string())).to_numpy(zero_copy_only=False)
                if not keep.any():
                    continue
            t = self._read(path, proof, need)
            if targets is not None:
                keep &= pc.is_in(t["to"], value_set=pa.array(list(targets), pa.string())).to_numpy(zero_copy_only=False)
            if not loops:
                keep &= ~_same(t["from"], t["to"])
            t = t.filter(pa.array(keep))
            for name in names:
                values = _positions(t[name], ids) if name in coded else _numpy(name, t[name])
                if name in TEXT and name not in coded:  # (text is read for a few rows: the places)
                    out[name] = np.concatenate([out[name], values])
                else:
                    out[name][filled: filled + len(values)] = values
            filled += t.num_rows
        return {name: a[:filled] for name, a in out.items()}

    @property
    def column_names(self) -> list[str]:
        """The columns of the rows (those of every part)."""
        return [name for name, _ in next(iter(self.parts.values()))[1]["columns"]] if self.parts else []

    def __repr__(self) -> str:
        """What the batch asked and holds, in a few lines, as pandas writes a frame: its first rows, then its size.

        Only the first part is read (its rows checked as every read is); the record says the rest.
        """
        q, names = self.record["query"], self.column_names
        dice = q["dice"] or "the rules' dice"
        asked = "; ".join([_few(q["maps"]), _few(q["actors"]), f"from {_few(q['starts'])} to {_few(q['targets'])}",
                           f"{q['turns']} turns, {q['partial']}, {dice}"])
        chunks = f"{len(self.parts)} of {self.record['chunks']} chunks" + ("" if self.complete else ", not finished")
        lines = [f"BatchResult of {shown(self.folder)} ({chunks}): {asked}"]
        if self.parts:
            path, proof = self.parts[min(self.parts)]
            try:
                first = self._read(path, proof).slice(0, _PREVIEW_ROWS)
            except (RequestError, OSError) as exc:  # (a repr says what it can: the part's own read says why)
                lines.append(f"(its first part cannot be read: {exc})")
            else:
                lines += _preview(first, more=self.record["rows"] > first.num_rows)
        lines.append(f"[{self.record['rows']:,} rows x {len(names)} columns]")
        return "\n".join(lines)


#: Rows and columns a :class:`BatchResult`'s repr shows (the columns: the first and the last few).
_PREVIEW_ROWS, _PREVIEW_COLUMNS = 5, 12


def _few(names: str | Sequence[str], most: int = 3) -> str:
    """``"all"``, or the first names (each as :func:`~eidomap.base.names.shown` writes it) and how many more."""
    if isinstance(names, str):
        return shown(names)
    said = ", ".join(map(shown, names[:most]))
    return said + (f" and {len(names) - most:,} more" if len(names) > most else "")


def _preview(table: pa.Table, more: bool) -> list[str]:
    """``table``'s rows as aligned text under their column names (the middle columns as ``...`` when many)."""
    names = table.column_names
    keep = list(range(len(names)))
    if len(names) > _PREVIEW_COLUMNS:
        half = _PREVIEW_COLUMNS // 2
        keep = [*keep[:half], -1, *keep[-half:]]
    cells = [[str(k) for k in range(table.num_rows)]]
    heads = [""]
    for k in keep:
        heads.append("..." if k < 0 else shown(names[k]))
        values = table.column(k).to_pylist() if k >= 0 else ["..."] * table.num_rows
        cells.append(["..." if k < 0 else _cell(v) for v in values])
    width = [max(map(len, [h, *c])) for h, c in zip(heads, cells, strict=True)]
    out = ["  ".join(h.rjust(w) for h, w in zip(heads, width, strict=True))]
    out += ["  ".join(c[r].rjust(w) for c, w in zip(cells, width, strict=True)) for r in range(table.num_rows)]
    return out + (["..."] if more else [])


def _cell(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.6g}"
    return shown(v) if isinstance(v, str) else str(v)


def _same(a, b) -> np.ndarray:
    """Where two id columns hold the same id: by their dictionaries' codes when dictionary-encoded (Parquet)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    a, b = a.combine_chunks(), b.combine_chunks()
    if not (pa.types.is_dictionary(a.type) and pa.types.is_dictionary(b.type)):
        return pc.equal(a.cast(pa.string()), b.cast(pa.string())).to_numpy(zero_copy_only=False)
    in_b = pc.index_in(a.dictionary, value_set=b.dictionary).fill_null(-1).to_numpy()
    return in_b[a.indices.to_numpy()] == b.indices.to_numpy()


def _positions(col, ids) -> np.ndarray:
    """Each id of an id column as its position in ``ids`` (-1 where absent), through a dictionary's codes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = col.combine_chunks()
    if pa.types.is_dictionary(col.type):
        where = pc.index_in(col.dictionary.cast(pa.string()), value_set=ids).fill_null(-1).to_numpy()
        return where.astype(np.int32)[col.indices.to_numpy(zero_copy_only=False)]
    return pc.index_in(col.cast(pa.string()), value_set=ids).fill_null(-1).to_numpy().astype(np.int32)


def _dtype(name: str) -> type:
    return object if name in TEXT else bool if name == "reachable" else float


def _numpy(name: str, col) -> np.ndarray:
    if name in TEXT:
        return np.asarray(col.cast("string").to_numpy(zero_copy_only=False), dtype=object)
    return col.to_numpy(zero_copy_only=False).astype(_dtype(name))


def load_batch(path: str | os.PathLike, *, partial: bool = False) -> BatchResult:
    """Read the result folder of ``eidomap batch`` (Parquet or CSV): its record, and the proof of every part.

    The rows are read when asked for (:meth:`BatchResult.rows`, ``.table``), each column checked.  The folder
    is also readable by ``pandas.read_parquet(path)``, without these checks.

    Parameters
    ----------
    path : str or Path
        The result folder.
    partial : bool
        Accept a batch not finished (then ``.complete`` is False).

    Returns
    -------
    BatchResult
        The record and the parts.

    Raises
    ------
    RequestError
        When the folder holds no batch, a part is missing (unless ``partial``), or a part proves another query
        or chunk, or nothing, or holds other columns than the query's (their names, types and order).

    See Also
    --------
    eidomap.answers.batch.run_batch : Compute a batch.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> from eidomap.answers.batch import Query, run_batch
    >>> out = Path(tempfile.mkdtemp()) / "result"
    >>> query = Query(maps=(str(eidomap.demo_map_path()),), actors=("human", "horse"), starts=("porto-norte",))
    >>> summary = run_batch(query, out, workers=1, progress=False)
    >>> result = load_batch(out)
    >>> result.complete, result.turns
    (True, 3)
    >>> rows = result.rows("demo.geojson", "human", ["to", "expected_turns"], targets=["chousa"])
    >>> rows["to"].tolist(), rows["expected_turns"].round(3).tolist()
    (['chousa'], [1.361])
    """
    from eidomap.answers.batch import store

    folder, partial = Path(params.path(path, "path")), params.flag(partial, "partial")
    record = store.read_record(folder)
    result = BatchResult(folder, record, store.proven_parts(folder, record))
    if not partial and not result.complete:
        missing = result.missing
        listed = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        said = (f"{len(missing):,} of {record['chunks']:,} parts are missing ({listed})" if missing
                else "its parts hold another number of rows than it records")
        raise RequestError(f"{shown(folder)}: the batch is not finished: {said}; run the same eidomap batch"
                           " command again to finish it")
    return result
