"""The printed Metropolys board, loaded once from the shipped data into frozen objects."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Mapping

CENTER = "center"
PERIPHERAL = ("north", "east", "south", "west")
KINDS = ("mall", "administration", "industrial", "park", "lodgings")
TOKEN_KINDS = ("trendy", "subway", "archaeological")


@dataclass(frozen=True)
class Neighborhood:
    """One space a building can stand on."""

    id: str
    district: str
    kind: str
    x: float
    y: float
    neighbors: frozenset[str]
    blind_alley: bool
    token_eligible: bool
    on_city_border: bool
    bridges: frozenset[str]


@dataclass(frozen=True)
class Feature:
    """A lake or a statue, and the neighborhoods that touch it."""

    id: str
    x: float
    y: float
    neighborhoods: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    """Everything printed on the board, plus the per-player-count setup table."""

    neighborhoods: Mapping[str, Neighborhood]
    districts: Mapping[str, tuple[str, ...]]
    district_pairs: frozenset[frozenset[str]]
    bridges: tuple[tuple[str, str], ...]
    lakes: tuple[Feature, ...]
    statues: tuple[Feature, ...]
    token_counts: Mapping[int, Mapping[str, int]]
    random_setup_tokens: Mapping[str, int]
    scoring: Mapping[str, object]
    # Pairs that both border one lake yet are not adjacent: "lakes and rivers are impassable" (rulebook, Call for proposal).
    across_water: frozenset[frozenset[str]]

    def water_between(self, a: str, b: str) -> bool:
        """Whether a lake lies between two neighborhoods that are not adjacent (the reason a table argues about)."""
        return frozenset((a, b)) in self.across_water

    def in_play(self, removed: frozenset[str] | set[str]) -> frozenset[str]:
        """The neighborhoods a building may stand on once `removed` districts are out."""
        return frozenset(n.id for n in self.neighborhoods.values() if n.district not in removed)

    def size_class(self, value: int) -> int:
        """0 small (1-5), 1 medium (6-9), 2 tall (10-13): height, not value, decides."""
        return 0 if value <= 5 else 1 if value <= 9 else 2


def _parse(raw: dict) -> Board:
    bridge_pairs = tuple((e["a"], e["b"]) for e in raw["adjacencies"] if e["bridge"])
    bridge_ends: dict[str, set[str]] = {}
    for a, b in bridge_pairs:
        bridge_ends.setdefault(a, set()).add(b)
        bridge_ends.setdefault(b, set()).add(a)
    nbs = {}
    for n in raw["neighborhoods"]:
        nbs[n["id"]] = Neighborhood(
            id=n["id"], district=n["district"], kind=n["kind"], x=n["x"], y=n["y"],
            neighbors=frozenset(n["neighbors"]), blind_alley=n["blind_alley"],
            token_eligible=n["token_eligible"], on_city_border=n["on_city_border"],
            bridges=frozenset(bridge_ends.get(n["id"], ())),
        )
    districts = {d["id"]: tuple(d["neighborhoods"]) for d in raw["districts"]}
    setup = raw["player_count_setup"]
    lakes = tuple(Feature(f["id"], f["x"], f["y"], tuple(f["neighborhoods"])) for f in raw["lakes"])
    return Board(
        neighborhoods=MappingProxyType(nbs),
        districts=MappingProxyType(districts),
        district_pairs=frozenset(frozenset(p) for p in raw["peripheral_district_adjacency"]),
        bridges=bridge_pairs,
        lakes=lakes,
        statues=tuple(Feature(f["id"], f["x"], f["y"], tuple(f["neighborhoods"])) for f in raw["statues"]),
        token_counts=MappingProxyType({int(k): MappingProxyType(dict(v["tokens"])) for k, v in setup.items() if k.isdigit()}),
        random_setup_tokens=MappingProxyType({d["id"]: d["random_setup_tokens"] for d in raw["districts"]}),
        scoring=MappingProxyType(raw["scoring_constants"]),
        across_water=_across_lakes(lakes, nbs),
    )


def _across_lakes(lakes: tuple[Feature, ...], nbs: dict) -> frozenset[frozenset[str]]:
    """Every pair of one lake's shore neighborhoods that no street or bridge joins: water lies between them."""
    return frozenset(frozenset((a, b)) for lake in lakes for i, a in enumerate(lake.neighborhoods)
                     for b in lake.neighborhoods[i + 1:] if b not in nbs[a].neighbors)


def board_data() -> dict:
    """The raw board JSON, as shipped in the package (the map on the pages draws from it)."""
    return json.loads(resources.files(__package__).joinpath("data/metropolys-board.json").read_text("utf-8"))


@lru_cache(maxsize=1)
def load_board() -> Board:
    return _parse(board_data())
