"""The map as eidomap computes with it: adjacency, network, cache, and the :class:`~eidomap.model.map.Map`.

:mod:`.topology` finds the Eidos that share a border (:mod:`.borders`: its
compiled loops); :mod:`.network` compiles the record and its adjacency into the
CSR arrays every search reads; :mod:`.cache` keeps what a query needs beside the
map; :mod:`.map` is the facade over one map (:func:`~eidomap.model.map.load`),
:mod:`.frames` its GeoPandas in and out, :mod:`.generate` synthetic maps.

May import: :mod:`eidomap.base`, :mod:`eidomap.record`, :mod:`eidomap.io`.  The
one exception: a convenience method of :class:`~eidomap.model.map.Map` imports,
inside itself, the function it is a shortcut for (docs/design.md).
"""
