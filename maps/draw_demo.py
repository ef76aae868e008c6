"""Author the bundled demo map, "Illas das Marabillas", from hand-picked vertices.

The board is a planar subdivision drawn by hand: a table of named vertices
(plain game units, board 1000 x 700) and every Eido as the list of the vertex
names around it.  Two Eidos that share a border list the same vertices, so the
borders match to the bit.  Roads, their Pousas, the fountains and the stream
are drawn the same way.  Nothing here is random: running

    python maps/draw_demo.py

rewrites maps/demo.geojson byte for byte, after checking that the Eidos are
one partition of the board (no gaps, no overlaps, no holes, valid polygons).
See maps/README.md for a tour of the map.
"""

from __future__ import annotations

import json
from pathlib import Path

import shapely
from shapely.geometry import LineString, Point, Polygon

BOARD = (1000, 700)
HERE = Path(__file__).resolve().parent
OUT = HERE / "demo.geojson"
META = {"format": 1, "rules": "eido", "name": "Illas das Marabillas (demo)", "catalog": "demo-catalog.toml"}

# --------------------------------------------------------------------------
# Vertices.  A primed name (b2') is a vertex drawn a few units from its
# namesake, so that three Eidos at most meet at any point, as on a hand-drawn
# board where borders meet in Y's and T's.  The one exception is the point
# "agra", where four fields meet like a checkerboard (the corner-only contact).
# --------------------------------------------------------------------------
V = {
    # board edges and the foot of the sky band (y = 630)
    "B00": (0, 0), "B01": (240, 0), "B02": (520, 0), "B03": (740, 0), "B04": (1000, 0),
    "L1": (0, 230), "L2": (0, 380), "L3": (0, 520),
    "R1": (1000, 120), "R2": (1000, 260), "R3": (1000, 420),
    "K0": (0, 630), "K1": (150, 630), "K4": (540, 630), "K4'": (532, 630), "K5": (700, 630),
    "K6": (860, 630), "K6'": (852, 630), "K7": (1000, 630),
    "T0": (0, 700), "T1": (272, 700), "T2": (540, 700), "T3": (860, 700), "T4": (1000, 700),
    # open sea
    "p1": (190, 260), "p1'": (182, 259), "p2": (250, 150),
    "o1": (680, 560), "o1'": (688, 560), "o2": (840, 560), "o3": (700, 420), "o3'": (708, 420),
    "o4": (880, 420), "o4'": (872, 420),
    # Illote dos Corvos, the islet at the mouth of the strait
    "i1": (305, 302), "i2": (332, 280), "i3": (362, 292), "i4": (352, 318), "i5": (318, 322),

    # ---- Illa do Norte: coast, counter-clockwise from the south-west
    "nSW": (60, 405), "nS1": (95, 368), "nS1b": (122, 350), "nS2": (152, 352), "nS3": (215, 360),
    "nS4": (290, 345), "nS4b": (325, 348), "nS5": (350, 350), "nS5'": (358, 348), "nS6": (410, 338),
    "nS6b": (440, 341),
    "nS7": (470, 352), "nS8": (528, 372), "nS8'": (534, 367),
    "nSE": (572, 402), "nE1": (588, 455), "nE1'": (596, 453), "nE2": (578, 512), "nE2b": (581, 541),
    "nE3": (558, 565), "nE3'": (566, 565), "nNE": (515, 602),
    "nN1": (460, 614), "nN1b": (432, 621), "nN2": (405, 610),
    # where Monte Pindo reaches the sky
    "nSkyE": (360, 630), "nSkyE'": (368, 630), "nSkyW": (272, 630), "nSkyW'": (264, 630),
    "nN3": (225, 612), "nN4": (160, 606), "nN4'": (159, 598), "nN5": (102, 592), "nNW": (62, 560),
    "nW1": (44, 508), "nW1'": (47, 516), "nW1b": (36, 482), "nW2": (48, 455),
    # west
    "w1": (96, 442), "w2": (92, 505), "w3": (112, 560),
    # the Agras: a checkerboard of four fields around the point "agra"
    "q00": (152, 428), "q00'": (152, 420), "q01": (198, 425), "q02": (246, 430),
    "q10": (150, 476), "q10'": (143, 480), "agra": (200, 480), "q12": (244, 486), "q12'": (244, 478),
    "q20": (148, 536), "q20'": (149, 544), "q21": (203, 533), "q22": (247, 540), "q22'": (245, 548),
    # the ridge and the pass (A Portela)
    "mM": (320, 405), "s2": (385, 395),
    "pb1": (298, 472), "pb1'": (300, 464), "pb2": (342, 476), "pb3": (382, 468), "pb3'": (382, 460),
    "pt1": (298, 548), "pt2": (342, 540), "pt3": (385, 536), "pt3'": (393, 535),
    # east
    "e0": (438, 398), "e1": (445, 470), "e1'": (444, 462), "e2": (448, 530), "e2'": (456, 530),
    "f0": (505, 412), "f1": (510, 470), "f1'": (518, 468), "f2": (512, 528), "f2'": (520, 526),
    "g1": (450, 582),

    # ---- Illa do Sur: coast, counter-clockwise from the north-west
    "sNW": (440, 292), "sW1": (420, 240), "sW2": (432, 185), "sW2'": (424, 183), "sW3": (415, 130),
    "sSW": (445, 80), "sS1": (510, 62), "sS1'": (502, 64), "sS1b": (546, 47), "sS2": (580, 55), "sS3": (650, 68),
    "sS4": (720, 52), "sS4'": (712, 54), "sS5": (790, 60),
    "sS6": (860, 50), "sS6b": (896, 57), "sSE": (925, 78), "sE1": (948, 140), "sE2": (940, 205),
    "sE3": (952, 260), "sE3'": (944, 261),
    "sNE": (915, 305), "sNEb": (881, 320), "sN1": (850, 318), "sN2": (790, 305), "sN3": (720, 322),
    "sN3'": (718, 330), "sN4": (650, 310),
    "sN5": (590, 318), "sN5'": (584, 323), "sN6b": (478, 302), "sN6": (520, 305),
    # inland, column by column (west to east)
    "a1": (500, 124), "a1'": (492, 125), "a2": (495, 196), "a2'": (495, 188), "a3": (508, 248),
    "b1": (572, 120), "b1'": (580, 122), "b2": (580, 200), "b2'": (581, 208), "b3": (590, 262), "b3'": (598, 261),
    # c2: the T-junction, on Chaira Longa's straight edge b2-d2 (which has no vertex there)
    "c1": (652, 140), "c2": (660, 200), "c3": (668, 250), "c3'": (660, 251),
    "d1": (738, 122), "d1'": (738, 130), "d2": (740, 200), "d3": (732, 262), "d3'": (740, 262),
    "e1s": (812, 138), "e1s'": (810, 130), "e2s": (826, 198), "e3s": (818, 258), "e3s'": (810, 258),
    "f1s": (880, 128), "f1s'": (878, 120), "f2s": (892, 200), "f2s'": (884, 200), "f3s": (886, 265),
}

