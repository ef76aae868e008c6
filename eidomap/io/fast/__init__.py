"""The fast GeoJSON lane and the tuning behind the big reads.

msgspec's decoding with a compiled coordinate parser (:mod:`.geojson`,
:mod:`.coordtext`), the helper process that shares a big file's batches
(:mod:`.helper`), decoding beside reading (:mod:`.alongside`) and the pause of
Python's collector for a bulk build (:mod:`.collector`).  The plain readers
(:mod:`eidomap.io.geojson`, :mod:`eidomap.io.tables`) read as the format says;
this lane must give the same maps, problems and errors.

May import: :mod:`eidomap.io` (the builder it hands columns to),
:mod:`eidomap.record`, :mod:`eidomap.base`.
"""
