"""The ``plot`` command: a picture of a map, or an interactive one; ``planner`` and ``d20 planner``: pages to plan on.

``route``, ``reach`` and ``validate`` draw their answers with ``--png`` and
``--html`` (see ``cli/plan.py`` and ``cli/check.py``).
"""

from __future__ import annotations

import argparse

from eidomap.base.errors import RequestError
from eidomap.base.names import shown
from eidomap.cli._common import command, html_args, load_map, map_args, write_html


@command("plot", "draw a map: Eidos by terrain, region borders, roads, Pousas, fountains, streams (PNG or SVG),"
                 " or an interactive map (HTML)",
         example="eidomap plot maps/demo.geojson --png demo.png --labels")
def _plot_args(p):
    map_args(p)
    p.add_argument("--png", metavar="OUT", help="the picture to write: PNG or SVG by its suffix")
    p.add_argument("--labels", action="store_true", help="write each Eido's id on it")
    html_args(p)


@_plot_args
def cmd_plot(args: argparse.Namespace) -> int:
    from eidomap.plot import picture_format, save_map_png

    if not (args.png or args.html):
        raise RequestError("give --png OUT (a picture) or --html OUT.html (an interactive map), or both")
    if args.png:
        picture_format(args.png)  # a bad suffix fails before the map is read
    m = load_map(args)
    if args.png:
        save_map_png(m, args.png, labels=args.labels)
        print(f"wrote {shown(args.png)}: {shown(m.name)}, {len(m.eido_ids)} Eidos")
    write_html(args, m)
    return 0


# -- planner pages ------------------------------------------------------------------------------
def _page_out(p) -> None:
    p.add_argument("-o", "--out", required=True, metavar="OUT.html", help="the page to write: one HTML file that"
                                                                          " opens offline")


@command("planner", "write a planner page: click an Eido or a Pousa for the start and another for the goal, and the"
                    " page plans the route (itinerary with rolls, arrival odds under the dice), this turn's reach and"
                    " P(arrived within K turns), for any species, mount or party; one HTML file that works offline",
         example="eidomap planner maps/demo.geojson -o board.html")
def _planner_args(p):
    map_args(p)
    _page_out(p)
    p.add_argument("--species", metavar="S", help="the species the page starts with (default: human); every"
                                                   " species of the catalog is in its controls")


@_planner_args
def cmd_planner(args: argparse.Namespace) -> int:
    from eidomap.pages.html import html_path
    from eidomap.pages.planner import planner

    html_path(args.out)  # a bad name fails before the map is read
    m = load_map(args)
    page = planner(m, species=args.species)
    page.save(args.out)
    print(f"wrote {shown(args.out)}: {shown(m.name)}, {len(m.eido_ids):,} Eidos,"
          f" {len(page.html.encode()) / 1e6:.1f} MB")
    return 0


@command("planner", "write a planner page for a battle grid: click a square for this round's reach, a second for"
                    " the route round by round; allies and enemies placed by clicking; one HTML file that works"
                    " offline", group="d20", example="eidomap d20 planner maps/d20-battle.txt -o battle.html")
def _grid_planner_args(p):
    p.add_argument("grid", metavar="GRID", help="a battle grid: one character a square (see docs/d20.md)")
    _page_out(p)
    p.add_argument("--speed", type=int, default=30, metavar="FT", help="the speed the page starts with (default 30)")


@_grid_planner_args
def cmd_grid_planner(args: argparse.Namespace) -> int:
    from eidomap.answers.grid import load_grid
    from eidomap.pages.html import html_path
    from eidomap.pages.planner import grid_planner

    html_path(args.out)
    grid = load_grid(args.grid)
    page = grid_planner(grid, speed=args.speed)
    page.save(args.out)
    rows, cols = grid.shape
    print(f"wrote {shown(args.out)}: {rows} x {cols} squares, {len(page.html.encode()) / 1e6:.1f} MB")
    return 0
