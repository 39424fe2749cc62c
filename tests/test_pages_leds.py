"""The host page's LED test in real Chromium, against a server whose LEDs sit on gpiozero's mock pins."""
from __future__ import annotations

import re
import time

from gpiozero.pins.mock import MockFactory
from playwright.sync_api import expect

from companion.pi.leds import Leds
from pages_helpers import browser, devices  # noqa: F401

PINS = {"blue": 17, "red": 27, "white": 22, "gray": 23}


def test_the_host_page_tests_each_led_in_turn(inprocess_server, devices):
    factory = MockFactory()
    leds = Leds(PINS, pin_factory=factory, blink_seconds=0.2)
    srv = inprocess_server(LEDS=leds)
    host = devices(srv)
    host.goto("/")
    expect(host.page.locator("#leds-status")).to_have_text(re.compile(r"\S"), timeout=15000)
    assert "17" in host.text("#leds-status") and "23" in host.text("#leds-status")
    host.press("#leds-test")
    seen, end = set(), time.monotonic() + 5
    while time.monotonic() < end and len(seen) < 4:
        seen |= {c for c, pin in PINS.items() if factory.pin(pin).state}
        time.sleep(0.005)
    assert seen == set(PINS), "each LED lights in turn"
    assert leds.wait_idle(5)


def test_without_gpio_the_host_page_says_so_plainly(server, devices):
    host = devices(server, lang="de")
    host.goto("/")
    expect(host.page.locator("#leds-status")).to_have_text(re.compile(r"\S"), timeout=15000)
    assert "kein GPIO" in host.text("#leds-status")
    assert host.page.is_disabled("#leds-test")
