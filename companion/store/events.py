"""Every kind of event the log holds, one class each (issue 38): its kind as stored, and the facts the table,
the store and the history read about it. Adding a kind = one class here + its handler in table/game.py `EVENTS`.

An event's `body()` is the dict written today, byte for byte (the log on disk and ../RECORD.md do not change);
`from_body` reads any older log's body as it was written. The kinds appear as literals only in this module
(tests/test_layout.py): everyone else names a class, or reads a list built here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Dict, Tuple, Type


@dataclass(frozen=True, eq=False)
class Event:
    """One logged event: its kind (a class fact) and its body as the log keeps it."""
    kind: ClassVar[str] = ""
    changes_seats: ClassVar[bool] = False    # a device's change of seats or setup (Game.changes counts them)
    enters_board: ClassVar[bool] = False     # an entry of a board scored without the app (Game.entries counts them)
    claims_seat: ClassVar[bool] = False      # a device takes a seat: the log's index of a device's seats
    clocks_play: ClassVar[bool] = False      # the play's clock starts again from it (the history's duration)
    data: dict = field(default_factory=dict)

    @classmethod
    def from_body(cls, body: dict) -> "Event":
        return cls(body)

    def body(self) -> dict:
        return self.data


def _kind(name: str, **facts):
    def make(cls):
        cls.kind = name
        for fact, value in facts.items():
            setattr(cls, fact, value)
        return dataclass(frozen=True, eq=False)(cls)
    return make


@_kind("create")
class Create(Event): pass
@_kind("setup", changes_seats=True)
class Setup(Event): pass
@_kind("host")
class Host(Event): pass
@_kind("abandon")
class Abandon(Event): pass
@_kind("rematch")
class Rematch(Event): pass
@_kind("seat", changes_seats=True, claims_seat=True)
class Seat(Event): pass
@_kind("move", claims_seat=True)
class Move(Event): pass
@_kind("release", changes_seats=True)
class Release(Event): pass
@_kind("cards", changes_seats=True)
class Cards(Event): pass
@_kind("start", clocks_play=True)
class Start(Event): pass
@_kind("action")
class Action(Event): pass
@_kind("undo")
class Undo(Event): pass
@_kind("building", enters_board=True)
class Building(Event): pass
@_kind("tokens", enters_board=True)
class Tokens(Event): pass
@_kind("holder", enters_board=True)
class Holder(Event): pass
@_kind("secret", enters_board=True)
class Secret(Event): pass
@_kind("name", enters_board=True)
class Name(Event): pass
@_kind("tally", clocks_play=True)
class Tally(Event): pass
@_kind("pi", changes_seats=True)
class Pi(Event): pass
@_kind("hint")
class Hint(Event): pass
@_kind("board_done")
class BoardDone(Event): pass


KINDS: Dict[str, Type[Event]] = {cls.kind: cls for cls in Event.__subclasses__()}


def of(kind: str, body: dict) -> Event:
    """The event a log row holds (kind and body as stored)."""
    cls = KINDS.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    return cls.from_body(body)


def kinds_where(fact: str) -> Tuple[str, ...]:
    return tuple(kind for kind, cls in KINDS.items() if getattr(cls, fact))


def sql_in(fact: str) -> str:
    """`kind IN (...)` for an SQL string: the kinds with this fact, quoted (they are this module's constants)."""
    return "kind IN (" + ", ".join(f"'{k}'" for k in kinds_where(fact)) + ")"