# --------------------------------------------------------------------------
# Eidos: id -> (terrain, region, display name, vertex names around it)
# --------------------------------------------------------------------------
NORTE, SUR = "norte", "sur"
EIDOS = {
    # ---- sky band along the top edge
    "ceo-poente": ("air", None, "Ceo do Poente", "K0 K1 nSkyW' T1 T0"),
    "ceo-gaivotas": ("air", None, "Ceo das Gaivotas", "nSkyW' nSkyW nSkyE nSkyE' K4' T2 T1"),
    "ceo-nubes": ("air", None, "Ceo das Nubes", "K4' K4 K5 K6' T3 T2"),
    "ceo-nacente": ("air", None, "Ceo do Nacente", "K6' K6 K7 T4 T3"),

    # ---- Illa do Norte
    "a-foz": ("marsh", NORTE, "A Foz do Xallas", "nSW nS1 nS1b nS2 q00' q00 w1 nW2"),
    "cabo-do-poente": ("rocky_cliff", NORTE, "Cabo do Poente", "nW2 w1 q00 q10' w2 nW1 nW1b"),
    "carballeira": ("forest", NORTE, "Carballeira da Moura", "nW1' nW1 w2 q10' q10 q20 w3 nNW"),
    "xunqueira": ("marsh", NORTE, "Xunqueira", "nNW w3 q20 q20' nN4' nN4 nN5"),
    # the four Agras: agra-de-riba/agra-de-baixo and bouza-vella/xesteira touch only at "agra"
    "xesteira": ("scrub", NORTE, "Xesteira", "q00 q00' q01 agra q10 q10'"),
    "agra-de-baixo": ("meadow", NORTE, "Agra de Baixo", "q01 q02 q12' agra"),
    "bouza-vella": ("scrub", NORTE, "Bouza Vella", "agra q12' q12 q22 q21"),
    "agra-de-riba": ("meadow", NORTE, "Agra de Riba", "q10 agra q21 q20' q20"),
    "praia-das-cunchas": ("meadow", NORTE, "Praia das Cunchas", "nS2 nS3 nS4 q02 q01 q00'"),
    "fraga-do-pindo": ("forest", NORTE, "Fraga do Pindo", "q20' q21 q22 q22' nN3 nN4'"),
    # the ridge: two mountains to the south, Monte Pindo to the north, the pass between
    "monte-louro": ("mountain", NORTE, "Monte Louro", "nS4 nS4b mM pb1' pb1 q12 q12' q02"),
    "serra-de-outes": ("mountain", NORTE, "Serra de Outes", "nS4b nS5 nS5' s2 pb3' pb3 pb2 pb1' mM"),
    "portela": ("rocks", NORTE, "A Portela", "q12 pb1 pt1 q22' q22"),
    "penedo-do-corvo": ("rocky_cliff", NORTE, "Penedo do Corvo", "pb1 pb1' pb2 pt2 pt1"),
    "laxes": ("rocks", NORTE, "As Laxes", "pb2 pb3 pt3' pt3 pt2"),
    "monte-pindo": ("mountain", NORTE, "Monte Pindo", "q22' pt1 pt2 pt3 nSkyE nSkyW nN3"),
    "penas-da-moa": ("rocky_cliff", NORTE, "Penas da Moa", "pt3 pt3' e2 g1 nN1 nN1b nN2 nSkyE' nSkyE"),
    # east
    "toxal": ("scrub", NORTE, "O Toxal", "pb3 pb3' e1 e2' e2 pt3'"),
    "prado-de-san-roque": ("meadow", NORTE, "Prado de San Roque", "nS5' nS6 e0 e1' e1 pb3' s2"),
    "porto-norte": ("meadow", NORTE, "Porto do Norte", "nS6 nS6b nS7 nS8' nS8 f0 e0"),
    "campo-da-feira": ("meadow", NORTE, "Campo da Feira", "e0 f0 f1' f1 e1'"),
    "cantil-leste": ("rocky_cliff", NORTE, "Cantil de Leste", "nS8 nSE nE1 f1' f0"),
    "devesa": ("forest", NORTE, "A Devesa", "e1 e1' f1 f2' f2 e2'"),
    "brana-de-leste": ("marsh", NORTE, "Braña de Leste", "f1 f1' nE1 nE1' nE2 f2'"),
    "cabo-leste": ("rocks", NORTE, "Cabo de Leste", "f2 f2' nE2 nE2b nE3' nE3"),
    "chousa": ("meadow", NORTE, "A Chousa", "e2 e2' f2 nE3 nNE nN1 g1"),
    # the islet in the strait
    "illote-dos-corvos": ("rocks", NORTE, "Illote dos Corvos", "i1 i2 i3 i4 i5"),

    # ---- Illa do Sur ("porto-sur" ... "punta-do-sueste": north to south, west to east)
    "porto-sur": ("meadow", SUR, "Porto do Sur", "sW1 a3 b3 sN5 sN6 sN6b sNW"),
    "areeiro": ("meadow", SUR, "O Areeiro", "b3 b3' c3' c3 sN4 sN5' sN5"),
    "cons-de-leste": ("rocks", SUR, "Cons de Leste", "c3 d3 sN3 sN4"),
    "penas-do-sur": ("rocky_cliff", SUR, "Penas do Sur", "d3 d3' e3s' e3s sN2 sN3' sN3"),
    "cantil-do-nordes": ("rocky_cliff", SUR, "Cantil do Nordés", "e3s f3s sE3' sE3 sNE sNEb sN1 sN2"),
    "marisma-oeste": ("marsh", SUR, "Marisma do Oeste", "sW2' sW2 a2' a2 a3 sW1"),
    "eira": ("meadow", SUR, "A Eira", "a2 b2' b3' b3 a3"),
    # the T-junction: Souto and Toxeira meet at c2, on Chaira Longa's straight edge b2-d2
    "souto": ("forest", SUR, "O Souto", "b2' b2 c2 c3' b3'"),
    "toxeira": ("scrub", SUR, "A Toxeira", "c2 d2 d3' d3 c3 c3'"),
    "chaira-longa": ("meadow", SUR, "Chaira Longa", "b1 b1' c1 d1 d1' d2 b2"),
    "monte-faro": ("mountain", SUR, "Monte Faro", "d1' e1s' e1s e2s e3s' d3' d2"),
    "lagoa-do-faro": ("lake", SUR, "Lagoa do Faro", "e2s f2s' f3s e3s e3s'"),
    "acantilado": ("rocky_cliff", SUR, "O Acantilado", "f2s' f2s sE2 sE3' f3s"),
    "castro": ("rocks", SUR, "O Castro", "sW3 a1' a2' sW2"),
    "fraga": ("forest", SUR, "A Fraga", "a1' a1 b1 b2 b2' a2 a2'"),
    "devesa-do-sur": ("forest", SUR, "Devesa do Sur", "e1s f1s' f1s f2s f2s' e2s"),
    "aldea-do-cabo": ("meadow", SUR, "Aldea do Cabo", "f1s sE1 sE2 f2s"),
    "marisma-do-sur": ("marsh", SUR, "Marisma do Sur", "sSW sS1' sS1 a1 a1' sW3"),
    "areal": ("meadow", SUR, "O Areal", "sS1 sS1b sS2 b1' b1 a1"),
    "veiga": ("meadow", SUR, "A Veiga", "sS2 sS3 c1 b1'"),
    "carreira": ("scrub", SUR, "A Carreira", "sS3 sS4' sS4 d1 c1"),
    "pedregal": ("rocks", SUR, "O Pedregal", "sS4 sS5 e1s' d1' d1"),
    "toxo-bravo": ("scrub", SUR, "Toxo Bravo", "sS5 sS6 f1s' e1s e1s'"),
    "punta-do-sueste": ("rocks", SUR, "Punta do Sueste", "sS6 sS6b sSE sE1 f1s f1s'"),

    # ---- the sea
    "mar-1": ("sea", None, "Mar do Noroeste", "L3 nW1' nNW nN5 nN4 K1 K0"),
    "mar-2": ("sea", None, "Enseada do Pindo", "nN4 nN4' nN3 nSkyW nSkyW' K1"),
    "mar-3": ("sea", None, "Mar da Moa", "nSkyE' nN2 nN1b nN1 nNE K4 K4'"),
    "mar-4": ("sea", None, "Mar de Fóra", "L2 nSW nW2 nW1b nW1 nW1' L3"),
    "mar-5": ("sea", None, "Mar do Oeste", "L1 p1' nS3 nS2 nS1b nS1 nSW L2"),
    "mar-6": ("sea", None, "Mar dos Corvos", "p1' p1 i1 i5 i4 nS5 nS4b nS4 nS3"),
    "estreito": ("sea", None, "Estreito das Meigas", "i4 i3 sNW sN6b sN6 sN5 sN5' nS8' nS7 nS6b nS6 nS5' nS5"),
    "mar-7": ("sea", None, "Mar de Sálvora", "p1 p2 sW2' sW1 sNW i3 i2 i1"),
    "mar-8": ("sea", None, "Mar do Sudoeste", "B00 B01 p2 p1 p1' L1"),
    "mar-9": ("sea", None, "Baixos do Sur", "B01 B02 sS1' sSW sW3 sW2 sW2' p2"),
    "mar-10": ("sea", None, "Mar do Sur", "B02 B03 sS4' sS3 sS2 sS1b sS1 sS1'"),
    "mar-11": ("sea", None, "Mar do Sueste", "B03 B04 R1 sSE sS6b sS6 sS5 sS4 sS4'"),
    "mar-12": ("sea", None, "Mar de Leste", "R1 R2 sE3 sE3' sE2 sE1 sSE"),
    "mar-13": ("sea", None, "Mar do Nordés", "R2 R3 o4 sN1 sNEb sNE sE3"),
    "mar-14": ("sea", None, "Mar das Sereas", "o3' o3 sN3' sN2 sN1 o4 o4'"),
    "estreito-leste": ("sea", None, "Boca Leste do Estreito", "nS8 nS8' sN5' sN4 sN3 sN3' o3 nE1' nE1 nSE"),
    "mar-15": ("sea", None, "Mar Central", "nE1' o3 o3' o1 nE3' nE2b nE2"),
    "mar-16": ("sea", None, "Mar dos Golfiños", "o3' o4' o2 o1' o1"),
    "mar-17": ("sea", None, "Mar da Chousa", "K4 nNE nE3 nE3' o1 o1' K5"),
    "mar-18": ("sea", None, "Mar Alto", "K5 o1' o2 K6 K6'"),
    "mar-19": ("sea", None, "Mar do Nacente", "K6 o2 o4' o4 R3 K7"),
}

