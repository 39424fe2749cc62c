"""Seats the Pi plays: taken in the lobby, dealt by the app, thought over off the request path, acted on through
the table (companion/table/pi_seats.py).

A Pi seat is held by the device "pi:<level>" (a phone's device id is 32 hex digits, never that), so every rule about
held seats (start, claims, LEDs) holds for it unchanged; this module adds what only the Pi's seats need.
"""
from __future__ import annotations

import copyreg
import logging
import multiprocessing
import os
import queue
import random
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from types import MappingProxyType
from typing import Optional

from companion import players
from companion.game.errors import RuleError
from companion.game.rules import apply, legal_actions
from companion.game.setup import area_deck
from companion.game.state import NEIGHBORHOOD_CARDS, Action, State

log = logging.getLogger(__name__)

PREFIX = "pi:"
NICE = 10   # the thinking thread's niceness: phones' requests come first


def device_for(level: str) -> str:
    return PREFIX + level


def level_of(device: Optional[str]) -> Optional[str]:
    """The level of the Pi holding a seat through this device, or None for a person's device."""
    return device[len(PREFIX):] if isinstance(device, str) and device.startswith(PREFIX) else None


def name_for(level: str) -> str:
    """How the history, the standings and BG Stats name it (pages say it in their own language from `pi`)."""
    return f"the Pi ({level})"


def level_named(name: Optional[str]) -> Optional[str]:
    """The level a stored name stands for ("the Pi (strong)"), so the history's pages say it in their language."""
    return next((level for level in players.PI_LEVELS if name == name_for(level)), None)


def pi_seats(game) -> dict[str, str]:
    """Colour -> level of every seat the Pi plays in this game."""
    return {c: lv for c, d in game.devices.items() if (lv := level_of(d)) is not None}


def people(game) -> list[str]:
    """The colours a person plays or may sit down on."""
    return [c for c in game.colors if level_of(game.devices.get(c)) is None]


def deal_rest(mode: str, players_count: int, taken: dict, colors: list, rng: random.Random) -> dict:
    """Cards for the Pi's seats from what the people's entered cards left in the decks (a physical deal)."""
    areas = [a for a in area_deck(mode, players_count) if a not in {v[0] for v in taken.values()}]
    kinds = [k for k in NEIGHBORHOOD_CARDS if k not in {v[1] for v in taken.values()}]
    rng.shuffle(areas)
    rng.shuffle(kinds)
    return {c: [areas[i], kinds[i] if mode == "expert" else None] for i, c in enumerate(colors)}


def undo_count(game) -> int:
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


@dataclass
class _Job:
    gid: str
    seq: int
    color: str
    level: str
    seen: State
    due: float


def _proxy(items: dict) -> MappingProxyType:
    return MappingProxyType(items)


# The states the Pi's process is sent hold read-only mappings: pickled as their items (copyreg, the documented way).
copyreg.pickle(MappingProxyType, lambda m: (_proxy, (dict(m),)))


def _lower() -> None:
    """In the Pi's process or thread: lower priority than the server's requests (Linux: a thread's nice is its own)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    except (OSError, AttributeError):
        pass


def _decide(seen: State, color: str, level: str, seed: str) -> Action:
    """The player's choice from the seat's own view; a rule-breaking choice is replaced by a legal one."""
    rng = random.Random(seed)
    action = players.play(seen, color, level, rng)
    try:
        apply(seen, action)
    except RuleError as e:
        log.error("the Pi's %s player chose an illegal action (%s): a random legal one instead", level, e)
        action = rng.choice(list(legal_actions(seen)))
    return action


class PiThinker:
    """The Pi's moves are decided away from the requests: in a process of its own by default (no share of the
    server's interpreter lock, another core on a Pi 3), or on a thread (`process=False`); one lower-priority thread
    hands them over, and the table's timer acts on each when due."""

    def __init__(self, table, delay: float, process: bool = True):
        self.table = table
        self.delay = delay
        self.process = process
        self.jobs: "queue.SimpleQueue[_Job]" = queue.SimpleQueue()
        self._thread: Optional[threading.Thread] = None
        self._pool: Optional[ProcessPoolExecutor] = None
        self._pid = 0
        self._lock = threading.Lock()
        self.thinking = 0   # decisions under way (benchmarks and tests read it)

    def warm(self) -> None:
        """A Pi seat was given: its process starts now, not at its first turn."""
        self._start()
        if self.process:
            self.jobs.put(None)

    def after(self, game) -> None:
        """After any change (the game's lock held): if the Pi is to act, it starts thinking from what it may see."""
        st = game.state
        if st is None or game.phase != "playing":
            return
        color = st.to_act_color
        level = level_of(game.devices.get(color))
        if level is None:
            return
        self._start()
        self.jobs.put(_Job(game.id, game.seq, color, level, self.table.seat_state(game, color),
                           time.monotonic() + self.delay))

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._pool = None
            self._thread = threading.Thread(target=self._run, name="companion-pi", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        _lower()
        while True:
            job = self.jobs.get()
            if job is None:
                pool = self._executor()
                if pool is not None:
                    pool.submit(_lower)   # its process starts now (a pool starts one at its first task)
                continue
            game = self.table.games.get(job.gid)
            if game is None or game.seq != job.seq:
                continue   # the game moved on (undo, abandon, a restart of the lobby): no stale move
            self.thinking += 1
            try:
                action = self.decide(job)
            except Exception:
                log.exception("the Pi could not decide for %s in game %s", job.color, job.gid)
                continue
            finally:
                self.thinking -= 1
            self.table.timers.at(("pi", job.gid, job.seq), job.due,
                                 lambda j=job, a=action: self.table.pi_act(j.gid, j.seq, j.color, a))

    def _executor(self) -> Optional[ProcessPoolExecutor]:
        if self.process and self._pool is None:
            try:   # spawn: a fresh interpreter, never a fork of the server's threads and sockets
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_lower)
            except OSError as e:
                log.error("the Pi cannot think in a process of its own (%s): it thinks on a thread", e)
                self.process = False
        return self._pool

    def decide(self, job: _Job) -> Action:
        seed = f"{job.gid}/{job.seq}/{job.color}"
        pool = self._executor()
        if pool is None:
            return _decide(job.seen, job.color, job.level, seed)
        try:
            return pool.submit(_decide, job.seen, job.color, job.level, seed).result()
        except BrokenProcessPool:   # its process died (killed, out of memory): a new one next time, this one here
            log.error("the Pi's process stopped: it is started again")
            self._pool = None
        except OSError as e:   # no process may be started here (a sandbox, no /dev/shm): the thread it is
            log.error("the Pi cannot think in a process of its own (%s): it thinks on a thread", e)
            self._pool, self.process = None, False
        return _decide(job.seen, job.color, job.level, seed)

    def background(self, fn, *args):
        """A job of the Pi's own besides its seats' moves (the review, a hint): `fn(*args)` in the Pi's process at
        its low priority, waited for here; on the caller's thread when the Pi has no process of its own."""
        pool = self._executor()
        if pool is not None:
            try:
                return pool.submit(fn, *args).result()
            except BrokenProcessPool:
                self._pool = None
            except OSError:
                self._pool, self.process = None, False
        return fn(*args)
