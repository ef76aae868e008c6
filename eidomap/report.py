"""The balance report: one self-contained HTML file a designer opens in a browser.

Sections (each a ``<section>`` with this id):

* ``turns`` -- per species, the distribution of expected turns between the
  map's named places (Eidos tagged ``poi: true``, else one Eido per region);
* ``unreachable`` -- the share of (start, Eido) pairs each species cannot reach;
* ``bottlenecks`` -- the Eidos with the highest betweenness on each species'
  cost-weighted graph (:func:`eidomap.analysis.bottlenecks`);
* ``species-pairs`` -- the pairs of species whose reach differs most (mean
  difference of P(arrived within K turns) over the same pairs).

The numbers come from a batch result (``--batch``) when given -- its rows for
this map -- or are computed in memory from the named places to every Eido.
Figures are SVG (charts) or PNG (maps) embedded as ``data:`` URIs: no
network, no other file.

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> [p for p, _ in named_places(m)]
['norte', 'sur']
"""

from __future__ import annotations

import base64
import html
import io
import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import cache
from ._version import __version__
from .errors import RequestError
from .io.files import write_atomic

__all__ = ["SpeciesFacts", "build_report", "named_places", "write_report"]

#: Above this many nodes, betweenness is estimated from this many sampled sources.
BETWEENNESS_SAMPLE = 200
#: Bottleneck Eidos listed (and labelled on the map) per species.
TOP = 5
SECTIONS = {
    "turns": "Turns between named places",
    "unreachable": "What each species cannot reach",
    "bottlenecks": "Bottlenecks",
    "species-pairs": "Species whose reach differs most",
}


