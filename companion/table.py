"""The one place where a request becomes: check, append to the log, change state, tell phones, set LEDs."""
from __future__ import annotations

import hashlib
import random
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Optional

from companion import codes, pi_seat, views
from companion.asks import Ask, Turndowns
from companion.codes import Code
from companion.game.board import PERIPHERAL, load_board
from companion.game.board_entry import FinishedBoard, new_board
from companion.game.errors import RuleError
from companion.game.record import to_record
from companion.game.rules import apply, legal_actions, new_game
from companion.game.setup import (check_cards, check_colors, check_layout, check_mode, check_removed, deal, make_setup,
                                  random_layout)
from companion.game.state import Action, Bid, Pass, Seat, State
from companion.game.summary import decision
from companion.limits import ASKS_PER_SEAT, OWN
from companion.live.hub import Hub
from companion.live.timers import Timers
from companion.names import same as same_name
from companion.pi_seat import PiEvents, PiRequests, PiThinker
from companion.scoreboard import BoardEvents, BoardRequests
from companion.store import history
from companion.store.db import Store
from companion.store.first_game import first_game
from companion.store.notice import storage_notice

RECENT = 12   # log lines a game keeps for the pages (the short log, the call-over card, undo's notice)
CLASHES = 2   # physical-deal clashes in one lobby before the app deals the cards itself (issue 31)


class Refused(Exception):
    """A request the table turns down for a reason other than the rules (who you are, what phase)."""

    def __init__(self, status: int, key: str, **params):
        super().__init__(key)
        self.status = status
        self.key = key
        self.params = params


def device_id(cookie: str) -> str:
    """What the log stores for a device: a hash, so the database never holds a usable cookie."""
    return hashlib.sha256(cookie.encode()).hexdigest()[:32]


