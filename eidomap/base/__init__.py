"""The base: what every layer of eidomap may use, and which uses nothing of eidomap.

Errors (:mod:`.errors`), the modes of the API (:mod:`.modes`), the checks of a
caller's parameters (:mod:`.params`), names in messages (:mod:`.names`),
problems found in a map (:mod:`.problems`), safe file access (:mod:`.files`),
array helpers (:mod:`.arrays`), the thresholds and the switch between the plain
and the compiled twin of a search (:mod:`.settings`, :mod:`.compiled`) and the
progress bar (:mod:`.progress`); the version (:mod:`.version`).

May import: nothing of eidomap.
"""
