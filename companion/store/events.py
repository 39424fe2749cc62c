"""Every kind of event the log holds, one class each (issue 38): its kind as stored, its fields as the table reads
them, how an older log's body reads (each field's default), and the facts the table, the store and the history
read about it. Adding a kind = one class here + its handler in model/game.py `EVENTS`.

An event is made from its body, the dict written today (`Seat({"color": "red", "name": "Ann"})`), and `body()` gives
that dict back byte for byte: the log on disk does not change. Its fields are read from the body once, when it is
made (a new one, or one read back from any older log): a missing key takes the field's default, a missing key with
no default (`REQUIRED`) makes the event unreadable, and the game it belongs to is reported broken, as a hand-edited
log is. The kinds appear as literals only in this module (tests/test_layout.py): everyone else names a class, or
reads a list built here.
"""
from __future__ import annotations

from typing import Any, ClassVar, Dict, Optional, Tuple, Type

REQUIRED: Any = object()   # a field every body of its kind has had since the kind existed


class Stored:
    """A field stored under another key (a Python keyword: "from", "pass"), and its default."""
    __slots__ = ("key", "default")

    def __init__(self, key: str, default: Any):
        self.key, self.default = key, default


class Event:
    """One logged event: its kind (a class fact), its body as the log keeps it, its fields as read from the body.

    Plain classes rather than dataclasses: each field is a class annotation with its default, read once per kind
    by `_kind` into `FIELDS`. Making the 24 kinds as frozen dataclasses was 13 ms of a 280 ms start (every class's
    methods written as source and compiled), and reading `fields()` again at every event made a bid slower."""
    kind: ClassVar[str] = ""
    changes_seats: ClassVar[bool] = False    # a device's change of seats or setup (Game.changes counts them)
    enters_board: ClassVar[bool] = False     # an entry of a board scored without the app (Game.entries counts them)
    claims_seat: ClassVar[bool] = False      # a device takes a seat: the log's index of a device's seats
    clocks_play: ClassVar[bool] = False      # the play's clock starts again from it (the history's duration)
    FIELDS: ClassVar[Tuple[Tuple[str, str, Any], ...]] = ()   # (field, its key in the body, its default)

    def __init__(self, data: Optional[dict] = None) -> None:
        data = {} if data is None else data
        put = object.__setattr__
        put(self, "data", data)
        for name, key, default in self.FIELDS:
            if key in data:
                value = data[key]
            elif default is REQUIRED:
                raise ValueError(f"a {self.kind} event without {key!r}")
            else:
                value = default
            put(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an event is never changed: the log is append-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("an event is never changed: the log is append-only")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n, _, _ in self.FIELDS)})"

    @classmethod
    def from_body(cls, body: dict) -> "Event":
        return cls(body)

    def body(self) -> dict:
        return self.data


KINDS: Dict[str, Type[Event]] = {}   # in the order the kinds were added (the schema's index lists follow it)


def _fields(cls: type) -> Tuple[Tuple[str, str, Any], ...]:
    """Every annotated field of the class and its bases, in the order first declared (a redeclared one keeps its
    place and takes the newer default), as dataclasses would order them."""
    out: Dict[str, Tuple[str, str, Any]] = {}
    for klass in reversed(cls.__mro__):
        for name, note in vars(klass).get("__annotations__", {}).items():
            if str(note).startswith("ClassVar"):
                continue
            if name not in vars(klass):   # a dataclass would refuse it too; skipped, it would never be read
                raise TypeError(f"{cls.__name__}.{name} has no default: give it one, or REQUIRED")
            default = vars(klass)[name]
            out[name] = (name, default.key, default.default) if isinstance(default, Stored) else (name, name, default)
    return tuple(out.values())


def _kind(name: str, **facts):
    def make(cls):
        cls.kind = name
        for fact, value in facts.items():
            setattr(cls, fact, value)
        cls.FIELDS = _fields(cls)
        KINDS[name] = cls
        return cls
    return make


