"""The one path: a request becomes check, append to the log, change state, tell phones, set LEDs.

Each concern's requests live in their own part (lobby, seats, rescue, host, presence, screens, calls, ending;
the board scored without the app in scoreboard.py, the Pi's seats in pi_seats.py), built with this path
(`OnePath`) by the façade (facade.py); they check, then call `OnePath.commit`, the only method that appends
to the log, or `OnePath.changed` for a change outside it.
"""
from __future__ import annotations

import hashlib
import time
from functools import partial
from typing import TYPE_CHECKING, Callable, Optional, Protocol

from companion import codes, views
from companion.codes import Code
from companion.game.state import State
from companion.store import events, history
from companion.store.notice import storage_notice
from companion.model.game import Game
from companion.table.memory import Shelf, summary

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.live.hub import Hub
    from companion.live.timers import Timers
    from companion.model.absences import Absences
    from companion.pi_seat import PiThinker
    from companion.store.db import Store


def device_id(cookie: str) -> str:
    """What the log stores for a device: a hash, so the database never holds a usable cookie."""
    return hashlib.sha256(cookie.encode()).hexdigest()[:32]


class Lights(Protocol):
    """What the one path asks of the turn LEDs: companion/pi/leds.py's `Leds` (or `NoLeds`), handed in by the app."""

    def show(self, phase: str, seated: list[str], to_act: Optional[str], winners: list[str],
             call_winner: Optional[str] = None) -> None: ...

    def test_sequence(self, step_seconds: float = 0.5) -> None: ...


