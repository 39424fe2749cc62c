"""The table: a thin façade over its parts, each built here with exactly the services it uses.

Below, the services: the store, the hub, the LEDs, the timers, the Pi's thinker (companion/pi_seat.py), the shelf of
games in memory (memory.py) and the absences (companion/model/absences.py); beneath all, the games themselves
(companion/model/). On them, the one path (commit.py: check, append, apply,
tell phones, set LEDs), then `Games` (finding and replaying games), then one part per concern, each handed the parts
and callables it needs, never the table: lobby, seats and rescue, host, screens and presence, calls, ending, records,
the board scored, the board's steps, the Pi's seats, reviews, replays. Web code calls the methods below by the same
names as ever; each is its part's, one line here, so go-to-definition leads from a route to the part that acts.
"""
from __future__ import annotations

from typing import Callable, Optional

from companion import codes, views
from companion.asks import Turndowns
from companion.errors import Refused
from companion.game.state import Action, State
from companion.limits import HOST_AWAY, LOBBY_LIMIT, SEAT_AWAY, SEAT_MOVE_WAIT, STARTED_LIMIT
from companion.live.hub import Hub
from companion.live.timers import Timers
from companion.live.wsloop import LiveSocket
from companion.pi_seat import PiSeams, PiThinker, level_of
from companion.players import PI_LEVELS
from companion.store.db import Store
from companion.table.board_steps import BoardStepRequests
from companion.table.calls import Calls
from companion.table.caps import Caps
from companion.table.commit import OnePath
from companion.table.ending import Ending
from companion.model.game import Game
from companion.table.host import Hosting
from companion.table.lobby import Lobby
from companion.table.memory import Games, Shelf
from companion.table.pi_seats import PiRequests
from companion.model.absences import Absences
from companion.table.presence import PresenceRequests
from companion.table.records import RecordRequests
from companion.table.replays import Replays
from companion.table.rescue import Rescue
from companion.table.reviews import Reviewer, ReviewRequests
from companion.table.scoreboard import BoardRequests
from companion.table.screens import Screens
from companion.table.seats import CodeCheck, Seats


