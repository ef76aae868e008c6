"""The ``plot`` command: a picture of a map, or an interactive one.

``route``, ``reach`` and ``validate`` draw their answers with ``--png`` and
``--html`` (see ``cli/plan.py`` and ``cli/check.py``).
"""

from __future__ import annotations

from ..errors import RequestError
from . import command, html_args, load_map, map_args, write_html


@command("plot", "draw a map: Eidos by terrain, region borders, roads, Pousas, fountains, streams (PNG or SVG),"
                 " or an interactive map (HTML)",
         example="eidomap plot maps/demo.geojson --png demo.png --labels")
def _plot_args(p):
    map_args(p)
    p.add_argument("--png", metavar="OUT", help="the picture to write: PNG or SVG by its suffix")
    p.add_argument("--labels", action="store_true", help="write each Eido's id on it")
    html_args(p)


@_plot_args
def cmd_plot(args) -> int:
    from ..plot import picture_format, save_map_png

    if not (args.png or args.html):
        raise RequestError("give --png OUT (a picture) or --html OUT.html (an interactive map), or both")
    if args.png:
        picture_format(args.png)  # a bad suffix fails before the map is read
    m = load_map(args)
    if args.png:
        save_map_png(m, args.png, labels=args.labels)
        print(f"wrote {args.png}: {m.name}, {len(m.eido_ids)} Eidos")
    write_html(args, m)
    return 0