# The named places the balance report compares (``"poi": true``): the two ports,
# the village and the Eidos of the three fountains.
POI = ("porto-norte", "porto-sur", "aldea-do-cabo", "carballeira", "chousa")

# --------------------------------------------------------------------------
# Roads: id -> (display name, points).  A point is (x, y); (x, y, pousa id) puts
# a Pousa there, inside an Eido; (vertex, vertex, pousa id) is where the road
# crosses the border between those two vertices: at its midpoint, with a Pousa
# on the border.  Pousas are computed on the road line itself.
# --------------------------------------------------------------------------
ROADS = {
    "camino-real": ("Camiño Real", [
        (66, 538),
        (100, 524, "cr-1"),
        ("q10", "q20", "cr-2"),     # carballeira | agra-de-riba
        (176, 502),
        ("agra", "q21", "cr-3"),    # agra-de-riba | bouza-vella
        ("q12", "q22", "cr-4"),     # bouza-vella | portela
        (270, 508, "cr-5"),
        (298, 510),
        (320, 506, "cr-6"),
        (342, 508),
        (362, 503, "cr-7"),
        ("pb3", "pt3'", "cr-8"),     # laxes | toxal
        (412, 492),
        (418, 432, "cr-9"),
        ("nS6", "e0", "cr-10"),     # prado-de-san-roque | porto-norte
        (465, 378, "cr-11"),
    ]),
    "corredoira": ("Corredoira do Faro", [
        (470, 275, "cd-1"),
        ("a3", "b3", "cd-2"),       # porto-sur | eira
        (542, 228),
        ("a2", "b2'", "cd-3"),       # eira | fraga
        (548, 170),
        ("b1", "b2", "cd-4"),       # fraga | chaira-longa
        (625, 166, "cd-5"),
        ("c1", "d1", "cd-6"),       # chaira-longa | carreira
        (720, 100),
        ("sS4", "d1", "cd-7"),      # carreira | pedregal
        (765, 95, "cd-8"),
        (801, 99),
        (835, 112, "cd-9"),
        (846, 133),
        (862, 160, "cd-10"),
        ("f1s", "f2s", "cd-11"),    # devesa-do-sur | aldea-do-cabo
        (912, 168, "cd-12"),
    ]),
}

