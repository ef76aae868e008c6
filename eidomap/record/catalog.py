"""Terrain and species catalogs (TOML) and the numpy cost tables built from them.

A catalog has two tables: ``[terrains]`` (name -> medium and label) and
``[species]`` (name -> movement value, per-terrain PtMv costs, roads, gifts).
The default catalog ships with the package; a user's file is laid over it,
entry by entry (an entry with the same name replaces the default one).

>>> cat = load_catalog()
>>> cat.species["human"].vmv
0
>>> table = cat.cost_table()
>>> table.shape == (len(cat.species), len(cat.terrains))
True
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from functools import cache, cached_property
from importlib import resources
from typing import Any

import numpy as np

from eidomap.base import params
from eidomap.base.errors import CatalogError, RequestError
from eidomap.base.files import MAX_SIDE_FILE_BYTES, parse_toml, read_bounded
from eidomap.base.modes import Mode, RoadStyle
from eidomap.base.names import did_you_mean, shown

#: Largest cost or movement value: sums of a long route stay exact and far from overflow.
MAX_NUMBER = 1_000_000


class Medium(Mode):
    """What a terrain is made of: land, water or air.  It says the movement mode that crosses it."""

    LAND = "land"
    WATER = "water"
    AIR = "air"


#: The movement mode each medium implies.
MODES: dict[str, str] = {Medium.LAND: "running", Medium.WATER: "swimming", Medium.AIR: "flying"}
#: Gifts a species may hold.
GIFTS = ("teleport",)


@dataclass(frozen=True)
class Terrain:
    """A terrain type: its name, medium (land, water or air) and label.

    Attributes
    ----------
    name : str
        The name maps use (``"meadow"``).
    medium : Medium or {"land", "water", "air"}
        What it is made of: it says the movement mode that crosses it (checked: held as the
        :class:`~eidomap.record.catalog.Medium`).
    label : str
        The name shown to people (``"Meadow"``).
    """

    name: str
    medium: Medium | str
    label: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "medium", Medium.checked(self.medium, "medium"))

    @property
    def mode(self) -> str:
        """Movement mode used to cross it: running, swimming or flying."""
        return MODES[self.medium]


@dataclass(frozen=True)
class Species:
    """Movement values of one species, PC or vehicle.

    Attributes
    ----------
    name : str
        The name the catalog and the queries use (``"human"``).
    vmv : int
        The VMv added to every movement roll.
    costs : dict of str to float
        The PtMv needed to cross one Eido of each terrain; a terrain missing from it is impassable.
    road_cost : float or None
        The PtMv per Pousa along a road, or None when the species cannot follow roads.
    road_style : RoadStyle
        How it follows a road: Pousa by Pousa, or Eido by Eido.
    gifts : frozenset of str
        Its gifts (``"teleport"``: from fountain to fountain).
    road_eido_cost : float
        With ``road_style="eido"``: the PtMv of an Eido of ``road_eido_terrains`` along a road.
    road_eido_terrains : tuple of str
        The terrains that cost ``road_eido_cost`` along a road.
    teleport_cost : float
        The PtMv of a teleport between fountains, for a species with the gift.
    label : str
        The name shown to people.
    """

    name: str
    vmv: int
    costs: dict[str, float]
    road_cost: float | None
    road_style: RoadStyle = RoadStyle.POUSA
    gifts: frozenset[str] = frozenset()
    road_eido_cost: float = 6.0
    road_eido_terrains: tuple[str, ...] = ("rocks", "rocky_cliff")
    teleport_cost: float = 0.0
    label: str = ""

    def as_dict(self, terrains: tuple[Terrain, ...]) -> dict:
        """Plain-data form (as printed by ``eidomap species --json``).

        Parameters
        ----------
        terrains : tuple of Terrain
            The catalog's terrains: every one is listed in ``costs``, None where impassable.

        Returns
        -------
        dict
            ``label``, ``vmv``, ``costs``, ``road_cost``, ``road_style``, ``gifts`` and the road and teleport
            costs that apply.
        """
        out = {
            "label": self.label,
            "vmv": self.vmv,
            "costs": {t.name: self.costs.get(t.name) for t in terrains},
            "road_cost": self.road_cost,
            "road_style": self.road_style,
            "gifts": sorted(self.gifts),
        }
        if self.road_style == "eido":
            out["road_eido_cost"] = self.road_eido_cost
            out["road_eido_terrains"] = list(self.road_eido_terrains)
        if self.gifts:
            out["teleport_cost"] = self.teleport_cost
        return out


#: A species' defaults, where its catalog entry is silent: the :class:`Species` fields' own (one place).
_DEFAULT: dict[str, Any] = {f.name: f.default for f in fields(Species)}


@dataclass(frozen=True)
class Catalog:
    """Terrains (in code order) and species, with where they came from.

    Attributes
    ----------
    terrains : tuple of Terrain
        The terrains, in the order of their codes in compiled arrays.
    species : dict of str to Species
        The species by name.
    sources : tuple of str
        The files (and the default catalog) laid one over the other to make it.
    """

    terrains: tuple[Terrain, ...]
    species: dict[str, Species]
    sources: tuple[str, ...] = field(default=())

    @cached_property
    def terrain_names(self) -> tuple[str, ...]:
        """The terrains' names, in code order."""
        return tuple(t.name for t in self.terrains)

    @cached_property
    def codes(self) -> dict[str, int]:
        """Terrain name -> its code (index in ``terrains``, as in compiled arrays)."""
        return {t.name: i for i, t in enumerate(self.terrains)}

    def terrain_code(self, name: str) -> int:
        """Index of a terrain in ``terrains`` (its code in compiled arrays).

        Parameters
        ----------
        name : str
            A terrain name of the catalog.

        Returns
        -------
        int
            Its code.
        """
        return self.codes[name]

    def media(self) -> np.ndarray:
        """Medium of each terrain, in code order.

        Returns
        -------
        numpy.ndarray of str
            ``"land"``, ``"water"`` or ``"air"`` for each terrain.
        """
        return np.array([t.medium for t in self.terrains])

    @classmethod
    def checked(cls, value: object, param: str = "catalog") -> Catalog | str | os.PathLike[str] | None:
        """``value`` itself when a ``catalog`` parameter takes it: None (the map's own), a Catalog or the path of
        a catalog file; a :class:`~eidomap.base.errors.RequestError` naming ``param`` else.

        Parameters
        ----------
        value : object
            What the caller passed.
        param : str
            The parameter's name, for the message.

        Returns
        -------
        Catalog, str, os.PathLike or None
            The value.

        Examples
        --------
        >>> Catalog.checked("my-catalog.toml")
        'my-catalog.toml'
        """
        if value is None or isinstance(value, Catalog):
            return value
        return params.path(value, param, "a Catalog")

    def get_species(self, name: str) -> Species:
        """A species by name, or a :class:`~eidomap.base.errors.RequestError` that names the known ones.

        Parameters
        ----------
        name : str
            The species' name.

        Returns
        -------
        Species
            The species.
        """
        from eidomap.base.errors import RequestError

        try:
            return self.species[name]
        except KeyError:
            known = ", ".join(map(shown, sorted(self.species)))
            raise RequestError(f"unknown species {name!r}{did_you_mean(name, list(self.species))}"
                               f" (known: {known})") from None

    def cost_row(self, species: Species) -> np.ndarray:
        """PtMv to cross each terrain (code order); ``inf`` where impassable.

        Parameters
        ----------
        species : Species
            A species of the catalog.

        Returns
        -------
        numpy.ndarray of float
            One PtMv per terrain.
        """
        codes = self.codes
        row = np.full(len(self.terrains), np.inf)
        for name, cost in species.costs.items():
            row[codes[name]] = cost
        return row

    def cost_table(self) -> np.ndarray:
        """Species x terrain PtMv table (species in ``species`` order).

        Returns
        -------
        numpy.ndarray of float, shape (species, terrains)
            The rows of :meth:`cost_row`.
        """
        return np.array([self.cost_row(s) for s in self.species.values()]).reshape(
            len(self.species), len(self.terrains)
        )

    def as_dict(self) -> dict:
        """Plain-data form (as printed by ``eidomap species --json``).

        Returns
        -------
        dict
            ``{"species": {name: Species.as_dict(...)}}``.
        """
        return {"species": {n: s.as_dict(self.terrains) for n, s in self.species.items()}}


