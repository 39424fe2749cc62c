"""A game as the log makes it: one small method per event kind, the same on append and on replay."""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Optional

from companion.game.board_entry import FinishedBoard, new_board
from companion.game.rules import apply, new_game
from companion.game.scoring import explain
from companion.game.setup import make_setup
from companion.game.state import Action, Bid, Pass, Seat, State
from companion.game.summary import decision
from companion.model import board_steps, entries, seats
from companion.model.session import Session
from companion.store import events

RECENT = 12   # log lines a game keeps for the pages (the short log, the call-over card, undo's notice)


@dataclass
class Game:
    """One game in memory: its logged state, rebuilt from its log when first needed, then kept in step with it.

    It keeps its current state and its actions, not every state in between: undo replays from the setup.
    What a restart voids is its `session`.
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
    hints_on: bool = False                            # the host allowed "What would the Pi do?" (issue 41)
    hints: dict = field(default_factory=dict)         # colour -> hints that seat asked (each a logged event)
    shown: bool = True                                # took the table display when created
    abandoned: bool = False
    next_game: Optional[str] = None                   # the rematch everyone moved on to
    from_game: Optional[str] = None
    notice: Optional[dict] = None                     # the last thing every screen announces
    banned: set = field(default_factory=set, repr=False)            # devices the host took off a lobby seat
    newcomers: set = field(default_factory=set, repr=False)         # seats taken by devices new at this table
    first_game: frozenset = frozenset()               # seats in their first game here (companion/store/first_game.py)
    # The last decisions as public log lines (companion.game.summary), newest last; bounded, rebuilt by replay.
    recent: deque = field(default_factory=lambda: deque(maxlen=RECENT), repr=False)
    undone: Optional[dict] = None                     # the line the last undo took back, until the next action
    pace: str = "timer"                               # "board": the Pi waits for the real board (board_steps.py)
    board_through: int = 0                            # the last seq a person confirmed done on the real board
    board_steps: list = field(default_factory=list, repr=False)   # steps to do on the board (board_steps.py)
    session: Session = field(default_factory=Session, repr=False)
    # The object's own: its lock, and `rev`, bumped on every change a view shows (views.py caches on it).
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    rev: int = 0
    _explained: Optional[tuple] = field(default=None, repr=False, compare=False)   # (state, its explain())

    @property
    def phase(self) -> str:
        if self.abandoned:
            return "abandoned"
        if self.state is None:
            return "lobby" if self.board is None else "board"
        return "finished" if self.state.finished else "playing"

    def lights(self, call_ended: bool = False) -> tuple:
        """What the turn LEDs show for this game, from its own state and never from a device's view: (phase,
        seated colours, colour to act, winners as game/scoring.py names them, a call's winner to blink)."""
        if self.abandoned:
            return "finished", [], None, [], None          # nobody's turn, nobody won: every LED off
        st = self.state
        winners = self.explain(st)["scores"]["winners"] if st and st.finished else []
        call_winner = st.last_call.player if call_ended and st and st.last_call else None
        return ("lobby" if self.phase == "board" else self.phase, [c for c in self.colors if c in self.devices],
                st.to_act_color if st else None, winners, call_winner)

    def explain(self, st: State) -> dict:
        """`scoring.explain(st)`, worked out once per state: at the bid that ends a game the history's row, every
        view and the LEDs all ask for it (about 0.5 ms each here, ten times that on a Pi). Read, never changed."""
        kept = self._explained
        if kept is None or kept[0] is not st:
            kept = self._explained = (st, explain(st))
        return kept[1]

    @property
    def in_progress(self) -> bool:
        """Being played, or a lobby someone sat down in: a new game may not quietly take its table."""
        return self.phase == "playing" or (self.phase in ("lobby", "board") and bool(self.devices))

    def can_host(self, device: Optional[str]) -> bool:
        """The host's device, or the Pi's own screen (a display claimed by code is a screen, not a host)."""
        return device is not None and (device == self.host or device in self.session.kiosks)

    @property
    def cards_locked(self) -> bool:
        """A physical deal once every seat has entered its cards: checked together, then fixed (entries that
        clash, from a log written before every completion was checked, are open to enter again). The Pi's seats
        are dealt at the start, from what the people's entries leave."""
        people = seats.people(self)
        return (self.deal == "physical" and self.state is None and all(c in self.cards for c in people)
                and not clashing(self.mode, [self.cards[c] for c in people]))

    def seat_of(self, device: Optional[str]) -> Optional[str]:
        for color, d in self.devices.items():
            if d == device:
                return color
        return None

    # -- the log's events, applied to memory (already checked; replay uses the same code) --

    def mutate(self, event: events.Event, device: Optional[str], after: Optional[State] = None) -> None:
        """Apply one logged event: the same method whether it was just appended or replayed at start."""
        on = EVENTS[type(event)]
        if event.changes_seats:
            self.changes[device] = self.changes.get(device, 0) + 1
        elif event.enters_board:
            self.entries[device] = self.entries.get(device, 0) + 1
        on(self, event, device, after)
        self.seq += 1
        self.touch()

    def touch(self) -> None:
        """Something a view shows changed: the views are made anew at the next ask (views.py caches them on `rev`).
        Called by `mutate` and by the table's one way to change a game outside the log (OnePath.changed in commit.py), only."""
        self.rev += 1

    def on_create(self, event: events.Create, device: Optional[str], after: Optional[State]) -> None:
        """A new game: its host, setup and any seats carried over from the game before."""
        self.host = device
        self._configure(event)
        self.shown = event.shown is not False
        self.from_game = event.from_game
        if event.board:
            self.board = new_board(self.mode, [Seat(c) for c in self.colors], self.removed)
            self.names.update(event.names or {})   # named as the colours sat down at the table
        for color, (name, holder) in (event.seats or {}).items():
            self.devices[color], self.names[color] = holder, name

    def on_setup(self, event: events.Setup, device: Optional[str], after: Optional[State]) -> None:
        """The host changed the setup; a seat taken away takes its cards with it."""
        cards = dict(self.cards)
        self._configure(event)
        if event.removed_seat:
            self.cards = {c: v for c, v in cards.items() if c in self.colors}
            self.notice = {"key": "notice_seat_removed", "color": event.removed_seat, "seq": self.seq + 1}
            self.clashed(event)   # the last seat without cards went: the entries were checked like a last entry

    def on_move(self, event: events.Move, device: Optional[str], after: Optional[State]) -> None:
        """A seat moved to a new phone (by its code or a rescue); the host role travels with it."""
        color = event.color
        old = self.devices.get(color)
        self.devices[color] = device
        if event.name:
            self.names[color] = event.name
        if old is not None and old == self.host:
            self.host = device     # the host role travels with its seat
        self.session.codes.pop(color, None)
        self.newcomers.discard(color)
        if self.session.rescue is not None and self.session.rescue["color"] == color:
            self.session.rescue = None
        self.session.asks = [a for a in self.session.asks if a.color != color]
        self.notice = {"key": "notice_seat_moved", "color": color, "seq": self.seq + 1}

    def on_host(self, event: events.Host, device: Optional[str], after: Optional[State]) -> None:
        """The host role handed to a seat, or to the table itself."""
        self.host = self.devices[event.color] if event.color else device
        self.session.host_claims = {}
        self.notice = {"key": "notice_host" if event.color else "notice_host_table",
                       "color": event.color, "seq": self.seq + 1}

    def on_abandon(self, event: events.Abandon, device: Optional[str], after: Optional[State]) -> None:
        """The table gave the game up: it is over without a winner."""
        self.abandoned = True
        self.notice = {"key": "notice_abandoned", "seq": self.seq + 1}

    def on_rematch(self, event: events.Rematch, device: Optional[str], after: Optional[State]) -> None:
        """The next game at this table, for every phone to follow."""
        self.next_game = event.game
        self.notice = {"key": "notice_rematch", "game": event.game, "seq": self.seq + 1}

    def on_seat(self, event: events.Seat, device: Optional[str], after: Optional[State]) -> None:
        """A device sat down on a colour."""
        self.devices[event.color] = device
        self.names[event.color] = event.name
        if event.new:
            self.newcomers.add(event.color)
        else:
            self.newcomers.discard(event.color)

    def on_release(self, event: events.Release, device: Optional[str], after: Optional[State]) -> None:
        """A seat freed: in the lobby its name and cards go; mid-game every screen is told."""
        color = event.color
        old = self.devices.pop(color, None)
        self.newcomers.discard(color)
        self.session.seat_addresses.pop(color, None)
        if self.state is None and old is not None and old != device:
            self.banned.add(old)   # taken off a lobby seat by the host: it does not sit again in this game
        if self.state is None:
            self.names.pop(color, None)
            self.cards.pop(color, None)
        else:
            self.notice = {"key": "notice_released", "color": color, "seq": self.seq + 1}

    def on_cards(self, event: events.Cards, device: Optional[str], after: Optional[State]) -> None:
        """A seat's secret cards (dealt by hand); a clash sends every seat back to enter again."""
        self.cards[event.color] = (event.area, event.neighborhood)
        self.clashed(event)

    def clashed(self, event) -> None:
        """Checked once every seat had entered: a clash clears every entry and names no seat and no card
        (older logs named two seats: they clear all the same); the last one allowed hands the deal to the app."""
        if not event.clash:
            return
        self.cards = {}
        self.clashes += 1
        if event.app_deals:
            self.deal = "app"
        self.notice = {"key": "notice_cards_app_deals" if event.app_deals else "notice_cards_clash",
                       "seq": self.seq + 1}

    def on_start(self, event: events.Start, device: Optional[str], after: Optional[State]) -> None:
        """The game begins: the cards are final and the board is set up."""
        self.cards = {c: tuple(v) for c, v in event.cards.items()}
        self.first_game = frozenset(event.first_game)
        self.state = new_game(self.setup())

    def on_action(self, event: events.Action, device: Optional[str], after: Optional[State]) -> None:
        """A bid or a pass, already checked by the rules."""
        action = action_of(event)
        before = self.state
        # `after`: the state the table already computed when it checked the action.
        self.state = after if after is not None else apply(self.state, action)
        self.actions.append(action)
        self.recent.append(decision(before, action, self.state))
        self.undone = None
        board_steps.board_step(self, self.recent[-1], device)

    def on_undo(self, event: events.Undo, device: Optional[str], after: Optional[State]) -> None:
        """The last action taken back: the state is replayed without it."""
        also = []
        for _ in range(event.count):   # more than one: the Pi's moves since the person's action too
            self.undone = dict(self.recent.pop()) if self.recent else {}
            self.actions.pop()
            also.append(self.undone)
        if len(also) > 1:
            self.undone["also"] = also[-2::-1]
        self.undone["seq"] = self.seq + 1
        self.session.show_skipped = False        # a game ended again is shown again
        self.session.replay_step = None
        before, state = self.state, new_game(self.state.setup)
        for action in self.actions:
            state = apply(state, action)
        self.state = state
        board_steps.board_undone(self, before, also[::-1])

    def on_hint(self, event: events.Hint, device: Optional[str], after: Optional[State]) -> None:
        """"What would the Pi do?" asked by a seat: each seat's count (companion/table/reviews.py answers it)."""
        self.hints[event.color] = self.hints.get(event.color, 0) + 1

    def _configure(self, event) -> None:
        """A create's or a setup's options (events._Options)."""
        self.mode = event.mode
        self.colors = tuple(event.players)
        self.removed = frozenset(event.removed_districts)
        self.tokens = dict(event.tokens)
        self.deal = event.deal
        self.layout = event.layout
        self.hints_on = bool(event.hints)
        self.pace = event.pace
        for gone in set(self.devices) - set(self.colors):
            self.devices.pop(gone)
            self.names.pop(gone, None)
            self.newcomers.discard(gone)
            self.session.seat_addresses.pop(gone, None)
        self.cards = {}

    def setup(self):
        sitting = [Seat(c, self.names.get(c, ""), *self.cards.get(c, (None, None))) for c in self.colors]
        return make_setup(self.mode, sitting, self.removed, self.tokens)


