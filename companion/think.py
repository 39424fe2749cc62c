"""The Pi's thinking process: its seats' moves, the review and the hints, away from the server's interpreter lock.

A plain child interpreter (`python -m companion.think`) that reads a job from its stdin and writes the answer to
its stdout, pickled, one at a time, at a low priority; it imports the players and the rules only. Why not
multiprocessing's pool: a spawned pool adds a resource tracker, a third interpreter (6.5 MB PSS), and its worker
imports the server's modules to find the job's function (17.0 MB PSS for the worker beside a 30.4 MB server:
benchmarks/bench_pi_memory.py). The pipe is private to the two processes; when the server goes, the child reads
the end of its input and ends too.
"""
from __future__ import annotations

import copyreg
import importlib
import logging
import os
import pickle
import random
import signal
import subprocess
import sys
import threading
from types import MappingProxyType
from typing import Optional

from companion import players
from companion.game.errors import RuleError
from companion.game.rules import apply, legal_actions
from companion.game.state import Action, State

log = logging.getLogger(__name__)
NICE = 10   # below the requests: a phone's bid never waits for the Pi's thinking


def _proxy(items: dict) -> MappingProxyType:
    return MappingProxyType(items)


# The states the Pi's process is sent hold read-only mappings: pickled as their items (copyreg, the documented way).
copyreg.pickle(MappingProxyType, lambda m: (_proxy, (dict(m),)))


def lower(server: Optional[int] = None) -> None:
    """In the Pi's process or thread: NICE steps below the server's own niceness (Linux: a thread's nice is its own).
    Counted from the server's, not set to NICE: a server run niced (or as root, which may raise a priority) would
    otherwise have its Pi think at its own priority or above it. `server`: the server's niceness, which the child
    is told (it is started from an already lowered thread, whose niceness it inherits); else this process's."""
    base = os.getpriority(os.PRIO_PROCESS, os.getpid()) if server is None else server
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, base + NICE))
    except (OSError, AttributeError):
        pass


def decide(seen: State, color: str, level: str, seed: str) -> Action:
    """The player's choice from the seat's own view; a rule-breaking choice is replaced by a legal one."""
    rng = random.Random(seed)
    action = players.play(seen, color, level, rng)
    try:
        apply(seen, action)
    except RuleError as e:
        log.error("the Pi's %s player chose an illegal action (%s): a random legal one instead", level, e)
        action = rng.choice(list(legal_actions(seen)))
    return action


class Gone(Exception):
    """The thinking process could not be started (`cannot_start`: no process may be started here, a sandbox) or
    stopped answering: the caller thinks on its own thread."""

    def __init__(self, why: str, cannot_start: bool = False):
        super().__init__(why)
        self.cannot_start = cannot_start


class Process:
    """The server's end: `run(fn, *args)` has the child call `fn(*args)` and waits for its answer; one job at a time
    (callers queue on a lock, as on a pool of one); a child that died is started again, and its job given to the new
    one once (the jobs are pure: the same answer)."""

    def __init__(self):
        self._child: Optional[subprocess.Popen] = None
        self._pid = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            self._ensure()

    def _ensure(self) -> subprocess.Popen:
        if self._child is None or self._child.poll() is not None or self._pid != os.getpid():
            try:
                self._child = subprocess.Popen([sys.executable, "-m", "companion.think",
                                                str(os.getpriority(os.PRIO_PROCESS, os.getpid()))],
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True)
            except OSError as e:
                self._child = None
                raise Gone(str(e), cannot_start=True) from e
            self._pid = os.getpid()
        return self._child

    def run(self, fn, *args):
        with self._lock:
            for attempt in (1, 2):   # a child that died between jobs is found at the next one: a new child gets it
                child = self._ensure()
                try:
                    pickle.dump((fn.__module__, fn.__qualname__, args), child.stdin, pickle.HIGHEST_PROTOCOL)
                    child.stdin.flush()
                    ok, value = pickle.load(child.stdout)
                    break
                except (OSError, EOFError, pickle.UnpicklingError) as e:   # it died (killed, out of memory)
                    child.kill()
                    child.wait()
                    self._child = None
                    if attempt == 2:
                        raise Gone(f"the thinking process stopped ({e!r})") from e
        if not ok:
            raise value
        return value


def serve(stdin=None, stdout=None, server: Optional[int] = None) -> None:
    """The child's loop: a job in, its answer out, until the server closes the pipe."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    lower(server)
    while True:
        try:
            module, name, args = pickle.load(stdin)
        except (EOFError, pickle.UnpicklingError, OSError):   # the server closed its end (stopped, or died mid-job)
            return
        try:
            fn = getattr(importlib.import_module(module), name)
            answer = (True, fn(*args))
        except Exception as e:   # the job's own failure goes back to its caller, who logs it
            answer = (False, e)
        try:
            data = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            data = pickle.dumps((False, RuntimeError(f"{answer[1]!r} ({e})")), pickle.HIGHEST_PROTOCOL)
        try:
            stdout.write(data)
            stdout.flush()
        except (BrokenPipeError, ValueError):   # the server stopped while this job ran: nobody waits for it
            return


if __name__ == "__main__":
    # Ctrl-C reaches the whole process group: the server stops, and this process ends when its pipe closes.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The answers' own channel: anything printed by mistake goes to the server's log (stderr), not into the pipe.
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    serve(sys.stdin.buffer, answers, int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].lstrip("-").isdigit() else None)
    os._exit(0)   # no flush at exit of an answer the stopped server will never read