def named_places(m) -> list[tuple[str, str]]:
    """``(label, eido id)`` of the map's named places: Eidos tagged ``poi: true``, else one per region.

    A region's place is its Eido nearest the mean of its Eidos' inner points.
    A map with neither gets up to 12 Eidos spread through the file's order.
    """
    feats = m.data.features
    poi = [eid for eid, k in zip(m.eido_ids, m.data.eidos.index, strict=True)
           if isinstance(feats[k], dict) and feats[k].get("properties", {}).get("poi") is True]
    if poi:
        names = m.display_names
        return [(names.get(e, e), e) for e in poi]
    regions = np.array([r if isinstance(r, str) else "" for r in m.data.regions], dtype=object)
    xy = m.positions[: len(m.eido_ids)]
    out = []
    for r in sorted(set(regions) - {""}):
        idx = np.flatnonzero(regions == r)
        centre = xy[idx].mean(axis=0)
        out.append((r, m.eido_ids[idx[np.argmin(((xy[idx] - centre) ** 2).sum(axis=1))]]))
    if out:
        return out
    step = max(1, len(m.eido_ids) // 12)
    return [(e, e) for e in m.eido_ids[::step][:12]]


@dataclass
class SpeciesFacts:
    """What the report says of one actor, from the place-to-place turns and its (start, Eido) pairs."""

    name: str
    turns: np.ndarray  # places x places expected turns
    unreachable: float  # share of the pairs (start != target) it cannot reach
    p_last: np.ndarray  # P(within K turns) of every pair, in a common order
    bottlenecks: list[tuple[str, float]]


def _pairs_block(m, who, starts, targets, turns: int, carry: bool):
    from .batch.kernels import carry_block, forbid_block
    from .routing import plan_weights
    from .rules.dice import budget_pmf

    pmf = budget_pmf(who.dice, who.vmv)
    if carry:
        return carry_block(m.network, who.table, pmf, starts, targets, turns)
    return forbid_block(m.network, plan_weights(m, who, carry=False), pmf, starts, targets, turns)


def _from_memory(m, who, place_idx: np.ndarray, turns: int, carry: bool):
    """Place-to-place turns, and (start, Eido) reachability and P(within K) from the places."""
    everything = np.arange(len(m.eido_ids))
    b = _pairs_block(m, who, place_idx, everything, turns, carry)
    off = place_idx[:, None] != everything[None, :]
    p = b.p[-1] if turns else b.reachable.astype(float)
    return b.expected[:, place_idx], b.reachable[off], p[off]


def _from_batch(m, who, batch, places: list[str], turns: int, carry: bool):
    # read only what is used: the rows between places for the turns, two columns of the rest (one actor at a time)
    name, within = Path(m.path).name, f"p_{batch.turns}" if batch.turns else "reachable"
    rest = batch.rows(name, who.name, list(dict.fromkeys(["reachable", within])), loops=False)
    rows = batch.rows(name, who.name, ["from", "to", "reachable", "expected_turns"], starts=places, targets=places)
    if len(rest["reachable"]) == 0 and len(rows["from"]) == 0:
        raise RequestError(f"the batch holds no rows for {who.name} on {Path(m.path).name}")
    pos = {p: k for k, p in enumerate(places)}
    i = np.array([pos.get(x, -1) for x in rows["from"]])
    j = np.array([pos.get(x, -1) for x in rows["to"]])
    both = (i >= 0) & (j >= 0)
    if both.sum() == len(places) ** 2:
        mat = np.full((len(places), len(places)), np.inf)
        mat[i[both], j[both]] = np.where(rows["reachable"][both], rows["expected_turns"][both], np.inf)
    else:  # the batch did not ask for every pair of places: those few in memory
        idx = np.array([m.index(p) for p in places])
        mat = _pairs_block(m, who, idx, idx, 0, carry).expected
    return mat, rest["reachable"], np.asarray(rest[within], dtype=float)


def _check_batch(m, batch) -> None:
    name = Path(m.path).name
    entry = next((e for e in batch.record["maps"] if e["file"] == name), None)
    if entry is None:
        raise RequestError(f"the batch holds no map named {name}")
    if entry["sha256"] != cache.digest(m.path):
        raise RequestError(f"the batch was computed on another version of {name} (its SHA-256 differs)")


def _facts(m, actors, batch, turns: int, carry: bool) -> tuple[list[tuple[str, str]], list[SpeciesFacts]]:
    from .analysis import bottlenecks

    places = named_places(m)
    ids = [e for _, e in places]
    idx = np.array([m.index(e) for e in ids])
    sample = BETWEENNESS_SAMPLE if m.network.n_nodes > BETWEENNESS_SAMPLE else None
    out = []
    for who in actors:
        mat, reach, p = (_from_batch(m, who, batch, ids, turns, carry) if batch is not None
                         else _from_memory(m, who, idx, turns, carry))
        share = 1.0 - float(reach.mean()) if len(reach) else 0.0
        out.append(SpeciesFacts(who.name, mat, share, p, bottlenecks(m, who, TOP, "carry" if carry else "forbid",
                                                                     sample=sample)))
    return places, out


# -- figures ---------------------------------------------------------------------------
def _data_uri(fig, fmt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=110, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)
    mime = "image/svg+xml" if fmt == "svg" else "image/png"
    return f"data:{mime};base64,{base64.b64encode(buf.getvalue()).decode()}"


def _figure(fig, fmt: str, caption: str, alt: str) -> str:
    return (f'<figure><img src="{_data_uri(fig, fmt)}" alt="{html.escape(alt)}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _turns_figure(facts: list[SpeciesFacts]) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(5.0, 0.8 * len(facts) + 2), 3.6), layout="constrained")
    ax = fig.add_subplot()
    data = [_off_diagonal(f.turns) for f in facts]
    ax.boxplot([d[np.isfinite(d)] if np.isfinite(d).any() else [np.nan] for d in data],
               tick_labels=[f.name for f in facts])
    ax.set_ylabel("expected turns")
    ax.tick_params(axis="x", labelrotation=30)
    return _figure(fig, "svg", "Expected turns between every two named places (reachable pairs), per species.",
                   "box plot of expected turns per species")


def _unreachable_figure(facts: list[SpeciesFacts]) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 0.35 * len(facts) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    ax.barh([f.name for f in facts][::-1], [100 * f.unreachable for f in facts][::-1], color="#c0504d")
    ax.set_xlabel("% of (start, Eido) pairs it cannot reach")
    ax.set_xlim(0, 100)
    return _figure(fig, "svg", "Share of the board each species cannot reach.", "bar chart of unreachable shares")


def _bottleneck_figure(m, facts: list[SpeciesFacts]) -> str:
    from matplotlib.figure import Figure

    from .plot import plot_map
    from .plot._base import _figsize

    ncols = min(3, len(facts))
    nrows = -(-len(facts) // ncols)
    w, h = _figsize(m, width=4.0)
    fig = Figure(figsize=(w * ncols, h * nrows + 0.4), layout="constrained")
    for k, f in enumerate(facts):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        plot_map(m, ax, labels=[e for e, _ in f.bottlenecks], legend=False, roads=False, fountains=False,
                 streams=False)
        ax.set_title(f.name, fontsize="medium")
    return _figure(fig, "png", f"The {TOP} bottleneck Eidos of each species, labelled on the map.",
                   "maps with the bottleneck Eidos labelled")


def _pairs_figure(names: list[str], diff: np.ndarray, turns: int) -> str:
    from matplotlib.figure import Figure

    n = len(names)
    fig = Figure(figsize=(0.5 * n + 3, 0.5 * n + 2), layout="constrained")
    ax = fig.add_subplot()
    im = ax.imshow(diff, cmap="magma_r", vmin=0, vmax=max(float(diff.max()), 1e-9))
    ax.set_xticks(range(n), names, rotation=45, ha="right")
    ax.set_yticks(range(n), names)
    fig.colorbar(im, ax=ax, label=f"mean |difference| of P(within {turns} turns)" if turns else "share reached by one")
    return _figure(fig, "svg", "How differently each two species reach the same (start, Eido) pairs.",
                   "heat map of species differences")


# -- HTML ----------------------------------------------------------------------------------
def _off_diagonal(a: np.ndarray) -> np.ndarray:
    return a[~np.eye(len(a), dtype=bool)]


def _num(x: float) -> str:
    return "unreachable" if not np.isfinite(x) else f"{x:.2f}"


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _turns_section(places, facts) -> str:
    labels = [p for p, _ in places]
    rows = []
    for f in facts:
        d = _off_diagonal(f.turns)
        ok = d[np.isfinite(d)]
        stats = [f"{ok.min():.2f}", f"{np.median(ok):.2f}", f"{ok.mean():.2f}", f"{ok.max():.2f}"] if len(ok) \
            else ["-"] * 4
        rows.append([f.name, *stats, f"{len(d) - len(ok)} of {len(d)}"])
    parts = [f"<p>{len(places)} named places: {html.escape(', '.join(labels))}.</p>", _turns_figure(facts),
             _table(["species", "fewest", "median", "mean", "most", "pairs unreachable"], rows)]
    for f in facts:
        matrix = [[a, *(_num(x) for x in row)] for a, row in zip(labels, f.turns, strict=True)]
        parts.append(f"<details><summary>{html.escape(f.name)}: expected turns, from (rows) to (columns)</summary>"
                     + _table(["from \\ to", *labels], matrix) + "</details>")
    return "".join(parts)


def _species_pairs(facts, turns: int) -> tuple[np.ndarray, list[list[str]]]:
    n = len(facts)
    diff = np.zeros((n, n))
    rows = []
    for a, b in itertools.combinations(range(n), 2):
        pa, pb = facts[a].p_last, facts[b].p_last
        d = float(np.abs(pa - pb).mean()) if len(pa) else 0.0
        diff[a, b] = diff[b, a] = d
        rows.append((d, [facts[a].name, facts[b].name, f"{d:.3f}", f"{int(((pa > 0) & (pb == 0)).sum()):,}",
                         f"{int(((pb > 0) & (pa == 0)).sum()):,}"]))
    rows.sort(key=lambda r: -r[0])
    return diff, [r for _, r in rows[:10]]


_STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.8em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}figure{margin:1em 0}
img{max-width:100%;height:auto}figcaption{color:#555;font-size:.9em}section{margin-top:2.5em}
details{margin:.3em 0}code{background:#f4f4f4}"""


def build_report(m, actors, *, batch=None, turns: int = 3, partial: str = "carry") -> str:
    """The report's HTML for ``actors`` on map ``m`` (from ``batch``, a :class:`~eidomap.analysis.BatchResult`)."""
    from .search.turns import check_partial

    carry = check_partial(partial)
    if batch is not None:
        _check_batch(m, batch)
        turns = batch.turns
    if not actors:
        raise RequestError("the report needs at least one species")
    places, facts = _facts(m, actors, batch, turns, carry)
    names = [f.name for f in facts]
    source = "the batch result given" if batch is not None else "computed in memory from the named places"
    diff, pair_rows = _species_pairs(facts, turns)
    within = f"P(arrived within {turns} turns)" if turns else "reachability"
    sections = {
        "turns": _turns_section(places, facts),
        "unreachable": _unreachable_figure(facts) + _table(
            ["species", "share of (start, Eido) pairs unreachable"],
            [[f.name, f"{100 * f.unreachable:.1f} %"] for f in facts]),
        "bottlenecks": _bottleneck_figure(m, facts) + _table(
            ["species", *(f"#{k}" for k in range(1, TOP + 1))],
            [[f.name, *(f"{e} ({s:.3f})" for e, s in f.bottlenecks)] for f in facts]),
        "species-pairs": (f"<p>Mean absolute difference of {within} over the same (start, Eido) pairs; the"
                          " columns after it count the pairs only one of the two can reach.</p>"
                          + (_pairs_figure(names, diff, turns) + _table(
                              ["species", "species", "mean difference", "only the first", "only the second"],
                              pair_rows) if len(facts) > 1 else "<p>Only one species: nothing to compare.</p>")),
    }
    nav = " · ".join(f'<a href="#{k}">{html.escape(t)}</a>' for k, t in SECTIONS.items())
    body = "".join(f'<section id="{k}"><h2>{html.escape(SECTIONS[k])}</h2>{v}</section>' for k, v in sections.items())
    title = f"Balance report: {m.name}"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<p>Map <code>{html.escape(Path(m.path).name)}</code> (SHA-256 <code>{cache.digest(m.path)}</code>),"
            f" {len(m.eido_ids):,} Eidos; species: {html.escape(', '.join(names))}; rule: {partial};"
            f" figures {source}; eidomap {__version__}.</p><nav>{nav}</nav>{body}</body></html>")


def write_report(m, path, actors, **kw) -> None:
    """:func:`build_report`, written atomically to ``path``."""
    write_atomic(path, build_report(m, actors, **kw).encode())
