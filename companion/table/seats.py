"""Who reaches a seat: the one rule (docs/API.md, "Who may see a seat's cards"), and seats moved by code."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion import pi_seat, views
from companion.codes import Code, Guesses
from companion.errors import Refused
from companion.names import same as same_name
from companion.table import checks
from companion.model.game import Game
from companion.store import events

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.store.db import Store
    from companion.table.commit import OnePath
    from companion.table.memory import Games


def may_sit(game: Game, color: str, device: str, address: str, displays: set) -> None:
    """Checks every way to a seat shares: a screen, a second browser of a player or of the host, a device
    the host took off a seat never sits down (lobby seats stay free to take for anyone else)."""
    if device in displays:
        raise Refused(403, "display_no_seat")
    mine = game.seat_of(device)
    if mine is not None and mine != color:
        raise Refused(409, "one_seat", color=mine)
    if mine is None and device == game.host and game.phase not in ("lobby", "board"):
        raise Refused(403, "host_no_seat")   # issue 14: the host reads no seat's cards
    if device in game.banned or (checks.counted(address) and address in game.session.banned_addresses):
        raise Refused(403, "removed_here")


def code_keys(device: str, address: str) -> list[str]:
    """Who pays for a wrong code: this device, and its address (fresh cookies are free; the Pi is not counted)."""
    return [f"device:{device}"] + ([f"address:{address}"] if checks.counted(address) else [])


class CodeCheck:
    """Codes typed to take a seat, the host role or a screen: a wrong one costs the guesser a wait, never the code's
    owner (built with the table's `codes.Guesses`)."""

    def __init__(self, guesses: Guesses):
        self.guesses = guesses

    def try_code(self, held: Optional[Code], typed: str, device: str, address: str) -> None:
        """A code is checked only when its guesser may guess; a wrong one makes the guesser wait, never voids it."""
        keys = code_keys(device, address)
        wait = self.guesses.wait(keys)
        if wait > 0:
            raise Refused(429, "code_wait", seconds=max(1, int(wait + 0.999)))
        if held is None or not held.check(typed):
            self.guesses.wrong(keys)
            raise Refused(403, "bad_code")
        self.guesses.right(keys[:1])


class Seats:
    """Sitting down, freeing a seat, and a seat moved to a new phone with the code its own phone shows. Built with
    the games, the one path, the code check, the store (a device seen before), the screens and the host's wait."""

    def __init__(self, games: Games, path: OnePath, codes: CodeCheck, store: Store, displays: set, host_away: float):
        self.games, self.path, self.codes, self.store = games, path, codes, store
        self.displays, self.host_away = displays, host_away

    def claim_seat(self, gid: str, color: str, name: str, device: str, address: str = "") -> str:
        game = self.games.get(gid)
        with game.lock:
            checks.seat_in_game(game, color)
            holder = game.devices.get(color)
            if holder == device and game.names.get(color) == name:
                return views.view_json(game, device)
            if holder is not None and holder != device:
                # Said, never hidden: the page asks to pick again, it never seats anyone elsewhere.
                raise Refused(409, "seat_taken", color=color, name=game.names.get(color) or "")
            may_sit(game, color, device, address, self.displays)
            if holder is None and game.phase not in ("lobby", "board"):
                # A started game's free seat holds cards: only its own phone's code or the table's confirmation.
                raise Refused(403, "code_needed", player=color)
            if holder is None and checks.counted(address) and any(
                    a == address for c, a in game.session.seat_addresses.items() if game.devices.get(c) not in (None, device)):
                raise Refused(409, "one_seat_here")   # fresh cookies from one machine do not fill the table
            if any(same_name(other, name) for c, other in game.names.items() if c != color):
                raise Refused(409, "name_taken")   # two "Ann"s at one table: nobody knows whose turn it is
            if pi_seat.passes_for_pi(name):
                raise Refused(409, "name_pi")      # the history and the standings would mistake the person for it
            body = {"color": color, "name": name}
            if holder is None and device != game.host and not self.store.device_known(device, game.id):
                body["new"] = True   # the host sees it: a device never seen at this table before
            text = self.path.commit(game, events.Seat(body), device)
            if holder is None:
                game.session.seat_addresses[color] = address
            return text

    def release_seat(self, gid: str, color: str, device: str, address: str = "") -> str:
        """The host frees a lobby seat (no cards yet); the device taken off it does not sit again here."""
        game = self.games.get(gid)
        with game.lock:
            checks.host_on_seat(game, color, device)
            if game.phase != "lobby":
                raise Refused(403, "seat_stays", seconds=int(self.host_away))
            if game.cards_locked:
                raise Refused(409, "cards_locked")   # freeing a seat must not reopen the deal for another guess
            holder = game.devices.get(color)
            if holder != device and game.session.seat_addresses.get(color):
                game.session.banned_addresses.add(game.session.seat_addresses[color])
            return self.path.commit(game, events.Release({"color": color}), device)

    def seat_code(self, gid: str, color: str, device: str) -> str:
        """A code for this seat, shown only on the seat's own device: it hands its seat on, nobody else does."""
        game = self.games.get(gid)
        with game.lock:
            checks.seat_in_game(game, color)
            if device != game.devices.get(color):
                raise Refused(403, "not_your_seat")
            game.session.codes[color] = Code.fresh(device)
            self.path.tell_at_expiry(game, game.session.codes[color])
            self.path.changed(game, tell=False)
            return views.view_json(game, device)

    def move_seat(self, gid: str, color: str, code: str, name: Optional[str], device: str,
                  address: str = "") -> str:
        """The device with the code the seat's own phone showed takes the seat; the old device becomes a watcher."""
        game = self.games.get(gid)
        with game.lock:
            if color not in game.colors:
                raise Refused(404, "no_seat", color=color)
            if game.phase == "abandoned":
                raise Refused(409, "abandoned")
            if game.devices.get(color) == device:
                raise Refused(409, "one_seat", color=color)
            may_sit(game, color, device, address, self.displays)
            held = game.session.codes.get(color)
            if held is not None and held.issuer != game.devices.get(color):
                held = None   # a code from before the seat changed hands is no longer the seat's
            self.codes.try_code(held, code, device, address)
            if not game.names.get(color) and not name:
                raise Refused(400, "missing_field", field="name")
            if name and any(same_name(other, name) for c, other in game.names.items() if c != color):
                raise Refused(409, "name_taken")   # as when sitting down: two "Ann"s and nobody knows whose turn
            if name and pi_seat.passes_for_pi(name):
                raise Refused(409, "name_pi")
            return self.path.commit(game, events.Move({"color": color, "name": name or None}), device)
