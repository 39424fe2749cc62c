"""One LED per player colour beside the board, so the table sees whose turn it is without a phone.

Why not gpiozero's blink(n=) and its thread per LED: players sit down at different moments, and two LED.blink() started
0.3 s apart changed 70 ms apart (median, MockFactory); one thread for the whole pulsing set keeps them in step (pairs of
changes under 5 ms: tests/test_leds.py), and the winner's flash and the wiring walk are one effect that the game's
next state replaces at once (gpiozero's LEDBoard.blink would blink every LED of the board, not a changing few)."""
from __future__ import annotations

import glob
import logging
import os
import tempfile
import threading
import time
import warnings

from companion.game.state import COLORS

DEFAULT_PINS = "blue=17,red=27,white=22,gray=23"
PHASES = ("lobby", "playing", "finished")
PULSE_SECONDS = 0.7  # lobby: a slow, calm blink while players sit down
NO_GPIO = "No GPIO here (not a Raspberry Pi?): LEDs are off; the game works without them."
# Off a Pi, said at every start in a player's words (the technical reason goes to the debug log, and DEPLOY.md).
NO_PI = "This computer is not a Raspberry Pi, so there are no turn lights: the game works the same without them."


def parse_pins(text: str) -> dict[str, int]:
    """Read a pin setting such as "blue=17,red=27" so a typo is named before any pin is touched."""
    if text is None or not str(text).strip():
        raise ValueError(f'The LED pin setting is empty; write it like "{DEFAULT_PINS}".')
    pins: dict[str, int] = {}
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        colour, eq, number = part.partition("=")
        colour, number = colour.strip().lower(), number.strip()
        if colour == "grey":
            colour = "gray"
        if not eq:
            raise ValueError(f'"{part}" should be colour=pin, like "blue=17".')
        if colour not in COLORS:
            raise ValueError(f'"{colour}" is not a player colour; use blue, red, white or gray.')
        if colour in pins:
            raise ValueError(f"{colour} is given a pin twice.")
        if not number.isdigit() or not 0 <= int(number) <= 27:
            raise ValueError(f'"{number}" is not a GPIO pin for {colour}; use a BCM number from 0 to 27.')
        if int(number) in pins.values():
            raise ValueError(f"GPIO {int(number)} is given to two colours; each LED needs its own pin.")
        pins[colour] = int(number)
    if not pins:
        raise ValueError(f'The LED pin setting is empty; write it like "{DEFAULT_PINS}".')
    return pins


def plan(phase: str, seated: list[str], to_act: str | None, winners: list[str]) -> dict[str, str]:
    """Say what each colour's LED should show for a game moment, apart from the hardware."""
    if phase not in PHASES:
        raise ValueError(f'"{phase}" is not a game phase; use lobby, playing or finished.')
    named = list(seated) + list(winners) + ([to_act] if to_act is not None else [])
    for colour in named:
        if colour not in COLORS:
            raise ValueError(f'"{colour}" is not a player colour; use blue, red, white or gray.')
    if phase == "lobby":
        lit = {c: "pulse" for c in seated}
    elif phase == "playing":
        lit = {to_act: "on"} if to_act is not None else {}
    else:
        lit = {c: "on" for c in winners}
    return {c: lit.get(c, "off") for c in COLORS}