def _number(value: object, path: str | os.PathLike[str], entry: str, what: str, *, integer: bool = False) -> float:
    if (not isinstance(value, int | float) or isinstance(value, bool) or (integer and not isinstance(value, int))
            or not math.isfinite(value)):
        kind = "a whole number" if integer else "a finite number"
        raise CatalogError(path, entry, f"{what} must be {kind}, got {value!r}")
    if value < 0:
        raise CatalogError(path, entry, f"{what} must not be negative, got {value!r}")
    if value > MAX_NUMBER:
        raise CatalogError(path, entry, f"{what} must be at most {MAX_NUMBER:,}, got {value!r}")
    return value


def _table(doc: dict, key: str, path: str | os.PathLike[str]) -> dict:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise CatalogError(path, key, "must be a table")
    return value


def _parse_terrains(doc: dict, path: str | os.PathLike[str]) -> dict[str, Terrain]:
    out = {}
    for name, spec in _table(doc, "terrains", path).items():
        entry = f"terrain {name!r}"
        if not isinstance(spec, dict):
            raise CatalogError(path, entry, "must be a table such as { medium = \"land\" }")
        medium = spec.get("medium")
        if medium not in Medium.words():
            raise CatalogError(path, entry, f"medium must be one of {', '.join(Medium.words())}, got {medium!r}")
        out[name] = Terrain(name, medium, str(spec.get("label", "")))
    return out


