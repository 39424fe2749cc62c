"""A seat whose phone is gone moves to a device the table confirms (asks, each with its own code)."""
from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Optional

from companion import views
from companion.asks import Ask
from companion.codes import Code
from companion.errors import Refused
from companion.limits import ASKS_PER_SEAT
from companion.table import checks
from companion.table.pi_seats import person_seat
from companion.table.seats import code_keys, may_sit
from companion.model.game import Game
from companion.store import events

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.live.timers import Timers
    from companion.model.absences import Absences
    from companion.store.db import Store
    from companion.table.commit import OnePath
    from companion.table.memory import Games, Shelf
    from companion.table.seats import CodeCheck


class Rescue:
    """Asks for a gone seat, the move every screen announces, and its cancel. Built with the games and their shelf,
    the one path, the code check, the store (a device's last game), the absences, the timers, the asks turned down,
    the screens and the move's wait."""

    def __init__(self, games: Games, shelf: Shelf, path: OnePath, codes: CodeCheck, store: Store, absences: Absences,
                 timers: Timers, turndowns, screens: tuple, move_wait: float):
        self.games, self.shelf, self.path, self.codes, self.store = games, shelf, path, codes, store
        self.absences, self.timers, self.turndowns, self.move_wait = absences, timers, turndowns, move_wait
        self.kiosks, self.displays = screens

    def rescue_seat(self, gid: str, color: str, code: Optional[str], device: str, address: str = "") -> str:
        """A seat whose phone is gone moves to a device the table confirms: each asking device gets its own ask,
        numbered on its screen and listed with its own code on the Pi's screen only; the device typing its code
        is announced on every screen for move_wait seconds (its old phone may cancel), then takes the seat.
        Another device asking never holds the seat from it."""
        game = self.games.get(gid)
        with game.lock:
            checks.seat_in_game(game, color)
            if game.phase != "playing":
                raise Refused(409, "not_playing")
            may_sit(game, color, device, address, self.displays)
            person_seat(game, color)
            holder = game.devices.get(color)
            if holder is not None and not self.absences.seat_gone(game, holder):
                raise Refused(409, "seat_not_gone", player=color, seconds=int(self.absences.seat_limit(game, color)))
            r = game.session.rescue
            if r is not None and r["color"] == color:
                if r["device"] == device:
                    return views.view_json(game, device)
                raise Refused(409, "seat_moving", player=color)
            keys = code_keys(device, address)
            wait = self.turndowns.wait(keys)
            if wait > 0:
                raise Refused(429, "ask_wait", seconds=max(1, int(wait + 0.999)))
            game.session.asks = [a for a in game.session.asks if a.open]
            mine = next((a for a in game.session.asks if a.device == device and a.color == color), None)
            if code is None:
                if mine is None:
                    self._new_ask(game, color, device, address)
                return views.view_json(game, device)
            if r is not None:
                raise Refused(409, "seat_moving", player=r["color"])   # one move before the table at a time
            self.codes.try_code(mine.code if mine else None, code, device, address)
            token = secrets.token_hex(8)
            game.session.rescue = {"color": color, "device": device, "address": address, "stage": "moving", "token": token}
            game.session.asks = [a for a in game.session.asks if a.color != color and a.device != device]
            self.path.changed(game)
            self.timers.at(("seat move", game.id, token), time.monotonic() + self.move_wait,
                           lambda: self._finish_rescue(game.id, token))
            return views.view_json(game, device)

    def _new_ask(self, game: Game, color: str, device: str, address: str) -> None:
        """One more ask for a gone seat: one per device (its ask for another seat goes) and per address."""
        here = [a for a in game.session.asks if a.color == color and a.device != device]
        if checks.counted(address) and any(a.address == address for a in here):
            raise Refused(409, "one_ask_here", player=color)
        if len(here) >= ASKS_PER_SEAT:
            raise Refused(429, "asks_full", player=color)
        game.session.asks = [a for a in game.session.asks if a.device != device]
        game.session.asked += 1
        ask = Ask(color, device, address, game.session.asked, Code.fresh(device), self.store.last_played(device))
        game.session.asks.append(ask)
        self.path.tell_at_expiry(game, ask.code)
        self.path.changed(game)

    def cancel_rescue(self, gid: str, color: str, device: str, ask: Optional[int] = None) -> str:
        """The seat's own phone (back after all) stops every ask and move for it; the asking device its own; the
        Pi's screen one ask (`ask`), or the move and every ask: those devices and addresses wait to ask again."""
        game = self.games.get(gid)
        with game.lock:
            r = game.session.rescue if game.session.rescue is not None and game.session.rescue["color"] == color else None
            asks = [a for a in game.session.asks if a.color == color and a.open]
            if device in self.kiosks:
                gone = [a for a in asks if ask is None or a.number == ask]
                if ask is not None and not gone:
                    raise Refused(409, "no_seat_move", player=color)
                moving = r if ask is None else None
                turned = [(a.device, a.address) for a in gone] + ([(r["device"], r["address"])] if moving else [])
                for d, a in turned:
                    self.turndowns.cancelled(code_keys(d, a))
            elif device == game.devices.get(color):
                gone, moving = asks, r
            else:
                gone = [a for a in asks if a.device == device]
                moving = r if r is not None and r["device"] == device else None
                if not gone and moving is None and (r is not None or asks):
                    raise Refused(403, "not_your_seat")
            if not gone and moving is None:
                raise Refused(409, "no_seat_move", player=color)
            game.session.asks = [a for a in game.session.asks if not any(a is b for b in gone)]
            if moving is not None:
                game.session.rescue = None
            self.path.changed(game)
            return views.view_json(game, device)

    def _finish_rescue(self, gid: str, token: str) -> None:
        game = self.shelf.games.get(gid)
        if game is None:
            return
        with game.lock:
            r = game.session.rescue
            if r is None or r["token"] != token or r["stage"] != "moving" or game.phase != "playing":
                return
            try:
                self.path.commit(game, events.Move({"color": r["color"], "name": None, "confirmed": "table"}), r["device"])
            except Exception:   # the log did not take it: the seat stays, and every screen says no move
                game.session.rescue = None
                self.path.changed(game)