class Leds:
    """Drives the LEDs from the game state; a call's winner blinks, then the next player's LED is lit."""

    def __init__(self, pins: dict[str, int], active_high: bool = True, pin_factory=None,
                 blink_seconds: float = 3.0, pulse_seconds: float = PULSE_SECONDS):
        from gpiozero import LED

        self.pins = {c: pins[c] for c in COLORS if c in pins}
        self.active_high = bool(active_high)
        self.blink_seconds = float(blink_seconds)
        self.pulse_seconds = float(pulse_seconds)
        self._lock = threading.RLock()
        self._leds = {}
        try:
            for colour, pin in self.pins.items():
                self._leds[colour] = LED(pin, active_high=self.active_high, initial_value=False,
                                         pin_factory=pin_factory)
        except BaseException:
            for led in self._leds.values():
                led.close()
            raise
        self._base = {c: "off" for c in COLORS}  # what the game state asks for
        self._showing = {c: "off" for c in COLORS}  # what the LEDs do right now
        self._phase = "off"
        self._effect = None  # (thread, stop event, mode, colour) of a blink or a wiring test
        self._pulse = None  # (thread, stop event, colours) blinking seated players in the lobby
        self._closed = False

    # the game -> the LEDs

    def show(self, phase: str, seated: list[str], to_act: str | None, winners: list[str],
             call_winner: str | None = None) -> None:
        """Follow the game; a call just won makes its winner blink for a moment first."""
        wanted = plan(phase, seated, to_act, winners)
        if call_winner is not None and call_winner not in COLORS:
            raise ValueError(f'"{call_winner}" is not a player colour; use blue, red, white or gray.')
        with self._lock:
            if self._closed:
                return
            self._base, self._phase = wanted, phase
            running = self._effect
            if call_winner is not None and call_winner in self._leds:
                if running and running[2] == "call" and running[3] == call_winner:
                    return  # the same call reported twice: keep the blink going, it restores the new state
                self._start("call", call_winner, lambda stop: self._blink_winner(stop, call_winner))
                self._only(self._effect[1], call_winner, True, "blink")  # at once, not when the thread runs
            elif running is None:
                self._apply(wanted)

    def test_sequence(self, step_seconds: float = 0.5) -> None:
        """Light each LED in turn so whoever wired them can check colour against pin."""
        with self._lock:
            if not self._closed:
                self._start("test", None, lambda stop: self._walk(stop, step_seconds))
                self._only(self._effect[1], next(iter(self._leds), None), True)

    def light(self, colour: str | None) -> None:
        """Show one LED alone (None: all dark) until the next show(), for checking the wiring by hand."""
        with self._lock:
            if not self._closed:
                self._stop_effect()
                self._stop_pulse()
                self._phase = "test"
                self._only(threading.Event(), colour, True)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait for a blink or wiring test to end; True when the LEDs are back to the game state."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                running = self._effect
            if running is None:
                return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            running[0].join(left)

    def status(self) -> dict:
        """Report the wiring and what is lit, for GET /api/hardware."""
        from gpiozero.pins.mock import MockFactory

        with self._lock:
            factory = next(iter(self._leds.values())).pin_factory if self._leds else None
            mode = self._effect[2] if self._effect else self._phase
            return {
                "gpio": "mock" if isinstance(factory, MockFactory) else "real",
                "pins": dict(self.pins),
                "lit": [c for c in COLORS if self._showing[c] != "off"],
                "mode": mode,
                "active_high": self.active_high,
            }

    def close(self) -> None:
        """Turn everything off and free the pins so another process can use them."""
        with self._lock:
            self._closed = True
            threads = [t for t in (self._effect, self._pulse) if t is not None]
            self._stop_effect()
            self._stop_pulse()
        for running in threads:
            running[0].join()
        with self._lock:
            for led in self._leds.values():
                led.off()  # a freed pin keeps the level it had: off first, then free
                led.close()
            self._showing = {c: "off" for c in COLORS}

    # inside

    def _apply(self, wanted: dict[str, str]) -> None:
        """Make the LEDs show a plan; all pulsing LEDs share one thread so they blink in step."""
        pulses = tuple(c for c in self._leds if wanted.get(c) == "pulse")
        restart = bool(pulses) and (self._pulse is None or self._pulse[2] != pulses)
        if restart:
            self._stop_pulse()
            stop = threading.Event()
            thread = threading.Thread(target=self._pulsing, args=(stop, pulses), daemon=True, name="leds-pulse")
            self._pulse = (thread, stop, pulses)
            thread.start()
        elif not pulses:
            self._stop_pulse()
        for colour, led in self._leds.items():
            state = wanted.get(colour, "off")
            if state == "pulse" and not restart:
                pass  # already pulsing in step with the others: leave it be
            elif state in ("on", "pulse"):
                led.on()  # a pulse starts lit; the pulsing thread then takes turns with dark
            else:
                led.off()
            self._showing[colour] = state

    def _pulsing(self, stop: threading.Event, colours: tuple[str, ...]) -> None:
        lit = True
        while not stop.wait(self.pulse_seconds):
            lit = not lit
            with self._lock:
                if stop.is_set():
                    return
                for colour in colours:
                    self._leds[colour].value = lit

    def _stop_pulse(self) -> None:
        if self._pulse is not None:
            self._pulse[1].set()
            self._pulse = None

    def _start(self, mode: str, colour: str | None, work) -> None:
        """Run a passing effect in its own thread; when it ends the game state comes back."""
        self._stop_effect()
        self._stop_pulse()
        stop = threading.Event()
        thread = threading.Thread(target=self._run, args=(stop, work), daemon=True,
                                  name=f"leds-{mode}")
        self._effect = (thread, stop, mode, colour)
        thread.start()

    def _stop_effect(self) -> None:
        if self._effect is not None:
            self._effect[1].set()
            self._effect = None

    def _run(self, stop: threading.Event, work) -> None:
        work(stop)
        with self._lock:
            if stop.is_set():
                return  # someone else took the LEDs over
            self._effect = None
            self._apply(self._base)

    def _only(self, stop: threading.Event, colour: str | None, lit: bool, label: str = "on") -> bool:
        """Show one LED (or none) and nothing else, unless the effect was stopped meanwhile."""
        with self._lock:
            if stop.is_set():
                return False
            for c, led in self._leds.items():  # all others dark first: never two lit at once
                if c != colour or not lit:
                    led.off()
                self._showing[c] = label if c == colour else "off"
            if lit and colour in self._leds:
                self._leds[colour].on()
            return True

    def _blink_winner(self, stop: threading.Event, colour: str) -> None:
        """Flash the call's winner at least three times within blink_seconds."""
        if self.blink_seconds <= 0:
            return
        half = min(0.25, self.blink_seconds / 6)
        for _ in range(max(3, round(self.blink_seconds / (2 * half)))):
            for lit in (True, False):
                if not self._only(stop, colour, lit, "blink") or stop.wait(half):
                    return

    def _walk(self, stop: threading.Event, step_seconds: float) -> None:
        for colour in self._leds:
            if not self._only(stop, colour, True) or stop.wait(step_seconds):
                return
        self._only(stop, None, False)


