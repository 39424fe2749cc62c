"""Seats the Pi plays: taken in the lobby, dealt by the app, thought over off the request path, acted on through
the table (companion/table/pi_seats.py).

Who holds a Pi seat (the device "pi:<level>") is the model's (companion/model/seats.py); this module adds what only
the Pi's thinking needs: its names refused to people, the rest of a physical deal, and the thinker.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import os
import random
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Optional

from companion import players, think
from companion.game.setup import area_deck
from companion.game.state import COLORS, NEIGHBORHOOD_CARDS, Action, State
from companion.lang import i18n
from companion.model.game import Game
from companion.model.seats import level_of, name_for
from companion.store.history import fold

log = logging.getLogger(__name__)

# A game nobody has changed for this long, and whose people are not online, is not thought about (its Pi acts
# once someone comes back to it): strangers' forgotten games must not queue ahead of the table's.
STALE = 30 * 60.0


def passes_for_pi(name: str) -> bool:
    """Whether a person's name reads as one of the Pi's seats on some screen, in some language ("the Pi (strong)",
    "le Pi (Rouge)"), case, accents and spacing folded as the standings fold names: such a name is refused."""
    return fold(name) in _pi_names()


@lru_cache(maxsize=1)
def _pi_names() -> frozenset:
    names = {fold(f"the Pi ({level})") for level in players.PI_LEVELS}   # the name it kept before issue 40
    for lang in i18n.LANGS:
        for level in players.PI_LEVELS:
            said = i18n.t(lang, "pi_level_" + level)
            names.update(fold(name_for(level, c, lang)) for c in COLORS)
            names.add(fold(i18n.t(lang, "pi_name", level=said)))
            names.update(fold(i18n.t(lang, "pi_seat", color=c, level=said)) for c in COLORS)
        names.update(fold(i18n.t(lang, "pi_who", color=c)) for c in COLORS)
    return frozenset(names)


def deal_rest(mode: str, players_count: int, taken: dict, colors: list, rng: random.Random) -> dict:
    """Cards for the Pi's seats from what the people's entered cards left in the decks (a physical deal)."""
    areas = [a for a in area_deck(mode, players_count) if a not in {v[0] for v in taken.values()}]
    kinds = [k for k in NEIGHBORHOOD_CARDS if k not in {v[1] for v in taken.values()}]
    rng.shuffle(areas)
    rng.shuffle(kinds)
    return {c: [areas[i], kinds[i] if mode == "expert" else None] for i, c in enumerate(colors)}


@dataclass
class _Job:
    gid: str
    seq: int
    color: str
    level: str
    seen: State
    due: float
    order: int = 0          # when it was asked for, to break ties in the queue
    touched: float = 0.0    # monotonic time of the game's last change


class Jobs:
    """The decisions waiting, at most one per game (a newer position makes an older one moot), handed out by
    rank: a table's own game never waits behind strangers' games, however many they start."""

    def __init__(self, rank):
        self._rank = rank
        self._waiting: dict[str, _Job] = {}
        self._warm = False
        self._count = 0
        self._cond = threading.Condition()

    def put(self, job: _Job) -> None:
        with self._cond:
            self._count += 1
            job.order = self._count
            self._waiting[job.gid] = job
            self._cond.notify()

    def put_warm(self) -> None:
        with self._cond:
            self._warm = True
            self._cond.notify()

    def empty(self) -> bool:
        with self._cond:
            return not self._waiting and not self._warm

    def get(self) -> Optional[_Job]:
        """The next decision to think about (None: start the process); waits until there is one."""
        while True:
            with self._cond:
                while not self._waiting and not self._warm:
                    self._cond.wait()
                if self._warm:
                    self._warm = False
                    return None
                jobs = list(self._waiting.values())
            ranked, dropped = [], []
            for job in jobs:
                r = self._rank(job)
                (dropped if r is None else ranked).append((r, job.order, job))
            ranked.sort(key=lambda t: t[:2])
            with self._cond:
                for _, _, job in dropped:   # unless a newer position of that game came meanwhile
                    if self._waiting.get(job.gid) is job:
                        del self._waiting[job.gid]
                for _, _, job in ranked:
                    if self._waiting.get(job.gid) is job:
                        return self._waiting.pop(job.gid)


@dataclass(frozen=True)
class PiSeams:
    """All the Pi's thinker may ask of the table, and nothing more: it never holds the table itself, so what it can
    read or change is this list (the table builds it, companion/table/facade.py)."""
    observe: Callable[[Any, str], State]          # (game, colour) -> what that seat may see (views.seat_state)
    seq_of: Callable[[str], Optional[int]]        # a game's position now; None once it is gone
    shown: Callable[[str], bool]                  # the game on the table screen?
    followed: Callable[[str], bool]               # a person's device follows the game on a live socket?
    deliver: Callable[[str, int, str, Action, float], None]   # (game, seq, colour, action, when): act then, if still so
    secret: Callable[[], bytes]                   # the table's secret for the Pi's seeds (never leaves the store)


class PiThinker:
    """The Pi's moves are decided away from the requests: in a process of its own by default (no share of the
    server's interpreter lock, another core on a Pi 3), or on a thread (`process=False`); one lower-priority thread
    hands them over, and the table's timer acts on each when due."""

    def __init__(self, seams: Optional["PiSeams"], delay: float, process: bool = True):
        self.seams = seams
        self.delay = delay
        self.process = process
        self._asked: dict[str, int] = {}   # game -> the position last handed to the queue
        self.jobs = Jobs(self.rank)   # one waiting decision per game, the table's own first
        self._thread: Optional[threading.Thread] = None
        self._child = think.Process()   # the Pi's own interpreter, started at the first Pi seat or decision
        self._pid = 0
        self._lock = threading.Lock()
        self._secret: Optional[bytes] = None   # the table's, read from the store at the first decision
        self.thinking = 0   # decisions under way (benchmarks and tests read it)

    def warm(self) -> None:
        """A Pi seat was given: its process starts now, not at its first turn."""
        self._start()
        if self.process:
            self.jobs.put_warm()

    def after(self, game: Game, touched: Optional[float] = None) -> None:
        """After any change (the game's lock held): if the Pi is to act, it starts thinking from what it may see.
        `touched`: when the game last changed (monotonic), if not now (a restart reloading its games)."""
        st = game.state
        if st is None or game.phase != "playing":
            return
        color = st.to_act_color
        level = level_of(game.devices.get(color))
        if level is None or self._asked.get(game.id) == game.seq:
            return   # not the Pi's turn, or this position is already being thought about
        self._asked[game.id] = game.seq
        self._start()
        now = time.monotonic()
        self.jobs.put(_Job(game.id, game.seq, color, level, self.seams.observe(game, color), now + self.delay,
                           touched=now if touched is None else touched))

    def rank(self, job: _Job) -> Optional[int]:
        """Which decisions come first: the game on the table screen (0), then games a person follows on a live
        socket (1), then the rest (2); None drops a game nobody has touched or followed for STALE seconds."""
        if self.seams.shown(job.gid):
            return 0
        if self.seams.seq_of(job.gid) is None:
            return None
        if self.seams.followed(job.gid):
            return 1
        if time.monotonic() - job.touched < STALE:
            return 2
        if self._asked.get(job.gid) == job.seq:
            del self._asked[job.gid]   # asked again when someone comes back to the game (table.presence)
        return None

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name="companion-pi", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        think.lower()
        while True:
            job = self.jobs.get()
            if job is None:   # a Pi seat was given: start its process before its first turn
                if self.process:
                    try:
                        self._child.start()
                    except think.Gone as e:
                        self._no_process(e)
                continue
            if self.seams.seq_of(job.gid) != job.seq:
                continue   # the game moved on (undo, abandon, a restart of the lobby): no stale move
            self.thinking += 1
            try:
                action = self.decide(job)
            except Exception:
                log.exception("the Pi could not decide for %s in game %s", job.color, job.gid)
                continue
            finally:
                self.thinking -= 1
            self.seams.deliver(job.gid, job.seq, job.color, action, job.due)

    def _no_process(self, e: Exception) -> None:
        log.error("the Pi cannot think in a process of its own (%s): it thinks on a thread", e)
        self.process = False

    def seed(self, job: _Job) -> str:
        """The decision's seed: the public position keyed with the table's secret. From public parts alone
        (the game, the move's number, the colour) a watcher could replay the Pi's moves under each possible hand
        and keep the one that agrees; the secret never leaves the database, so no hand can be singled out."""
        if self._secret is None:
            self._secret = self.seams.secret()
        return hmac.new(self._secret, f"{job.gid}/{job.seq}/{job.color}".encode(), hashlib.sha256).hexdigest()

    def decide(self, job: _Job) -> Action:
        return self.background(think.decide, job.seen, job.color, job.level, self.seed(job))

    def background(self, fn, *args):
        """A job in the Pi's process at its low priority (a seat's move, the review, a hint): `fn(*args)` there,
        waited for here; on the caller's thread when the Pi has no process of its own or its process died (started
        again at the next job)."""
        if self.process:
            try:
                return self._child.run(fn, *args)
            except think.Gone as e:
                if e.cannot_start:
                    self._no_process(e)
                else:
                    log.error("the Pi's process stopped (%s): it is started again at its next job", e)
        return fn(*args)
