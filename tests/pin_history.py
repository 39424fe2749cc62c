"""The LEDs as the pins recorded them: a busy machine can sleep through a blink, the pins' record cannot.

gpiozero's MockPin times each pin's changes from that pin's own clear_states(), so changes on different pins cannot
be put in order to the microsecond; these pins write every change to one list their factory shares, in the order
the changes were made (gpiozero documents overriding `_set_state` for pin classes)."""
from __future__ import annotations

import time

from gpiozero.pins.mock import MockFactory, MockPin


class RecordingFactory(MockFactory):
    """A MockFactory whose pins all append (time, pin, state) to `changes`, their creation included, and
    (pin, state) to `closed` as they are freed (a freed pin keeps the level it had on a real Pi)."""

    def __init__(self):
        changes = self.changes = []
        closed = self.closed = []

        class RecordingPin(MockPin):
            def __init__(self, factory, info):
                super().__init__(factory, info)
                changes.append((time.monotonic(), self, self.state))

            def _set_state(self, value):
                before = self.state
                super()._set_state(value)
                if self.state != before:
                    changes.append((time.monotonic(), self, self.state))

            def close(self):
                closed.append((self, self.state))
                super().close()

        super().__init__(pin_class=RecordingPin)


def mark(factory: RecordingFactory) -> tuple[int, float]:
    """Now, as a place in the record to look from."""
    return len(factory.changes), time.monotonic()


def timeline(factory: RecordingFactory, pins: dict[str, int], since: tuple[int, float],
             active_high: bool = True) -> list[tuple[float, set[str]]]:
    """(seconds after `since`, the lit colours from then on), one entry per change, in the order made."""
    colour = {factory.pin(number): name for name, number in pins.items()}
    changes, (start, t0) = list(factory.changes), since
    level = {pin: state for _, pin, state in changes[:start]}

    def lit() -> set[str]:
        return {colour[pin] for pin, state in level.items() if pin in colour and bool(state) == active_high}

    seen = [(0.0, lit())]
    for at, pin, state in changes[start:]:
        level[pin] = state
        if lit() != seen[-1][1]:
            seen.append((at - t0, lit()))
    return seen


def shown(factory: RecordingFactory, pins: dict[str, int], since: tuple[int, float],
          active_high: bool = True) -> list[set[str]]:
    """The lit colours at `since` and after each change, in the order made."""
    return [lit for _, lit in timeline(factory, pins, since, active_high)]


def share(factory: RecordingFactory, pins: dict[str, int], since: tuple[int, float], until: float, test) -> float:
    """The share of the `until` seconds after `since` during which test(lit colours) held."""
    steps = timeline(factory, pins, since) + [(until, None)]
    held = sum(min(b, until) - a for (a, lit), (b, _) in zip(steps, steps[1:]) if a < until and test(lit))
    return held / until


def flips(factory: RecordingFactory, pins: dict[str, int], since: tuple[int, float]) -> dict[str, int]:
    """How many times each colour's pin changed level after `since`."""
    colour = {factory.pin(number): name for name, number in pins.items()}
    counts = dict.fromkeys(pins, 0)
    for _, pin, _ in factory.changes[since[0]:]:
        if pin in colour:
            counts[colour[pin]] += 1
    return counts


def turned_on(factory: RecordingFactory, pins: dict[str, int], since: tuple[int, float]) -> list[str]:
    """The colours whose LED went on after `since` (active high), in the order they did."""
    colour = {factory.pin(number): name for name, number in pins.items()}
    return [colour[pin] for _, pin, state in factory.changes[since[0]:] if pin in colour and state]


def wait_flips(factory: RecordingFactory, pins: dict[str, int], since: tuple[int, float], at_least: dict[str, int],
               timeout: float = 10.0) -> dict[str, int]:
    """The changes since `since`, once each named pin has made `at_least` of them (or `timeout` passed): a blink
    counted by its changes, not by a fixed sleep a loaded machine can make too short."""
    end = time.monotonic() + timeout
    while True:
        changed = flips(factory, pins, since)
        if all(changed[c] >= n for c, n in at_least.items()) or time.monotonic() > end:
            return changed
        time.sleep(0.02)
