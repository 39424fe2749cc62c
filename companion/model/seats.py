"""Who holds a seat: a person's phone, or the Pi at a level.

A Pi seat is held by the device "pi:<level>" (a phone's device id is 32 hex digits, never that), so every rule about
held seats (start, claims, LEDs) holds for it unchanged; the thinking is companion/pi_seat.py's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion.game.state import State
from companion.lang import i18n
from companion.store import events

if TYPE_CHECKING:
    from companion.model.game import Game

PREFIX = "pi:"


def device_for(level: str) -> str:
    return PREFIX + level


def level_of(device: Optional[str]) -> Optional[str]:
    """The level of the Pi holding a seat through this device, or None for a person's device."""
    return device[len(PREFIX):] if isinstance(device, str) and device.startswith(PREFIX) else None


def name_for(level: str, color: str, lang: str = "en") -> str:
    """A Pi seat's one name, "Pi Red (strong)" ("Pi Rot (stark)", "Pi Rouge (fort)"): kept as the seat's name for the
    history, the standings and BG Stats; every page says the same from `pi` and the colour (app.js nameOf)."""
    said = i18n.term(lang, color)
    return i18n.t(lang, "pi_one", color=said[:1].upper() + said[1:], level=i18n.t(lang, "pi_level_" + level))


def pi_seats(game: Game) -> dict[str, str]:
    """Colour -> level of every seat the Pi plays in this game."""
    return {c: lv for c, d in game.devices.items() if (lv := level_of(d)) is not None}


def people(game: Game) -> list[str]:
    """The colours a person plays or may sit down on."""
    return [c for c in game.colors if level_of(game.devices.get(c)) is None]


def undo_count(game: Game) -> int:
    """How many actions an undo takes back: the Pi's moves since the last person's action, and that action
    (0: no person has acted yet)."""
    seats = pi_seats(game)
    for n, action in enumerate(reversed(game.actions), 1):
        if action.player not in seats:
            return n
    return 0


def with_pi(record: dict, game) -> dict:
    """A game record (RECORD.md) with its optional "pi" field: colour -> level of each seat the Pi played."""
    seats = pi_seats(game)
    if seats:
        record["pi"] = dict(sorted(seats.items()))
    return record


# The Game's event for a seat given to the Pi or taken back from it (game.EVENTS).
def on_pi(game: Game, event: events.Pi, device: Optional[str], after: Optional[State]) -> None:
    color, level = event.color, event.level
    game.cards.pop(color, None)
    game.newcomers.discard(color)
    if level:
        game.devices[color] = device_for(level)
        game.names[color] = name_for(level, color)
    else:
        game.devices.pop(color, None)
        game.names.pop(color, None)
    game.clashed(event)   # the people's entries, now all in, checked as a last entry's are (Game.on_cards)
