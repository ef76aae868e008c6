"""What a batch computes: the query, what is shipped to the workers once, and the chunks.

A :class:`Query` is what the user asked (maps, actors, starts, targets, turns,
rule, dice, chunking, output format).  :func:`prepare` loads the maps in the
client and compiles it into a :class:`Job` -- per map the compiled network,
the node indices of the starts and targets and, per actor, its cost table and
budget distribution: the only large object, shipped to each worker once --
and a list of :class:`Chunk`\\ s, the small tasks.  :func:`run_chunk` is what a
worker does with one chunk: the vectorised kernels, then one file.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from eidomap.answers.batch import store
from eidomap.answers.batch.kernels import Block, carry_block, forbid_block
from eidomap.answers.batch.store import TableFormat
from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.modes import Partial
from eidomap.base.version import __version__
from eidomap.model import cache
from eidomap.model.network import CostTable
from eidomap.record import rulesets
from eidomap.record.geometry import check_tolerance
from eidomap.rules.actors import resolve_actor
from eidomap.rules.dice import budget_pmf
from eidomap.search.turns import payable

if TYPE_CHECKING:
    from eidomap.model.map import Map
    from eidomap.model.network import Network
    from eidomap.rules.eido import Actor

#: Distances (carry) or policy values (forbid) one chunk holds at once, by default.
CELLS = 20_000_000
#: Rows one chunk writes at most, by default.
ROWS = 250_000
ALL = "all"
#: Searches backwards from the targets when starts outnumber targets this many times.
BACKWARD = 8


@dataclass(frozen=True)
class Query:
    """A batch as asked.

    Attributes
    ----------
    maps : tuple of str
        The map files (their file names must differ: the ``map`` column tells them apart).
    actors : tuple of str or "all"
        Species, ``species@mount`` (riding) or ``species+companion`` (travelling alongside, any number), as in
        :func:`actor_from_spec`; ``"all"``: every species of the catalog.
    starts, targets : tuple of str or "all"
        Eido (or Pousa) ids.
    turns : int
        The horizon K of the ``p_1`` ... ``p_K`` columns.
    partial : {"carry", "forbid"}
        The step rule.
    dice : str or None
        The roll each turn (``"2d6"``); None: the map's rule set's (the Eido rules roll 1d6).
    chunk : int or None
        Starts per chunk (targets under forbid, or when targets are far fewer than starts); None picks one
        from the map's size.
    catalog : str or None
        A catalog file laid over the default.
    tolerance : float or None
        The drawing tolerance.
    format : TableFormat or {"parquet", "csv"}
        The files written (:class:`~eidomap.answers.batch.TableFormat`).
    """

    maps: tuple[str, ...]
    actors: tuple[str, ...] | str = ALL
    starts: tuple[str, ...] | str = ALL
    targets: tuple[str, ...] | str = ALL
    turns: int = 3
    partial: Partial | str = Partial.CARRY
    dice: str | None = None
    chunk: int | None = None
    catalog: str | None = None
    tolerance: float | None = None
    format: TableFormat | str = TableFormat.PARQUET

    def as_dict(self) -> dict:
        """Plain data (JSON), with the maps by file name: what the output folder records.

        Returns
        -------
        dict
            The fields by name.
        """
        out = asdict(self)
        out["maps"] = [Path(p).name for p in self.maps]
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


def actor_from_spec(m: Map, spec: str, dice: str | None = None) -> Actor:
    """An actor from ``species``, ``species@mount`` or ``species+companion+...``, named as it was asked for.

    The actor is the map's rule set's (:func:`eidomap.rules.actors.resolve_actor`): ``@`` and ``+`` and the
    dice are its options ``mount``, ``party`` and ``dice``, given only when asked for, so that a rule set whose
    actor takes none of them answers a plain name and refuses the others.  The name is the ``actor`` column of
    the rows and what ``.rows(map, actor)`` looks up: the spelling asked (its spaces left out), not
    :func:`~eidomap.rules.eido.actor`'s words.

    Parameters
    ----------
    m : Map
        The map, whose rule set makes the actor from its catalog.
    spec : str
        The actor, as asked.
    dice : str, optional
        The roll each turn (default: the rule set's; the Eido rules roll 1d6).

    Returns
    -------
    Actor
        The actor.

    Raises
    ------
    RequestError
        For a map whose rule set does not answer a batch or takes none of the options asked, an unknown
        species, mount or companion, or dice that cannot be read.

    See Also
    --------
    eidomap.rules.eido.actor : The Eido rules' actor, by keyword.

    Examples
    --------
    >>> import eidomap
    >>> actor_from_spec(eidomap.load(eidomap.demo_map_path()), "human @ horse+cow").name
    'human@horse+cow'
    """
    spec = params.text(spec, "spec", "text such as 'human@horse+cow'")
    head, *party = [x.strip() for x in spec.split("+")]
    species, _, mount = (x.strip() for x in head.partition("@"))
    asked = species + (f"@{mount}" if mount else "") + "".join(f"+{p}" for p in party)
    options = {k: v for k, v in (("mount", mount or None), ("party", party or None), ("dice", dice)) if v is not None}
    return replace(resolve_actor(m, species, "batch", **options), name=asked)


@dataclass(frozen=True, eq=False)
class ActorJob:
    """One actor as a worker needs it."""

    name: str
    table: CostTable
    pmf: np.ndarray
    largest_budget: int


@dataclass(frozen=True, eq=False)
class MapJob:
    """One map as a worker needs it: the network, the starts and targets, the actors, the file metadata."""

    name: str
    network: Network
    start_ids: np.ndarray
    starts: np.ndarray
    target_ids: np.ndarray
    targets: np.ndarray
    actors: tuple[ActorJob, ...]
    metadata: bytes


@dataclass(eq=False)
class Job:
    """Everything the workers share, shipped once: the maps, the rule, the turns, where to write."""

    maps: tuple[MapJob, ...]
    turns: int
    carry: bool
    out: str
    format: TableFormat
    digest: str = ""  # of the query (store.query_digest): what every part proves it was computed for
    _memo: dict = field(default_factory=dict, repr=False)

    def identity(self, chunk: Chunk) -> dict:
        """What the part of ``chunk`` must prove it is (:func:`store.prove`): this query, this chunk, its rows."""
        mj = self.maps[chunk.map]
        return {"query": self.digest, "chunk": chunk.index, "map": mj.name, "actor": mj.actors[chunk.actor].name,
                "rows": chunk.rows}

    def pairs(self, map_k: int, actor_k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The within-turn pairs of an actor under ``forbid``, computed once per worker."""
        key = (map_k, actor_k)
        if key not in self._memo:
            from eidomap.search.policy import within_turn_pairs

            mj, aj = self.maps[map_k], self.maps[map_k].actors[actor_k]
            self._memo[key] = within_turn_pairs(mj.network, self.weights(mj, aj), float(np.flatnonzero(aj.pmf)[-1]))
        return self._memo[key]

    def weights(self, mj: MapJob, aj: ActorJob) -> np.ndarray:
        return payable(mj.network.edge_weights(aj.table), aj.largest_budget, self.carry)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_memo": {}}


@dataclass(frozen=True)
class Chunk:
    """One task: actor ``actor`` on map ``map``, starts ``lo:hi`` -- or targets, with ``by_targets``."""

    index: int
    map: int
    actor: int
    by_targets: bool
    lo: int
    hi: int
    rows: int


def _nodes(m: Map, names, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Node indices and ids of ``names`` (``"all"``: every Eido)."""
    if names == ALL:
        return np.arange(len(m.eido_ids), dtype=np.int64), np.array(m.eido_ids, dtype=object)
    if not names:
        raise RequestError(f"give at least one Eido id with {what}=..., or 'all'")
    idx = np.array([m.node_index(x) for x in names], dtype=np.int64)
    return idx, np.array([str(x) for x in names], dtype=object)


def _by_targets(query: Query, n_starts: int, n_targets: int, carry: bool) -> bool:
    """Chunks of targets: under forbid (a policy solve per target), or when targets are far fewer than starts.

    With few targets the debt rule searches backwards from them (about 8
    searches per target: it and the nodes just before it) instead of one
    search per start.
    """
    return not carry or n_targets * BACKWARD < n_starts


def _chunk_size(query: Query, n_nodes: int, n_starts: int, n_targets: int, by_targets: bool) -> int:
    if query.chunk is not None:  # (checked: _check)
        return query.chunk
    if not by_targets:
        return max(1, min(CELLS // max(n_nodes, 1), ROWS // max(n_targets, 1)))
    return max(1, min(64, CELLS // max(n_nodes * (query.turns + BACKWARD), 1), ROWS // max(n_starts, 1)))


def _check(query: Query) -> tuple[bool, TableFormat]:
    """Each field of ``query`` checked, before any map is read; whether it plans under the debt rule, and the
    files it writes."""
    params.instance(query, "query", Query, "a Query (eidomap.answers.batch.Query)")
    carry = Partial.checked(query.partial, "partial").carry
    params.whole(query.turns, "turns", 0, store.MAX_TURNS)
    fmt = TableFormat.checked(query.format, "format")
    params.maybe(params.whole, query.chunk, "chunk", 1)
    params.maybe(params.text, query.dice, "dice", "text such as '1d6'")
    params.maybe(params.path, query.catalog, "catalog")
    if query.tolerance is not None:
        check_tolerance(query.tolerance)
    for name in ("actors", "starts", "targets"):
        if getattr(query, name) != ALL:
            params.names(getattr(query, name), name, "names, or 'all'")
    maps = [params.path(p, "maps") for p in params.listed(query.maps, "maps", "map files")]
    if not maps:
        raise RequestError("give at least one map")
    names = [Path(p).name for p in maps]
    if len(set(names)) != len(names):
        raise RequestError("two maps have the same file name; the 'map' column could not tell them apart")
    return carry, fmt


def prepare(query: Query, out: str | os.PathLike, cache_maps: bool = False) -> tuple[Job, list[Chunk], dict]:
    """Load the maps, resolve actors and places; the job, its chunks and the record of the query.

    The record (:func:`store.open_folder` compares it with an existing
    folder's) holds the query, and per map its SHA-256 and catalog.
    """
    from eidomap.model.map import load
    carry, fmt = _check(query)
    maps, record_maps = [], []
    chunks: list[Chunk] = []
    for map_k, path in enumerate(query.maps):
        m = load(path, catalog=query.catalog, tolerance=query.tolerance, cache=cache_maps)
        rulesets.require(m.rules, "batch", m.path)  # (before the actors: "all" is the catalog's species)
        specs = list(m.catalog.species) if query.actors == ALL else list(query.actors)
        if not specs:
            raise RequestError("give at least one species with actors=..., or 'all'")
        actors = [actor_from_spec(m, s, query.dice) for s in specs]
        starts, start_ids = _nodes(m, query.starts, "starts")
        targets, target_ids = _nodes(m, query.targets, "targets")
        net = m.network
        info = {"file": Path(path).name, "sha256": cache.digest(path), "catalog": m.catalog.as_dict(),
                "catalog_sources": list(m.catalog.sources), "actors": [a.name for a in actors]}
        record_maps.append(info)
        meta = json.dumps({"eidomap_version": __version__, "query": query.as_dict(), "map": info},
                          sort_keys=True).encode()
        ajobs = tuple(ActorJob(a.name, a.costs, budget_pmf(a.dice, a.vmv), a.largest_budget) for a in actors)
        maps.append(MapJob(Path(path).name, net, start_ids, starts, target_ids, targets, ajobs, meta))
        by_targets = _by_targets(query, len(starts), len(targets), carry)
        size = _chunk_size(query, net.n_nodes, len(starts), len(targets), by_targets)
        axis, other = (len(targets), len(starts)) if by_targets else (len(starts), len(targets))
        for actor_k in range(len(actors)):
            for lo in range(0, axis, size):
                hi = min(axis, lo + size)
                chunks.append(Chunk(len(chunks), map_k, actor_k, by_targets, lo, hi, (hi - lo) * other))
    record = {"eidomap_version": __version__, "query": query.as_dict(), "maps": record_maps,
              "chunks": len(chunks), "rows": sum(c.rows for c in chunks)}
    job = Job(tuple(maps), query.turns, carry, str(out), fmt, store.query_digest(record))
    return job, chunks, record


def compute(job: Job, chunk: Chunk) -> tuple[Block, np.ndarray, np.ndarray]:
    """The answers of one chunk (no file written), and the ids of its starts and targets."""
    mj = job.maps[chunk.map]
    aj = mj.actors[chunk.actor]
    part = slice(chunk.lo, chunk.hi)
    s, t = (slice(None), part) if chunk.by_targets else (part, slice(None))
    if job.carry:
        block = carry_block(mj.network, aj.table, aj.pmf, mj.starts[s], mj.targets[t], job.turns,
                            backward=chunk.by_targets)
    else:
        block = forbid_block(mj.network, job.weights(mj, aj), aj.pmf, mj.starts[s], mj.targets[t], job.turns,
                             pairs=job.pairs(chunk.map, chunk.actor))
    return block, mj.start_ids[s], mj.target_ids[t]


def run_chunk(job: Job, chunk: Chunk) -> int:
    """What a worker does with a chunk: compute it and write its file with its proof (temporary name, then rename).

    Returns the number of rows written.
    """
    block, start_ids, target_ids = compute(job, chunk)
    mj = job.maps[chunk.map]
    table = store.chunk_table(mj.name, mj.actors[chunk.actor].name, start_ids, target_ids, block, mj.metadata)
    store.write_chunk(Path(job.out) / store.chunk_name(chunk.index, job.format), table, job.format,
                      store.prove(table, job.identity(chunk)))
    return table.num_rows
