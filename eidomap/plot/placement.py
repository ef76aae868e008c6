"""Labels that do not overprint each other: a greedy placement with leader lines.

Each label is measured with the Agg renderer (its width and height in points),
then placed, in the order given, at the first of a few candidate spots around
its anchor whose box overlaps no label placed before it; the test of a label's
candidates against the placed boxes is one numpy broadcast.  A label moved off
its anchor gets a thin leader line back to it.  When no candidate is free, the
one overlapping least is taken.

>>> from matplotlib.figure import Figure
>>> ax = Figure(figsize=(3, 2)).add_subplot()
>>> ax.set_xlim(0, 10); ax.set_ylim(0, 10)
(0.0, 10.0)
(0.0, 10.0)
>>> texts = place_labels(ax, [(5, 5), (5, 5)], ["first", "second"])
>>> [t.xyann != (0.0, 0.0) for t in texts]  # the second moved off the first
[False, True]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.font_manager import FontProperties
from matplotlib.text import Annotation

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Directions tried around an anchor (scaled by the label's half-size): sides, diagonals, then between.
_BETWEEN = np.radians(np.arange(22.5, 360, 45))
_DIRECTIONS = np.vstack([[(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)],
                         np.c_[np.cos(_BETWEEN), np.sin(_BETWEEN)]])
#: How far out (in label half-sizes plus the gap) the rings of candidates go.
_RINGS = (1.0, 2.0, 3.0, 4.5, 6.0, 8.0, 11.0)
#: Labels beyond this many are written on their anchors without placement (a map that big is
#: labelled for zooming in, not to be read whole).
MAX_PLACED = 500


def _sizes(texts: Sequence[str], fontsize: float, weight: str, dpi: float) -> np.ndarray:
    """Width and height of each text in points (with the halo's margin)."""
    renderer = RendererAgg(1, 1, dpi)
    prop = FontProperties(size=fontsize, weight=weight)
    px = np.array([renderer.get_text_width_height_descent(t, prop, ismath=False)[:2] for t in texts], float)
    return px.reshape(-1, 2) * 72.0 / dpi + 2.0


def _overlap(boxes: np.ndarray, placed: np.ndarray) -> np.ndarray:
    """Total area by which each box ``(x0, y0, x1, y1)`` overlaps the placed boxes."""
    w = np.minimum(boxes[:, None, 2], placed[None, :, 2]) - np.maximum(boxes[:, None, 0], placed[None, :, 0])
    h = np.minimum(boxes[:, None, 3], placed[None, :, 3]) - np.maximum(boxes[:, None, 1], placed[None, :, 1])
    return (np.clip(w, 0, None) * np.clip(h, 0, None)).sum(axis=1)


def place_labels(ax: Axes, xy: npt.ArrayLike, texts: Sequence[str], *, colors: Sequence | None = None,
                 fontsize: float = 7, fontweight: str = "normal", on_anchor: bool = True, gap: float = 3.0,
                 **text_kw: Any) -> list[Annotation]:
    """Write ``texts`` at the data points ``xy`` so that no two labels overlap, with leader lines where moved.

    Call it once the axes' limits and aspect are final.  ``on_anchor``: a
    label may sit centred on its anchor (Eido names); otherwise it always goes
    beside it (next to a marker).  ``gap`` is the space, in points, between a
    label and its anchor or neighbours.  Other keywords go to every label
    (an :class:`~matplotlib.text.Annotation`, ``gid`` for instance).
    Returns the labels in the order of ``texts``.
    """
    xy = np.asarray(xy, float).reshape(-1, 2)
    colors = ["black"] * len(texts) if colors is None else list(colors)
    n = len(texts)
    offsets = np.zeros((n, 2))
    if 0 < n <= MAX_PLACED:
        ax.apply_aspect()
        dpi = ax.figure.dpi
        at = ax.transData.transform(xy) * 72.0 / dpi  # anchors in points
        frame = np.asarray(ax.get_window_extent().extents) * 72.0 / dpi
        size = _sizes(texts, fontsize, fontweight, dpi)
        steps = np.array([d * r for r in _RINGS for d in _DIRECTIONS])
        if on_anchor:
            steps = np.vstack([(0.0, 0.0), steps])
        placed = np.empty((0, 4))
        for k in range(n):
            half = size[k] / 2
            shift = steps * (half + gap)
            centre = at[k] + shift
            boxes = np.hstack([centre - half, centre + half])
            outside = (boxes[:, :2] < frame[:2]).any(axis=1) | (boxes[:, 2:] > frame[2:]).any(axis=1)
            cost = _overlap(boxes, placed) + np.where(outside, 1e-3, 0.0)  # outside only when all else overlaps
            best = int(np.argmin(cost))
            offsets[k] = shift[best]
            placed = np.vstack([placed, boxes[best] + (-gap / 2, -gap / 2, gap / 2, gap / 2)])
    out = []
    for (x, y), text, (dx, dy), color in zip(xy.tolist(), texts, offsets.tolist(), colors, strict=True):
        moved = dx != 0 or dy != 0
        arrow = {"arrowstyle": "-", "color": color, "linewidth": 0.5, "shrinkA": 0, "shrinkB": 0} if moved else None
        out.append(ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", ha="center", va="center",
                               fontsize=fontsize, fontweight=fontweight, color=color, arrowprops=arrow, **text_kw))
    return out
