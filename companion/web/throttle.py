"""What one device may add to the log and the Pi's memory: token buckets per device and per address.

Why not Flask-Limiter: it brings limits, rich and ordered-set to the Pi for what is here a dictionary and a lock
(RateLimit.allow: 2.9 µs a call on the build machine); a request is charged to its device and its address at once,
the Pi's own screen never, changes are counted per game, and a refusal is a sentence in the device's language."""
from __future__ import annotations

import threading
import time

from flask import Flask, current_app, g, request

from companion.errors import Refused
from companion.limits import (ACTION_BURST, CHANGES_PER_GAME, KEYS_KEPT, WRITE_BURST, WRITE_BURST_PER_ADDRESS,
                              WRITES_PER_ADDRESS_FACTOR)


class RateLimit:
    """A token bucket per device: a phone gone mad cannot flood the log."""

    def __init__(self, per_second: float, burst: int):
        self.rate, self.burst = per_second, burst
        self.buckets: dict[str, tuple[float, float]] = {}
        self.lock = threading.Lock()

    def allow(self, device: str) -> bool:
        now = time.monotonic()
        with self.lock:
            if len(self.buckets) > KEYS_KEPT:
                # Cookieless requests make a new device each time: forget buckets that are full again.
                self.buckets = {d: (t, w) for d, (t, w) in self.buckets.items()
                                if t + (now - w) * self.rate < self.burst}
            tokens, then = self.buckets.get(device, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens < 1:
                self.buckets[device] = (tokens, now)
                return False
            self.buckets[device] = (tokens - 1, now)
            return True


def limit_writes() -> None:
    """Every write that grows a store: a token bucket per device and a wider one per address."""
    limits = current_app.extensions["write_limit"]
    if not (limits[0].allow(g.device) and limits[1].allow(request.remote_addr or "")):
        raise Refused(429, "rate_limited")


def limit_changes(game) -> None:
    if game.changes.get(g.device, 0) >= CHANGES_PER_GAME:
        raise Refused(429, "names_full", limit=CHANGES_PER_GAME)


def limit_actions() -> None:
    """Bids, passes, undos and codes: one token bucket per device."""
    if not current_app.extensions["rate_limit"].allow(g.device):
        raise Refused(429, "rate_limited")


def init_app(app: Flask) -> None:
    app.extensions["rate_limit"] = RateLimit(app.config["RATE_LIMIT"], burst=ACTION_BURST)
    writes = app.config["WRITE_RATE_LIMIT"]
    app.extensions["write_limit"] = (RateLimit(writes, burst=WRITE_BURST),
                                     RateLimit(writes * WRITES_PER_ADDRESS_FACTOR, burst=WRITE_BURST_PER_ADDRESS))
