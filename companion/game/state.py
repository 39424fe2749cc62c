"""Immutable values: a game's setup, the actions players take, and the state between them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Union

COLORS = ("blue", "red", "white", "gray")
VALUES = tuple(range(1, 14))
FAMILY_AREAS = ("bridges", "statues", "lakes", "borders")
EXPERT_AREAS = ("bridges", "statues", "lakes", "districts", "chains")
NEIGHBORHOOD_CARDS = ("mall", "administration", "industrial", "park", "lodgings")
MODES = ("family", "expert")


@dataclass(frozen=True)
class Seat:
    """A player at the table: colour, name and secret cards."""

    color: str
    name: str = ""
    area: Optional[str] = None
    neighborhood: Optional[str] = None


@dataclass(frozen=True)
class Setup:
    """What is fixed before the first bid: mode, seats in clockwise order, districts out, tokens."""

    mode: str
    seats: tuple[Seat, ...]
    removed_districts: frozenset[str]
    tokens: Mapping[str, str]

    @property
    def colors(self) -> tuple[str, ...]:
        return tuple(s.color for s in self.seats)


@dataclass(frozen=True)
class Bid:
    """A building placed number up in a neighborhood."""

    player: str
    neighborhood: str
    value: int

    def to_json(self) -> dict:
        return {"player": self.player, "bid": self.neighborhood, "value": self.value}


@dataclass(frozen=True)
class Pass:
    """Out of this call for proposal."""

    player: str

    def to_json(self) -> dict:
        return {"player": self.player, "pass": True}


Action = Union[Bid, Pass]


@dataclass(frozen=True)
class Building:
    """A building turned over: it stays until the end of the game."""

    player: str
    neighborhood: str
    value: int


@dataclass(frozen=True)
class CallResult:
    """How the last call for proposal ended: who built where, what token and cards moved."""

    player: str
    neighborhood: str
    value: int
    token: Optional[str]
    subway_card: Optional[str]          # new holder, when the card changed hands
    archaeological_card: Optional[str]  # new holder, when the card changed hands


@dataclass(frozen=True)
class State:
    """Everything on and around the board between two decisions. Seats are indexed in setup order."""

    setup: Setup
    hands: tuple[tuple[int, ...], ...]      # values neither built nor bid in this call
    built: Mapping[str, Building]
    built_count: tuple[int, ...]
    tokens: Mapping[str, str]               # tokens still on the board
    collected: tuple[tuple[int, int, int], ...]  # per seat: trendy, subway, archaeological
    subway_card: Optional[int]
    archaeological_card: Optional[int]
    start: int
    call: tuple[Bid, ...] = ()
    passed: frozenset[int] = frozenset()
    auto_passed: tuple[int, ...] = ()       # seats the last decision left without a legal bid, clockwise from it
    to_act: Optional[int] = 0
    last_call: Optional[CallResult] = None
    finished: bool = False
    moves: int = 0                          # decisions taken (a written automatic pass is none)
    _seat: Mapping[str, int] = field(default=None, repr=False, compare=False)

    def seat(self, color: str) -> int:
        return self._seat[color]

    def seat_of(self, color: str) -> Optional[int]:
        """The seat's index, or None for a colour not at this table (a bad request, not a crash)."""
        return self._seat.get(color)

    @property
    def colors(self) -> tuple[str, ...]:
        return self.setup.colors

    @property
    def to_act_color(self) -> Optional[str]:
        return None if self.to_act is None else self.setup.seats[self.to_act].color
