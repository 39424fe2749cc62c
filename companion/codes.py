"""Codes people read aloud or type: no look-alikes (no I, L, 1, O, 0), any case, short."""
from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Optional

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"   # 31 symbols: I, L, O, 0 and 1 left out
GAME_LENGTH = 5                                 # 31^5: 28 million game codes
SEAT_LENGTH = 6                                 # a seat (and its cards) hangs on it: 31^6, and few tries
TRIES = 5                                       # wrong guesses before a code is void
LIFETIME = 15 * 60.0                            # seconds a code stays good


def new(length: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def normal(text: str) -> str:
    """What a person typed, as the code it means: any case, spaces and dashes ignored."""
    return "".join(ch for ch in str(text).upper() if ch not in " -")


@dataclass
class Code:
    """A one-use code (seat move, host claim, table display), kept in memory only: a restart voids it."""

    value: str
    issuer: Optional[str] = None
    made: float = field(default_factory=time.monotonic)
    tries: int = 0

    @classmethod
    def fresh(cls, issuer: Optional[str] = None, length: int = SEAT_LENGTH) -> "Code":
        return cls(new(length), issuer)

    @property
    def expired(self) -> bool:
        return self.tries >= TRIES or time.monotonic() - self.made > LIFETIME

    def check(self, typed) -> bool:
        """True when `typed` is this code; every wrong try counts towards voiding it."""
        if self.expired:
            return False
        if isinstance(typed, str) and secrets.compare_digest(normal(typed), self.value):
            return True
        self.tries += 1
        return False
