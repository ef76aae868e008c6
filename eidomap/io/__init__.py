"""Reading and writing map files: every format through one registry (:mod:`.readers`) into one builder.

GeoJSON (:mod:`.geojson`, and its fast lane :mod:`.fast`), GeoPackage,
Shapefile, FlatGeobuf and GeoParquet (:mod:`.tables`, their geometries walked
by :mod:`.ragged` and :mod:`.wkb`), Tiled maps (:mod:`.tiled`), SVG drawings
(:mod:`.svg`), the d20 battle-grid text file (:mod:`.grid`) and a cache's
arrays (:mod:`.arrays`).  Each format hands its features to
:mod:`.builder`, which makes the :class:`~eidomap.record.record.MapRecord`
and the :class:`~eidomap.io.document.Document` beside it.

May import: :mod:`eidomap.record`, :mod:`eidomap.base`.
"""