class Table:
    """The games on this Pi being played (ended ones are read from SQLite when opened), the log, listeners, LEDs."""

    pi_levels = PI_LEVELS   # what a host may choose, as the pages offer it (web/render.py sends it)
    OPENED = Shelf.OPENED   # ended games kept in memory after someone opened them

    def __init__(self, store: Store, hub: Hub, leds=None, host_away: float = HOST_AWAY, move_wait: float = SEAT_MOVE_WAIT,
                 bot_delay: float = 2.0, bot_process: bool = True, seat_away: float = SEAT_AWAY,
                 lobby_limit: int = LOBBY_LIMIT, started_limit: int = STARTED_LIMIT,
                 warmed: Optional[Callable[[], None]] = None):
        self.store, self.hub, self.leds = store, hub, leds
        # A socket closed: the table may now show a seat offline. Told from the live loop's thread, which
        # must never wait for a game's lock (a bid's fsync): the timers' one thread takes it from there.
        self.timers = Timers()
        hub.on_presence = lambda gid: self.timers.soon(("presence", gid), lambda: self.live.presence(gid))
        self.kiosks: set[str] = set()      # devices seen on the Pi itself (its /table kiosk): table powers
        self.displays: set[str] = set()    # devices showing the table: the kiosks, and devices let in by code
        self.shelf = shelf = Shelf()
        self.games, self.opened, self.broken = shelf.games, shelf.opened, shelf.broken   # read by tests and tools
        self.absences = absences = Absences(hub.away_for, host_away, seat_away)
        self.pi = PiThinker(self._pi_seams(), bot_delay, bot_process)   # the seats the Pi plays, off the request path
        self.caps = Caps(shelf.games, {"lobby": lobby_limit, "playing": started_limit})   # strangers' games capped
        self.reviews = Reviewer(self.pi)   # the Pi's review of each person's decisions, worked out as the game goes
        self.path = path = OnePath(store, hub, leds, self.pi, self.timers, shelf, absences, warmed)
        self.found = games = Games(shelf, store, path, absences, self.displays, self.kiosks, self.pi)
        code_check = CodeCheck(codes.Guesses())   # wrong codes cost the guesser a wait, never the code's owner
        self.lobby = Lobby(games, shelf, store, path)
        self.seats = Seats(games, path, code_check, store, self.displays, host_away)
        self.rescue = Rescue(games, shelf, path, code_check, store, absences, self.timers,
                             Turndowns(),   # asks for a gone seat the Pi's screen cancelled: a growing wait
                             (self.kiosks, self.displays), move_wait)
        self.hosting = Hosting(games, path, code_check, absences, self.kiosks)
        self.live = PresenceRequests(games, shelf, hub, path, absences, self.pi)
        self.screens = Screens(games, shelf, path, code_check, self.kiosks, self.displays)
        self.calls = Calls(games, path, self.reviews, hub)
        self.ending = Ending(games, path, self.lobby.create)
        self.records = RecordRequests(shelf, store, path, leds, self.displays)
        self.board = BoardRequests(games, path, self.lobby.create_from)
        self.pi_seats = PiRequests(shelf, path, self.pi, self.lobby, self.calls.play)
        self.replays = Replays(games, path)
        self.review_requests = ReviewRequests(games, path, self.reviews, self.pi)
        self.board_steps = BoardStepRequests(games, path, self.timers, self.pi_seats.pi_act)

    @property
    def current(self) -> Optional[str]:
        """The game the table screen and the LEDs show (the shelf's)."""
        return self.shelf.current

    @current.setter
    def current(self, gid: Optional[str]) -> None:
        self.shelf.current = gid

    def _pi_seams(self) -> PiSeams:
        """What the Pi's thinker may ask of the table: a seat's view, a game's position and audience, and a move
        handed back through the timers to `pi_act`, the one path (companion/table/pi_seats.py)."""
        shelf, hub = self.shelf, self.hub

        def seq_of(gid: str) -> Optional[int]:
            game = shelf.games.get(gid)
            return None if game is None else game.seq

        def followed(gid: str) -> bool:
            game, live = shelf.games.get(gid), hub.live(gid)
            return game is not None and any(d in live for d in game.devices.values() if level_of(d) is None)

        def deliver(gid: str, seq: int, color: str, action, due: float) -> None:
            self.timers.at(("pi", gid, seq), due, lambda: self.pi_act(gid, seq, color, action))

        return PiSeams(observe=views.seat_state, seq_of=seq_of, shown=lambda gid: gid == shelf.current,
                       followed=followed, deliver=deliver, secret=lambda: self.store.secret("pi"))

    def create_capped(self, options: dict, device: str, address: str) -> Game:
        """A new lobby, within the lobbies one device (and one address) may keep open (Caps)."""
        def make():
            game = self.lobby.create(options, device)
            return game.id, game
        return self.caps.within("lobby", device, address, make)

    def create_board_capped(self, options: dict, device: str) -> Game:
        """A board to tally, counted with the device's lobbies (Caps)."""
        return self.caps.board(device, lambda: self.board.create_board(options, device))

    def start_capped(self, gid: str, device: str, address: str) -> str:
        """The host starts the game, within the games one device (and one address) may keep playing (Caps)."""
        return self.caps.within("playing", device, address, lambda: (self.get(gid).id, self.lobby.start(gid, device)))

    def get(self, gid: str) -> Game:
        """A game by its code, as typed: any case (old mixed-case codes still open as they were)."""
        return self.found.get(gid)

    def find(self, gid: str) -> Optional[Game]:
        return self.found.find(gid)

    def load(self) -> None:
        self.found.load()

    def lost_game(self) -> Optional[Game]:
        return self.found.lost_game()

    def storage_notice(self) -> Optional[dict]:
        return self.path.storage_notice()

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

    # model/absences.py: how long a device has been gone
    def seat_limit(self, game: Game, color: Optional[str]) -> float:
        return self.absences.seat_limit(game, color)

    def seat_gone(self, game: Game, device: Optional[str]) -> bool:
        return self.absences.seat_gone(game, device)

    def seat_waits(self, game: Game) -> dict:
        return self.absences.seat_waits(game)

    def host_away_now(self, game: Game) -> bool:
        return self.absences.host_away_now(game)

    def host_wait(self, game: Game) -> Optional[float]:
        return self.absences.host_wait(game)

    # lobby.py
    def create(self, options: dict, device: str, extra: Optional[dict]=None) -> Game:
        return self.lobby.create(options, device, extra)

    def create_from(self, body: dict, device: str) -> Game:
        return self.lobby.create_from(body, device)

    def change_setup(self, gid: str, options: dict, device: str) -> str:
        return self.lobby.change_setup(gid, options, device)

    def remove_seat(self, gid: str, color: str, device: str) -> str:
        return self.lobby.remove_seat(gid, color, device)

    def enter_cards(self, gid: str, color: str, area: str, hood: Optional[str], device: str) -> str:
        return self.lobby.enter_cards(gid, color, area, hood, device)

    def start(self, gid: str, device: str) -> str:
        return self.lobby.start(gid, device)

    # seats.py
    def claim_seat(self, gid: str, color: str, name: str, device: str, address: str='') -> str:
        return self.seats.claim_seat(gid, color, name, device, address)

    def release_seat(self, gid: str, color: str, device: str, address: str='') -> str:
        return self.seats.release_seat(gid, color, device, address)

    def seat_code(self, gid: str, color: str, device: str) -> str:
        return self.seats.seat_code(gid, color, device)

    def move_seat(self, gid: str, color: str, code: str, name: Optional[str], device: str, address: str='') -> str:
        return self.seats.move_seat(gid, color, code, name, device, address)

    # rescue.py
    def rescue_seat(self, gid: str, color: str, code: Optional[str], device: str, address: str='') -> str:
        return self.rescue.rescue_seat(gid, color, code, device, address)

    def cancel_rescue(self, gid: str, color: str, device: str, ask: Optional[int]=None) -> str:
        return self.rescue.cancel_rescue(gid, color, device, ask)

    # host.py
    def hand_host(self, gid: str, color: str, device: str) -> str:
        return self.hosting.hand_host(gid, color, device)

    def table_host(self, gid: str, device: str) -> str:
        return self.hosting.table_host(gid, device)

    def claim_host(self, gid: str, code: Optional[str], device: str, address: str='') -> str:
        return self.hosting.claim_host(gid, code, device, address)

    def approve_host(self, gid: str, color: str, device: str) -> str:
        return self.hosting.approve_host(gid, color, device)

    # presence.py
    def join_live(self, gid: str, device: Optional[str], address: str):
        return self.live.join_live(gid, device, address)

    def attach_live(self, sub, sock, device: Optional[str]) -> LiveSocket:
        return self.live.attach_live(sub, sock, device)

    def leave_live(self, sub) -> None:
        return self.live.leave_live(sub)

    def refuse_live(self, sock, reason: str) -> LiveSocket:
        return self.live.refuse_live(sock, reason)

    def presence(self, gid: str) -> None:
        return self.live.presence(gid)

    # screens.py
    def notice_kiosk(self, device: str) -> None:
        return self.screens.notice_kiosk(device)

    def shown_game(self):
        return self.screens.shown_game()

    def screen_of(self, device: str) -> dict:
        return self.screens.screen_of(device)

    def show_display_code(self, device: str) -> Optional[str]:
        return self.screens.show_display_code(device)

    def become_display(self, code: str, device: str, address: str='') -> None:
        return self.screens.become_display(code, device, address)

    def skip_show(self, gid: str, device: str) -> str:
        return self.screens.skip_show(gid, device)

    # calls.py
    def act(self, gid: str, device: str, move: dict, expect_seq: Optional[int]) -> str:
        return self.calls.act(gid, device, move, expect_seq)

    def pass_for(self, gid: str, device: str, expect_seq: Optional[int]) -> str:
        return self.calls.pass_for(gid, device, expect_seq)

    def undo(self, gid: str, device: str, expect_seq: Optional[int]=None) -> str:
        return self.calls.undo(gid, device, expect_seq)

    # ending.py
    def abandon(self, gid: str, confirm: str, device: str) -> str:
        return self.ending.abandon(gid, confirm, device)

    def rematch(self, gid: str, rotate: bool, device: str) -> tuple[Game, str]:
        return self.ending.rematch(gid, rotate, device)

    def record(self, gid: str) -> dict:
        return self.ending.record(gid)

    # records.py
    def save_layout(self, name: str, tokens: dict, players: int, device: str) -> None:
        return self.records.save_layout(name, tokens, players, device)

    def merge_names(self, alias: str, into: str, device: Optional[str]) -> tuple[str, str]:
        return self.records.merge_names(alias, into, device)

    def test_leds(self, device: Optional[str]) -> None:
        return self.records.test_leds(device)

    def holds_seat(self, device: str) -> bool:
        return self.records.holds_seat(device)

    # scoreboard.py
    def create_board(self, options: dict, device: str) -> 'Game':
        return self.board.create_board(options, device)

    def enter_building(self, gid: str, nb: str, color: Optional[str], height: Optional[str], device: str) -> str:
        return self.board.enter_building(gid, nb, color, height, device)

    def enter_tokens(self, gid: str, color: str, tokens: list, device: str) -> str:
        return self.board.enter_tokens(gid, color, tokens, device)

    def enter_holder(self, gid: str, card: str, color: Optional[str], device: str) -> str:
        return self.board.enter_holder(gid, card, color, device)

    def enter_secret(self, gid: str, color: str, area: str, hood: Optional[str], device: str) -> str:
        return self.board.enter_secret(gid, color, area, hood, device)

    def name_colour(self, gid: str, color: str, name: str, device: str) -> str:
        return self.board.name_colour(gid, color, name, device)

    def tally_board(self, gid: str, device: str) -> str:
        return self.board.tally_board(gid, device)

    # pi_seats.py
    def seat_pi(self, gid: str, color: str, level: str, device: str) -> str:
        return self.pi_seats.seat_pi(gid, color, level, device)

    def free_pi(self, gid: str, color: str, device: str) -> str:
        return self.pi_seats.free_pi(gid, color, device)

    def pi_act(self, gid: str, seq: int, color: str, action: Action) -> None:
        return self.pi_seats.pi_act(gid, seq, color, action)

    # replays.py
    def replay(self, gid: str) -> dict:
        return self.replays.replay(gid)

    def show_replay(self, gid: str, step: Optional[int], device: str) -> str:
        return self.replays.show_replay(gid, step, device)

    # reviews.py
    def review(self, gid: str) -> dict:
        return self.review_requests.review(gid)

    def show_review(self, gid: str, on: bool, device: Optional[str]) -> str:
        return self.review_requests.show_review(gid, on, device)

    def hint(self, gid: str, device: Optional[str]) -> tuple[Action, float, Optional[Action], State, str]:
        return self.review_requests.hint(gid, device)

    # board_steps.py
    def undo_preview(self, gid: str, device: str) -> dict:
        return self.board_steps.undo_preview(gid, device)

    def board_done(self, gid: str, device: str, through: int) -> str:
        return self.board_steps.board_done(gid, device, through)

