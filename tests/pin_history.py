"""The LEDs as gpiozero's MockPins recorded them: a busy machine can sleep through a blink, the pins' history cannot."""
from __future__ import annotations

from gpiozero.pins.mock import MockFactory


def clear(factory: MockFactory, pins: dict[str, int]) -> None:
    """Start every pin's change history afresh."""
    for pin in pins.values():
        factory.pin(pin).clear_states()


def timeline(factory: MockFactory, pins: dict[str, int], active_high: bool = True) -> list[tuple[float, set[str]]]:
    """(seconds since clear, the lit colours from then on), one entry per change, in time order."""
    changes, now = [], set()
    for colour, pin in pins.items():
        states = factory.pin(pin).states
        if states[0].state == active_high:
            now.add(colour)
        at = 0.0
        for change in states[1:]:
            at += change.timestamp
            changes.append((at, colour, change.state == active_high))
    seen = [(0.0, set(now))]
    for at, colour, on in sorted(changes):
        (now.add if on else now.discard)(colour)
        if now != seen[-1][1]:
            seen.append((at, set(now)))
    return seen


def shown(factory: MockFactory, pins: dict[str, int], active_high: bool = True) -> list[set[str]]:
    """The lit colours at each change since clear(), in time order."""
    return [lit for _, lit in timeline(factory, pins, active_high)]


def share(factory: MockFactory, pins: dict[str, int], until: float, test) -> float:
    """The share of the time from clear() to `until` s after it during which test(lit colours) held."""
    steps = timeline(factory, pins) + [(until, None)]
    held = sum(min(b, until) - a for (a, lit), (b, _) in zip(steps, steps[1:]) if a < until and test(lit))
    return held / until
