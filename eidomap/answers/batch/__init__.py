"""Batch analysis at scale: every (map, actor, start, target) answer, chunked, resumable, in Parquet.

``eidomap batch`` on the command line; from Python:

>>> import eidomap, tempfile
>>> from eidomap.answers.batch import Query, run_batch
>>> from eidomap.answers.analysis import load_batch
>>> q = Query((str(eidomap.demo_map_path()),), actors=("human", "cow"), starts=("porto-norte", "porto-sur"))
>>> out = tempfile.mkdtemp() + "/result"
>>> run_batch(q, out, workers=1, progress=False).rows  # 2 actors x 2 starts x 76 Eidos
304
>>> load_batch(out).table.column_names[:7]
['map', 'actor', 'from', 'to', 'reachable', 'cost', 'expected_turns']

See :mod:`eidomap.answers.batch.job` (the query and the chunks), :mod:`eidomap.answers.batch.kernels`
(the vectorised answers), :mod:`eidomap.answers.batch.store` (the output folder) and :mod:`eidomap.answers.batch.run`
(the executors).
"""

from eidomap.answers.batch.job import Query, actor_from_spec
from eidomap.answers.batch.run import EXECUTORS, BatchError, Declined, Estimate, Summary, run_batch
from eidomap.answers.batch.store import TableFormat

__all__ = ["EXECUTORS", "BatchError", "Declined", "Estimate", "Query", "Summary", "TableFormat", "actor_from_spec",
           "run_batch"]