class NoLeds:
    """Stands in for the LEDs where there is no GPIO, so the game runs the same without them."""

    def __init__(self, pins: dict[str, int] | None = None, active_high: bool = True, reason: str = NO_GPIO):
        self.pins = dict(pins or {})
        self.active_high = bool(active_high)
        self.reason = reason
        self._phase = "off"

    def show(self, phase, seated, to_act, winners, call_winner=None) -> None:
        plan(phase, seated, to_act, winners)  # the same bad input is refused with or without LEDs
        if call_winner is not None and call_winner not in COLORS:
            raise ValueError(f'"{call_winner}" is not a player colour; use blue, red, white or gray.')
        self._phase = phase

    def test_sequence(self, step_seconds: float = 0.5) -> None:
        pass

    def light(self, colour: str | None) -> None:
        pass

    def wait_idle(self, timeout: float | None = None) -> bool:
        return True

    def status(self) -> dict:
        return {"gpio": "none", "pins": dict(self.pins), "lit": [], "mode": self._phase,
                "active_high": self.active_high, "reason": self.reason}

    def close(self) -> None:
        pass


def _env_true(value: str | None) -> bool | None:
    if value is None or not value.strip():
        return None
    return value.strip().lower() not in ("0", "off", "no", "false")


def make_leds(pins_text: str | None, active_high: bool = True, pin_factory=None, log=print,
              workdir: str | None = None) -> Leds | NoLeds:
    """Build the LEDs, or a silent stand-in with one sentence saying why the table has none."""
    if _env_true(os.environ.get("COMPANION_LEDS")) is False:
        reason = "LEDs are switched off (COMPANION_LEDS=off); the game works without them."
        log(reason)
        return NoLeds(None, active_high, reason)
    try:
        pins = parse_pins(pins_text if pins_text is not None else DEFAULT_PINS)
    except ValueError as e:
        reason = f"{e} LEDs are off; the game works without them."
        log(reason)
        return NoLeds(None, active_high, reason)
    if pin_factory is None:
        lgpio_workdir(workdir)
        if not gpio_here():
            logging.getLogger(__name__).debug("No LEDs: no /dev/gpiochip* or /dev/gpiomem*, and neither "
                                              "GPIOZERO_PIN_FACTORY nor PIGPIO_ADDR is set.")
            log(NO_PI)
            return NoLeds(pins, active_high, NO_PI)
        try:
            pin_factory = _default_factory()
        except Exception as e:
            reason = f"{NO_GPIO} gpiozero said: {e}"
            log(reason)
            return NoLeds(pins, active_high, reason)
    try:
        return Leds(pins, active_high, pin_factory)
    except Exception as e:
        reason = f"Cannot use GPIO pins {pins_text or DEFAULT_PINS} ({e}): LEDs are off; the game works without them."
        log(reason)
        return NoLeds(pins, active_high, reason)


