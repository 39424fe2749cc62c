"""Open sockets per game: each phone gets its newest whole view, sent without ever blocking the bid;
a device keeps at most a few sockets (its newest) and an address at most a few more."""
from __future__ import annotations

import threading
import time
from typing import Callable, Optional

from companion.limits import OWN, SOCKETS_PER_ADDRESS, SOCKETS_PER_DEVICE
from companion.live.wsloop import LiveSocket, Loop, text_frame


class Subscriber:
    """One connected device's socket on one game."""

    def __init__(self, game: str, device: Optional[str], address: str):
        self.game = game
        self.device = device
        self.address = address
        self.live: Optional[LiveSocket] = None
        self.on_message: Optional[Callable[[LiveSocket, str], None]] = None   # what the phone sends (its actions)
        self._lock = threading.Lock()
        self._close: Optional[tuple[int, str]] = None   # closed before its socket was handed over: close it then

    def offer(self, frame: bytes) -> None:
        live = self.live
        if live is not None:
            live.send_frame(frame)

    def close(self, code: int = 1000, reason: str = "") -> None:
        with self._lock:
            live = self.live
            if live is None:   # joined, its handshake still on its way to the loop (Hub.attach closes it)
                self._close = (code, reason)
                return
        live.close(code, reason)

    def hand_over(self, live: LiveSocket) -> Optional[tuple[int, str]]:
        """The socket is the loop's now; the close asked for before it was (a device's newer socket evicted it
        between its join and this), if any."""
        with self._lock:
            self.live = live
            return self._close


class Hub:
    """Who is listening to which game, and how many sockets each device and address holds."""

    def __init__(self, per_device: int = SOCKETS_PER_DEVICE, per_address: int = SOCKETS_PER_ADDRESS):
        self.per_device = per_device
        self.per_address = per_address
        self.loop = Loop()
        self._subs: dict[str, set[Subscriber]] = {}
        self._order: list[Subscriber] = []     # every open subscriber, oldest first
        self._lock = threading.Lock()
        self.on_presence: Optional[Callable[[str], None]] = None   # the table: which seats went offline
        self._left: dict[tuple[str, Optional[str]], float] = {}   # (game, device) -> when its last socket closed
        self.started = time.monotonic()

    def join(self, game: str, device: Optional[str], address: str) -> Optional[Subscriber]:
        """A place for a new socket, or None when this address holds all it may. A device over its own
        cap loses its oldest socket instead: the newest is the page the player is looking at."""
        with self._lock:
            mine = [s for s in self._order if device is not None and s.device == device]
            evict = mine[: max(0, len(mine) - self.per_device + 1)]
            held = sum(1 for s in self._order if s.address == address and s not in evict)
            if held >= self.per_address and address not in OWN:
                return None
            for old in evict:
                self._remove(old)
            sub = Subscriber(game, device, address)
            self._subs.setdefault(game, set()).add(sub)
            self._order.append(sub)
        for old in evict:
            old.close(1008, "a newer connection from this device")
        return sub

    def attach(self, sub: Subscriber, sock, first: str) -> LiveSocket:
        """Hand the upgraded socket to the loop and send the first view."""
        live = LiveSocket(sock, self.loop, on_close=lambda: self.leave(sub), on_message=sub.on_message)
        closed = sub.hand_over(live)
        live.send(first)
        self.loop.watch(live)
        if closed is not None:
            live.close(*closed)
        return live

    def leave(self, sub: Subscriber) -> None:
        with self._lock:
            self._remove(sub)
        if self.on_presence is not None:
            self.on_presence(sub.game)

    def _remove(self, sub: Subscriber) -> None:
        subs = self._subs.get(sub.game, set())
        subs.discard(sub)
        if not any(s.device == sub.device for s in subs):
            self._left[(sub.game, sub.device)] = time.monotonic()
        if not self._subs.get(sub.game, True):
            del self._subs[sub.game]
        try:
            self._order.remove(sub)
        except ValueError:
            pass

    def live(self, game: str) -> set[Optional[str]]:
        """Devices with an open socket to this game: the table shows seats without one as offline."""
        with self._lock:
            return {s.device for s in self._subs.get(game, ())}

    def away_for(self, game: str, device: Optional[str]) -> float:
        """Seconds since this device's last socket to the game closed (since start if it never had one); 0 if live."""
        with self._lock:
            if any(s.device == device for s in self._subs.get(game, ())):
                return 0.0
            return time.monotonic() - self._left.get((game, device), self.started)

    def publish(self, game: str, render: Callable[[list], dict]) -> dict[Optional[str], str]:
        """Offer every listener its own view: `render(devices)` gives each distinct device's text at once;
        each distinct text is framed once however many sockets it goes to. Returns each device's text."""
        with self._lock:
            subs = list(self._subs.get(game, ()))
        texts = render(list(dict.fromkeys(sub.device for sub in subs)))
        frames: dict[str, bytes] = {}
        for sub in subs:
            text = texts[sub.device]
            frame = frames.get(text)
            if frame is None:
                frame = frames[text] = text_frame(text)
            sub.offer(frame)
        return texts
