"""The reach check: per species, the Eidos it cannot reach from the largest region it moves in."""


from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import shapely

from eidomap.base.names import plural, shown
from eidomap.base.problems import WARNING, Problem
from eidomap.record.record import MapRecord
from eidomap.rules.actors import resolve_actor

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from eidomap.model.network import Network
    from eidomap.rules.eido import Actor
from eidomap.validate.board import Board, listed_ids, location, points_xy


def _steps(net: Network, ok: np.ndarray) -> csr_matrix:
    """The steps ``ok`` of the network's distinct (source, target) pairs, as a SciPy CSR matrix of ones."""
    from scipy.sparse import csr_matrix

    count = np.zeros(len(ok) + 1, np.int32)
    np.cumsum(ok, out=count[1:])
    return csr_matrix((np.ones(int(count[-1])), net.pair_dst[ok], count[net.pair_indptr]),
                      shape=(net.n_nodes, net.n_nodes))


def reach_problems(md: MapRecord, board: Board, species: Iterable[str | Actor]) -> list[Problem]:
    """``unreachable``: per species, the Eidos it cannot reach from the largest region it moves in.

    The region is the largest strongly connected part of the movement graph (counted in Eidos, over steps the
    species can take; of parts as large, the one holding the Eido first in the file); an Eido is unreachable
    when no path leads to it from that region.  Who moves and what each step costs is the map's rule set's
    (:func:`eidomap.rules.actors.resolve_actor`): a map drawn for rules without an actor is refused.

    Parameters
    ----------
    md : MapRecord
        The map's record.
    board : Board
        The Eidos' analysis.
    species : iterable of str or Actor
        Names the map's rule set makes actors of (under the Eido rules, species of the map's catalog), or
        actors.

    Returns
    -------
    list of Problem
        One ``unreachable`` warning per species that has such Eidos.

    Raises
    ------
    RequestError
        For a species not in the catalog, or a map drawn for rules that have no actor.

    See Also
    --------
    validate : With ``species=``.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> [(p.code, p.features[:2]) for p in reach_problems(m.record, Board(m.geometries), ["cart"])]
    [('unreachable', ('ceo-poente', 'ceo-gaivotas'))]
    """
    actors = [resolve_actor(md, sp, None) for sp in species]
    if not actors or board.n == 0:  # (before SciPy's import: a plain validate asks for no species)
        return []
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    from eidomap.model.network import KIND, build_network

    net = build_network(md, board.adjacency, board.tol, tree=board.tree)
    n_e, n = net.n_eidos, net.n_nodes
    ids = np.array(md.eidos.ids, dtype=object)
    names = md.catalog.terrain_names
    searched: dict[bytes, tuple[csr_matrix, np.ndarray, dict[int, np.ndarray]]] = {}  # by the steps it can take
    out = []
    for who in actors:
        ok = np.isfinite(net.pair_weights(who.costs))
        steps = np.packbits(ok).tobytes()
        if steps not in searched:  # species that take the same steps share their graph and searches
            graph = _steps(net, ok)
            searched[steps] = (graph, connected_components(graph, directed=True, connection="strong")[1], {})
        graph, label, reached_from = searched[steps]
        can_be = np.isfinite(who.table[KIND["border"], md.terrain])  # (an Eido it can enter across a border)
        if not can_be.any():
            reached = np.zeros(n_e, bool)
            region = 0
        else:
            # the largest region; of regions as large, the one holding the Eido first in the file
            found, first, sizes = np.unique(label[:n_e][can_be], return_index=True, return_counts=True)
            pick = np.flatnonzero(sizes == sizes.max())
            big = int(found[pick[np.argmin(first[pick])]])
            region = int(sizes.max())
            if big not in reached_from:
                # what the region reaches, any one of its nodes reaches (it reaches the others): one search
                reached = np.zeros(n, bool)
                root = int(np.argmax(label == big))
                reached[breadth_first_order(graph, root, return_predecessors=False)] = True
                reached_from[big] = reached[:n_e]
            reached = reached_from[big]
        lost = np.flatnonzero(~reached)
        if not len(lost):
            continue
        lost_ids = ids[lost].tolist()
        barred = int(np.count_nonzero(~can_be[lost]))
        kinds = sorted({names[t] for t in md.terrain[lost[~can_be[lost]]].tolist()})
        are = "1 of them is of a terrain" if barred == 1 else f"{barred} of them are of terrains"
        why = f" {are} it cannot enter ({', '.join(shown(k) for k in kinds)})." if barred else ""
        where = points_xy(shapely.point_on_surface(board.geoms[lost[:1]]))[0]
        out.append(Problem("unreachable", WARNING, tuple(lost_ids), location(where),
                           f"Species {who.name!r} cannot reach {plural(len(lost), 'Eido')} of {n_e} from the"
                           f" largest region it can move in ({plural(region, 'Eido')}): {listed_ids(lost_ids)}.{why}"))
    return out