@dataclass
class Game(BoardEvents, PiEvents):
    """One game in memory: rebuilt from its log when first needed, then kept in step with it.

    It keeps its current state and its actions, not every state in between: undo replays from the setup.
    """

    id: str
    seq: int = 0
    host: Optional[str] = None
    mode: str = "family"
    colors: tuple[str, ...] = ()
    removed: frozenset[str] = frozenset()
    tokens: dict = field(default_factory=dict)
    deal: str = "app"
    names: dict = field(default_factory=dict)
    devices: dict = field(default_factory=dict)       # colour -> device id
    cards: dict = field(default_factory=dict)         # colour -> (area, neighborhood)
    clashes: int = 0                                  # physical-deal clashes in this lobby (CLASHES: the app deals)
    state: Optional[State] = None                      # None in the lobby
    board: Optional[FinishedBoard] = None              # a game played on the board alone, being typed in to score
    actions: list = field(default_factory=list)
    changes: dict = field(default_factory=dict)       # device -> seat, release, cards and setup events it logged
    entries: dict = field(default_factory=dict)       # device -> entries it logged on a board scored without the app
    layout: str = "random"                            # how the tokens were chosen: "random" or "hand"
    shown: bool = True                                # took the table display when created
    abandoned: bool = False
    next_game: Optional[str] = None                   # the rematch everyone moved on to
    from_game: Optional[str] = None
    notice: Optional[dict] = None                     # the last thing every screen announces
    # In memory only (a restart voids them): codes that hand a seat to a new device, a host claim.
    codes: dict = field(default_factory=dict, repr=False)           # colour -> Code
    host_claims: dict = field(default_factory=dict, repr=False)    # colour -> Code, oldest first: each its own
    offline: tuple = ()                               # seated colours with no live device
    displays: set = field(default_factory=set, repr=False)          # devices showing the table (shared)
    kiosks: set = field(default_factory=set, repr=False)            # the Pi's own screen (shared): table powers
    banned: set = field(default_factory=set, repr=False)            # devices the host took off a lobby seat
    newcomers: set = field(default_factory=set, repr=False)         # seats taken by devices new at this table
    first_game: frozenset = frozenset()               # seats in their first game here (companion/store/first_game.py)
    # In memory only: the address each lobby seat was taken from, addresses taken off a seat, the asks for gone
    # seats (companion/asks.py, oldest first), a seat moving with the table's confirmation ({"color", "device",
    # "stage": "moving", "token"}).
    seat_addresses: dict = field(default_factory=dict, repr=False)
    banned_addresses: set = field(default_factory=set, repr=False)
    asks: list = field(default_factory=list, repr=False)
    asked: int = field(default=0, repr=False)          # asks numbered so far (each device sees its own number)
    rescue: Optional[dict] = field(default=None, repr=False)
    # In memory only: the host skipped the table screen's reveal of the tally (a show, not a game event).
    show_skipped: bool = field(default=False, repr=False)
    away: Callable[[Optional[str]], bool] = field(default=lambda d: False, repr=False)
    rev: int = 0                                      # bumped on every change a view shows
    host_gone: Callable[[], bool] = field(default=lambda: False, repr=False)
    host_wait: Callable[[], Optional[float]] = field(default=lambda: None, repr=False)
    storage: Callable[[], Optional[dict]] = field(default=lambda: None, repr=False)   # store/notice.py
    # The last decisions as public log lines (companion.game.summary), newest last; bounded, rebuilt by replay.
    recent: deque = field(default_factory=lambda: deque(maxlen=RECENT), repr=False)
    undone: Optional[dict] = None                     # the line the last undo took back, until the next action
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _public: Optional[tuple[int, dict]] = field(default=None, repr=False)
    _public_json: Optional[tuple[dict, str]] = field(default=None, repr=False)

    @property
    def phase(self) -> str:
        if self.abandoned:
            return "abandoned"
        if self.state is None:
            return "lobby" if self.board is None else "board"
        return "finished" if self.state.finished else "playing"

    @property
    def in_progress(self) -> bool:
        """Being played, or a lobby someone sat down in: a new game may not quietly take its table."""
        return self.phase == "playing" or (self.phase in ("lobby", "board") and bool(self.devices))

    def can_host(self, device: Optional[str]) -> bool:
        """The host's device, or the Pi's own screen (a display claimed by code is a screen, not a host)."""
        return device is not None and (device == self.host or device in self.kiosks)

    @property
    def cards_locked(self) -> bool:
        """A physical deal once every seat has entered its cards: checked together, then fixed (entries that
        clash, from a log written before every completion was checked, are open to enter again). The Pi's seats
        are dealt at the start, from what the people's entries leave."""
        people = pi_seat.people(self)
        return (self.deal == "physical" and self.state is None and all(c in self.cards for c in people)
                and not clashing(self.mode, [self.cards[c] for c in people]))

    def seat_of(self, device: Optional[str]) -> Optional[str]:
        for color, d in self.devices.items():
            if d == device:
                return color
        return None

    # -- the log's events, applied to memory (already checked; replay uses the same code) --

    def mutate(self, kind: str, body: dict, device: Optional[str], after: Optional[State] = None) -> None:
        """Apply one logged event: the same method whether it was just appended or replayed at start."""
        on = getattr(self, "on_" + kind, None)
        if on is None:
            raise ValueError(f"unknown event kind {kind!r}")
        if kind in ("seat", "release", "cards", "setup", "pi"):
            self.changes[device] = self.changes.get(device, 0) + 1
        elif kind in ("building", "tokens", "holder", "secret", "name"):
            self.entries[device] = self.entries.get(device, 0) + 1
        on(body, device, after)
        self.seq += 1
        self.rev += 1

    def on_create(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """A new game: its host, setup and any seats carried over from the game before."""
        self.host = device
        self._configure(body)
        self.shown = body.get("shown", True)
        self.from_game = body.get("from")
        if body.get("board"):
            self.board = new_board(self.mode, [Seat(c) for c in self.colors], self.removed)
            self.names.update(body.get("names") or {})   # named as the colours sat down at the table
        for color, (name, holder) in (body.get("seats") or {}).items():
            self.devices[color], self.names[color] = holder, name

    def on_setup(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """The host changed the setup; a seat taken away takes its cards with it."""
        cards = dict(self.cards)
        self._configure(body)
        if body.get("removed_seat"):
            self.cards = {c: v for c, v in cards.items() if c in self.colors}
            self.notice = {"key": "notice_seat_removed", "color": body["removed_seat"], "seq": self.seq + 1}
            self._clashed(body)   # the last seat without cards went: the entries were checked like a last entry

    def on_move(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """A seat moved to a new phone (by its code or a rescue); the host role travels with it."""
        old = self.devices.get(body["color"])
        self.devices[body["color"]] = device
        if body.get("name"):
            self.names[body["color"]] = body["name"]
        if old is not None and old == self.host:
            self.host = device     # the host role travels with its seat
        self.codes.pop(body["color"], None)
        self.newcomers.discard(body["color"])
        if self.rescue is not None and self.rescue["color"] == body["color"]:
            self.rescue = None
        self.asks = [a for a in self.asks if a.color != body["color"]]
        self.notice = {"key": "notice_seat_moved", "color": body["color"], "seq": self.seq + 1}

    def on_host(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """The host role handed to a seat, or to the table itself."""
        self.host = self.devices[body["color"]] if body.get("color") else device
        self.host_claims = {}
        self.notice = {"key": "notice_host" if body.get("color") else "notice_host_table",
                       "color": body.get("color"), "seq": self.seq + 1}

    def on_abandon(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """The table gave the game up: it is over without a winner."""
        self.abandoned = True
        self.notice = {"key": "notice_abandoned", "seq": self.seq + 1}

    def on_rematch(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """The next game at this table, for every phone to follow."""
        self.next_game = body["game"]
        self.notice = {"key": "notice_rematch", "game": body["game"], "seq": self.seq + 1}

    def on_seat(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """A device sat down on a colour."""
        self.devices[body["color"]] = device
        self.names[body["color"]] = body["name"]
        if body.get("new"):
            self.newcomers.add(body["color"])
        else:
            self.newcomers.discard(body["color"])

    def on_release(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """A seat freed: in the lobby its name and cards go; mid-game every screen is told."""
        old = self.devices.pop(body["color"], None)
        self.newcomers.discard(body["color"])
        self.seat_addresses.pop(body["color"], None)
        if self.state is None and old is not None and old != device:
            self.banned.add(old)   # taken off a lobby seat by the host: it does not sit again in this game
        if self.state is None:
            self.names.pop(body["color"], None)
            self.cards.pop(body["color"], None)
        else:
            self.notice = {"key": "notice_released", "color": body["color"], "seq": self.seq + 1}

    def on_cards(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """A seat's secret cards (dealt by hand); a clash sends every seat back to enter again."""
        self.cards[body["color"]] = (body["area"], body.get("neighborhood"))
        self._clashed(body)

    def _clashed(self, body: dict) -> None:
        """Checked once every seat had entered: a clash clears every entry and names no seat and no card
        (older logs named two seats: they clear all the same); the last one allowed hands the deal to the app."""
        if not body.get("clash"):
            return
        self.cards = {}
        self.clashes += 1
        if body.get("app_deals"):
            self.deal = "app"
        self.notice = {"key": "notice_cards_app_deals" if body.get("app_deals") else "notice_cards_clash",
                       "seq": self.seq + 1}

    def on_start(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """The game begins: the cards are final and the board is set up."""
        self.cards = {c: tuple(v) for c, v in body["cards"].items()}
        self.first_game = frozenset(body.get("first_game", ()))
        self.state = new_game(self.setup())

    def on_action(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """A bid or a pass, already checked by the rules."""
        action = _action(body)
        before = self.state
        # `after`: the state the table already computed when it checked the action.
        self.state = after if after is not None else apply(self.state, action)
        self.actions.append(action)
        self.recent.append(decision(before, action, self.state))
        self.undone = None

    def on_undo(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        """The last action taken back: the state is replayed without it."""
        also = []
        for _ in range(body.get("count", 1)):   # more than one: the Pi's moves since the person's action too
            self.undone = dict(self.recent.pop()) if self.recent else {}
            self.actions.pop()
            also.append(self.undone)
        if len(also) > 1:
            self.undone["also"] = also[-2::-1]
        self.undone["seq"] = self.seq + 1
        self.show_skipped = False        # a game ended again is shown again
        state = new_game(self.state.setup)
        for action in self.actions:
            state = apply(state, action)
        self.state = state

    def _configure(self, body: dict) -> None:
        self.mode = body["mode"]
        self.colors = tuple(body["players"])
        self.removed = frozenset(body["removed_districts"])
        self.tokens = dict(body["tokens"])
        self.deal = body["deal"]
        self.layout = body.get("layout", "random")
        for gone in set(self.devices) - set(self.colors):
            self.devices.pop(gone)
            self.names.pop(gone, None)
            self.newcomers.discard(gone)
            self.seat_addresses.pop(gone, None)
        self.cards = {}

    def setup(self):
        seats = [Seat(c, self.names.get(c, ""), *self.cards.get(c, (None, None))) for c in self.colors]
        return make_setup(self.mode, seats, self.removed, self.tokens)


def _removed_for(players: int, removed: frozenset) -> frozenset:
    """Districts out of play for a smaller table: those already out stay out, and the next the rules allow joins them."""
    need = 4 - players
    if len(removed) >= need:
        return frozenset(removed)
    pairs = load_board().district_pairs
    for pair in sorted(pairs, key=lambda p: sorted(PERIPHERAL.index(d) for d in p)):
        if need == 2 and removed <= pair:
            return pair
    return frozenset({next(d for d in PERIPHERAL if d not in removed)}) if need == 1 else frozenset(removed)


def _counted(address: Optional[str]) -> bool:
    """Whether per-address rules count this address: not the Pi itself, nor a caller with none (in-process)."""
    return bool(address) and address not in OWN


def clashing(mode: str, entries: list) -> bool:
    """Whether two entries (each (area, neighborhood)) share a card: one card entered twice."""
    seen: set = set()
    for entry in entries:
        mine = {x for x in entry if x}
        if mine & seen:
            return True
        seen |= mine
    return False


def _action(body: dict) -> Action:
    if body.get("pass"):
        return Pass(body["player"])
    return Bid(body["player"], body["bid"], body["value"])


class Table(BoardRequests, PiRequests):
    """The games on this Pi being played (ended ones are read from SQLite when opened), the log, listeners, LEDs."""

    OPENED = 8   # ended games kept in memory after someone opened them (a history page, an old phone link)

    def __init__(self, store: Store, hub: Hub, leds=None, host_away: float = 120.0, move_wait: float = 30.0,
                 bot_delay: float = 2.0, bot_process: bool = True):
        self.store = store
        self.hub = hub
        # A socket closed: the table may now show a seat offline. Told from the live loop's thread, which
        # must never wait for a game's lock (a bid's fsync): the timers' one thread takes it from there.
        self.timers = Timers()
        hub.on_presence = lambda gid: self.timers.soon(("presence", gid), lambda: self.presence(gid))
        self.leds = leds
        self.host_away = host_away        # seconds the host's device must be gone before a player may claim it
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
        self.pi = PiThinker(self, bot_delay, bot_process)   # the seats the Pi plays: it thinks off the request path

    def load(self) -> None:
        """Replay the games not ended, in the order the log was written, so the table shows what it showed:
        the game the host chose, or else the game that moved last (by the log's count, never the clock).
        An ended game is a summary row, read when someone opens it; one that ended before summaries
        existed is replayed once, here, and its summary written."""
        unsummarised = {gid for gid, _ in self.store.open_games()}
        last = self.store.last_moved()
        wanted = unsummarised | ({last} if last else set())   # the game on the table display may have ended: it is still shown
        for gid, seq, kind, body, device in self.store.events_of(wanted):
            if gid in self.broken:
                continue
            game = self.games.get(gid)
            if game is None:
                game = self.games[gid] = self._new_game(gid)
            try:
                if seq != game.seq + 1:
                    raise ValueError(f"event {seq} follows event {game.seq}")
                game.mutate(kind, body, device)
            except Exception as e:  # any corruption: hand-edited file, older format, bug
                # One unreadable game must not keep the others (and the table) from starting.
                self.broken[gid] = f"event {game.seq + 1}: {e}"
                del self.games[gid]
                if self.current == gid:
                    self.current = None
                continue
            self._follow(game, kind, body)
        backfill = []
        for gid, game in self.games.items():
            if self._recount(game):   # every seat offline until its phone's socket opens
                self._wake_for_away(gid, self.host_away + 0.5)
        for gid, game in list(self.games.items()):
            if game.phase not in history.ENDED:
                continue
            if gid in unsummarised:
                backfill.append(history.record_play(self._summary(game, game.state), game.seq))
            if gid != self.current:
                del self.games[gid]
        if backfill:   # one transaction, one fsync
            self.store.write(lambda conn, at: [write(conn, at) for write in backfill])
        if self.current:
            self._show_leds(self.games[self.current])
        for game in list(self.games.values()):
            with game.lock:
                self.pi.after(game)   # a Pi seat whose turn it was acts again after a restart

    def _replay(self, gid: str) -> Optional[Game]:
        game = self._new_game(gid)
        try:
            for seq, kind, body, device in self.store.events(gid):
                game.mutate(kind, body, device)
        except Exception as e:  # any corruption: hand-edited file, older format, bug
            # One unreadable game must not keep the others (and the table) from starting.
            self.broken[gid] = f"event {game.seq + 1}: {e}"
            return None
        self._recount(game)
        return game if game.seq else None

    def find(self, gid: str) -> Optional[Game]:
        """A game in memory, or an ended one read from its log (kept among the few last opened)."""
        with self._lock:
            game = self.games.get(gid)
            if game is None:
                game = self.opened.get(gid)
                if game is not None:
                    self.opened.move_to_end(gid)
            if game is not None or gid in self.broken or len(gid) > 64:
                return game
        game = self._replay(gid)   # outside the table's lock: a slow read holds up no other game
        if game is None:
            return None
        with self._lock:
            known = self.games.get(gid) or self.opened.get(gid)
            if known is not None:
                return known
            if game.phase in history.ENDED:
                self.opened[gid] = game
                self._trim()
            else:
                self.games[gid] = game
        return game

    def _trim(self) -> None:
        while len(self.opened) > self.OPENED:
            self.opened.popitem(last=False)

    def _keep(self, game: Game, before: Optional[str]) -> None:
        """After a change: this game stays in memory; an ended game the table no longer shows leaves it."""
        with self._lock:
            self.games[game.id] = game
            self.opened.pop(game.id, None)
            old = self.games.get(before) if before and before != self.current else None
            if old is not None and old.phase in history.ENDED:
                del self.games[before]
                self.opened[before] = old
                self._trim()

    def _follow(self, game: Game, kind: str, body: dict) -> None:
        """Which game the table display and the LEDs show after this event. A new game takes the table
        when it was allowed to (`shown`), an abandoned one lets go of it, and any other move takes it only
        from a game no longer in progress: never from a game being played, whatever changed last."""
        if kind == "create" and "shown" in body:
            if body["shown"]:
                self.current = game.id
            return
        if kind == "abandon":
            if self.current == game.id:
                self.current = None
            return
        if kind == "rematch" or self.current == game.id:
            return
        shown = self.games.get(self.current) if self.current else None
        if shown is None or not shown.in_progress:
            self.current = game.id

    def _new_game(self, gid: str) -> Game:
        game = Game(gid, displays=self.displays, kiosks=self.kiosks)
        game.host_gone = lambda: self.host_away_now(game)
        game.host_wait = lambda: self.host_wait(game)
        game.away = lambda device: self.hub.away_for(game.id, device) >= self.host_away
        game.storage = self.storage_notice
        return game

    def storage_notice(self) -> Optional[dict]:
        """What every screen says about the storage (companion/store/notice.py), or None."""
        return storage_notice(self.store, lambda gid: getattr(self.games.get(gid), "seq", None))

    def _storage_changed(self) -> None:
        """The storage notice came or went: every game in memory sends its views again (each under its own lock,
        on the timers' thread: a commit holding one game's lock never waits for another's)."""
        for gid in list(self.games):
            self.timers.soon(("storage", gid), partial(self._retell, gid))

    def _retell(self, gid: str) -> None:
        game = self.games.get(gid)
        if game is not None:
            with game.lock:
                game.rev += 1
                self._tell(game)

    def get(self, gid: str) -> Game:
        """A game by its code, as typed: any case (old mixed-case codes still open as they were)."""
        game = self.find(gid) or self.find(codes.normal(gid))
        if game is None:
            raise Refused(404, "no_game")
        return game

    def _summary(self, game: Game, state: Optional[State], status: Optional[str] = None) -> dict:
        status = status or ("finished" if state is not None and state.finished else game.phase)
        summary = history.summarize(game.id, state, status, game.names, game.mode, game.colors)
        if game.board is not None:
            summary["from_board"] = True   # scored from the board: no bids, no record of moves
            for seat in summary["players"]:
                seat["start"] = False          # nobody knows who opened the first call
        return summary

    def view_json(self, gid: str, device: Optional[str]) -> str:
        """This device's view of a game, as the JSON text its socket gets too."""
        return views.view_json(self.get(gid), device)

    def view(self, gid: str, device: Optional[str]) -> Optional[dict]:
        try:
            return views.view(self.get(gid), device)
        except Refused:
            return None

    # -- the one path every change takes --

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

    # -- what devices may ask --

    def create(self, options: dict, device: str, extra: Optional[dict] = None) -> Game:
        """A new game; it takes the table display only if no game is in progress there, or its host asks."""
        body = self._check_options(options)
        body.update(extra or {})
        return self.create_from(body, device)

    def create_from(self, body: dict, device: str) -> Game:
        """A new game from its checked create event (a game to play, or a board to score)."""
        with self._lock:
            gid = codes.new(codes.GAME_LENGTH)
            while gid in self.games or self.store.exists(gid):
                gid = codes.new(codes.GAME_LENGTH)
            shown_now = self.games.get(self.current) if self.current else None
            body["shown"] = (shown_now is None or not shown_now.in_progress or shown_now.can_host(device)
                             or body.get("from") == shown_now.id)
            game = self._new_game(gid)
            self.games[gid] = game
        with game.lock:
            try:
                self._commit(game, "create", body, device)
            except BaseException:
                with self._lock:  # not in the log: not a game
                    self.games.pop(gid, None)
                raise
        return game

    def _show(self, gid: Optional[str]) -> None:
        """The table display and the LEDs move to this game (or to none)."""
        self.current = gid
        if gid:
            self._show_leds(self.games[gid])
        elif self.leds is not None:
            self.leds.show("lobby", [], None, [], None)

    def change_setup(self, gid: str, options: dict, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            self._lobby_only(game)
            if game.clashes >= CLASHES and options.get("deal") == "physical":
                raise Refused(409, "app_deals_now")   # the deal the table was told the app makes stays the app's
            return self._commit(game, "setup", self._check_options(options), device)

    def _check_options(self, o: dict) -> dict:
        mode = check_mode(o["mode"])
        colors = check_colors(o["players"])
        removed = check_removed(len(colors), o.get("removed_districts") or [])
        seed = o.get("seed")
        layout = o.get("layout", "random")
        if layout == "random":
            rng = random.Random(seed if seed is not None else secrets.randbits(64))
            tokens = random_layout(len(colors), removed, rng)
        else:
            tokens = dict(check_layout(len(colors), removed, layout["tokens"]))
        return {"mode": mode, "players": list(colors), "removed_districts": sorted(removed),
                "tokens": tokens, "deal": o.get("deal", "app"), "seed": seed,
                "layout": "random" if layout == "random" else "hand"}

    # -- who reaches a seat: the one rule (docs/API.md, "Who may see a seat's cards") --

    def _may_sit(self, game: Game, color: str, device: str, address: str) -> None:
        """Checks every way to a seat shares: a screen, a second browser of a player or of the host, a device
        the host took off a seat never sits down (lobby seats stay free to take for anyone else)."""
        if device in self.displays:
            raise Refused(403, "display_no_seat")
        mine = game.seat_of(device)
        if mine is not None and mine != color:
            raise Refused(409, "one_seat", color=mine)
        if mine is None and device == game.host and game.phase not in ("lobby", "board"):
            raise Refused(403, "host_no_seat")   # issue 14: the host reads no seat's cards
        if device in game.banned or (_counted(address) and address in game.banned_addresses):
            raise Refused(403, "removed_here")

    def _code_keys(self, device: str, address: str) -> list[str]:
        """Who pays for a wrong code: this device, and its address (fresh cookies are free; the Pi is not counted)."""
        return [f"device:{device}"] + ([f"address:{address}"] if _counted(address) else [])

    def _try_code(self, held: Optional[Code], typed: str, device: str, address: str) -> None:
        """A code is checked only when its guesser may guess; a wrong one makes the guesser wait, never voids it."""
        keys = self._code_keys(device, address)
        wait = self.guesses.wait(keys)
        if wait > 0:
            raise Refused(429, "code_wait", seconds=max(1, int(wait + 0.999)))
        if held is None or not held.check(typed):
            self.guesses.wrong(keys)
            raise Refused(403, "bad_code")
        self.guesses.right(keys[:1])

    def claim_seat(self, gid: str, color: str, name: str, device: str, address: str = "") -> str:
        game = self.get(gid)
        with game.lock:
            self._seat_in_game(game, color)
            holder = game.devices.get(color)
            if holder == device and game.names.get(color) == name:
                return views.view_json(game, device)
            if holder is not None and holder != device:
                # Said, never hidden: the page asks to pick again, it never seats anyone elsewhere.
                raise Refused(409, "seat_taken", color=color, name=game.names.get(color) or "")
            self._may_sit(game, color, device, address)
            if holder is None and game.phase not in ("lobby", "board"):
                # A started game's free seat holds cards: only its own phone's code or the table's confirmation.
                raise Refused(403, "code_needed", color=color)
            if holder is None and _counted(address) and any(
                    a == address for c, a in game.seat_addresses.items() if game.devices.get(c) not in (None, device)):
                raise Refused(409, "one_seat_here")   # fresh cookies from one machine do not fill the table
            if any(same_name(other, name) for c, other in game.names.items() if c != color):
                raise Refused(409, "name_taken")   # two "Ann"s at one table: nobody knows whose turn it is
            body = {"color": color, "name": name}
            if holder is None and device != game.host and not self.store.device_known(device, game.id):
                body["new"] = True   # the host sees it: a device never seen at this table before
            text = self._commit(game, "seat", body, device)
            if holder is None:
                game.seat_addresses[color] = address
            return text

    def release_seat(self, gid: str, color: str, device: str, address: str = "") -> str:
        """The host frees a lobby seat (no cards yet); the device taken off it does not sit again here."""
        game = self.get(gid)
        with game.lock:
            self._host_on_seat(game, color, device)
            if game.phase != "lobby":
                raise Refused(403, "seat_stays", seconds=int(self.host_away))
            if game.cards_locked:
                raise Refused(409, "cards_locked")   # freeing a seat must not reopen the deal for another guess
            holder = game.devices.get(color)
            if holder != device and game.seat_addresses.get(color):
                game.banned_addresses.add(game.seat_addresses[color])
            return self._commit(game, "release", {"color": color}, device)

    # -- seats on new devices --

    def seat_code(self, gid: str, color: str, device: str) -> str:
        """A code for this seat, shown only on the seat's own device: it hands its seat on, nobody else does."""
        game = self.get(gid)
        with game.lock:
            self._seat_in_game(game, color)
            if device != game.devices.get(color):
                raise Refused(403, "not_your_seat")
            game.codes[color] = Code.fresh(device)
            game.rev += 1
            return views.view_json(game, device)

    def move_seat(self, gid: str, color: str, code: str, name: Optional[str], device: str,
                  address: str = "") -> str:
        """The device with the code the seat's own phone showed takes the seat; the old device becomes a watcher."""
        game = self.get(gid)
        with game.lock:
            if color not in game.colors:
                raise Refused(404, "no_seat", color=color)
            if game.phase == "abandoned":
                raise Refused(409, "abandoned")
            if game.devices.get(color) == device:
                raise Refused(409, "one_seat", color=color)
            self._may_sit(game, color, device, address)
            held = game.codes.get(color)
            if held is not None and held.issuer != game.devices.get(color):
                held = None   # a code from before the seat changed hands is no longer the seat's
            self._try_code(held, code, device, address)
            if not game.names.get(color) and not name:
                raise Refused(400, "missing_field", field="name")
            return self._commit(game, "move", {"color": color, "name": name or None}, device)

    def rescue_seat(self, gid: str, color: str, code: Optional[str], device: str, address: str = "") -> str:
        """A seat whose phone is gone moves to a device the table confirms: each asking device gets its own ask,
        numbered on its screen and listed with its own code on the Pi's screen only; the device typing its code
        is announced on every screen for move_wait seconds (its old phone may cancel), then takes the seat.
        Another device asking never holds the seat from it."""
        game = self.get(gid)
        with game.lock:
            self._seat_in_game(game, color)
            if game.phase != "playing":
                raise Refused(409, "not_playing")
            self._may_sit(game, color, device, address)
            self._person_seat(game, color)
            holder = game.devices.get(color)
            if holder is not None and not game.away(holder):
                raise Refused(409, "seat_not_gone", color=color, seconds=int(self.host_away))
            r = game.rescue
            if r is not None and r["color"] == color:
                if r["device"] == device:
                    return views.view_json(game, device)
                raise Refused(409, "seat_moving", color=color)
            keys = self._code_keys(device, address)
            wait = self.turndowns.wait(keys)
            if wait > 0:
                raise Refused(429, "ask_wait", seconds=max(1, int(wait + 0.999)))
            game.asks = [a for a in game.asks if a.open]
            mine = next((a for a in game.asks if a.device == device and a.color == color), None)
            if code is None:
                if mine is None:
                    self._new_ask(game, color, device, address)
                return views.view_json(game, device)
            if r is not None:
                raise Refused(409, "seat_moving", color=r["color"])   # one move before the table at a time
            self._try_code(mine.code if mine else None, code, device, address)
            token = secrets.token_hex(8)
            game.rescue = {"color": color, "device": device, "address": address, "stage": "moving", "token": token}
            game.asks = [a for a in game.asks if a.color != color and a.device != device]
            game.rev += 1
            self._tell(game)
            self.timers.at(("seat move", game.id, token), time.monotonic() + self.move_wait,
                           lambda: self._finish_rescue(game.id, token))
            return views.view_json(game, device)

    def _new_ask(self, game: Game, color: str, device: str, address: str) -> None:
        """One more ask for a gone seat: one per device (its ask for another seat goes) and per address."""
        here = [a for a in game.asks if a.color == color and a.device != device]
        if _counted(address) and any(a.address == address for a in here):
            raise Refused(409, "one_ask_here", color=color)
        if len(here) >= ASKS_PER_SEAT:
            raise Refused(429, "asks_full", color=color)
        game.asks = [a for a in game.asks if a.device != device]
        game.asked += 1
        game.asks.append(Ask(color, device, address, game.asked, Code.fresh(device), self.store.last_played(device)))
        game.rev += 1
        self._tell(game)

    def cancel_rescue(self, gid: str, color: str, device: str, ask: Optional[int] = None) -> str:
        """The seat's own phone (back after all) stops every ask and move for it; the asking device its own; the
        Pi's screen one ask (`ask`), or the move and every ask: those devices and addresses wait to ask again."""
        game = self.get(gid)
        with game.lock:
            r = game.rescue if game.rescue is not None and game.rescue["color"] == color else None
            asks = [a for a in game.asks if a.color == color and a.open]
            if device in self.kiosks:
                gone = [a for a in asks if ask is None or a.number == ask]
                if ask is not None and not gone:
                    raise Refused(409, "no_seat_move", color=color)
                moving = r if ask is None else None
                turned = [(a.device, a.address) for a in gone] + ([(r["device"], r["address"])] if moving else [])
                for d, a in turned:
                    self.turndowns.cancelled(self._code_keys(d, a))
            elif device == game.devices.get(color):
                gone, moving = asks, r
            else:
                gone = [a for a in asks if a.device == device]
                moving = r if r is not None and r["device"] == device else None
                if not gone and moving is None and (r is not None or asks):
                    raise Refused(403, "not_your_seat")
            if not gone and moving is None:
                raise Refused(409, "no_seat_move", color=color)
            game.asks = [a for a in game.asks if not any(a is b for b in gone)]
            if moving is not None:
                game.rescue = None
            game.rev += 1
            self._tell(game)
            return views.view_json(game, device)

    def _finish_rescue(self, gid: str, token: str) -> None:
        game = self.games.get(gid)
        if game is None:
            return
        with game.lock:
            r = game.rescue
            if r is None or r["token"] != token or r["stage"] != "moving" or game.phase != "playing":
                return
            try:
                self._commit(game, "move", {"color": r["color"], "name": None, "confirmed": "table"}, r["device"])
            except Exception:   # the log did not take it: the seat stays, and every screen says no move
                game.rescue = None
                game.rev += 1
                self._tell(game)

    def remove_seat(self, gid: str, color: str, device: str) -> str:
        """Fewer players: the seat goes, and districts and tokens follow the rules for the new count."""
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            self._lobby_only(game)
            if color not in game.colors:
                raise Refused(404, "no_seat", color=color)
            if color in game.devices:
                raise Refused(409, "seat_taken", color=color, name=game.names.get(color) or "")
            players = [c for c in game.colors if c != color]
            removed = _removed_for(len(players), game.removed)
            options = {"mode": game.mode, "players": players, "removed_districts": sorted(removed),
                       "deal": game.deal, "layout": "random"}
            if game.layout == "hand" and len(players) == len(game.colors):
                options["layout"] = {"tokens": game.tokens}
            body = self._check_options(options)
            body["removed_seat"] = color
            if game.deal == "physical":
                # never a completed deal left unchecked (the Pi's seats are dealt at the start, from what is left)
                people = [c for c in players if not pi_seat.level_of(game.devices.get(c))]
                body.update(self._deal_check(game, game.cards, people))
            return self._commit(game, "setup", body, device)

    # -- the host role --

    def hand_host(self, gid: str, color: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_on_seat(game, color, device)
            self._person_seat(game, color)
            return self._commit(game, "host", {"color": color}, device)

    def table_host(self, gid: str, device: str) -> str:
        """The table display takes the host role (it already may act as host; this makes it the host)."""
        game = self.get(gid)
        with game.lock:
            if device not in self.kiosks:
                raise Refused(403, "not_table")
            return self._commit(game, "host", {}, device)

    def claim_host(self, gid: str, code: Optional[str], device: str, address: str = "") -> str:
        """A seated player asks for the role of a host long gone; the table confirms (its own code on the Pi's
        screen, or another player). Each claimer's code is its own: a second claim never voids the first."""
        game = self.get(gid)
        with game.lock:
            color = self._seated(game, device)
            if device == game.host:
                raise Refused(409, "already_host")
            if code is None and self._nobody_to_confirm(game, color):
                # A 2-player game whose host is gone: the host-away wait alone is the check (docs/API.md).
                return self._commit(game, "host", {"color": color, "confirmed": "wait"}, device)
            if self.hub.away_for(game.id, game.host) < self.host_away:
                raise Refused(409, "host_here", seconds=int(self.host_away))
            held = game.host_claims.get(color)
            if held is not None and (held.expired or held.issuer != device):
                held = None   # expired, or made for the seat's earlier phone
            if code is None:
                if held is None:
                    game.host_claims.pop(color, None)
                    game.host_claims[color] = Code.fresh(device)
                    game.rev += 1
                    self._tell(game)
                return views.view_json(game, device)
            self._try_code(held, code, device, address)
            return self._commit(game, "host", {"color": color, "confirmed": "code"}, device)

    def approve_host(self, gid: str, color: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            mine = game.seat_of(device)
            if mine is None:
                raise Refused(403, "not_seated")
            claim = game.host_claims.get(color)
            if claim is None or claim.expired:
                raise Refused(409, "no_claim", color=color)
            if mine == color:
                raise Refused(403, "approve_other")
            if self.hub.away_for(game.id, game.host) < self.host_away:
                raise Refused(409, "host_here", seconds=int(self.host_away))
            return self._commit(game, "host", {"color": color, "confirmed": mine}, device)

    def presence(self, gid: str) -> None:
        """A socket opened or closed: tell the table which seats have no live device."""
        game = self.games.get(gid)
        if game is None:
            return
        with game.lock:
            live = self.hub.live(game.id)
            if not self._recount(game, live):
                return
            game.rev += 1
            self._tell(game)
        if game.host not in live or game.offline:
            self._wake_for_away(gid, self.host_away + 0.5)

    def _wake_for_away(self, gid: str, delay: float) -> None:
        """When an absence reaches the limit, the pages offer the host claim or the seat's move: a job on the
        one timer thread, at most one per game and second however often sockets churn (a later change never
        pushes an earlier wake back)."""
        due = time.monotonic() + delay
        self.timers.at(("away", gid, int(due)), due, lambda: self._tell_if_away(gid))

    def _recount(self, game: Game, live: Optional[set] = None) -> bool:
        """Which seats have no live device, from the sockets open now (a seat with none is offline, also right
        after a restart); True when that changed."""
        live = self.hub.live(game.id) if live is None else live
        offline = tuple(c for c in game.colors if c in game.devices and game.devices[c] not in live
                        and not pi_seat.level_of(game.devices[c]))   # the Pi's seats need no phone
        changed, game.offline = offline != game.offline, offline
        return changed

    def _tell_if_away(self, gid: str) -> None:
        game = self.games.get(gid)
        if game is not None and game.phase in ("lobby", "playing"):
            with game.lock:
                game.rev += 1
                self._tell(game)
                # The next absence still short of the limit (a seat or the host gone later) gets its own wake.
                away = [d for d in {game.host, *(game.devices.get(c) for c in game.offline)} if d is not None]
                gone_for = [self.hub.away_for(game.id, d) for d in away]
                left = [self.host_away - a for a in gone_for if 0 < a < self.host_away]
            if left:
                self._wake_for_away(gid, min(left) + 0.5)

    def host_away_now(self, game: Game) -> bool:
        return self.hub.away_for(game.id, game.host) >= self.host_away

    def host_wait(self, game: Game) -> Optional[float]:
        """Seconds until a player may claim the role of a host whose phone is gone (0: now); None while it is here."""
        away = self.hub.away_for(game.id, game.host)
        return None if away <= 0 else max(0.0, self.host_away - away)

    def show_display_code(self, device: str) -> Optional[str]:
        """Asked on the Pi's own screen only: a code that makes another device a table display (a screen)."""
        if device not in self.kiosks:
            raise Refused(403, "not_table")
        if self.display_code is None or self.display_code.expired:
            self.display_code = Code.fresh(device)
        return self.display_code.value

    def become_display(self, code: str, device: str, address: str = "") -> None:
        """A device holding the code on the Pi's screen becomes a table display: it shows what the Pi's screen
        shows of the public view, and nothing more (no host actions, no codes, no seat)."""
        with self._lock:
            if any(game.seat_of(device) or game.host == device for game in self.games.values()
                   if game.phase in ("lobby", "playing")):
                raise Refused(409, "display_seated")
            self._try_code(self.display_code, code, device, address)
            self.displays.add(device)
            self.display_code = None
        for game in list(self.games.values()):
            game.rev += 1

    # -- acting for an absent player, ending, playing again --

    def pass_for(self, gid: str, device: str, expect_seq: Optional[int]) -> str:
        """The host passes for the player to act whose phone is gone; the log keeps who did it."""
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            if expect_seq is not None and expect_seq != game.seq:
                raise Refused(409, "stale")
            st = game.state
            if st is None or game.phase != "playing":
                raise Refused(409, "not_started" if st is None else "not_playing")
            color = st.to_act_color
            self._person_seat(game, color)
            if game.devices.get(color) in self.hub.live(game.id):
                raise Refused(409, "player_here", color=color)
            if not legal_actions(st).can_pass:
                raise RuleError("start_cannot_pass", player=color)
            action = Pass(color)
            after = apply(st, action)
            body = dict(action.to_json(), by_host=True)
            return self._commit(game, "action", body, device,
                                call_ended=sum(after.built_count) > sum(st.built_count), after=after)

    def abandon(self, gid: str, confirm: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            if game.phase not in ("lobby", "playing", "board"):
                raise Refused(409, "not_playing")
            if codes.normal(confirm) != codes.normal(game.id):
                raise Refused(400, "confirm_game", game=game.id)
            return self._commit(game, "abandon", {"actions": len(game.actions)}, device)

    def skip_show(self, gid: str, device: str) -> str:
        """The host ends the table screen's line-by-line reveal of the tally: every line shows at once.
        Not logged (nothing in the game changes) and never waited for: the phones show the tally at once anyway."""
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            if game.phase != "finished":
                raise Refused(409, "show_not_over")
            if not game.show_skipped:
                game.show_skipped = True
                game.rev += 1
                self._tell(game)
            return views.view_json(game, device)

    def rematch(self, gid: str, rotate: bool, device: str) -> tuple[Game, str]:
        """Same seats, names and devices in a new lobby; every screen of the old game moves there."""
        old = self.get(gid)
        with old.lock:
            self._host_only(old, device)
            if old.phase not in ("finished", "abandoned"):
                raise Refused(409, "not_finished")
            if old.next_game:
                raise Refused(409, "rematch_made", game=old.next_game)
            colors = list(old.colors)
            if rotate:
                colors = colors[1:] + colors[:1]   # the next player clockwise starts
            options = {"mode": old.mode, "players": colors, "removed_districts": sorted(old.removed),
                       "deal": "app" if old.deal == "board" else old.deal,   # a board scored: next, a game played
                       "layout": {"tokens": old.tokens} if old.layout == "hand" else "random"}
            seats = {c: [old.names[c], old.devices[c]] for c in colors if c in old.devices and old.names.get(c)}
            new = self.create(options, old.host, extra={"from": old.id, "seats": seats, "rotate": rotate})
            text = self._commit(old, "rematch", {"game": new.id, "rotate": rotate}, device)
        return new, text

    def enter_cards(self, gid: str, color: str, area: str, hood: Optional[str], device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._lobby_only(game)
            if game.devices.get(color) != device:
                raise Refused(403, "not_your_seat")
            if game.deal != "physical":
                raise Refused(409, "app_deals")
            if game.cards_locked:
                raise Refused(409, "cards_locked")
            # Checked against this game's decks only. Never against the other players' cards one by one:
            # a "dealt twice" answer would tell this phone what another player holds.
            if game.mode == "family" and len(game.colors) == 2 and area == "borders":
                raise RuleError("no_borders_2p", color=color)
            check_cards(game.mode, [Seat(color, "", area, hood)])
            body = {"color": color, "area": area, "neighborhood": hood}
            body.update(self._deal_check(game, dict(game.cards, **{color: (area, hood)}), pi_seat.people(game)))
            return self._commit(game, "cards", body, device)

    def _deal_check(self, game: Game, entered: dict, colors) -> dict:
        """Once every seat has entered (by a last entry or a removed seat), every entry is checked at once.
        A clash names nobody and no card (every screen is told, every seat enters again: one bit per probe, in
        front of the table); the CLASHES-th hands the deal to the app. Without a clash the cards are fixed."""
        if not all(c in entered for c in colors) or not clashing(game.mode, [entered[c] for c in colors]):
            return {}
        return {"clash": True, "app_deals": True} if game.clashes + 1 >= CLASHES else {"clash": True}

    def start(self, gid: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            self._lobby_only(game)
            if any(c not in game.devices for c in game.colors):
                raise Refused(409, "seats_free")
            if not pi_seat.people(game):
                raise Refused(409, "pi_last_person")
            if game.deal == "physical":
                if any(c not in game.cards for c in pi_seat.people(game)):
                    raise Refused(409, "cards_missing")
                cards = {c: list(game.cards[c]) for c in pi_seat.people(game)}
                # The Pi's seats are dealt from what the people's cards left, by the app: nobody sees them.
                cards.update(pi_seat.deal_rest(game.mode, len(game.colors), game.cards, list(pi_seat.pi_seats(game)),
                                               random.Random(secrets.randbits(128))))
                cards = {c: cards[c] for c in game.colors}
                try:
                    check_cards(game.mode, [Seat(c, "", *cards[c]) for c in game.colors])
                except RuleError:
                    # The host is told that two entries clash, not which card: that is someone's secret.
                    raise Refused(409, "cards_clash") from None
            else:
                # Never from the game's seed: whoever knew it could work out every secret card.
                rng = random.Random(secrets.randbits(128))
                cards = {c: list(v) for c, v in zip(game.colors, deal(game.mode, len(game.colors), rng))}
            # A start the replay would refuse must never reach the log: check the whole setup first.
            make_setup(game.mode, [Seat(c, game.names.get(c, ""), *cards[c]) for c in game.colors],
                       game.removed, game.tokens)
            body = {"cards": cards}
            mine = pi_seat.people(game)
            first = first_game(self.store, {c: game.names.get(c) for c in mine}, {c: game.devices[c] for c in mine})
            if first:
                body["first_game"] = first   # the hint on their own phone only (views.private)
            return self._commit(game, "start", body, device)

    def act(self, gid: str, device: str, move: dict, expect_seq: Optional[int]) -> str:
        game = self.get(gid)
        with game.lock:
            color = self._seated(game, device)
            if expect_seq is not None and expect_seq != game.seq:
                raise Refused(409, "stale")
            st = game.state
            if st is None:
                raise Refused(409, "not_started")
            action = Pass(color) if move.get("pass") else Bid(color, move["bid"], move["value"])
            return self._act(game, action, device)

    def _act(self, game: Game, action: Action, device: str) -> str:
        """A bid or a pass by the seat to act (a phone's or the Pi's), checked by the rules, then committed."""
        st = game.state
        # Raises RuleError (nothing appended, nothing changed), also for an automatic pass: the rules' own.
        after = apply(st, action)
        return self._commit(game, "action", action.to_json(), device,
                            call_ended=sum(after.built_count) > sum(st.built_count), after=after)

    def undo(self, gid: str, device: str, expect_seq: Optional[int] = None) -> str:
        game = self.get(gid)
        with game.lock:
            self._not_abandoned(game)
            self._host_only(game, device)
            if expect_seq is not None and expect_seq != game.seq:
                raise Refused(409, "stale")   # a retried undo must not take back a second action
            count = pi_seat.undo_count(game)   # back to the last person's action, the Pi's moves since with it
            if not count:
                raise Refused(409, "nothing_to_undo")
            body = {"action": len(game.actions)}
            if count > 1:
                body["count"] = count
            return self._commit(game, "undo", body, device)

    def record(self, gid: str) -> dict:
        game = self.get(gid)
        with game.lock:
            if game.board is not None:
                raise Refused(409, "board_no_record")   # scored from the board: no bids were ever recorded
            if game.phase == "abandoned" and game.state is not None:
                # The actions so far: `companion score` replays them to the state the game stopped in.
                return pi_seat.with_pi(to_record(game.state.setup, game.actions), game)
            if game.phase != "finished":
                raise Refused(409, "not_finished")
            return pi_seat.with_pi(to_record(game.state.setup, game.actions), game)

    def _nobody_to_confirm(self, game: Game, color: str) -> bool:
        """A host claim nobody else could confirm, past the host-away wait: no other seat is held but the gone host's.
        Only in a game being played, where a seat is had only with its own code or the table's: a lobby seat is
        free to any device on the network, and a stranger sitting down must not take a lobby's host role."""
        return (game.phase == "playing" and self.hub.away_for(game.id, game.host) >= self.host_away
                and not any(c != color and d != game.host for c, d in game.devices.items()))

    def _host_only(self, game: Game, device: str) -> None:
        if not game.can_host(device):
            raise Refused(403, "not_host")

    def _seated(self, game: Game, device: str) -> str:
        """The colour this device plays in a game still on: only a seated player bids or claims the host role."""
        self._not_abandoned(game)
        color = game.seat_of(device)
        if color is None:
            raise Refused(403, "not_seated")
        return color

    def _seat_in_game(self, game: Game, color: str) -> None:
        """A seat of this game, and the game still on (seat and code requests name the colour they want)."""
        self._not_abandoned(game)
        if color not in game.colors:
            raise Refused(404, "no_seat", color=color)

    def _host_on_seat(self, game: Game, color: str, device: str) -> None:
        """The host acts on a seat a device holds (free it for a new phone, hand it the host role)."""
        self._not_abandoned(game)
        self._host_only(game, device)
        if color not in game.devices:
            raise Refused(404, "no_seat", color=color)

    def _not_abandoned(self, game: Game) -> None:
        if game.abandoned:
            raise Refused(409, "abandoned")

    def _lobby_only(self, game: Game) -> None:
        if game.phase != "lobby":
            raise Refused(409, "started")
