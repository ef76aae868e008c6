"""An independent movement graph for the oracles: the map's geometry and the catalog, plain Python.

It shares no code with eidomap's topology, graph compiler or cost tables: adjacency
is Shapely's exact ``F***1****`` relate, points are placed with ``dwithin``, roads
are ordered with ``line_locate_point``, and every cost is read from the catalog's
``Species`` as the rules say (docs/rules.md).  As slow as it likes: maps of a
few dozen Eidos.

``oracle_edges`` returns ``{(u, v): least PtMv}`` over node ids (Eidos, Pousas and
the teleport hub ``"@teleport"``), for the steps the actor can take.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import shapely

HUB = "@teleport"


def _species_cost(sp, kind: str, terrain: str | None, gifts=()) -> float:
    """PtMv of one step of ``kind`` into ``terrain`` for species ``sp`` given ``gifts`` (``inf``: it cannot)."""
    def enter(t):
        return sp.costs.get(t, math.inf)

    def can_be(t):
        return 0.0 if t in sp.costs else math.inf

    teleports = "teleport" in sp.gifts or "teleport" in gifts
    if kind == "border":
        return enter(terrain)
    if kind in ("road", "board"):
        return sp.road_cost if sp.road_style == "pousa" and sp.road_cost is not None else math.inf
    if kind == "board_adjacent":
        return enter(terrain) if sp.road_style == "pousa" and sp.road_cost is not None else math.inf
    if kind == "alight":
        return can_be(terrain) if sp.road_style == "pousa" and sp.road_cost is not None else math.inf
    if kind == "road_eido":
        return sp.road_eido_cost if sp.road_style == "eido" and terrain in sp.road_eido_terrains else math.inf
    if kind == "teleport":
        return sp.teleport_cost if teleports else math.inf
    if kind == "teleport_exit":
        return can_be(terrain) if teleports else math.inf
    if kind == "stream":
        return can_be(terrain) + sp.teleport_cost if teleports else math.inf
    raise ValueError(kind)


#: :func:`candidate_steps` of the last maps asked: ``id(map) -> (map, steps)`` (the map held, so that its id is
#: not another's; the steps a tuple no caller can change).  A test asks them for each unit of each example, of maps
#: that tests/small_maps.py keeps.
_STEPS: dict[int, tuple[object, tuple]] = {}


def candidate_steps(m) -> tuple[tuple[str, str, str, str | None], ...]:
    """Every step the map offers anyone: ``(from, to, kind, terrain entered)`` (worked out once a map)."""
    kept = _STEPS.get(id(m))
    if kept is None or kept[0] is not m:
        if len(_STEPS) >= 256:
            _STEPS.clear()
        kept = _STEPS[id(m)] = (m, tuple(_candidate_steps(m)))
    return kept[1]


def _candidate_steps(m) -> list[tuple[str, str, str, str | None]]:
    """:func:`candidate_steps`, worked out."""
    md, tol = m.record, m.tolerance
    ids, geoms = list(md.eidos.ids), list(md.eidos.geoms)
    shapes = np.asarray(geoms, dtype=object)  # (each pair still asked of GEOS, a row of pairs a call)
    names = md.catalog.terrain_names
    terrain = {e: names[t] for e, t in zip(ids, md.terrain.tolist(), strict=True)}
    steps = []
    adjacent = set()
    for i in range(len(ids)):
        for j in np.flatnonzero(shapely.relate_pattern(geoms[i], shapes[i + 1:], "F***1****")) + i + 1:
            adjacent.add((ids[i], ids[j]))
            adjacent.add((ids[j], ids[i]))
    steps += [(a, b, "border", terrain[b]) for a, b in adjacent]

    def holders(point) -> list[str]:
        return [e for e, near in zip(ids, shapely.dwithin(point, shapes, tol).tolist(), strict=True) if near]

    # Pousas: boarding from the Eidos holding one, or next to them; alighting; hops along the road
    held = {}
    for pid, pt in zip(md.pousas.ids, md.pousas.geoms, strict=True):
        held[pid] = holders(pt)
        for h in held[pid]:
            steps += [(h, pid, "board", terrain[h]), (pid, h, "alight", terrain[h])]
            steps += [(n, pid, "board_adjacent", terrain[h]) for a, n in adjacent if a == h and n not in held[pid]]
    # the border of each pair of neighbours, once (a road is asked where it crosses all of them in one call)
    pairs = sorted((a, b) for a, b in adjacent if a < b)
    at = {e: k for k, e in enumerate(ids)}
    outlines = shapely.boundary(shapes)
    borders = shapely.intersection(outlines[[at[a] for a, _ in pairs]], outlines[[at[b] for _, b in pairs]])
    for r, line in enumerate(md.roads.geoms):
        on = [(shapely.line_locate_point(line, pt), pid)
              for pid, pt, k in zip(md.pousas.ids, md.pousas.geoms, md.pousa_road.tolist(), strict=True) if k == r]
        on.sort()
        for (_, a), (_, b) in itertools.pairwise(on):
            steps += [(a, b, "road", None), (b, a, "road", None)]
        # oestrimios: Eido to Eido where the road crosses their border (not through a corner of three), each way
        for (a, b), crossing in zip(pairs, shapely.intersection(line, borders).tolist(), strict=True):
            for pt in shapely.get_parts(crossing):
                third = [e for e in holders(pt) if e not in (a, b)]
                if not third and shapely.get_type_id(pt) == 0:
                    steps += [(a, b, "road_eido", terrain[b]), (b, a, "road_eido", terrain[a])]
    # teleports through the hub; streams from mouth to source
    for pt in md.fountains.geoms:
        for h in holders(pt):
            steps += [(h, HUB, "teleport", None), (HUB, h, "teleport_exit", terrain[h])]
    for line in md.streams.geoms:
        src = holders(shapely.get_point(line, 0))
        mouth = holders(shapely.get_point(line, -1))
        steps += [(a, b, "stream", terrain[b]) for a in mouth for b in src if a != b]
    return steps


def oracle_edges(m, species: str, mount: str | None = None, party=(), gifts=()) -> dict[tuple[str, str], float]:
    """Least PtMv of each step the unit can take: a rider pays as its mount, a party as its dearest member;
    ``gifts`` are given to every member."""
    cat = m.catalog
    members = [cat.species[mount or species], *(cat.species[p] for p in party)]
    out: dict[tuple[str, str], float] = {}
    for a, b, kind, terrain in candidate_steps(m):
        cost = max(_species_cost(sp, kind, terrain, gifts) for sp in members)
        if math.isfinite(cost) and cost < out.get((a, b), math.inf):
            out[a, b] = cost
    return out


def oracle_vmv(m, species: str, mount: str | None = None, party=(), gifts=()) -> int:
    cat = m.catalog
    return min(cat.species[x].vmv for x in [mount or species, *party])
