"""The searches on weighted edges (Dijkstra, the thresholds to a node): against each other."""

from __future__ import annotations

from conftest import DEMO

import eidomap


def test_the_threshold_to_one_node_is_the_one_node_thresholds_gives():
    from eidomap.rules.eido import actor
    from eidomap.search.weighted import dijkstra, entry_offsets, node_thresholds, threshold_to

    m = eidomap.load(DEMO)
    for who in (actor(m.catalog, "human"), actor(m.catalog, "human", mount="horse")):
        net, s = m.network, m.node_index("porto-norte")
        dist = dijkstra(net, who.weights(net), s)
        every = node_thresholds(net, dist, s, entry_offsets(who.table, net))
        assert [threshold_to(net, dist, who.costs, g) for g in range(net.n_nodes) if g != s] == [
            float(every[g]) for g in range(net.n_nodes) if g != s]
