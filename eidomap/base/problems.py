"""Problems found in a map: what lenient reading and validation report.

>>> from eidomap.validate.checks import validate
>>> import eidomap
>>> report = validate(eidomap.demo_map_path())
>>> all(isinstance(p, Problem) and p.severity in (ERROR, WARNING) for p in report.problems)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ERROR", "WARNING", "Problem"]

#: A problem's severity: the map is wrong.
ERROR = "error"
#: A problem's severity: worth a look.
WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a map.

    Attributes
    ----------
    code : str
        What is wrong: stable, part of the interface (each code has its section in docs/validation.md).
    severity : str
        :data:`ERROR` or :data:`WARNING`.
    features : tuple of str
        The ids (or ``#index``) of the features involved.
    location : (float, float) or None
        A point near the problem, when there is one.
    message : str
        The problem in words, one line.
    caused_by : str or None
        The feature (id or ``#index``) whose own problem this one follows from (a Pousa "outside" the
        Eido the reader left out): such a problem is told in its cause's message and not counted.
    index : int or None
        The position, among the file's features, of the feature the reader could not use (on the
        reader's problems: ``features[0]`` may be an id that two features share); it takes no part in
        comparisons nor in the repr.
    """

    code: str
    severity: str
    features: tuple[str, ...]
    location: tuple[float, float] | None
    message: str
    caused_by: str | None = None
    index: int | None = field(default=None, compare=False, repr=False)

    def as_dict(self) -> dict:
        """The problem as ``--json`` prints it.

        Returns
        -------
        dict
            ``code``, ``severity``, ``features``, ``location`` (``[x, y]`` or None) and ``message``;
            ``caused_by`` when it follows from another feature's problem.
        """
        loc = None if self.location is None else [float(self.location[0]), float(self.location[1])]
        return {
            "code": self.code,
            "severity": self.severity,
            "features": list(self.features),
            "location": loc,
            "message": self.message,
        } | ({} if self.caused_by is None else {"caused_by": self.caused_by})
