"""The Eido movement rules as cost tables: who moves, and what each step costs them.

An :class:`Actor` is the unit that moves -- a species, perhaps riding a mount,
perhaps travelling with companions -- reduced to what the search needs: the
VMv added to each roll, the dice, and a ``(edge kind x terrain)`` table of PtMv
so that the weights of every edge of a compiled graph are one gather
(:meth:`eidomap.model.network.Network.edge_weights`).

>>> from eidomap.record.catalog import load_catalog
>>> cat = load_catalog()
>>> rider = actor(cat, "human", mount="horse")
>>> rider.vmv == cat.species["horse"].vmv
True
>>> party = actor(cat, "human", party=["cow"])
>>> party.vmv == min(cat.species["human"].vmv, cat.species["cow"].vmv)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.names import shown
from eidomap.model.network import KIND, KINDS, CostTable, Network
from eidomap.record.catalog import MAX_NUMBER, Catalog, Species
from eidomap.record.rulesets import RuleSet
from eidomap.rules.dice import Dice

__all__ = ["RULE_SET", "Actor", "actor", "species_table"]


@dataclass(frozen=True, eq=False)
class Actor:
    """The moving unit: its VMv, dice and PtMv per (edge kind, entered terrain).

    Attributes
    ----------
    name : str
        Who moves, as said (``"human on horse"``, ``"human with cow"``).
    vmv : int
        The VMv added to each roll.
    table : numpy.ndarray of float, shape (edge kinds, terrains + 1)
        ``table[k, t]`` is the PtMv of a step of kind ``k`` into terrain ``t``; the last column is for steps
        that enter no terrain (into the teleport hub); ``inf`` is impassable.
    dice : Dice
        The roll each turn.
    """

    name: str
    vmv: int
    table: np.ndarray
    dice: Dice = field(default_factory=Dice)

    @property
    def largest_budget(self) -> int:
        """The most PtMv one turn can give: the dice's maximum + VMv."""
        return max(self.dice.high + self.vmv, 0)

    @property
    def costs(self) -> CostTable:
        """``table`` as the :class:`~eidomap.model.network.CostTable` a network and the searches take."""
        return CostTable(self.table)

    def weights(self, network: Network) -> np.ndarray:
        """PtMv of every edge of ``network`` for this actor (one vectorised gather).

        Parameters
        ----------
        network : Network
            A map's compiled network (:attr:`Map.network <eidomap.Map.network>`).

        Returns
        -------
        numpy.ndarray of float
            One PtMv per edge; ``inf`` where the actor cannot step.
        """
        return network.edge_weights(self.table)


#: What a ``catalog`` parameter takes, for its message.
_A_CATALOG = "a Catalog (eidomap.load_catalog(), or a map's m.catalog)"
#: The gifts a unit may be given.
GIFTS = ("teleport",)


def _gifts(gifts: object) -> tuple[str, ...]:
    out = params.names(gifts, "gifts", "gifts")
    unknown = [g for g in out if g not in GIFTS]
    if unknown:
        raise RequestError(f"unknown gift {unknown[0]!r} (known: {', '.join(GIFTS)})")
    return out


def species_table(catalog: Catalog, sp: Species, gifts: Iterable[str] = ()) -> np.ndarray:
    """The (edge kind x terrain+1) PtMv table of one species.

    * ``border``: the species' cost of the terrain entered;
    * ``road``, ``board``: its road cost per Pousa (Pousa-style species);
    * ``board_adjacent``: the cost of the Eido holding the Pousa, "no additional PtMv ... on that first Pousa";
    * ``alight``: free, into a terrain the species can be in;
    * ``road_eido``: ``road_eido_cost`` into ``road_eido_terrains`` (road style ``eido``: oestrimios);
    * ``teleport``/``stream``: ``teleport_cost`` with the teleport gift, exits free.

    Parameters
    ----------
    catalog : Catalog
        The terrains (the table's columns).
    sp : Species
        The species.
    gifts : iterable of str
        Gifts given on top of the species' own (``"teleport"``).

    Returns
    -------
    numpy.ndarray of float, shape (edge kinds, terrains + 1)
        The table; ``inf`` where the species cannot step.

    See Also
    --------
    actor : A species' table combined with its mount's and companions'.

    Examples
    --------
    >>> from eidomap.record.catalog import load_catalog
    >>> cat = load_catalog()
    >>> t = species_table(cat, cat.species["human"])
    >>> t.shape == (len(KIND), len(cat.terrains) + 1), float(t[KIND["border"], cat.terrain_code("meadow")])
    (True, 1.0)
    """
    catalog = params.instance(catalog, "catalog", Catalog, _A_CATALOG)
    sp = params.instance(sp, "sp", Species, "a Species of the catalog (catalog.species[name])")
    gifts = _gifts(gifts)
    n_t = len(catalog.terrains)
    row = catalog.cost_row(sp)
    can_be = np.where(np.isfinite(row), 0.0, np.inf)
    t = np.full((len(KIND), n_t + 1), np.inf)
    t[KIND["border"], :n_t] = row
    if sp.road_style == "pousa" and sp.road_cost is not None:
        t[KIND["road"], :] = sp.road_cost
        t[KIND["board"], :n_t] = sp.road_cost
        t[KIND["board_adjacent"], :n_t] = row
        t[KIND["alight"], :n_t] = can_be
    if sp.road_style == "eido":
        codes = [catalog.terrain_code(name) for name in sp.road_eido_terrains]
        t[KIND["road_eido"], codes] = sp.road_eido_cost
    if "teleport" in set(gifts) | sp.gifts:
        t[KIND["teleport"], n_t] = sp.teleport_cost
        t[KIND["teleport_exit"], :n_t] = can_be
        t[KIND["stream"], :n_t] = can_be + sp.teleport_cost
    return t


