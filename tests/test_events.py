"""The log's kinds as classes (companion/store/events.py, issue 38): what is written does not change by a byte."""
from __future__ import annotations

import json
import sqlite3

from companion.store import db, events
from companion.model.game import EVENTS


# A body of every kind as the table writes it today, and as an older log may hold it (keys added since missing).
OPTIONS = {"mode": "expert", "players": ["red", "blue"], "removed_districts": ["N"], "tokens": {"C01": "trendy"},
           "deal": "app", "layout": "random", "pace": "board"}
BODIES = {
    "create": [dict(OPTIONS, shown=False, **{"from": "ABCDE"}, seats={"red": ["Ann", "d1"]}, rotate=True),
               {k: OPTIONS[k] for k in ("mode", "players", "removed_districts", "tokens", "deal")}],
    "setup": [dict(OPTIONS, removed_seat="white", clash=True, app_deals=True), dict(OPTIONS)],
    "host": [{"color": "red", "confirmed": "code"}, {}],
    "abandon": [{"actions": 4}, {}],
    "rematch": [{"game": "XYZAB", "rotate": True}, {"game": "XYZAB"}],
    "seat": [{"color": "red", "name": "Ann", "new": True}, {"color": "red", "name": "Ann"}],
    "move": [{"color": "red", "name": None, "confirmed": "table"}, {"color": "red"}],
    "release": [{"color": "red"}],
    "cards": [{"color": "red", "area": "lakes", "neighborhood": "luxury", "clash": True}, {"color": "red", "area": "lakes"}],
    "start": [{"cards": {"red": ["lakes", "luxury"]}, "first_game": ["red"]}, {"cards": {"red": ["lakes", None]}}],
    "action": [{"player": "red", "bid": "C08", "value": 3}, {"player": "blue", "pass": True, "by_host": True}],
    "undo": [{"action": 7, "count": 3}, {"action": 7}],
    "building": [{"neighborhood": "C08", "color": "red", "height": "tall"}, {"neighborhood": "C08", "color": None}],
    "tokens": [{"color": "red", "tokens": [1, 0, 2]}],
    "holder": [{"card": "subway", "color": "red"}, {"card": "subway", "color": None}],
    "secret": [{"color": "red", "area": "lakes", "neighborhood": None}],
    "name": [{"color": "red", "name": "Ann"}],
    "tally": [{}],
    "pi": [{"color": "red", "level": "strong", "clash": True}, {"color": "red", "level": None}],
    "hint": [{"color": "red"}],
    "board_done": [{"through": 12}],
}


def test_every_kind_reads_and_writes_its_body_unchanged():
    """A body comes back out exactly as it was stored (the log on disk does not change by a byte), and its fields
    read from it: an older log's missing keys take the defaults the table always gave them."""
    assert set(BODIES) == set(events.KINDS)
    for kind, bodies in BODIES.items():
        for body in bodies:
            event = events.of(kind, json.loads(json.dumps(body)))
            assert type(event) is events.KINDS[kind] and event.kind == kind
            assert json.dumps(event.body(), separators=(",", ":")) == json.dumps(body, separators=(",", ":"))
    older = events.of("create", BODIES["create"][1])
    assert (older.layout, older.hints, older.pace, older.shown, older.from_game, older.board) == (
        "random", False, "timer", None, None, False)
    assert events.of("create", BODIES["create"][0]).from_game == "ABCDE"          # stored under "from"
    assert events.of("undo", BODIES["undo"][1]).count == 1
    assert events.of("action", BODIES["action"][1]).passes is True                # stored under "pass"
    assert events.of("move", BODIES["move"][1]).name is None


def test_a_body_without_a_field_its_kind_always_had_is_unreadable():
    """Such a log was edited by hand: reading it fails with a sentence (the game is reported broken, not guessed)."""
    for kind, body, key in (("seat", {"color": "red"}, "name"), ("action", {"bid": "C08", "value": 3}, "player"),
                            ("board_done", {}, "through"), ("setup", {"mode": "expert"}, "players")):
        try:
            events.of(kind, body)
        except ValueError as e:
            assert str(e) == f"a {kind} event without {key!r}"
        else:
            raise AssertionError(f"{kind} read without {key}")


def test_an_event_is_never_changed_and_reads_its_fields_in_the_order_declared():
    """Undo, seat moves and host changes append, never rewrite: an event once made refuses a change of any field;
    a kind's fields follow its bases' (a setup's options first), each once, as the bodies list them."""
    event = events.of("seat", {"color": "red", "name": "Ann"})
    for change in (lambda: setattr(event, "name", "Bob"), lambda: setattr(event, "data", {}),
                   lambda: delattr(event, "color")):
        try:
            change()
        except AttributeError as e:
            assert str(e) == "an event is never changed: the log is append-only"
        else:
            raise AssertionError("an event was changed")
    assert (event.color, event.name, event.new) == ("red", "Ann", False)
    assert repr(event) == "Seat(color='red', name='Ann', new=False)"
    names = [name for name, _, _ in events.Create.FIELDS]
    assert names[:8] == ["mode", "players", "removed_districts", "tokens", "deal", "layout", "hints", "pace"]
    assert len(names) == len(set(names)) == 14
    assert ("from_game", "from", None) in events.Create.FIELDS and ("passes", "pass", False) in events.Action.FIELDS
    assert events.Tally.FIELDS == ()
    try:   # a field with no default is refused when its kind is made, not skipped (it would never be read)
        @events._kind("no_default")
        class NoDefault(events.Event):
            color: str
    except TypeError as e:
        assert str(e) == "NoDefault.color has no default: give it one, or REQUIRED"
    else:
        raise AssertionError("a field without a default was taken")
    assert "no_default" not in events.KINDS


def test_every_kind_has_its_handler_and_an_unknown_kind_is_refused():
    assert set(EVENTS) == set(events.KINDS.values()) and len(events.KINDS) == 21
    try:
        events.of("pause", {})
    except ValueError as e:
        assert "unknown event kind 'pause'" in str(e)
    else:
        raise AssertionError("an unknown kind was read")


def test_the_schema_built_from_the_kinds_is_the_one_already_on_disk():
    """A database made before the module keeps its partial index: the same text, so the seat queries still use it."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(db.SCHEMA)
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events_seats'").fetchone()
    assert sql == "CREATE INDEX events_seats ON events (device) WHERE kind IN ('seat', 'move')"
    assert events.sql_in("clocks_play") == "kind IN ('start', 'tally')"


def test_every_handler_reads_its_own_event_class():
    """A handler is handed the typed event, never a body to read with defaults of its own (the defaults live in
    events.py, one place for every older log)."""
    import inspect
    for cls, handler in EVENTS.items():
        param = list(inspect.signature(handler).parameters.values())[1]
        assert param.name == "event" and param.annotation == f"events.{cls.__name__}", (cls.kind, handler, param)
