"""The turn LEDs, checked pin by pin on gpiozero's MockFactory (the only fake the project allows)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
import time

import pytest
from gpiozero import LED, Device

from companion.pi import leds as leds_mod
from companion.pi.leds import DEFAULT_PINS, Leds, NoLeds, make_leds, parse_pins, plan
from pin_history import RecordingFactory, flips, mark, shown, timeline, turned_on, wait_flips

PINS = {"blue": 17, "red": 27, "white": 22, "gray": 23}


@pytest.fixture
def factory():
    f = RecordingFactory()
    yield f
    f.close()


@pytest.fixture
def board(factory):
    """Four LEDs with short timings so blinking can be watched in a test."""
    leds = Leds(PINS, pin_factory=factory, blink_seconds=0.4, pulse_seconds=0.05)
    yield leds
    leds.close()


def lit(factory, active_high=True):
    """Which colours' pins are driven to 'LED on' right now."""
    return [c for c, p in PINS.items() if factory.pin(p).state == active_high]


# parse_pins

def test_default_pins_parse_to_the_four_player_colours():
    assert parse_pins(DEFAULT_PINS) == {"blue": 17, "red": 27, "white": 22, "gray": 23}


def test_pins_accept_spaces_case_and_grey():
    assert parse_pins(" Blue = 5 , GREY=6 ") == {"blue": 5, "gray": 6}


@pytest.mark.parametrize("text, words", [
    ("", ["empty", DEFAULT_PINS]),
    (" , ", ["empty"]),
    ("blue17", ['"blue17"', "colour=pin"]),
    ("green=5", ['"green"', "blue, red, white or gray"]),
    ("blue=17,blue=18", ["blue", "twice"]),
    ("blue=x", ['"x"', "blue", "0 to 27"]),
    ("red=28", ['"28"', "red", "0 to 27"]),
    ("red=-1", ['"-1"', "red"]),
    ("blue=17,red=17", ["GPIO 17", "two colours"]),
])
def test_bad_pin_settings_are_refused_with_a_sentence(text, words):
    with pytest.raises(ValueError) as e:
        parse_pins(text)
    message = str(e.value)
    assert message.endswith("."), message
    for word in words:
        assert word in message


# plan

def test_plan_lobby_pulses_only_seated_players():
    assert plan("lobby", ["red", "gray"], None, []) == {
        "blue": "off", "red": "pulse", "white": "off", "gray": "pulse"}


def test_plan_playing_lights_exactly_the_player_to_act():
    assert plan("playing", ["blue", "red", "white"], "white", []) == {
        "blue": "off", "red": "off", "white": "on", "gray": "off"}


def test_plan_finished_holds_every_winner_on_a_tie():
    assert plan("finished", ["blue", "red", "white"], None, ["blue", "white"]) == {
        "blue": "on", "red": "off", "white": "on", "gray": "off"}


@pytest.mark.parametrize("args", [
    ("setup", [], None, []),
    ("playing", ["pink"], None, []),
    ("playing", ["blue"], "pink", []),
    ("finished", ["blue"], None, ["pink"]),
])
def test_plan_refuses_unknown_phases_and_colours(args):
    with pytest.raises(ValueError, match=r"is not a (game phase|player colour)"):
        plan(*args)


# Leds on mock pins

def test_lobby_blinks_seated_players_and_leaves_the_others_dark(board, factory):
    board.show("lobby", ["blue", "white"], None, [])
    since = mark(factory)
    time.sleep(0.4)
    changed = wait_flips(factory, PINS, since, {"blue": 2, "white": 2})
    assert changed["blue"] >= 2 and changed["white"] >= 2, "both go dark and light again"
    assert changed["red"] == 0 and changed["gray"] == 0
    assert board.status()["lit"] == ["blue", "white"]
    assert board.status()["mode"] == "lobby"


