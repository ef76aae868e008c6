"""Reproducible synthetic maps for tests and benchmarks.

Voronoi cells of random points, clipped to a square board: a sea around the
coast, a strip of air along the top, land terrains by a smooth random
elevation, roads with Pousas between distant land Eidos, fountains and
streams.  The same ``(eidos, seed)`` always gives the same map.

>>> doc = generate_map(200, seed=1)
>>> sum(f["properties"]["kind"] == "eido" for f in doc["features"])
200
"""

from __future__ import annotations

import json

import numpy as np
import shapely

from .io.files import write_atomic
from .topology import adjacency

__all__ = ["generate_map", "voronoi_cells", "write_map"]

LAND = ("marsh", "meadow", "scrub", "forest", "rocks", "rocky_cliff", "mountain")


def voronoi_cells(n: int, rng: np.random.Generator, side: float) -> np.ndarray:
    """``n`` Voronoi cells of uniform random points, clipped to ``[0, side]^2``."""
    pts = rng.uniform(0, side, (n, 2))
    box = shapely.box(0, 0, side, side)
    vor = shapely.voronoi_polygons(shapely.multipoints(pts), extend_to=box, ordered=True)
    return shapely.intersection(shapely.get_parts(vor), box)


def _elevation(xy: np.ndarray, rng: np.random.Generator, side: float) -> np.ndarray:
    """A smooth random height field in [0, 1]: a central island plus hills."""
    c = xy / side - 0.5
    z = 1.0 - 2.2 * np.hypot(c[:, 0], c[:, 1])
    for _ in range(12):
        centre = rng.uniform(-0.45, 0.45, 2)
        width = rng.uniform(0.04, 0.18)
        z += rng.uniform(-0.5, 0.7) * np.exp(-np.sum((c - centre) ** 2, axis=1) / (2 * width**2))
    z += rng.normal(0, 0.05, len(z))
    return (z - z.min()) / (np.ptp(z) or 1.0)


def _terrains(z: np.ndarray, xy: np.ndarray, rng: np.random.Generator, side: float) -> np.ndarray:
    sea = z < 0.35
    land_z = np.clip((z - 0.35) / 0.65, 0, 1)
    k = np.clip((land_z * len(LAND) + rng.normal(0, 0.6, len(z))).astype(int), 0, len(LAND) - 1)
    out = np.array(LAND, dtype=object)[k]
    out[sea] = "sea"
    out[xy[:, 1] > side * 0.97] = "air"
    return out


def _roads(adj, land: np.ndarray, xy: np.ndarray, n_roads: int, rng: np.random.Generator):
    """Road polylines along land-only cheapest paths between random land cells."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import dijkstra

    n = len(land)
    both = land[adj.i] & land[adj.j]
    g = coo_matrix((np.ones(both.sum()), (adj.i[both], adj.j[both])), shape=(n, n)).tocsr()
    cells = np.flatnonzero(land)
    if len(cells) < 2 or n_roads == 0:
        return []
    starts = rng.choice(cells, size=min(n_roads, len(cells)), replace=False)
    dist, pred = dijkstra(g, directed=False, indices=starts, return_predecessors=True, unweighted=True)
    roads = []
    for k, s in enumerate(starts):
        reach = np.flatnonzero(np.isfinite(dist[k]))
        if len(reach) < 3:
            continue
        far = reach[dist[k][reach] >= np.quantile(dist[k][reach], 0.8)]
        t = int(rng.choice(far))
        path = [t]
        while path[-1] != s:
            path.append(int(pred[k][path[-1]]))
        if len(path) >= 3:
            roads.append(path[::-1])
    return roads


def generate_map(n_eidos: int, seed: int = 0) -> dict:
    """A synthetic eidomap GeoJSON document with ``n_eidos`` Eidos."""
    if n_eidos < 3:
        raise ValueError("a generated map needs at least 3 Eidos")
    rng = np.random.default_rng(seed)
    side = float(np.sqrt(n_eidos) * 10.0)
    cells = voronoi_cells(n_eidos, rng, side)
    inside = shapely.get_coordinates(shapely.point_on_surface(cells))
    terr = _terrains(_elevation(inside, rng, side), inside, rng, side)
    width = len(str(n_eidos - 1))
    ids = [f"e{k:0{width}d}" for k in range(n_eidos)]
    land = np.isin(terr, LAND)
    adj = adjacency(cells)
    features = _eido_features(cells, ids, terr, inside, side)
    for r, path in enumerate(_roads(adj, land, inside, max(2, min(500, n_eidos // 2000)), rng)):
        rid = f"road{r}"
        line = inside[path]
        features.append(_feature(rid, {"kind": "road", "name": f"Road {r}"}, "LineString", line.tolist()))
        features.extend(_feature(None, {"kind": "pousa", "road": rid}, "Point", p) for p in line.tolist())
    land_cells = np.flatnonzero(land)
    n_fountains = min(len(land_cells), max(2, n_eidos // 500))
    for k, c in enumerate(rng.choice(land_cells, n_fountains, replace=False)):
        features.append(_feature(f"fountain{k}", {"kind": "fountain"}, "Point", inside[c].tolist()))
    high = np.flatnonzero(terr == "mountain")
    a, b = np.r_[adj.i, adj.j], np.r_[adj.j, adj.i]
    by_sea = np.zeros(n_eidos, bool)
    by_sea[a[terr[b] == "sea"]] = True
    coast = np.flatnonzero(land & by_sea)
    for k in range(min(len(high), len(coast), max(1, n_eidos // 2000))):
        src = rng.choice(high)
        mouths = coast[coast != src]
        if len(mouths) == 0:
            continue
        line = [inside[src].tolist(), inside[rng.choice(mouths)].tolist()]
        features.append(_feature(f"stream{k}", {"kind": "stream"}, "LineString", line))
    return {
        "type": "FeatureCollection",
        "eidomap": {"format": 1, "rules": "eido", "name": f"generated-{n_eidos}-{seed}", "seed": seed},
        "features": features,
    }


def _feature(fid, props: dict, gtype: str, coords) -> dict:
    f = {"type": "Feature"}
    if fid is not None:
        f["id"] = fid
    f["properties"] = props
    f["geometry"] = {"type": gtype, "coordinates": coords}
    return f


def _eido_features(cells, ids, terr, inside, side) -> list[dict]:
    _, coords, (ring_off, poly_off) = shapely.to_ragged_array(cells)
    coords = coords.tolist()
    ring_off, poly_off = ring_off.tolist(), poly_off.tolist()
    region = np.where(inside[:, 0] < side / 2, "west", "east")
    out = []
    for k, (fid, t) in enumerate(zip(ids, terr, strict=True)):
        rings = [coords[ring_off[r] : ring_off[r + 1]] for r in range(poly_off[k], poly_off[k + 1])]
        props = {"kind": "eido", "terrain": str(t)}
        if t not in ("sea", "air"):
            props["region"] = str(region[k])
        out.append(_feature(fid, props, "Polygon", rings))
    return out


def write_map(doc: dict, path) -> None:
    """Write a generated document as GeoJSON."""
    write_atomic(path, json.dumps(doc, separators=(",", ":")).encode())
