"""Problems found in a map: what lenient reading and validation report."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ERROR", "WARNING", "Problem"]

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a map.

    ``code`` is stable (part of the interface, see docs/validation.md),
    ``features`` the ids (or ``#index``) of the features involved and
    ``location`` an (x, y) point near the problem, when there is one.
    ``caused_by`` names the feature (id or ``#index``) whose own problem
    this one follows from (a Pousa "outside" the Eido the reader left out);
    such a problem is told in its cause's message and not counted.
    ``index`` is the position, among the file's features, of the feature
    the reader could not use (on the reader's problems: ``features[0]``
    may be an id that two features share); it takes no part in comparisons
    nor in the repr.
    """

    code: str
    severity: str
    features: tuple[str, ...]
    location: tuple[float, float] | None
    message: str
    caused_by: str | None = None
    index: int | None = field(default=None, compare=False, repr=False)

    def as_dict(self) -> dict:
        loc = None if self.location is None else [float(self.location[0]), float(self.location[1])]
        return {
            "code": self.code,
            "severity": self.severity,
            "features": list(self.features),
            "location": loc,
            "message": self.message,
        } | ({} if self.caused_by is None else {"caused_by": self.caused_by})