def _parse_species(name: str, spec: dict, terrains: dict[str, Terrain], path: str | os.PathLike[str]) -> Species:
    entry = f"species {name!r}"
    if not isinstance(spec, dict):
        raise CatalogError(path, entry, "must be a table")
    known = {"label", "vmv", "costs", "road_cost", "road_style", "gifts", "road_eido_cost",
             "road_eido_terrains", "teleport_cost"}
    unknown = sorted(set(spec) - known)
    if unknown:
        raise CatalogError(path, entry, f"unknown field {unknown[0]!r}")
    vmv = int(_number(spec.get("vmv", 0), path, entry, "vmv", integer=True))
    costs_in = spec.get("costs", {})
    if not isinstance(costs_in, dict):
        raise CatalogError(path, entry, "costs must be a table of terrain = PtMv")
    costs = {}
    for terrain, cost in costs_in.items():
        if terrain not in terrains:
            raise CatalogError(path, entry, f"costs name unknown terrain {terrain!r}{did_you_mean(terrain, terrains)}")
        costs[terrain] = float(_number(cost, path, entry, f"cost of {terrain!r}"))
    try:
        style = RoadStyle.checked(spec.get("road_style", _DEFAULT["road_style"]), "road_style")
    except RequestError as exc:
        raise CatalogError(path, entry, str(exc)) from None
    if "road_cost" in spec:
        road_cost: float | None = float(_number(spec["road_cost"], path, entry, "road_cost"))
    else:
        land = [c for t, c in costs.items() if terrains[t].medium is Medium.LAND]
        road_cost = max(1.0, min(land)) if land else None
    gifts = spec.get("gifts", [])
    if not isinstance(gifts, list) or any(g not in GIFTS for g in gifts):
        raise CatalogError(path, entry, f"gifts must be a list drawn from {list(GIFTS)}, got {gifts!r}")
    road_terrains = spec.get("road_eido_terrains", list(_DEFAULT["road_eido_terrains"]))
    if not isinstance(road_terrains, list) or any(t not in terrains for t in road_terrains):
        wrong = next((t for t in road_terrains if t not in terrains), None) if isinstance(road_terrains, list) else None
        raise CatalogError(path, entry, f"road_eido_terrains must list known terrains, got {road_terrains!r}"
                                        f"{did_you_mean(wrong, terrains)}")
    return Species(
        name=name,
        vmv=vmv,
        costs=costs,
        road_cost=road_cost,
        road_style=style,
        gifts=frozenset(gifts),
        road_eido_cost=float(_number(spec.get("road_eido_cost", _DEFAULT["road_eido_cost"]), path, entry,
                                     "road_eido_cost")),
        road_eido_terrains=tuple(road_terrains),
        teleport_cost=float(_number(spec.get("teleport_cost", _DEFAULT["teleport_cost"]), path, entry,
                                    "teleport_cost")),
        label=str(spec.get("label", "")),
    )


def _parse(text: bytes, path: str | os.PathLike[str], base: Catalog | None) -> Catalog:
    try:
        doc = parse_toml(text)
    except ValueError as exc:  # not UTF-8, not TOML, nested too deeply
        raise CatalogError(path, None, f"is not valid TOML ({exc})") from None
    unknown = sorted(set(doc) - {"terrains", "species"})
    if unknown:
        raise CatalogError(path, None, f"unknown table [{shown(unknown[0])}] (expected [terrains] and [species])")
    terrains = {t.name: t for t in base.terrains} if base else {}
    terrains.update(_parse_terrains(doc, path))
    species = dict(base.species) if base else {}
    for name, spec in _table(doc, "species", path).items():
        species[name] = _parse_species(name, spec, terrains, path)
    for s in species.values():  # a replaced terrain must not orphan a default species
        for t in s.costs:
            if t not in terrains:
                raise CatalogError(path, f"species {s.name!r}", f"costs name unknown terrain {t!r}"
                                                                f"{did_you_mean(t, terrains)}")
    sources = (base.sources if base else ()) + (str(path),)
    return Catalog(tuple(terrains.values()), species, sources)


@cache
def default_catalog() -> Catalog:
    """The catalog shipped with eidomap (terrains and sample species)."""
    text = resources.files("eidomap").joinpath("data/catalog.toml").read_bytes()
    return _parse(text, "eidomap:data/catalog.toml", None)


def load_catalog(path: str | os.PathLike | None = None) -> Catalog:
    """The default catalog, with the entries of the TOML file ``path`` laid over it.

    Parameters
    ----------
    path : str or Path, optional
        A catalog file (docs/map-format.md); none: the default catalog alone.

    Returns
    -------
    Catalog
        The terrains and species.

    Raises
    ------
    CatalogError
        When the file cannot be read or an entry is malformed or names an unknown terrain.

    See Also
    --------
    load : A map, with the catalog it names.

    Examples
    --------
    >>> import eidomap
    >>> cat = eidomap.load_catalog()
    >>> cat.sources, cat.species["human"].vmv, cat.terrains[cat.terrain_code("meadow")].mode
    (('eidomap:data/catalog.toml',), 0, 'running')
    """
    if path is None:
        return default_catalog()
    path = params.path(path, "path")
    return _parse(read_bounded(path, MAX_SIDE_FILE_BYTES, CatalogError), path, default_catalog())