def test_lobby_seated_players_blink_in_step(board, factory):
    board.show("lobby", ["blue"], None, [])
    time.sleep(0.03)
    since = mark(factory)
    board.show("lobby", ["blue", "red"], None, [])  # red sits down: both restart together
    wait_flips(factory, PINS, since, {"red": 6, "blue": 6})   # 0.3 s on a quiet machine; a loaded one took longer
    # In step: each change of red's comes with blue's change to the same level. Most, not all: a busy machine can
    # preempt the pulse thread between its two writes (once 33 ms of 0.3 s at load 12); a gap built in spans them all
    pin = {c: factory.pin(PINS[c]) for c in ("blue", "red")}
    changes = {c: [(at, state) for at, p, state in factory.changes[since[0]:] if p is pin[c]] for c in pin}
    gaps = sorted(min((abs(at - b) for b, level in changes["blue"] if level == state), default=1.0)
                  for at, state in changes["red"][1:])  # after red's first light, which blue (already lit) shares
    assert len(gaps) >= 4 and gaps[len(gaps) // 2] < 0.005, gaps
    seen = shown(factory, PINS, since)
    assert seen.count({"blue", "red"}) >= 2 and seen[1:].count(set()) >= 2, seen


def test_repeated_lobby_updates_do_not_disturb_the_pulse(board, factory):
    board.show("lobby", ["blue"], None, [])
    since = mark(factory)
    # Updates 3 ms apart for at least 0.5 s (about ten halves of the pulse), and on until the pulse has flipped four
    # times: a loaded machine starves the pulse's thread (once 2 flips in 0.5 s, the whole suite running beside it),
    # while a show() that restarted the pulse would keep it from ever flipping four times (10 s).
    start = time.monotonic()
    while time.monotonic() < start + 0.5 or (flips(factory, PINS, since)["blue"] < 4 and time.monotonic() < start + 10):
        board.show("lobby", ["blue"], None, [])  # e.g. a phone reconnects: nothing changed
        time.sleep(0.003)
    assert flips(factory, PINS, since)["blue"] >= 4, "the pulse kept flipping"
    # Each half of the pulse lasts its 0.05 s or longer, lit and dark alike: a show() that lit the LED again or
    # restarted the pulse would cut a dark half short (the calls come 3 ms apart). A loaded machine only stretches
    # the halves (once, at load 15, the lit share of the 0.5 s was 0.75: a share of wall time is no measure there).
    toggles = [at for at, _ in timeline(factory, PINS, since)[1:]]
    halves = [b - a for a, b in zip(toggles, toggles[1:])]
    assert len(halves) >= 3 and min(halves) >= 0.045, halves


def test_playing_lights_exactly_the_player_to_act_and_follows_the_turn(board, factory):
    seated = ["blue", "red", "white", "gray"]
    for to_act in seated + ["blue"]:
        board.show("playing", seated, to_act, [])
        assert lit(factory) == [to_act]
        assert board.status()["lit"] == [to_act]
    since = mark(factory)
    time.sleep(0.1)
    assert shown(factory, PINS, since) == [{"blue"}], "held steady"


def test_call_winner_blinks_then_the_player_to_act_is_restored_unprompted(board, factory):
    seated = ["blue", "red", "white"]
    board.show("playing", seated, "blue", [])
    since = mark(factory)
    started = time.monotonic()
    # "Red must start a new call in an empty neighborhood of his choice" (rulebook, after red wins a call)
    board.show("playing", seated, "red", [], call_winner="red")
    during = board.status()
    assert during["mode"] == "call" and during["lit"] == ["red"]
    assert board.wait_idle(2)
    seen = shown(factory, PINS, since)
    assert seen[0] == {"blue"} and all(s <= {"red"} for s in seen[1:]), ("only the winner may light", seen)
    elapsed = time.monotonic() - started
    assert 0.35 <= elapsed < 1.5
    ons = turned_on(factory, PINS, since)
    assert ons.count("red") >= 3 + 1 and set(ons) == {"red"}, ons  # three flashes at least, then steady on
    assert lit(factory) == ["red"]
    assert board.status()["mode"] == "playing"
    since = mark(factory)
    time.sleep(0.1)
    assert shown(factory, PINS, since) == [{"red"}], "held steady"


def test_after_a_blink_the_latest_state_is_restored_not_the_one_at_the_call(board, factory):
    seated = ["blue", "red", "white"]
    board.show("playing", seated, "white", [], call_winner="white")
    board.show("playing", seated, "blue", [])  # a later update while white still blinks
    assert board.status()["mode"] == "call", "an ordinary update must not cut the blink short"
    assert board.wait_idle(2)
    assert lit(factory) == ["blue"]


def test_the_same_call_reported_twice_does_not_restart_the_blink(board, factory):
    seated = ["blue", "red"]

    def red_flashes(reports):
        board.show("playing", seated, "blue", [])
        factory.pin(PINS["red"]).clear_states()
        for _ in range(reports):
            board.show("playing", seated, "red", [], call_winner="red")
            time.sleep(0.15)
        assert board.wait_idle(2)
        return [s.state for s in factory.pin(PINS["red"]).states].count(True)

    once = red_flashes(1)
    assert once >= 3 + 1  # at least three flashes, then steady on for red to start the next call
    assert red_flashes(2) == once


def test_a_new_call_winner_takes_over_a_running_blink(board, factory):
    seated = ["blue", "red", "gray"]
    board.show("playing", seated, "red", [], call_winner="red")
    time.sleep(0.1)
    since = mark(factory)
    board.show("playing", seated, "gray", [], call_winner="gray")
    assert board.wait_idle(2)
    seen = shown(factory, PINS, since)[1:]
    assert all(s <= {"gray"} for s in seen) and seen.count({"gray"}) >= 3, seen
    assert lit(factory) == ["gray"]


def test_last_call_blinks_then_winners_stay_lit(board, factory):
    board.show("playing", ["blue", "red", "white"], "red", [])
    board.show("finished", ["blue", "red", "white"], None, ["blue", "white"], call_winner="red")
    assert board.wait_idle(2)
    since = mark(factory)
    time.sleep(0.3)
    assert lit(factory) == ["blue", "white"]
    assert not any(flips(factory, PINS, since).values()), "winners are held steady, not blinking"
    assert board.status()["lit"] == ["blue", "white"]
    assert board.status()["mode"] == "finished"


def test_active_low_wiring_inverts_every_pin(factory):
    leds = Leds(PINS, active_high=False, pin_factory=factory, blink_seconds=0.2)
    try:
        assert [factory.pin(p).state for p in PINS.values()] == [True] * 4, "all dark = all high"
        leds.show("playing", ["blue", "red"], "red", [])
        assert lit(factory, active_high=False) == ["red"]
        assert factory.pin(PINS["red"]).state is False and factory.pin(PINS["blue"]).state is True
        leds.show("playing", ["blue", "red"], "blue", [], call_winner="blue")
        assert leds.wait_idle(2)
        assert lit(factory, active_high=False) == ["blue"]
        assert leds.status()["active_high"] is False
    finally:
        leds.close()


def test_status_reports_mock_gpio_pins_and_lit(board, factory):
    board.show("playing", ["blue", "red"], "red", [])
    assert board.status() == {"gpio": "mock", "pins": PINS, "lit": ["red"], "mode": "playing",
                              "active_high": True}


def test_wiring_test_lights_each_led_in_turn_then_restores(board, factory):
    board.show("playing", ["blue", "red"], "red", [])
    since = mark(factory)
    board.test_sequence(step_seconds=0.06)
    assert board.status()["mode"] == "test"
    assert board.wait_idle(5)
    assert all(len(s) <= 1 for s in shown(factory, PINS, since)), "one LED at a time"
    # The pins' own record, not sampling: a busy machine can sleep through a 60 ms step.
    assert turned_on(factory, PINS, since) == ["blue", "red", "white", "gray", "red"]
    assert lit(factory) == ["red"]


def test_show_during_wiring_test_is_what_comes_back(board, factory):
    board.test_sequence(step_seconds=0.05)
    board.show("finished", ["blue", "red"], None, ["red"])
    assert board.wait_idle(2)
    assert lit(factory) == ["red"]


def test_close_switches_off_and_frees_the_pins(factory):
    leds = Leds(PINS, pin_factory=factory, blink_seconds=5)
    leds.show("playing", ["blue", "red"], "blue", [], call_winner="blue")
    started = time.monotonic()
    leds.close()
    assert time.monotonic() - started < 1, "close must not wait for the blink to finish"
    # each pin was driven off before it was freed: a freed pin keeps its level, so an LED left lit stays lit
    at_close = {pin: state for pin, state in factory.closed}
    assert {c: at_close.get(factory.pin(p)) for c, p in PINS.items()} == dict.fromkeys(PINS, False)
    again = LED(PINS["blue"], pin_factory=factory)  # would raise GPIOPinInUse if still held
    again.close()
    leds.show("playing", ["blue"], "blue", [])  # after close: ignored, no error


def test_show_refuses_bad_input_and_changes_nothing(board, factory):
    board.show("playing", ["blue", "red"], "red", [])
    with pytest.raises(ValueError):
        board.show("playing", ["blue", "red"], "purple", [])
    with pytest.raises(ValueError):
        board.show("playing", ["blue", "red"], "red", [], call_winner="purple")
    assert lit(factory) == ["red"] and board.status()["mode"] == "playing"


def test_shows_from_many_threads_end_in_the_last_state(board, factory):
    seated = ["blue", "red", "white", "gray"]

    def hammer(colour):
        for _ in range(50):
            board.show("playing", seated, colour, [], call_winner=colour)

    threads = [threading.Thread(target=hammer, args=(c,)) for c in seated]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    board.show("playing", seated, "white", [])
    assert board.wait_idle(3)
    assert lit(factory) == ["white"]


def test_only_wired_colours_get_pins(factory):
    leds = Leds({"red": 5, "gray": 6}, pin_factory=factory, blink_seconds=0.1)
    try:
        leds.show("playing", ["blue", "red"], "blue", [], call_winner="blue")  # blue has no LED
        assert leds.wait_idle(1)
        assert factory.pin(5).state is False and factory.pin(6).state is False
        leds.show("playing", ["blue", "red"], "red", [])
        assert factory.pin(5).state is True
        assert leds.status()["pins"] == {"red": 5, "gray": 6}
    finally:
        leds.close()


# make_leds and the fallback

def test_make_leds_with_a_pin_factory_builds_real_leds(factory):
    said = []
    leds = make_leds("blue=5,red=6", pin_factory=factory, log=said.append)
    try:
        assert isinstance(leds, Leds) and said == []
        leds.show("playing", ["blue", "red"], "red", [])
        assert factory.pin(6).state is True and factory.pin(5).state is False
    finally:
        leds.close()


def _no_default_factory(monkeypatch):
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.delenv("COMPANION_LEDS", raising=False)


def test_no_gpio_falls_back_and_says_so_once(monkeypatch):
    _no_default_factory(monkeypatch)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(leds_mod, "gpio_here", lambda: True)   # as if a chip were there: gpiozero looks
    if importlib.util.find_spec("lgpio") is not None:  # found, not imported: importing leaves a pipe in the cwd
        pytest.skip("this machine has lgpio, so it may really have GPIO")
    said = []
    leds = make_leds(None, log=said.append)
    if isinstance(leds, Leds):
        leds.close()
        pytest.skip("gpiozero found a working pin factory here (a Raspberry Pi?)")
    assert isinstance(leds, NoLeds)
    leds.show("lobby", ["blue"], None, [])
    leds.show("playing", ["blue"], "blue", [], call_winner="blue")
    leds.test_sequence()
    assert leds.wait_idle(0)
    leds.close()
    # gpiozero's own reasons follow, each factory's: on a Pi, lgpio's is the one that matters.
    assert len(said) == 1 and said[0].startswith(
        "No GPIO here (not a Raspberry Pi?): LEDs are off; the game works without them. gpiozero said: ")
    assert "lgpio: No module named 'lgpio'" in said[0] and "native: " in said[0]
    status = leds.status()
    assert status["gpio"] == "none" and status["lit"] == [] and status["pins"] == PINS


def test_an_unknown_pin_factory_falls_back_too(monkeypatch):
    _no_default_factory(monkeypatch)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    said = []
    leds = make_leds(DEFAULT_PINS, log=said.append)
    assert isinstance(leds, NoLeds) and said == [f"{leds_mod.NO_GPIO} gpiozero said: "
                                                 "Unable to find pin factory 'no-such-factory'"]
    assert leds.status()["reason"] == said[0]


def test_with_no_gpio_device_gpiozero_is_not_even_imported(tmp_path):
    """Off a Pi (no /dev/gpiochip*, no /dev/gpiomem, no factory named) the start skips gpiozero's import."""
    if leds_mod.gpio_here():
        pytest.skip("this machine has a GPIO device or a pin factory set")
    probe = ("import sys; from companion.pi.leds import make_leds; said = []; leds = make_leds(None, log=said.append); "
             "print(type(leds).__name__, 'gpiozero' in sys.modules); print(said[0])")
    env = {k: v for k, v in os.environ.items() if k not in ("GPIOZERO_PIN_FACTORY", "PIGPIO_ADDR", "COMPANION_LEDS")}
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    kind, said = done.stdout.splitlines()
    assert kind == "NoLeds False"
    # In a player's words: no pin factory or environment variable a player never set (they are in DEPLOY.md).
    assert said == leds_mod.NO_PI and "GPIO" not in said and "PIGPIO" not in said


def test_no_leds_still_refuses_bad_input(monkeypatch):
    leds = NoLeds(PINS)
    with pytest.raises(ValueError):
        leds.show("setup", [], None, [])
    with pytest.raises(ValueError):
        leds.show("playing", ["blue"], "blue", [], call_winner="purple")


def test_companion_leds_off_disables_them_without_touching_pins(monkeypatch, factory):
    monkeypatch.setenv("COMPANION_LEDS", "off")
    said = []
    leds = make_leds(DEFAULT_PINS, pin_factory=factory, log=said.append)
    assert isinstance(leds, NoLeds)
    assert len(said) == 1 and "COMPANION_LEDS=off" in said[0]
    assert factory.pins == {}, "no pin was claimed"


def test_a_bad_pin_setting_turns_leds_off_with_its_sentence(factory):
    said = []
    leds = make_leds("blue=17,green=5", pin_factory=factory, log=said.append)
    assert isinstance(leds, NoLeds)
    assert said == ['"green" is not a player colour; use blue, red, white or gray. '
                    "LEDs are off; the game works without them."]
    assert leds.status()["reason"] == said[0]


def test_a_pin_already_in_use_turns_leds_off_and_releases_the_others(factory):
    busy = LED(22, pin_factory=factory)
    said = []
    try:
        leds = make_leds(DEFAULT_PINS, pin_factory=factory, log=said.append)
        assert isinstance(leds, NoLeds) and len(said) == 1
        assert said[0].startswith(f"Cannot use GPIO pins {DEFAULT_PINS}")
        LED(17, pin_factory=factory).close()  # blue was built before white failed: freed again
    finally:
        busy.close()


def test_make_leds_reads_pins_and_active_low(monkeypatch, factory):
    monkeypatch.delenv("COMPANION_LEDS", raising=False)
    leds = make_leds("white=5", False, factory, pytest.fail)
    try:
        assert leds.status()["pins"] == {"white": 5} and leds.status()["active_high"] is False
        leds.show("playing", ["white"], "white", [])
        assert factory.pin(5).state is False  # active low: lit means the pin is pulled low
    finally:
        leds.close()


# checking the wiring by hand

def test_light_shows_one_led_until_the_next_show(board, factory):
    board.show("playing", ["blue", "red"], "red", [])
    board.light("gray")
    assert lit(factory) == ["gray"]
    board.light(None)
    assert lit(factory) == []
    board.show("playing", ["blue", "red"], "blue", [])
    assert lit(factory) == ["blue"]


def test_header_pin_numbers_match_gpiozero_board_info(factory):
    for gpio, header in leds_mod.HEADER_PIN.items():
        found = [(h.name, pin.number) for h, pin in factory.board_info.find_pin(f"GPIO{gpio}")]
        assert found == [("J8", header)], gpio


def _wiring_cli(env_extra, *args):
    import os
    import subprocess
    import sys

    env = {**os.environ, **env_extra}
    env.pop("COMPANION_LEDS", None)
    return subprocess.run([sys.executable, "-m", "companion.pi.leds", "--step", "0", *args],
                          env=env, capture_output=True, text=True, timeout=60)


def test_wiring_command_names_each_colour_and_header_pin():
    done = _wiring_cli({"GPIOZERO_PIN_FACTORY": "mock"}, "--pins", "red=5,blue=6")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["blue: GPIO 6 (header pin 31) is lit",
                                        "red: GPIO 5 (header pin 29) is lit"]


def test_wiring_command_without_gpio_says_why_and_fails():
    done = _wiring_cli({"GPIOZERO_PIN_FACTORY": "no-such-factory"})
    assert done.returncode == 1
    assert done.stdout.strip() == f"{leds_mod.NO_GPIO} gpiozero said: Unable to find pin factory 'no-such-factory'"
