"""Seats the Pi plays: taken in the lobby, dealt by the app, thought over off the request path, acted through table.py.

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

from companion import players, views
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


def _refused(status: int, key: str, **params) -> Exception:
    from companion.table import Refused   # table.py mixes these classes in: imported when first needed
    return Refused(status, key, **params)


class PiEvents:
    """Game's event method for a seat given to the Pi or taken back from it (mixed into table.Game)."""

    def on_pi(self, body: dict, device: Optional[str], after: Optional[State]) -> None:
        color, level = body["color"], body.get("level")
        self.cards.pop(color, None)
        self.newcomers.discard(color)
        if level:
            self.devices[color] = device_for(level)
            self.names[color] = name_for(level)
        else:
            self.devices.pop(color, None)
            self.names.pop(color, None)
        self._clashed(body)   # the people's entries, now all in, checked as a last entry's are (table.on_cards)


class PiRequests:
    """Table's requests for the Pi's seats: the host gives a free colour to the Pi or takes it back, in the lobby."""

    def seat_pi(self, gid: str, color: str, level: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            self._lobby_only(game)
            if color not in game.colors:
                raise _refused(404, "no_seat", color=color)
            if level not in players.PI_LEVELS:
                raise _refused(400, "pi_level", levels=", ".join(players.PI_LEVELS))
            holder = game.devices.get(color)
            if holder is not None and level_of(holder) is None:
                raise _refused(409, "seat_taken", color=color, name=game.names.get(color) or "")
            if game.cards_locked:
                raise _refused(409, "cards_locked")
            if holder is None and len(people(game)) <= 1:
                raise _refused(409, "pi_last_person")
            body = {"color": color, "level": level}
            if game.deal == "physical":
                # The people's entries may all be in once this seat is the Pi's: checked together now, as the
                # last entry would have been (table.enter_cards).
                body.update(self._deal_check(game, game.cards, [c for c in people(game) if c != color]))
            text = self._commit(game, "pi", body, device)
            self.pi.warm()
            return text

    def free_pi(self, gid: str, color: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            self._lobby_only(game)
            if level_of(game.devices.get(color)) is None:
                raise _refused(409, "not_pi_seat", color=color)
            if game.cards_locked:
                raise _refused(409, "cards_locked")   # as release: a seat freed must not reopen the deal for a guess
            return self._commit(game, "pi", {"color": color, "level": None}, device)

    def _person_seat(self, game, color: str) -> None:
        """Moving a seat, handing it the host role, passing for it: a person's seat only."""
        if level_of(game.devices.get(color)) is not None:
            raise _refused(409, "pi_plays", color=color)

    def pi_act(self, gid: str, seq: int, color: str, action: Action) -> None:
        """The Pi's decision, through the one path, if the game is still where the Pi saw it (else dropped)."""
        game = self.games.get(gid)
        if game is None:
            return
        with game.lock:
            st = game.state
            if (game.seq != seq or game.phase != "playing" or st.to_act_color != color or action.player != color
                    or level_of(game.devices.get(color)) is None):
                return
            self._act(game, action, game.devices[color])


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
        self.jobs.put(_Job(game.id, game.seq, color, level, views.seat_state(game, color),
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
