"""Who gets a connection and a thread: strangers share one budget and take turns by address; the devices the
table knows are served first and never evicted for them. Bookkeeping only: the loop does the sockets."""
from __future__ import annotations

import logging
from collections import OrderedDict, deque
from typing import Callable, Optional

from companion.limits import OWN, PER_ADDRESS_THREADS, RESERVED_THREADS
from companion.live.httpconn import Conn

log = logging.getLogger(__name__)


class Budget:
    """Connections held by address, requests waiting for a thread, and requests running, by address."""

    def __init__(self, threads: int, max_connections: int, knows: Callable[[dict], bool]):
        self.threads = max(threads, RESERVED_THREADS + 1)
        self.max_connections = max_connections
        self.knows = knows
        self.conns: set[Conn] = set()
        self.by_address: dict[str, set[Conn]] = {}
        self.known_queue: deque[tuple[Conn, dict]] = deque()
        self.stranger_queue: OrderedDict[str, deque[tuple[Conn, dict]]] = OrderedDict()
        self.running: dict[str, int] = {}   # address -> requests in threads
        self.running_all = 0
        self.running_strangers = 0

    # -- connections --

    def full(self) -> bool:
        return len(self.conns) >= self.max_connections

    def hold(self, conn: Conn) -> None:
        self.conns.add(conn)
        self.by_address.setdefault(conn.address, set()).add(conn)

    def release(self, conn: Conn) -> None:
        self.conns.discard(conn)
        held = self.by_address.get(conn.address)
        if held is not None:
            held.discard(conn)
            if not held:
                del self.by_address[conn.address]

    def to_evict(self) -> Optional[Conn]:
        """A stranger's connection that is only waiting to be read: the oldest of the address holding the
        most. Devices the table knows are never chosen."""
        best = None
        for address, held in self.by_address.items():
            idle = [c for c in held if c.state == "reading" and not c.known]
            if idle and (best is None or len(held) > best[0]):
                best = (len(held), min(idle, key=lambda c: c.opened))
        return None if best is None else best[1]

    # -- threads: known devices first, strangers in turn by address --

    def queue(self, conn: Conn, environ: dict) -> None:
        if not conn.known:
            try:
                conn.known = bool(self.knows(environ))
            except Exception:
                log.exception("could not tell whether a device is known")
        if conn.known:
            self.known_queue.append((conn, environ))
        else:
            self.stranger_queue.setdefault(conn.address, deque()).append((conn, environ))

    def next(self) -> Optional[tuple[Conn, dict]]:
        """The next request to hand a thread, counted as running; None while none may start."""
        if self.running_all >= self.threads:
            return None
        picked = self.known_queue.popleft() if self.known_queue else self._next_stranger()
        if picked is not None:
            conn = picked[0]
            self.running_all += 1
            self.running[conn.address] = self.running.get(conn.address, 0) + 1
            if not conn.known:
                self.running_strangers += 1
        return picked

    def _next_stranger(self) -> Optional[tuple[Conn, dict]]:
        if self.running_strangers >= self.threads - RESERVED_THREADS:
            return None
        for address, waiting in self.stranger_queue.items():
            if self.running.get(address, 0) < PER_ADDRESS_THREADS or address in OWN:
                picked = waiting.popleft()
                if waiting:
                    self.stranger_queue.move_to_end(address)   # round robin between addresses
                else:
                    del self.stranger_queue[address]
                return picked
        return None

    def finished(self, conn: Conn) -> None:
        """A request's thread is free again."""
        self.running_all -= 1
        left = self.running.get(conn.address, 1) - 1
        if left:
            self.running[conn.address] = left
        else:
            self.running.pop(conn.address, None)
        if not conn.known:
            self.running_strangers -= 1

    def unqueue(self, conn: Conn) -> None:
        """A stranger's request that waited past its deadline leaves the queue."""
        waiting = self.stranger_queue.get(conn.address)
        if waiting is not None:
            for item in list(waiting):
                if item[0] is conn:
                    waiting.remove(item)
            if not waiting:
                del self.stranger_queue[conn.address]
