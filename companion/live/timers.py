"""One thread for every delayed job (a seat shown offline, the host's absence reaching the limit): a
socket opened and closed ten thousand times costs one entry per game, never a thread per change."""
from __future__ import annotations

import heapq
import logging
import os
import threading
import time
from typing import Callable, Hashable, Optional

log = logging.getLogger(__name__)


class Timers:
    """Keyed jobs on one daemon thread: a job set again under the same key replaces the pending one."""

    def __init__(self):
        self._cond = threading.Condition()
        self._due: dict[Hashable, tuple[float, Callable[[], None]]] = {}
        self._heap: list[tuple[float, int, Hashable]] = []
        self._count = 0
        self._thread: Optional[threading.Thread] = None
        self._pid = 0

    def at(self, key: Hashable, when: float, job: Callable[[], None]) -> None:
        """Run `job` at `when` (time.monotonic()), instead of what was set under `key` before."""
        with self._cond:
            self._start()
            self._due[key] = (when, job)
            self._count += 1
            heapq.heappush(self._heap, (when, self._count, key))
            if len(self._heap) > 4 * len(self._due) + 64:   # replaced entries, dropped now and then
                self._heap = [(w, n, k) for w, n, k in self._heap if self._due.get(k, (None,))[0] == w]
                heapq.heapify(self._heap)
            self._cond.notify()

    def soon(self, key: Hashable, job: Callable[[], None]) -> None:
        """Run `job` as soon as the thread is free; many calls under one key before then run it once."""
        self.at(key, time.monotonic(), job)

    def pending(self) -> int:
        with self._cond:
            return len(self._due)

    def _start(self) -> None:
        if self._thread is not None and self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name="companion-timers", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    now = time.monotonic()
                    while self._heap and self._due.get(self._heap[0][2], (None,))[0] != self._heap[0][0]:
                        heapq.heappop(self._heap)   # replaced by a later setting
                    if self._heap and self._heap[0][0] <= now:
                        _, _, key = heapq.heappop(self._heap)
                        _, job = self._due.pop(key)
                        break
                    self._cond.wait(self._heap[0][0] - now if self._heap else None)
            try:
                job()
            except Exception:   # one game's trouble must not stop the others' jobs
                log.exception("a timed job failed")