def gpio_here() -> bool:
    """Whether gpiozero could find a pin here: off a Pi it is not even imported (its import is most of a start)."""
    if os.environ.get("GPIOZERO_PIN_FACTORY") or os.environ.get("PIGPIO_ADDR"):
        return True
    return bool(glob.glob("/dev/gpiochip*") or glob.glob("/dev/gpiomem*"))


def lgpio_workdir(workdir: str | None = None) -> None:
    """lgpio makes its notification pipes in LG_WD or the working directory: give it a writable one."""
    if os.environ.get("LG_WD") or os.access(os.getcwd(), os.W_OK | os.X_OK):
        return
    if workdir and os.access(workdir, os.W_OK | os.X_OK):
        os.environ["LG_WD"] = workdir
    else:
        os.environ["LG_WD"] = tempfile.mkdtemp(prefix="metropolys-lgpio-")


class NoPinFactory(Exception):
    """No gpiozero pin factory loaded; the message is what each one said (lgpio's reason matters on a Pi)."""


def _default_factory():
    """Find gpiozero's pin factory without its fallback warnings; when none loads, keep what they said."""
    from gpiozero import Device
    from gpiozero.exc import PinFactoryFallback

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", PinFactoryFallback)
        try:
            Device.ensure_pin_factory()
        except Exception as e:
            reasons = [str(w.message).replace("Falling back from ", "", 1) for w in said
                       if issubclass(w.category, PinFactoryFallback)]
            chain = [e]
            while chain[-1].__cause__ is not None and len(chain) < 5:
                chain.append(chain[-1].__cause__)
            if not reasons:  # e.g. GPIOZERO_PIN_FACTORY names one that is not there
                reasons = [str(x) or type(x).__name__ for x in chain]
            raise NoPinFactory("; ".join(reasons)) from e
    for w in said:  # anything else gpiozero warned about is still worth seeing
        if not issubclass(w.category, PinFactoryFallback):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return Device.pin_factory


# BCM GPIO number -> pin on the 40-pin header, so the wiring test can name the pin to look at
HEADER_PIN = {0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32,
              13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16,
              24: 18, 25: 22, 26: 37, 27: 13}


def read_settings(path: str) -> dict[str, str]:
    """KEY=VALUE lines as systemd's EnvironmentFile= reads them, so root can check with the service's settings."""
    found = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            key, eq, value = line.removeprefix("export ").partition("=")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            if eq:
                found[key.strip()] = value
    return found


def main(argv=None) -> int:
    """`python -m companion.pi.leds`: light each LED in turn, naming its colour and pin, to check the wiring."""
    import argparse
    import shutil

    p = argparse.ArgumentParser(prog="python -m companion.pi.leds", description=main.__doc__.split(": ", 1)[1])
    p.add_argument("--settings", metavar="FILE",
                   help="the service's settings file (e.g. /etc/default/metropolys-companion) to take the pins from")
    p.add_argument("--pins", help=f"colour=GPIO pairs (default: the settings, else {DEFAULT_PINS})")
    p.add_argument("--active-low", action="store_true", default=None,
                   help="LEDs wired from 3.3 V to the pin (lit when the pin is low)")
    p.add_argument("--step", type=float, default=1.0, help="seconds per LED (default 1)")
    args = p.parse_args(argv)
    env = dict(os.environ)
    if args.settings:
        try:
            env.update(read_settings(args.settings))
        except (OSError, UnicodeDecodeError) as e:
            print(f"Cannot read {args.settings} ({getattr(e, 'strerror', None) or e}); "
                  "the service's settings file is for root only: run this with sudo.", flush=True)
            return 2
    pins = args.pins or env.get("COMPANION_LED_PINS") or DEFAULT_PINS
    active_low = args.active_low if args.active_low is not None else \
        _env_true(env.get("COMPANION_LED_ACTIVE_HIGH")) is False
    scratch = None
    if not os.environ.get("LG_WD"):
        # lgpio's pipes go to a private folder, not wherever this was started (perhaps the service's own folder).
        os.environ["LG_WD"] = env.get("LG_WD") or tempfile.mkdtemp(prefix="metropolys-lgpio-")
        scratch = None if env.get("LG_WD") else os.environ["LG_WD"]
    try:
        leds = make_leds(pins, active_high=not active_low, log=lambda s: print(s, flush=True))
        if isinstance(leds, NoLeds):
            return 1
        try:
            for colour, pin in leds.pins.items():
                print(f"{colour}: GPIO {pin} (header pin {HEADER_PIN[pin]}) is lit", flush=True)
                leds.light(colour)
                time.sleep(args.step)
            return 0
        finally:
            leds.close()
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