class _Options(Event):
    """A game's setup as the host chose it (companion/table/lobby.py check_options)."""
    mode: str = REQUIRED
    players: list = REQUIRED
    removed_districts: list = REQUIRED
    tokens: dict = REQUIRED
    deal: str = REQUIRED
    layout: Any = "random"          # "random", "hand" or the tokens as laid
    hints: bool = False
    pace: str = "timer"             # a log from before the pace was chosen: played at the timer's


@_kind("create")
class Create(_Options):
    shown: Optional[bool] = None    # the table display took it (None: a log from before the choice: it did)
    from_game: Optional[str] = Stored("from", None)   # the game it is the rematch of
    board: bool = False             # a board scored without the app
    names: Optional[dict] = None
    seats: Optional[dict] = None    # {color: [name, device]} carried over from the game before
    rotate: bool = False
@_kind("setup", changes_seats=True)
class Setup(_Options):
    removed_seat: Optional[str] = None
    clash: bool = False             # (lobby.deal_check) two entries share a card: every seat enters again
    app_deals: bool = False         # ... and from now on the app deals
@_kind("host")
class Host(Event):
    color: Optional[str] = None     # None: the host role to the table itself
    confirmed: Optional[str] = None
@_kind("abandon")
class Abandon(Event):
    actions: Optional[int] = None
@_kind("rematch")
class Rematch(Event):
    game: str = REQUIRED
    rotate: bool = False
@_kind("seat", changes_seats=True, claims_seat=True)
class Seat(Event):
    color: str = REQUIRED
    name: str = REQUIRED
    new: bool = False               # a device never seen at this table before
@_kind("move", claims_seat=True)
class Move(Event):
    color: str = REQUIRED
    name: Optional[str] = None
    confirmed: Optional[str] = None
@_kind("release", changes_seats=True)
class Release(Event):
    color: str = REQUIRED
@_kind("cards", changes_seats=True)
class Cards(Event):
    color: str = REQUIRED
    area: str = REQUIRED
    neighborhood: Optional[str] = None
    clash: bool = False             # (lobby.deal_check) two entries share a card: every seat enters again
    app_deals: bool = False         # ... and from now on the app deals
@_kind("start", clocks_play=True)
class Start(Event):
    cards: dict = REQUIRED
    first_game: list = ()
@_kind("action")
class Action(Event):
    player: str = REQUIRED
    passes: bool = Stored("pass", False)
    bid: Optional[str] = None
    value: Optional[int] = None
    by_host: bool = False
@_kind("undo")
class Undo(Event):
    action: Optional[int] = None
    count: int = 1                  # more than one: the Pi's moves since the person's action too
@_kind("building", enters_board=True)
class Building(Event):
    neighborhood: str = REQUIRED
    color: Optional[str] = None     # None: the building taken off
    height: Optional[str] = None
@_kind("tokens", enters_board=True)
class Tokens(Event):
    color: str = REQUIRED
    tokens: list = REQUIRED
@_kind("holder", enters_board=True)
class Holder(Event):
    card: str = REQUIRED
    color: Optional[str] = None
@_kind("secret", enters_board=True)
class Secret(Event):
    color: str = REQUIRED
    area: str = REQUIRED
    neighborhood: Optional[str] = None
@_kind("name", enters_board=True)
class Name(Event):
    color: str = REQUIRED
    name: str = REQUIRED
@_kind("tally", clocks_play=True)
class Tally(Event): pass
@_kind("pi", changes_seats=True)
class Pi(Event):
    color: str = REQUIRED
    level: Optional[str] = None     # None: the seat taken back from the Pi
    clash: bool = False             # (lobby.deal_check) two entries share a card: every seat enters again
    app_deals: bool = False         # ... and from now on the app deals
@_kind("hint")
class Hint(Event):
    color: str = REQUIRED
@_kind("board_done")
class BoardDone(Event):
    through: int = REQUIRED


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
