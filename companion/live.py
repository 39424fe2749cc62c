"""Open sockets per game: each phone gets its newest whole view, from the bid's own thread when it can."""
from __future__ import annotations

import fcntl
import socket
import struct
import termios
import threading
from typing import Callable, Optional

# Room left in a socket's send buffer before the bid's thread writes to it itself (headers included).
HEADROOM = 1024


def _room(sock: socket.socket) -> int:
    """Bytes the kernel can still queue on `sock` without blocking (0 when unknown)."""
    try:
        size = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        queued = struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    except (OSError, ValueError):
        return 0
    # The kernel reports SO_SNDBUF doubled for its own bookkeeping; count half of it.
    return size // 2 - queued


class Subscriber:
    """One connected device. A view goes straight out when its socket has room; otherwise its own
    thread sends it, and only the newest unsent view is kept (a whole view supersedes older ones)."""

    def __init__(self, game: str, device: Optional[str]):
        self.game = game
        self.device = device
        self.ws = None
        self._pending: Optional[str] = None
        self._cond = threading.Condition()
        self._sending = threading.Lock()   # one writer at a time, and views leave in order

    def offer(self, message: str) -> None:
        ws = self.ws
        if ws is not None and self._sending.acquire(blocking=False):
            try:
                with self._cond:
                    idle = self._pending is None
                # Never block a bid on a slow phone: write only what the kernel takes at once.
                if idle and ws.connected and len(message) + HEADROOM < _room(ws.sock):
                    ws.send(message)
                    return
            except Exception:  # a socket closing under us: its own thread notices and ends
                return
            finally:
                self._sending.release()
        with self._cond:
            self._pending = message
            self._cond.notify()

    def pump(self, ws, first: str, idle: float = 1.0) -> None:
        """Send `first`, then each view left pending, until the socket closes. The socket carries no actions."""
        with self._sending:
            ws.send(first)
            self.ws = ws
        while ws.connected:
            with self._cond:
                self._cond.wait_for(lambda: self._pending is not None, timeout=idle)
            with self._sending:
                with self._cond:
                    message, self._pending = self._pending, None
                if message is not None:
                    ws.send(message)
            if message is None:
                # Drain (and ignore) anything the phone sent; this also notices a closed socket.
                while ws.connected and ws.receive(timeout=0) is not None:
                    pass


class Hub:
    """Who is listening to which game."""

    def __init__(self):
        self._subs: dict[str, set[Subscriber]] = {}
        self._lock = threading.Lock()

    def join(self, game: str, device: Optional[str]) -> Subscriber:
        sub = Subscriber(game, device)
        with self._lock:
            self._subs.setdefault(game, set()).add(sub)
        return sub

    def leave(self, sub: Subscriber) -> None:
        with self._lock:
            self._subs.get(sub.game, set()).discard(sub)

    def publish(self, game: str, render: Callable[[Optional[str]], str]) -> int:
        """Offer every listener its own view; `render(device)` is called once per distinct device."""
        with self._lock:
            subs = list(self._subs.get(game, ()))
        cache: dict[Optional[str], str] = {}
        for sub in subs:
            if sub.device not in cache:
                cache[sub.device] = render(sub.device)
            sub.offer(cache[sub.device])
        return len(subs)

    def count(self, game: str) -> int:
        with self._lock:
            return len(self._subs.get(game, ()))
