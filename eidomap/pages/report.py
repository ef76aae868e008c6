"""The balance report: one self-contained HTML file a designer opens in a browser.

Sections (each a ``<section>`` with this id):

* ``turns`` -- per species, the distribution of expected turns between the
  map's named places (Eidos tagged ``poi: true``, else one Eido per region
  that the species can stand on, and the report says how to tag them);
* ``unreachable`` -- the share of (start, Eido) pairs each species cannot reach,
  over the starts it can stand on (a species that can stand on none is said so);
* ``bottlenecks`` -- the Eidos with the highest betweenness on each species'
  cost-weighted graph (:func:`eidomap.answers.analysis.bottlenecks`);
* ``species-pairs`` -- the pairs of species whose reach differs most (mean
  difference of P(arrived within K turns) over the same pairs, and how many
  pairs only one of the two reaches).

The (start, Eido) pairs are those of a batch result (``--batch``: its starts
and targets on this map) when given, else computed in memory from the named
places to every Eido; either way the same definitions, so the same starts and
targets give the same numbers, and every caption says which starts.  Figures
are SVG (charts) or PNG (maps) embedded as ``data:`` URIs: no network, no
other file.

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> [e for _, e in named_places(m)]
['carballeira', 'porto-norte', 'chousa', 'porto-sur', 'aldea-do-cabo']
"""

from __future__ import annotations

import base64
import html
import itertools
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.files import write_atomic
from eidomap.base.modes import Partial
from eidomap.base.names import shown
from eidomap.base.version import __version__
from eidomap.model import cache
from eidomap.model.map import Map

if TYPE_CHECKING:
    from collections.abc import Sequence

    from eidomap.answers.analysis import BatchResult
    from eidomap.rules.eido import Actor

__all__ = ["Pairs", "SpeciesFacts", "build_report", "named_places", "write_report"]

#: Above this many nodes, betweenness is estimated from this many sampled sources.
BETWEENNESS_SAMPLE = 200
#: Bottleneck Eidos listed (and labelled on the map) per species.
TOP = 5
#: What the reach sections say of a species that can stand on none of the starts.
NO_START = "cannot stand on any start"
SECTIONS = {
    "turns": "Turns between named places",
    "unreachable": "What each species cannot reach",
    "bottlenecks": "Bottlenecks",
    "species-pairs": "Species whose reach differs most",
}


def named_places(m: Map, actors: Sequence[Actor] = (), *, partial: Partial | str = Partial.CARRY
                 ) -> list[tuple[str, str]]:
    """``(label, eido id)`` of the map's named places: Eidos tagged ``poi: true``, else one per region.

    A map that tags no Eido stands for each region by one of its Eidos: among those every one of ``actors`` can
    stand on (or, where none is, the most of them can), the one nearest the mean of the region's inner points.
    A map with neither tags nor regions gets up to 12 such Eidos spread through the file's order.

    Parameters
    ----------
    m : Map
        The map.
    actors : sequence of Actor, optional
        Who the places are for: an untagged map's places are chosen where they can stand.  Tagged places are
        the designer's, whoever can stand on them.
    partial : Partial or str
        ``"carry"`` (default) or ``"forbid"``: the step rule of the actors (where they can stand).

    Returns
    -------
    list of (str, str)
        Each place's label (its display name, or its region) and the id of the Eido standing for it.

    Raises
    ------
    RequestError
        ``partial`` is neither rule.

    See Also
    --------
    build_report : The report comparing the turns between these places.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> named_places(m)[:2]
    [('Carballeira da Moura', 'carballeira'), ('Porto do Norte', 'porto-norte')]
    """
    carry = Partial.checked(partial, "partial").carry
    return _places(params.instance(m, "m", Map), _actors(actors), carry)[0]


def _actors(actors: object) -> list[Actor]:
    """``actors`` checked: a list of :class:`~eidomap.rules.eido.Actor`."""
    from eidomap.rules.eido import Actor

    what = "Actors (eidomap.rules.eido.actor)"
    return [params.instance(a, "actors", Actor, what) for a in params.listed(actors, "actors", what)]


