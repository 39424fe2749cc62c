"""Asks for a gone phone's seat: each device's own ask with its own code on the Pi's screen, and the wait a
device and its address serve after the table turned one of their asks down (it grows with each refusal)."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Iterable, Optional

from companion.codes import Code
from companion.limits import ASK_MAX_WAIT, ASK_WAIT, FORGET, KEYS_KEPT


@dataclass
class Ask:
    """One device asking the table for a gone seat: numbered on its own screen and, with its code, on the Pi's."""

    color: str
    device: str
    address: str
    number: int
    code: Code
    played: Optional[float] = None     # when this device last wrote to this table's log (epoch seconds), or None

    @property
    def open(self) -> bool:
        return not self.code.expired


@dataclass
class Turndowns:
    """Asks the table cancelled, per key ("device:..." and "address:..."): the next ask waits ASK_WAIT, then
    twice as long after each further cancel, up to ASK_MAX_WAIT; forgotten after FORGET seconds of quiet."""

    base: float = ASK_WAIT
    most: float = ASK_MAX_WAIT
    _keys: dict = field(default_factory=dict)    # key -> (cancels, may ask again at, last cancel)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, keys: Iterable[str]) -> float:
        now = time.monotonic()
        with self._lock:
            return max([0.0] + [self._keys[k][1] - now for k in keys if k in self._keys])

    def cancelled(self, keys: Iterable[str]) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._keys) > KEYS_KEPT:
                self._keys = {k: v for k, v in self._keys.items() if v[1] > now or now - v[2] < FORGET}
            for k in keys:
                n, _, last = self._keys.get(k, (0, now, now))
                n = 1 if now - last > FORGET else n + 1
                self._keys[k] = (n, now + min(self.most, self.base * 2 ** (n - 1)), now)
