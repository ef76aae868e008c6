"""Nothing quadratic on the input paths: each reader timed on N and on 10 N features.

``python -m benchmarks.scaling [--n 20000]`` reads, for each input path, a
generated input of N features and one of 10 N (the GeoJSON reader, the catalog
loader, the Tiled importer, the battle-grid reader: N squares there) and prints
the ratio of the median times: about 10 for a linear reader, about 100
for a quadratic one.  A measurement, not a test (docs/reliability.md records a
run); the topology and the searches are measured at 10k/100k/1M by ``python -m
benchmarks``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.harness import Config, timed  # noqa: E402
from eidomap.io.grid import read_grid  # noqa: E402
from eidomap.io.readers import read_map  # noqa: E402
from eidomap.io.tiled import read_tiled  # noqa: E402
from eidomap.model.generate import generate_map  # noqa: E402
from eidomap.record.catalog import load_catalog  # noqa: E402


def _seconds(fn) -> float:
    """Median wall time of three runs after a warm-up (the suite's own timer)."""
    return timed(fn, Config(sizes=[], mode="quick"), runs=3).seconds


def _geojson(folder: Path, n: int):
    p = folder / f"map-{n}.geojson"
    p.write_text(json.dumps(generate_map(n, 1)))
    return lambda: read_map(p)


def _catalog(folder: Path, n: int):
    p = folder / f"catalog-{n}.toml"
    p.write_text("".join(f"[species.s{k}]\nvmv = 1\ncosts = {{ meadow = {1 + k % 5}, sea = 2 }}\n" for k in range(n)))
    return lambda: load_catalog(p)


def _tiled(folder: Path, n: int):
    side = 10
    objects = [{"id": k + 1, "name": f"e{k}", "class": "meadow", "x": (k % 100) * side, "y": (k // 100) * side,
                "width": side, "height": side} for k in range(n)]
    doc = {"type": "map", "orientation": "orthogonal", "width": 100, "height": n // 100 + 1, "tilewidth": side,
           "tileheight": side, "layers": [{"type": "objectgroup", "name": "board", "objects": objects}]}
    data = json.dumps(doc).encode()
    return lambda: read_tiled(data, folder / "board.tmj")


def _grid(folder: Path, n: int):
    p = folder / f"grid-{n}.txt"
    cols = 1000
    p.write_text("\n".join(("." * (cols - 1) + "d") for _ in range(max(1, n // cols))) + "\n")
    return lambda: read_grid(p)


#: Sizes a path cannot go past at 10 N: a grid holds 1,000 x 1,000 squares, a catalog file 1 MiB.
CAP = {"battle grid (squares)": 100_000, "catalog (species)": 1_500}
PATHS = {"GeoJSON map (Eidos)": _geojson, "catalog (species)": _catalog, "Tiled map (objects)": _tiled,
         "battle grid (squares)": _grid}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=20_000, help="the smaller size (default 20,000; 10 times more next)")
    args = p.parse_args(argv)
    print("| input path | N | time N | time 10 N | ratio |\n|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in PATHS.items():
            n = min(args.n, CAP.get(name, args.n))
            small, big = _seconds(make(Path(tmp), n)), _seconds(make(Path(tmp), 10 * n))
            print(f"| {name} | {n:,} | {small:.3f} s | {big:.3f} s | {big / small:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
