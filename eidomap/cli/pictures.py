"""The ``plot`` command: a picture of a map.

``route`` and ``reach`` draw their answers with ``--png`` (see ``cli/plan.py``).
"""

from __future__ import annotations

from . import command, load_map, map_args


@command("plot", "draw a map: Eidos by terrain, region borders, roads, Pousas, fountains, streams (PNG or SVG)",
         example="eidomap plot maps/demo.geojson --png demo.png --labels")
def _plot_args(p):
    map_args(p)
    p.add_argument("--png", required=True, metavar="OUT", help="the picture to write: PNG or SVG by its suffix")
    p.add_argument("--labels", action="store_true", help="write each Eido's id on it")


@_plot_args
def cmd_plot(args) -> int:
    from ..plot import picture_format, save_map_png

    picture_format(args.png)  # a bad suffix fails before the map is read
    m = load_map(args)
    save_map_png(m, args.png, labels=args.labels)
    print(f"wrote {args.png}: {m.name}, {len(m.eido_ids)} Eidos")
    return 0
