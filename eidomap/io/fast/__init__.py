"""The fast GeoJSON lane and the tuning behind the big reads, behind the reader registry.

msgspec's decoding with a compiled coordinate parser (:mod:`.geojson`,
:mod:`.coordtext`), the helper process that shares a big file's batches
(:mod:`.helper`), the document whose features' text is let go and read again
when asked (:mod:`.letgo`), decoding beside reading (:mod:`.alongside`) and
the pause of Python's collector for a bulk build (:mod:`.collector`).  The
plain readers (:mod:`eidomap.io.geojson`, :mod:`eidomap.io.tables`) read as
the format says; the registry (:func:`eidomap.io.readers.read_map`) picks a
GeoJSON map's lane, and this lane must give the same maps, problems and
errors (``tests/io/fast/test_geojson.py`` holds the two lanes to each other).

May import: :mod:`eidomap.io` (the plain reader it falls back on, the builder
it hands columns to), :mod:`eidomap.record`, :mod:`eidomap.base`.
"""