FOUNTAINS = {
    "fonte-da-moura": ("Fonte da Moura", (90, 548)),          # carballeira, far north-west
    "fonte-de-santa-marina": ("Fonte de Santa Mariña", (492, 572)),  # chousa, north-east of the Norte
    "fonte-do-cabo": ("Fonte do Cabo", (925, 150)),           # aldea-do-cabo, far east of the Sur
}

STREAMS = {
    # source (first point) high on Monte Pindo, mouth (last point) in A Foz
    "rio-xallas": ("Río Xallas", [(305, 592), (262, 578), (205, 568), (142, 560),
                                   (110, 538), (88, 492), (74, 432)]),
}


# --------------------------------------------------------------------------
def ring(names: str) -> list:
    """Closed, counter-clockwise ring of the named vertices."""
    pts = [V[n] for n in names.split()]
    if Polygon(pts).exterior.is_ccw is False:
        pts.reverse()
    return [list(p) for p in pts + pts[:1]]


def road_point(p) -> tuple:
    """(x, y) of a road point: given, or the midpoint of the border between two vertices."""
    if isinstance(p[0], str):
        (xa, ya), (xb, yb) = V[p[0]], V[p[1]]
        return ((xa + xb) / 2, (ya + yb) / 2)
    return p[:2]


def num(x: float):
    """A coordinate as written: an integer when it is one."""
    return int(x) if float(x).is_integer() else round(float(x), 6)


