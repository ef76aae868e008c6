"""Batch analysis at scale: every (map, actor, start, target) answer, chunked, resumable, in Parquet.

``eidomap batch`` on the command line; from Python:

>>> import eidomap, tempfile
>>> from eidomap.batch import Query, run_batch
>>> from eidomap.analysis import load_batch
>>> q = Query((str(eidomap.demo_map_path()),), actors=("human", "cow"), starts=("porto-norte", "porto-sur"))
>>> out = tempfile.mkdtemp() + "/result"
>>> run_batch(q, out, workers=1, progress=False).rows  # 2 actors x 2 starts x 76 Eidos
304
>>> load_batch(out).table.column_names[:7]
['map', 'actor', 'from', 'to', 'reachable', 'cost', 'expected_turns']

See :mod:`eidomap.batch.job` (the query and the chunks), :mod:`eidomap.batch.kernels`
(the vectorised answers), :mod:`eidomap.batch.store` (the output folder) and :mod:`eidomap.batch.run`
(the executors).
"""

from eidomap.batch.job import Query, actor_from_spec
from eidomap.batch.run import EXECUTORS, BatchError, Declined, Estimate, Summary, run_batch

__all__ = ["EXECUTORS", "BatchError", "Declined", "Estimate", "Query", "Summary", "actor_from_spec", "run_batch"]