# Every logged event kind and the function that applies it to a game (`Game.mutate`): the game's own, then the
# concerns' beside it in this package (a board scored, the Pi's seats, the board's steps).
# Keyed by the event's class (companion/store/events.py): adding a kind = its class there + its handler here.
EVENTS = {
    events.Create: Game.on_create, events.Setup: Game.on_setup, events.Move: Game.on_move, events.Host: Game.on_host,
    events.Abandon: Game.on_abandon, events.Rematch: Game.on_rematch, events.Seat: Game.on_seat,
    events.Release: Game.on_release, events.Cards: Game.on_cards, events.Start: Game.on_start,
    events.Action: Game.on_action, events.Undo: Game.on_undo,
    events.Hint: Game.on_hint,
    events.Building: entries.on_building, events.Tokens: entries.on_tokens, events.Holder: entries.on_holder,
    events.Secret: entries.on_secret, events.Name: entries.on_name, events.Tally: entries.on_tally,
    events.Pi: seats.on_pi, events.BoardDone: board_steps.on_board_done,
}
assert set(EVENTS) == set(events.KINDS.values()), "every event kind has its handler"


def clashing(mode: str, entries: list) -> bool:
    """Whether two entries (each (area, neighborhood)) share a card: one card entered twice."""
    seen: set = set()
    for entry in entries:
        mine = {x for x in entry if x}
        if mine & seen:
            return True
        seen |= mine
    return False


def action_of(event: events.Action) -> Action:
    """A logged bid or pass, as the rules core takes it."""
    if event.passes:
        return Pass(event.player)
    return Bid(event.player, event.bid, event.value)