class OnePath:
    """Every change of a game: logged (`commit`) or not (`changed`), then the phones told and the LEDs set; and the
    wakes that tell the phones when an absence reaches its limit. Built with the store, the hub, the LEDs, the Pi,
    the timers, the shelf of games and the absences: nothing above it."""

    def __init__(self, store: Store, hub: Hub, leds: Optional[Lights], pi: PiThinker, timers: Timers, shelf: Shelf,
                 absences: Absences, warmed: Optional[Callable[[], None]] = None):
        self.store, self.hub, self.leds, self.pi, self.timers = store, hub, leds, pi, timers
        self.shelf, self.absences = shelf, absences
        # Called once, after the first bid or pass this process logs and tells: by then the pages, the catalogs,
        # the sockets and a game's whole path have been used once (serve.py freezes what they made, see there).
        self.warmed = warmed
        self.notice = self.storage_notice()   # as every game's session holds it (note_storage: when it changes)

    def commit(self, game: Game, event: events.Event, device: Optional[str],
               call_ended: bool = False, after: Optional[State] = None) -> str:
        """Append the event (durable on return), apply it, tell every phone, set the LEDs; this device's view as JSON."""
        kind, body = event.kind, event.body()
        also = None
        if after is not None and after.finished:
            # The summary the history reads is written with the event that ends the game, or not at all.
            also = history.record_play(summary(game, after), game.seq + 1)
        elif isinstance(event, events.Abandon):
            also = history.record_play(summary(game, game.state, "abandoned"), game.seq + 1)
        elif isinstance(event, events.Undo) and game.phase == "finished":
            also = history.forget_play(game.id)
        try:
            self.store.append(game.id, game.seq + 1, kind, body, device, also=also)
        except BaseException:
            self.note_storage()   # a full disk: every screen says so, not only this device
            raise
        game.mutate(event, device, after)
        self.note_storage()       # room again, or a lost action played again
        game.session.storage = self.notice   # this game's views, told below, say it at once
        self.recount(game)
        shelf = self.shelf
        before = shelf.current
        shelf.follow(game, event)
        shelf.keep(game, before)
        told = self.tell(game)
        if before is not None and shelf.current is None:
            self.show(None)   # the table let go of its game: every LED off
        else:
            self.show_leds(game, call_ended)
        self.pi.after(game)
        if self.warmed is not None and isinstance(event, events.Action):
            warmed, self.warmed = self.warmed, None
            warmed()
        # The view its own socket was just sent, when it has one open (the LEDs change no view).
        return told[device] if device in told else views.view_json(game, device)

    def changed(self, game: Game, tell: bool = True) -> None:
        """The one way a game changes outside its log (a code shown, an ask, a seat moving, a show skipped, a display
        let in): its views are made anew, and every phone is told, unless `tell` is False because no other device's
        view shows the change (a seat's own new code goes back in its answer). A logged change goes through
        `commit`, where `Game.mutate` does the same; nothing else writes `rev` (tests/test_layout.py)."""
        game.touch()
        if tell:
            self.tell(game)

    def tell(self, game: Game) -> dict[Optional[str], str]:
        """Every device listening to this game gets its own new view; each device's view as sent."""
        return self.hub.publish(game.id, partial(views.view_texts, game))

    def storage_notice(self) -> Optional[dict]:
        """What every screen says about the storage (companion/store/notice.py), or None."""
        return storage_notice(self.store, self.shelf.seq_of)

    def note_storage(self) -> None:
        """The storage notice found again after a write: when it came or went, every game in memory takes it and
        sends its views again (each under its own lock, on the timers' thread: a commit holding one game's lock
        never waits for another's)."""
        notice = self.storage_notice()
        if notice == self.notice:
            return
        self.notice = notice
        for gid in list(self.shelf.games):
            self.timers.soon(("storage", gid), partial(self.retell, gid))

    def noting_storage(self, write):
        """A write beside the games that finds the disk full (or room again) tells every screen, as a game's does."""
        try:
            return write()
        finally:
            self.note_storage()

    def tell_at_expiry(self, game: Game, code: Code) -> None:
        """A code on a screen (a seat's move, an ask, a host claim) leaves it when it expires, not at the next change."""
        due = code.made + codes.LIFETIME + 0.05
        self.timers.at(("expired", game.id, code.value), due, partial(self.retell, game.id))

    def retell(self, gid: str) -> None:
        game = self.shelf.games.get(gid)
        if game is not None:
            with game.lock:
                game.session.storage = self.notice   # the latest notice, whatever else the views are told for
                self.changed(game)

    def recount(self, game: Game, live: Optional[set] = None) -> bool:
        """Which seats have no live device, from the sockets open now (a seat with none is offline, also right
        after a restart); True when that changed. The turn come to a seat already offline wakes the pages sooner."""
        changed = self.absences.recount(game, self.hub.live(game.id) if live is None else live)
        self.wake_for_turn(game)
        return changed

    def wake_for_away(self, gid: str, delay: float) -> None:
        """When an absence reaches the limit, the pages offer the host claim or the seat's move: a job on the
        one timer thread, at most one per game and second however often sockets churn (a later change never
        pushes an earlier wake back)."""
        due = time.monotonic() + delay
        self.timers.at(("away", gid, int(due)), due, lambda: self.tell_if_away(gid))

    def wake_for_turn(self, game: Game) -> None:
        """The turn came to a seat already offline: its shorter wait ends sooner than any wake set so far."""
        left = self.absences.turn_left(game)
        if left is not None and left > 0:
            self.wake_for_away(game.id, left + 0.5)

    def tell_if_away(self, gid: str) -> None:
        game = self.shelf.games.get(gid)
        if game is not None and game.phase in ("lobby", "playing"):
            with game.lock:
                self.changed(game)
                # The next absence still short of the limit (a seat or the host gone later) gets its own wake.
                left = self.absences.left(game)
            if left:
                self.wake_for_away(gid, min(left) + 0.5)

    def show_leds(self, game: Game, call_ended: bool = False) -> None:
        if self.leds is None or game.id != self.shelf.current:
            return   # the LEDs follow the game the table shows, like the table display
        self.leds.show(*game.lights(call_ended))

    def show(self, gid: Optional[str]) -> None:
        """The table display and the LEDs move to this game (or to none)."""
        self.shelf.current = gid
        if gid:
            self.show_leds(self.shelf.games[gid])
        elif self.leds is not None:
            self.leds.show("lobby", [], None, [], None)
