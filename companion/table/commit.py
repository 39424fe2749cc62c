"""The one path: a request becomes check, append to the log, change state, tell phones, set LEDs.

Each concern's requests live in their own module (lobby, seats, rescue, host, presence, screens, calls,
ending; the board scored without the app in scoreboard.py, the Pi's seats in pi_seats.py);
they check, then call `_commit`, the only method that appends to the log.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from functools import partial
from typing import Optional

from companion import codes, views
from companion.asks import Turndowns
from companion.codes import Code
from companion.errors import Refused
from companion.game.state import State
from companion.limits import HOST_AWAY, LOBBY_LIMIT, SEAT_AWAY, SEAT_MOVE_WAIT, STARTED_LIMIT
from companion.live.hub import Hub
from companion.live.timers import Timers
from companion.pi_seat import PiSeams, PiThinker, level_of
from companion.store import history
from companion.store.db import Store
from companion.table.board_steps import BoardStepRequests
from companion.table.calls import Calls
from companion.table.caps import Caps
from companion.table.ending import Ending
from companion.table.game import Game
from companion.table.host import Hosting
from companion.table.lobby import Lobby
from companion.table.memory import Memory
from companion.table.pi_seats import PiRequests
from companion.table.presence import Presence
from companion.table.records import Records
from companion.table.replays import Replays
from companion.table.reviews import ReviewRequests, Reviewer
from companion.table.rescue import Rescue
from companion.table.scoreboard import BoardRequests
from companion.table.screens import Screens
from companion.table.seats import Seats


def device_id(cookie: str) -> str:
    """What the log stores for a device: a hash, so the database never holds a usable cookie."""
    return hashlib.sha256(cookie.encode()).hexdigest()[:32]


class Table(Memory, Lobby, Seats, Rescue, Hosting, Presence, Screens, Calls, Ending, Records, BoardRequests,
            PiRequests, Replays, ReviewRequests, BoardStepRequests):
    """The games on this Pi being played (ended ones are read from SQLite when opened), the log, listeners, LEDs."""

    OPENED = 8   # ended games kept in memory after someone opened them (a history page, an old phone link)

    def __init__(self, store: Store, hub: Hub, leds=None, host_away: float = HOST_AWAY, move_wait: float = SEAT_MOVE_WAIT,
                 bot_delay: float = 2.0, bot_process: bool = True, seat_away: float = SEAT_AWAY,
                 lobby_limit: int = LOBBY_LIMIT, started_limit: int = STARTED_LIMIT):
        self.store = store
        self.hub = hub
        # A socket closed: the table may now show a seat offline. Told from the live loop's thread, which
        # must never wait for a game's lock (a bid's fsync): the timers' one thread takes it from there.
        self.timers = Timers()
        hub.on_presence = lambda gid: self.timers.soon(("presence", gid), lambda: self.presence(gid))
        self.leds = leds
        self.host_away = host_away        # seconds the host's device must be gone before a player may claim it
        self.seat_away = seat_away        # seconds the seat to act must be gone before a new phone may ask for it
        self.games: dict[str, Game] = {}   # games not ended, and the current one
        self.opened: OrderedDict[str, Game] = OrderedDict()
        self.broken: dict[str, str] = {}   # game id -> why its log could not be replayed
        self._lock = threading.Lock()
        self.current: Optional[str] = None
        self.kiosks: set[str] = set()      # devices seen on the Pi itself (its /table kiosk): table powers
        self.displays: set[str] = set()    # devices showing the table: the kiosks, and devices let in by code
        self.display_code: Optional[Code] = None   # shown on the Pi's own screen when asked there
        self.guesses = codes.Guesses()     # wrong codes cost the guesser a wait, never the code's owner
        self.turndowns = Turndowns()       # asks for a gone seat the Pi's screen cancelled: a growing wait
        self.move_wait = move_wait         # seconds every screen shows "X's seat is moving" before it moves
        self.pi = PiThinker(self._pi_seams(), bot_delay, bot_process)   # the seats the Pi plays, off the request path
        self.caps = Caps(self.games, {"lobby": lobby_limit, "playing": started_limit})   # strangers' games capped
        self.reviews = Reviewer(self.pi)   # the Pi's review of each person's decisions, worked out as the game goes

    def _pi_seams(self) -> PiSeams:
        """What the Pi's thinker may ask of the table: a seat's view, a game's position and audience, and a move
        handed back through the timers to `pi_act`, the one path (companion/table/pi_seats.py)."""
        def seq_of(gid: str) -> Optional[int]:
            game = self.games.get(gid)
            return None if game is None else game.seq

        def followed(gid: str) -> bool:
            game, live = self.games.get(gid), self.hub.live(gid)
            return game is not None and any(d in live for d in game.devices.values() if level_of(d) is None)

        def deliver(gid: str, seq: int, color: str, action, due: float) -> None:
            self.timers.at(("pi", gid, seq), due, lambda: self.pi_act(gid, seq, color, action))

        return PiSeams(observe=views.seat_state, seq_of=seq_of, shown=lambda gid: gid == self.current,
                       followed=followed, deliver=deliver, secret=lambda: self.store.secret("pi"))

    def create_capped(self, options: dict, device: str, address: str) -> Game:
        """A new lobby, within the lobbies one device (and one address) may keep open (Caps)."""
        def make():
            game = self.create(options, device)
            return game.id, game
        return self.caps.within("lobby", device, address, make)

    def create_board_capped(self, options: dict, device: str) -> Game:
        """A board to tally, counted with the device's lobbies (Caps)."""
        return self.caps.board(device, lambda: self.create_board(options, device))

    def start_capped(self, gid: str, device: str, address: str) -> str:
        """The host starts the game, within the games one device (and one address) may keep playing (Caps)."""
        return self.caps.within("playing", device, address, lambda: (self.get(gid).id, self.start(gid, device)))

    def get(self, gid: str) -> Game:
        """A game by its code, as typed: any case (old mixed-case codes still open as they were)."""
        game = self.find(gid) or self.find(codes.normal(gid))
        if game is None:
            raise Refused(404, "no_game")
        return game

    def view_json(self, gid: str, device: Optional[str]) -> str:
        """This device's view of a game, as the JSON text its socket gets too."""
        return views.view_json(self.get(gid), device)

    def view(self, gid: str, device: Optional[str]) -> Optional[dict]:
        try:
            return views.view(self.get(gid), device)
        except Refused:
            return None

    def seat_state(self, game: Game, color: str) -> State:
        """What one seat may see, as the Pi's player for it is fed (views.py decides, as for a phone)."""
        return views.seat_state(game, color)

    def _commit(self, game: Game, kind: str, body: dict, device: Optional[str],
                call_ended: bool = False, after: Optional[State] = None) -> str:
        """Append the event (durable on return), apply it, tell every phone, set the LEDs; this device's view as JSON."""
        also = None
        if after is not None and after.finished:
            # The summary the history reads is written with the event that ends the game, or not at all.
            also = history.record_play(self._summary(game, after), game.seq + 1)
        elif kind == "abandon":
            also = history.record_play(self._summary(game, game.state, "abandoned"), game.seq + 1)
        elif kind == "undo" and game.phase == "finished":
            also = history.forget_play(game.id)
        was = self.storage_notice()
        try:
            self.store.append(game.id, game.seq + 1, kind, body, device, also=also)
        except BaseException:
            if self.storage_notice() != was:
                self._storage_changed()   # a full disk: every screen says so, not only this device
            raise
        game.mutate(kind, body, device, after)
        if self.storage_notice() != was:
            self._storage_changed()       # room again, or a lost action played again
        self._recount(game)
        before = self.current
        self._follow(game, kind, body)
        self._keep(game, before)
        told = self._tell(game)
        if before is not None and self.current is None:
            self._show(None)   # the table let go of its game: every LED off
        else:
            self._show_leds(game, call_ended)
        self.pi.after(game)
        # The view its own socket was just sent, when it has one open (the LEDs change no view).
        return told[device] if device in told else views.view_json(game, device)

    def _changed(self, game: Game, tell: bool = True) -> None:
        """The one way a game changes outside its log (a code shown, an ask, a seat moving, a show skipped, a display
        let in): its views are made anew, and every phone is told, unless `tell` is False because no other device's
        view shows the change (a seat's own new code goes back in its answer). A logged change goes through
        `_commit`, where `Game.mutate` does the same; nothing else writes `rev` (tests/test_layout.py)."""
        game.touch()
        if tell:
            self._tell(game)

    def _tell(self, game: Game) -> dict[Optional[str], str]:
        """Every device listening to this game gets its own new view; each device's view as sent."""
        return self.hub.publish(game.id, partial(views.view_texts, game))

    def _show_leds(self, game: Game, call_ended: bool = False) -> None:
        if self.leds is None or game.id != self.current:
            return   # the LEDs follow the game the table shows, like the table display
        if game.abandoned:
            self.leds.show("finished", [], None, [], None)   # nobody's turn, nobody won: every LED off
            return
        st = game.state
        winners = views.public(game).get("scores", {}).get("winners", []) if st and st.finished else []
        call_winner = st.last_call.player if call_ended and st and st.last_call else None
        self.leds.show("lobby" if game.phase == "board" else game.phase, [c for c in game.colors if c in game.devices],
                       st.to_act_color if st else None, winners, call_winner)

    def _show(self, gid: Optional[str]) -> None:
        """The table display and the LEDs move to this game (or to none)."""
        self.current = gid
        if gid:
            self._show_leds(self.games[gid])
        elif self.leds is not None:
            self.leds.show("lobby", [], None, [], None)