def build() -> dict:
    features = []
    for eid, (terrain, region, name, names) in EIDOS.items():
        props = {"kind": "eido", "terrain": terrain}
        if region:
            props["region"] = region
        props["name"] = name
        if eid in POI:
            props["poi"] = True
        features.append({"type": "Feature", "id": eid, "properties": props,
                         "geometry": {"type": "Polygon", "coordinates": [ring(names)]}})
    for rid, (name, pts) in ROADS.items():
        xy = [road_point(p) for p in pts]
        line = LineString(xy)
        features.append({"type": "Feature", "id": rid, "properties": {"kind": "road", "name": name},
                         "geometry": {"type": "LineString", "coordinates": [[num(x), num(y)] for x, y in xy]}})
        for p, (x, y) in zip(pts, xy, strict=True):
            if len(p) < 3:
                continue
            pid = p[2]
            at = line.interpolate(line.project(Point(x, y)))  # exactly on the road
            features.append({"type": "Feature", "id": pid, "properties": {"kind": "pousa", "road": rid},
                             "geometry": {"type": "Point", "coordinates": [num(at.x), num(at.y)]}})
    for fid, (name, (x, y)) in FOUNTAINS.items():
        features.append({"type": "Feature", "id": fid, "properties": {"kind": "fountain", "name": name},
                         "geometry": {"type": "Point", "coordinates": [x, y]}})
    for sid, (name, pts) in STREAMS.items():
        features.append({"type": "Feature", "id": sid, "properties": {"kind": "stream", "name": name},
                         "geometry": {"type": "LineString", "coordinates": [list(p) for p in pts]}})
    return {"type": "FeatureCollection", "eidomap": META, "features": features}


