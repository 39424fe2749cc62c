"""Codes people read aloud or type: no look-alikes (no I, L, 1, O, 0), any case, short."""
from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Iterable, Optional

from companion.limits import FORGET, FREE_TRIES, KEYS_KEPT, MAX_WAIT

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"   # 31 symbols: I, L, O, 0 and 1 left out
GAME_LENGTH = 5                                 # 31^5: 28 million game codes
SEAT_LENGTH = 6                                 # every other code (seat move, display, host claim): 31^6, 887 million
LIFETIME = 15 * 60.0                            # seconds a code stays good

# Wrong guesses cost the guesser, never the code's owner: the limits (FREE_TRIES, MAX_WAIT, FORGET) are in limits.py.


def new(length: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def normal(text: str) -> str:
    """What a person typed, as the code it means: any case, spaces and dashes ignored."""
    return "".join(ch for ch in str(text).upper() if ch not in " -")


@dataclass
class Code:
    """A one-use code (seat move, host claim, table display), kept in memory only: a restart voids it.

    A wrong guess never voids it: strangers guessing must not lock the owner out (see Guesses)."""

    value: str
    issuer: Optional[str] = None
    made: float = field(default_factory=time.monotonic)

    @classmethod
    def fresh(cls, issuer: Optional[str] = None, length: int = SEAT_LENGTH) -> "Code":
        return cls(new(length), issuer)

    @property
    def expired(self) -> bool:
        return time.monotonic() - self.made > LIFETIME

    def check(self, typed) -> bool:
        """True when `typed` is this code (and it is still good)."""
        return (not self.expired and isinstance(typed, str)
                and secrets.compare_digest(normal(typed).encode(), self.value.encode()))


class Guesses:
    """Backoff for wrong codes, per key ("device:..." and "address:..."): the guesser waits, the code lives."""

    def __init__(self, free: int = FREE_TRIES, max_wait: float = MAX_WAIT):
        self.free, self.max_wait = free, max_wait
        self._keys: dict[str, tuple[int, float, float]] = {}   # key -> (wrong guesses, may guess again at, last)
        self._lock = threading.Lock()

    def wait(self, keys: Iterable[str]) -> float:
        """Seconds before these keys may have a code checked again (0: now)."""
        now = time.monotonic()
        with self._lock:
            return max([0.0] + [self._keys[k][1] - now for k in keys if k in self._keys])

    def wrong(self, keys: Iterable[str]) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._keys) > KEYS_KEPT:
                # Fresh cookies make new keys: forget those quiet for FORGET (one still waiting was wrong at most
                # MAX_WAIT ago, so it stays).
                self._keys = {k: v for k, v in self._keys.items() if now - v[2] < FORGET}
            for k in keys:
                n, _, last = self._keys.get(k, (0, now, now))
                n = 1 if now - last > FORGET else n + 1
                pause = 0.0 if n <= self.free else min(self.max_wait, 2.0 ** (n - self.free - 1))
                self._keys[k] = (n, now + pause, now)

    def right(self, keys: Iterable[str]) -> None:
        with self._lock:
            for k in keys:
                self._keys.pop(k, None)