def actor(
    catalog: Catalog,
    species: str,
    *,
    mount: str | None = None,
    party: Iterable[str] = (),
    gifts: Iterable[str] = (),
    vmv: int | None = None,
    dice: Dice | str = "1d6",
) -> Actor:
    """Build the moving unit from the catalog.

    Parameters
    ----------
    catalog : Catalog
        The species and terrains (a map's: ``m.catalog``).
    species : str
        Who moves (a species of the catalog).
    mount : str, optional
        An animal or vehicle ridden: the rider "will Movement Roll using 1d6 + VMv of the means of transport
        carrying them, and they will pay in each Eido ... the number of PtMv that it costs for them" -- the unit
        moves with the mount's VMv and costs.
    party : iterable of str
        Companions travelling alongside (not ridden): the group uses the lowest VMv and, on each terrain and
        for each kind of step, the highest cost; what is impassable to one member is impassable to the group.
    gifts : iterable of str
        Gifts given to the whole unit (``"teleport"``).
    vmv : int, optional
        Overrides the VMv of the one who moves (the mount when riding).
    dice : Dice or str
        The roll each turn (default 1d6).

    Returns
    -------
    Actor
        The unit, to pass as ``who`` to :func:`eidomap.answers.routing.route` and the other searches.

    Raises
    ------
    RequestError
        For an unknown species, mount, companion or gift, a VMv out of range, or dice that cannot be read.

    See Also
    --------
    eidomap.answers.routing.route : Plan a route for it.
    eidomap.rules.eido.species_table : One species' table.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> rider = actor(m.catalog, "human", mount="horse")
    >>> rider.name, rider.vmv == m.catalog.species["horse"].vmv
    ('human on horse', True)
    >>> actor(m.catalog, "human", party=["cow"], dice="2d6").name
    'human with cow'
    """
    catalog = params.instance(catalog, "catalog", Catalog, _A_CATALOG)
    species = params.text(species, "species", "a species name")
    mount = params.maybe(params.text, mount, "mount", "a species name (the one ridden)")
    party = params.names(party, "party", "species names")
    gifts = _gifts(gifts)
    vmv = params.maybe(params.whole, vmv, "vmv", 0, MAX_NUMBER)
    mover = catalog.get_species(mount or species)
    catalog.get_species(species)
    members = [mover, *(catalog.get_species(p) for p in party)]
    tables = [species_table(catalog, m, gifts) for m in members]
    vmvs = [mover.vmv if vmv is None else vmv, *(m.vmv for m in members[1:])]
    name = species + (f" on {mount}" if mount else "") + "".join(f" with {p}" for p in party)
    dice = Dice.parse(dice) if isinstance(dice, str) else dice
    if not isinstance(dice, Dice):
        raise RequestError(f"dice must be a Dice or text such as '2d6+1', got {dice!r}")
    if dice.high + min(vmvs) <= 0:  # every turn gives 0 PtMv: no step with a cost ever starts
        raise RequestError(f"{shown(name)} cannot move: with dice {dice} and VMv {min(vmvs)} no turn gives a PtMv (the"
                           f" highest roll plus VMv is {dice.high + min(vmvs)})")
    return Actor(name, min(vmvs), np.maximum.reduce(tables), dice)


#: The Eido rules: every kind of edge (borders, roads of Pousas, teleports), actors from the catalog's species
#: (registered by :mod:`eidomap` as ``"eido"``).
RULE_SET = RuleSet("eido", KINDS, actor, frozenset({"route", "reach", "batch", "planner"}),
                   pousa_roads=True)
