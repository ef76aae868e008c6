"""Pages: the self-contained HTML pages eidomap writes -- the planner pages and the balance report.

May import: :mod:`eidomap.plot` and every layer below it.
"""