#: How the named places were chosen (:func:`_places`), as the report's turns section says it.
CHOSEN = {
    "poi": "",
    "regions": "No Eido of this map is tagged as a named place, so each region is stood for by the Eido nearest its"
               " middle among those every species here can stand on (or, where none is, the most of them).",
    "spread": "No Eido of this map is tagged as a named place and it has no regions, so up to 12 Eidos spread"
              " through the file stand for them, among those every species here can stand on (or the most of"
              " them).",
}
#: What the report says to a map without named places.
HOW_TO_NAME = 'To choose the places compared, give their Eidos the property "poi": true.'


def _places(m: Map, actors: Sequence[Actor], carry: bool) -> tuple[list[tuple[str, str]], str]:
    """The named places, and how they were chosen: a key of :data:`CHOSEN`."""
    feats = m.data.document.features
    poi = [eid for eid, k in zip(m.eido_ids, m.record.eidos.index.tolist(), strict=True)
           if isinstance(feats[k], dict) and feats[k].get("properties", {}).get("poi") is True]
    if poi:
        names = m.display_names
        return [(names.get(e, e), e) for e in poi], "poi"
    n_e = len(m.eido_ids)
    eidos = np.arange(n_e)
    standing = sum((_stands(m, who, eidos, carry).astype(np.int64) for who in actors), np.zeros(n_e, np.int64))
    regions = np.array([r if isinstance(r, str) else "" for r in m.record.regions], dtype=object)
    xy = m.positions[:n_e]
    out = []
    for r in sorted(set(regions) - {""}):
        idx = np.flatnonzero(regions == r)
        centre = xy[idx].mean(axis=0)
        idx_best = idx[standing[idx] == standing[idx].max()]
        out.append((r, m.eido_ids[idx_best[np.argmin(((xy[idx_best] - centre) ** 2).sum(axis=1))]]))
    if out:
        return out, "regions"
    best = np.flatnonzero(standing == standing.max())
    step = max(1, len(best) // 12)
    return [(m.eido_ids[k], m.eido_ids[k]) for k in best[::step][:12]], "spread"


@dataclass
class Pairs:
    """The (start, Eido) pairs the reach sections count, the same for every species.

    Attributes
    ----------
    starts : numpy.ndarray
        The starts' nodes.
    start_of : numpy.ndarray
        Per pair: its start (an index into ``starts``).
    target_of : numpy.ndarray
        Per pair: its target's node (a start is never its own target).
    source : str
        Where the pairs come from, for the captions.
    """

    starts: np.ndarray
    start_of: np.ndarray
    target_of: np.ndarray
    source: str


@dataclass
class SpeciesFacts:
    """What the report says of one actor, from the place-to-place turns and the report's :class:`Pairs`.

    Attributes
    ----------
    name : str
        The actor, as named.
    turns : numpy.ndarray
        Places x places: the expected turns from each named place to each (inf where it cannot get there).
    stands : numpy.ndarray
        Per start of the pairs: whether the actor can be there at all (a step into it it can take).
    reachable : numpy.ndarray
        Per pair: reached in any number of turns.
    p_last : numpy.ndarray
        Per pair: P(arrived within K turns) (whether it is reached, when K is 0).
    bottlenecks : list of (str, float)
        The Eidos of highest betweenness on its cost-weighted graph, with their betweenness.
    """

    name: str
    turns: np.ndarray  # places x places expected turns
    stands: np.ndarray  # per start of the pairs: whether the actor can be there at all
    reachable: np.ndarray  # per pair: reached in any number of turns
    p_last: np.ndarray  # per pair: P(within K turns) (reachability when K = 0)
    bottlenecks: list[tuple[str, float]]

    def unreachable(self, pairs: Pairs) -> float | None:
        """Share of the pairs from the starts it can stand on that it cannot reach; None when it stands on none.

        Parameters
        ----------
        pairs : Pairs
            The report's (start, Eido) pairs, which ``stands`` and ``reachable`` follow.

        Returns
        -------
        float or None
            The share, from 0 to 1.
        """
        mine = self.stands[pairs.start_of]
        return 1.0 - float(self.reachable[mine].mean()) if mine.any() else None


def _pairs_block(m: Map, who, starts, targets, turns: int, carry: bool):
    from eidomap.answers.batch.kernels import carry_block, forbid_block
    from eidomap.answers.routing import plan_weights
    from eidomap.rules.dice import budget_pmf

    pmf = budget_pmf(who.dice, who.vmv)
    if carry:
        return carry_block(m.network, who.costs, pmf, starts, targets, turns)
    return forbid_block(m.network, plan_weights(m, who, carry=False), pmf, starts, targets, turns)


def _stands(m: Map, who, nodes: np.ndarray, carry: bool) -> np.ndarray:
    """Whether ``who`` can be at each of ``nodes``: some step into it is one it can take."""
    from eidomap.answers.routing import plan_weights

    net = m.network
    can = np.zeros(net.n_nodes, bool)
    can[net.dst[np.isfinite(plan_weights(m, who, carry))]] = True
    return can[nodes]


def _memory_pairs(m: Map, place_idx: np.ndarray) -> Pairs:
    n_e = len(m.eido_ids)
    start_of, target_of = np.divmod(np.arange(len(place_idx) * n_e), n_e)
    off = place_idx[start_of] != target_of
    return Pairs(place_idx, start_of[off], target_of[off], f"the {len(place_idx)} named places")


def _from_memory(m: Map, who, place_idx: np.ndarray, pairs: Pairs, turns: int, carry: bool):
    """Place-to-place turns, and reachability and P(within K) of every pair, from the places to every Eido."""
    b = _pairs_block(m, who, place_idx, np.arange(len(m.eido_ids)), turns, carry)
    p = b.p[-1] if turns else b.reachable.astype(float)
    return b.expected[:, place_idx], b.reachable[pairs.start_of, pairs.target_of], p[pairs.start_of, pairs.target_of]


def _batch_rows(m: Map, who, batch) -> dict[str, np.ndarray]:
    """The batch's rows for ``who`` on this map, but a start's own row, in (start, target) node order.

    Only the columns the report uses are read, one part at a time, the ids as node positions.
    """
    name = _file(m).name
    within = f"p_{batch.turns}" if batch.turns else "reachable"
    rows = batch.rows(name, who.name, list(dict.fromkeys(["from", "to", "reachable", within])), loops=False,
                      positions=m.network.node_ids.tolist())
    if len(rows["from"]) == 0:
        raise RequestError(f"the batch holds no rows for {shown(who.name)} on {shown(name)}")
    rows["p"] = np.asarray(rows.pop(within) if within != "reachable" else rows["reachable"], dtype=float)
    key = rows["from"].astype(np.int64) * m.network.n_nodes + rows["to"]
    if len(key) > 1 and not np.all(key[1:] > key[:-1]):  # (a batch writes them in that order: then no sort)
        order = np.argsort(key, kind="stable")
        rows = {k: v[order] for k, v in rows.items()}
    return rows


def _batch_pairs(m: Map, rows) -> Pairs:
    first = np.flatnonzero(np.r_[True, rows["from"][1:] != rows["from"][:-1]])  # (rows sorted by start)
    start_of = np.repeat(np.arange(len(first), dtype=np.int32), np.diff(np.r_[first, len(rows["from"])]))
    return Pairs(rows["from"][first], start_of, rows["to"], f"the batch's {len(first)} starts")


def _from_batch(m: Map, who, rows, pairs: Pairs, batch, places: list[str], carry: bool):
    if not (np.array_equal(rows["from"], pairs.starts[pairs.start_of]) and np.array_equal(rows["to"], pairs.target_of)):
        raise RequestError(f"the batch holds rows for other (start, target) pairs for {shown(who.name)} than for the"
                           " first species: is it complete? (run the same batch command again to finish it)")
    between = batch.rows(_file(m).name, who.name, ["from", "to", "reachable", "expected_turns"], starts=places,
                         targets=places, loops=False)
    pos = {p: k for k, p in enumerate(places)}
    i = np.array([pos[x] for x in between["from"]], dtype=np.int64)
    j = np.array([pos[x] for x in between["to"]], dtype=np.int64)
    if len(i) == len(places) * (len(places) - 1):
        mat = np.zeros((len(places), len(places)))
        mat[i, j] = np.where(between["reachable"], between["expected_turns"], np.inf)
    else:  # the batch did not ask for every pair of places: those few in memory
        idx = np.array([m.index(p) for p in places])
        mat = _pairs_block(m, who, idx, idx, 0, carry).expected
    return mat, rows["reachable"], rows["p"]


def _file(m: Map) -> Path:
    """The map's file: the report names it and its SHA-256, and finds its rows in a batch by its name."""
    if m.path is None:
        raise RequestError(f"the report is of a map read from a file; {shown(m.name)} was read from none")
    return m.path


def _check_batch(m: Map, batch) -> None:
    name = _file(m).name
    entry = next((e for e in batch.record["maps"] if e["file"] == name), None)
    if entry is None:
        raise RequestError(f"the batch holds no map named {shown(name)}")
    if entry["sha256"] != cache.digest(_file(m)):
        raise RequestError(f"the batch was computed on another version of {shown(name)} (its SHA-256 differs)")


def _facts(m: Map, actors, batch, turns: int, carry: bool
           ) -> tuple[list[tuple[str, str]], str, Pairs, list[SpeciesFacts]]:
    from eidomap.answers.analysis import bottlenecks

    places, chosen = _places(m, actors, carry)
    ids = [e for _, e in places]
    idx = np.array([m.index(e) for e in ids])
    sample = BETWEENNESS_SAMPLE if m.network.n_nodes > BETWEENNESS_SAMPLE else None
    pairs = _memory_pairs(m, idx) if batch is None else None
    out = []
    for who in actors:
        if pairs is not None and batch is None:  # (without a batch: the pairs made above)
            mat, reach, p = _from_memory(m, who, idx, pairs, turns, carry)
        else:
            rows = _batch_rows(m, who, batch)
            pairs = pairs or _batch_pairs(m, rows)
            mat, reach, p = _from_batch(m, who, rows, pairs, batch, ids, carry)
        stands = _stands(m, who, pairs.starts, carry)
        out.append(SpeciesFacts(who.name, mat, stands, reach, p,
                                bottlenecks(m, who, TOP, "carry" if carry else "forbid", sample=sample)))
    assert pairs is not None  # (build_report asks for one species at least)
    return places, chosen, pairs, out


# -- figures ---------------------------------------------------------------------------
#: The longest name a figure writes (a species on an axis, a panel's title); the tables write names whole.
LABEL_CHARS = 30


def _label(name: str) -> str:
    """``name`` as a figure writes it: escaped (:func:`~eidomap.base.names.shown`), and at most :data:`LABEL_CHARS`
    characters, its middle left out (two names told apart by their ends stay apart).

    >>> _label("a-species-whose-name-runs-on-and-on-and-on")
    'a-species-whos…n-and-on-and-on'
    """
    said = shown(name)
    if len(said) <= LABEL_CHARS:
        return said
    head = (LABEL_CHARS - 1) // 2
    return f"{said[:head]}…{said[head + 1 - LABEL_CHARS:]}"


def _data_uri(fig, fmt: str) -> str:
    """``fig`` drawn as a ``fmt`` data URI, laid out constrained as it is drawn -- once: laid out beforehand as
    well, to see whether it could be, it was laid out twice, a quarter of a report's time -- unless its labels
    leave its axes no room (matplotlib would warn and lay out nothing): then drawn again as it is, the saved
    picture's tight box taking the labels in."""
    from eidomap.plot.parts import figure_bytes

    with warnings.catch_warnings():
        warnings.filterwarnings("error", "constrained_layout not applied", UserWarning)
        try:
            data = figure_bytes(fig, fmt, 110)
        except UserWarning:
            data = None
    if data is None:
        fig.set_layout_engine("none")
        data = figure_bytes(fig, fmt, 110)
    mime = "image/svg+xml" if fmt == "svg" else "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def _figure(fig, fmt: str, caption: str, alt: str) -> str:
    return (f'<figure><img src="{_data_uri(fig, fmt)}" alt="{html.escape(alt)}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _turns_figure(facts: list[SpeciesFacts]) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(5.0, 0.8 * len(facts) + 2), 3.6), layout="constrained")
    ax = fig.add_subplot()
    data = [_off_diagonal(f.turns) for f in facts]
    ax.boxplot([d[np.isfinite(d)] if np.isfinite(d).any() else [np.nan] for d in data],
               tick_labels=[_label(f.name) for f in facts])
    ax.set_ylabel("expected turns")
    ax.tick_params(axis="x", labelrotation=30)
    return _figure(fig, "svg", "Expected turns between every two named places (reachable pairs), per species.",
                   "box plot of expected turns per species")


def _unreachable_figure(facts: list[SpeciesFacts], pairs: Pairs) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 0.35 * len(facts) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    shares = [f.unreachable(pairs) for f in facts][::-1]
    ax.barh([_label(f.name) for f in facts][::-1], [0.0 if s is None else 100 * s for s in shares], color="#c0504d")
    for k, s in enumerate(shares):
        if s is None:
            ax.text(1, k, NO_START, va="center", fontsize="small", color="#555")
    ax.set_xlabel("% of (start, Eido) pairs it cannot reach")
    ax.set_xlim(0, 100)
    return _figure(fig, "svg", f"Share of the (start, Eido) pairs each species cannot reach, from those of"
                               f" {pairs.source} it can stand on.", "bar chart of unreachable shares")


def _bottleneck_figure(m: Map, facts: list[SpeciesFacts]) -> str:
    from matplotlib.figure import Figure

    from eidomap.plot import plot_map
    from eidomap.plot.parts import figure_size

    ncols = min(3, len(facts))
    nrows = -(-len(facts) // ncols)
    w, h = figure_size(m, width=4.0)
    fig = Figure(figsize=(w * ncols, h * nrows + 0.4), layout="constrained")
    for k, f in enumerate(facts):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        plot_map(m, ax, labels=[e for e, _ in f.bottlenecks], legend=False, roads=False, fountains=False,
                 streams=False)
        ax.set_title(_label(f.name), fontsize="medium")
    return _figure(fig, "png", f"The {TOP} bottleneck Eidos of each species, labelled on the map.",
                   "maps with the bottleneck Eidos labelled")


def _pairs_figure(names: list[str], diff: np.ndarray, turns: int) -> str:
    from matplotlib.figure import Figure

    n = len(names)
    fig = Figure(figsize=(0.5 * n + 3, 0.5 * n + 2), layout="constrained")
    ax = fig.add_subplot()
    im = ax.imshow(diff, cmap="magma_r", vmin=0, vmax=max(float(diff.max()), 1e-9))
    labels = [_label(s) for s in names]
    ax.set_xticks(range(n), labels, rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    fig.colorbar(im, ax=ax, label=f"mean |difference| of P(within {turns} turns)" if turns else "share reached by one")
    return _figure(fig, "svg", "How differently each two species reach the same (start, Eido) pairs.",
                   "heat map of species differences")


# -- HTML ----------------------------------------------------------------------------------
def _off_diagonal(a: np.ndarray) -> np.ndarray:
    return a[~np.eye(len(a), dtype=bool)]


def _cost(x: float) -> str:
    return "unreachable" if not np.isfinite(x) else f"{x:.2f}"


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _turns_section(m: Map, places, chosen: str, facts) -> str:
    labels = [p for p, _ in places]
    names = m.display_names
    stand_for = [html.escape(p if p == e else f"{p} ({e})") + (f" &ldquo;{html.escape(names[e])}&rdquo;"
                                                                 if names.get(e, p) != p else "")
                 for p, e in places]
    rows = []
    for f in facts:
        d = _off_diagonal(f.turns)
        ok = d[np.isfinite(d)]
        stats = [f"{ok.min():.2f}", f"{np.median(ok):.2f}", f"{ok.mean():.2f}", f"{ok.max():.2f}"] if len(ok) \
            else ["-"] * 4
        rows.append([f.name, *stats, f"{len(d) - len(ok)} of {len(d)}"])
    how = f" {html.escape(CHOSEN[chosen])} {html.escape(HOW_TO_NAME)}" if CHOSEN[chosen] else ""
    parts = [f"<p>{len(places)} named places (the Eido standing for each): {', '.join(stand_for)}.{how}</p>",
             _turns_figure(facts),
             _table(["species", "fewest", "median", "mean", "most", "pairs unreachable"], rows)]
    for f in facts:
        matrix = [[a, *(_cost(x) for x in row)] for a, row in zip(labels, f.turns, strict=True)]
        parts.append(f"<details><summary>{html.escape(f.name)}: expected turns, from (rows) to (columns)</summary>"
                     + _table(["from \\ to", *labels], matrix) + "</details>")
    return "".join(parts)


def _unreachable_rows(facts: list[SpeciesFacts], pairs: Pairs) -> list[list[str]]:
    rows = []
    for f in facts:
        share = f.unreachable(pairs)
        rows.append([f.name, f"{int(f.stands.sum())} of {len(pairs.starts)}",
                     NO_START if share is None else f"{100 * share:.1f} %"])
    return rows


def _species_pairs(facts, turns: int) -> tuple[np.ndarray, list[list[str]]]:
    """Mean |difference| of P(within K) of each two species over the same pairs; the pairs only one reaches."""
    n = len(facts)
    diff = np.zeros((n, n))
    rows = []
    for a, b in itertools.combinations(range(n), 2):
        pa, pb = facts[a].p_last, facts[b].p_last
        ra, rb = facts[a].reachable, facts[b].reachable
        d = float(np.abs(pa - pb).mean()) if len(pa) else 0.0
        diff[a, b] = diff[b, a] = d
        rows.append((d, [facts[a].name, facts[b].name, f"{d:.3f}", f"{int((ra & ~rb).sum()):,}",
                         f"{int((rb & ~ra).sum()):,}"]))
    rows.sort(key=lambda r: -r[0])
    return diff, [r for _, r in rows[:10]]


_STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.8em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}figure{margin:1em 0}
img{max-width:100%;height:auto}figcaption{color:#555;font-size:.9em}section{margin-top:2.5em}
details{margin:.3em 0}code{background:#f4f4f4}"""


def build_report(m: Map, actors: Sequence[Actor], *, batch: BatchResult | None = None, turns: int = 3,
                 partial: Partial | str = Partial.CARRY) -> str:
    """The report's HTML for ``actors`` on map ``m`` (from ``batch``, a :class:`~eidomap.answers.analysis.BatchResult`).

    Parameters
    ----------
    m : Map
        The map, read from a file (the report names the file and its SHA-256).
    actors : sequence of Actor
        Who moves (:func:`eidomap.rules.eido.actor`, :func:`eidomap.answers.batch.actor_from_spec`).
    batch : BatchResult, optional
        A batch result on this map (:func:`eidomap.answers.analysis.load_batch`): the reach sections count its
        (start, Eido) pairs, and its turns are the report's.  By default they are computed in memory, from the
        named places (:func:`named_places`) to every Eido.
    turns : int
        The horizon K of P(arrived within K turns) (without ``batch``).
    partial : Partial or str
        The step rule, ``"carry"`` or ``"forbid"``.

    Returns
    -------
    str
        One self-contained HTML page: its sections (turns between named places, what each species cannot
        reach, bottlenecks, the species whose reach differs most) and their figures embedded as ``data:`` URIs.

    Raises
    ------
    RequestError
        For a map read from no file, a batch of another map or without these actors, no actor, or an unknown
        ``partial``.

    See Also
    --------
    write_report : The same, written to a file.
    eidomap.answers.analysis.bottlenecks : The bottlenecks section's numbers.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.rules.eido import actor
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> page = build_report(m, [actor(m.catalog, "human")], turns=1)
    >>> page.startswith("<!DOCTYPE html>"), page.count("<section ")
    (True, 4)
    """
    from eidomap.answers.analysis import BatchResult
    from eidomap.answers.batch.store import MAX_TURNS
    from eidomap.plot.parts import glyphs_as_boxes

    carry = Partial.checked(partial, "partial").carry
    m, turns = params.instance(m, "m", Map), params.whole(turns, "turns", 0, MAX_TURNS)
    batch = params.maybe(params.instance, batch, "batch", BatchResult,
                         "a BatchResult (eidomap.answers.analysis.load_batch)")
    actors = _actors(actors)
    _file(m)
    if batch is not None:
        _check_batch(m, batch)
        turns = batch.turns
    if not actors:
        raise RequestError("the report needs at least one species")
    places, chosen, pairs, facts = _facts(m, actors, batch, turns, carry)
    names = [f.name for f in facts]
    how = "from the batch result given" if batch is not None else "computed in memory"
    diff, pair_rows = _species_pairs(facts, turns)
    within = f"P(arrived within {turns} turns)" if turns else "reachability"
    source = html.escape(pairs.source)
    with glyphs_as_boxes():  # (the figures write the species' names)
        sections = {
            "turns": _turns_section(m, places, chosen, facts),
            "unreachable": (f"<p>Over the (start, Eido) pairs from {source} to every other Eido"
                            f"{' the batch asked for' if batch is not None else ''}, counting only the starts each"
                            " species can stand on (a step into them it can take).</p>"
                            + _unreachable_figure(facts, pairs) + _table(
                                ["species", "starts it can stand on", "(start, Eido) pairs it cannot reach"],
                                _unreachable_rows(facts, pairs))),
            "bottlenecks": _bottleneck_figure(m, facts) + _table(
                ["species", *(f"#{k}" for k in range(1, TOP + 1))],
                [[f.name, *(f"{e} ({s:.3f})" for e, s in f.bottlenecks)] for f in facts]),
            "species-pairs": (f"<p>Mean absolute difference of {within} over the same (start, Eido) pairs, from"
                              f" {source}; the columns after it count the pairs only one of the two can reach"
                              " (in any number of turns).</p>"
                              + (_pairs_figure(names, diff, turns) + _table(
                                  ["species", "species", "mean difference", "only the first", "only the second"],
                                  pair_rows) if len(facts) > 1 else "<p>Only one species: nothing to compare.</p>")),
        }
    nav = " · ".join(f'<a href="#{k}">{html.escape(t)}</a>' for k, t in SECTIONS.items())
    body = "".join(f'<section id="{k}"><h2>{html.escape(SECTIONS[k])}</h2>{v}</section>' for k, v in sections.items())
    title = f"Balance report: {m.name}"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<p>Map <code>{html.escape(_file(m).name)}</code> (SHA-256 <code>{cache.digest(_file(m))}</code>),"
            f" {len(m.eido_ids):,} Eidos; species: {html.escape(', '.join(names))}; rule: {partial};"
            f" figures {how}, reach from {source}; eidomap {__version__}.</p><nav>{nav}</nav>{body}"
            "</body></html>")


def write_report(m: Map, path: str | os.PathLike, actors: Sequence[Actor], **kw: Any) -> None:
    """:func:`build_report`, written atomically to ``path``.

    Parameters
    ----------
    m : Map
        The map, read from a file.
    path : str or PathLike
        The HTML file (replaced whole once the report is made).
    actors : sequence of Actor
        Who moves.
    **kw
        ``batch``, ``turns``, ``partial``: as for :func:`build_report`.

    Raises
    ------
    RequestError
        As :func:`build_report` does.
    OSError
        When the file cannot be written.

    See Also
    --------
    build_report : The page, as text.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> from eidomap.rules.eido import actor
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> out = Path(tempfile.mkdtemp()) / "report.html"
    >>> write_report(m, out, [actor(m.catalog, "cow")], turns=1)
    >>> out.read_text(encoding="utf-8").count("<section ")
    4
    """
    path = params.path(path, "path")
    write_atomic(path, build_report(m, actors, **kw).encode())
