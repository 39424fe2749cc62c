"""Open sockets per game: each phone gets its latest whole view, sent by its own thread."""
from __future__ import annotations

import queue
import threading
from typing import Callable, Optional


class Subscriber:
    """One connected device; holds at most the newest unsent view (older ones are superseded)."""

    def __init__(self, game: str, device: Optional[str]):
        self.game = game
        self.device = device
        self._box: "queue.Queue[str]" = queue.Queue(maxsize=1)
        self._lock = threading.Lock()

    def offer(self, message: str) -> None:
        with self._lock:
            try:
                self._box.get_nowait()
            except queue.Empty:
                pass
            self._box.put_nowait(message)

    def next(self, timeout: float) -> Optional[str]:
        try:
            return self._box.get(timeout=timeout)
        except queue.Empty:
            return None


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


def pump(ws, sub: Subscriber, first: str, idle: float = 1.0) -> None:
    """Send `first`, then each newer view as it comes, until the socket closes. The socket carries no actions."""
    ws.send(first)
    while ws.connected:
        message = sub.next(idle)
        if message is not None:
            ws.send(message)
        else:
            # Drain (and ignore) anything the phone sent; it also notices a closed socket.
            while ws.connected and ws.receive(timeout=0) is not None:
                pass