def check(doc: dict) -> None:
    """The Eidos are one partition of the board; Pousas lie on their roads."""
    eido_features = [f for f in doc["features"] if f["properties"]["kind"] == "eido"]
    eidos = [shapely.geometry.shape(f["geometry"]) for f in eido_features]
    bad = [f["id"] for f, g in zip(eido_features, eidos, strict=True) if not g.is_valid]
    assert not bad, f"invalid polygons: {bad}"
    board = shapely.box(0, 0, *BOARD)
    union = shapely.union_all(eidos)
    total = sum(g.area for g in eidos)
    assert abs(total - board.area) < 1e-6, f"areas sum to {total}, board is {board.area} (overlap or gap)"
    assert abs(union.area - board.area) < 1e-6 and union.geom_type == "Polygon" and not union.interiors, \
        "the Eidos do not cover the board exactly"
    assert union.symmetric_difference(board).area < 1e-6
    roads = {f["id"]: shapely.geometry.shape(f["geometry"]) for f in doc["features"]
             if f["properties"]["kind"] == "road"}
    for f in doc["features"]:
        if f["properties"]["kind"] == "pousa":
            d = roads[f["properties"]["road"]].distance(shapely.geometry.shape(f["geometry"]))
            assert d < 1e-9, f"Pousa {f['id']} is {d} off its road"


def dumps(doc: dict) -> str:
    """Pretty but compact: one feature per line."""
    head = {k: v for k, v in doc.items() if k != "features"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    lines.append('  "features": [')
    feats = [json.dumps(f, ensure_ascii=False) for f in doc["features"]]
    lines.extend(f"    {s}," for s in feats[:-1])
    lines.append(f"    {feats[-1]}")
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    doc = build()
    check(doc)
    OUT.write_text(dumps(doc), encoding="utf-8")
    n = sum(f["properties"]["kind"] == "eido" for f in doc["features"])
    print(f"wrote {OUT.name}: {n} Eidos, {len(doc['features'])} features")


if __name__ == "__main__":
    main()
