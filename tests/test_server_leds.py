"""LEDs driven by a real server (in this process, so gpiozero's MockFactory pins can be read)."""
from __future__ import annotations

import random
import time

import pytest
from gpiozero.pins.mock import MockFactory

from companion.pi.leds import Leds
from pin_history import RecordingFactory, mark, shown
from server_helpers import Phone, choose, create_game, seat_and_start

PINS = {"blue": 17, "red": 27, "white": 22, "gray": 23}
COLORS3 = ("blue", "red", "white")


def lit(factory: MockFactory, active_high: bool = True) -> set[str]:
    """Colours whose pin is driven to 'LED on' right now."""
    on = 1 if active_high else 0
    return {c for c, pin in PINS.items() if factory.pin(pin).state == on}


def make(inprocess_server, factory, db=None, active_high=True):
    leds = Leds(PINS, active_high=active_high, pin_factory=factory, blink_seconds=0.4)
    config = {"LEDS": leds, "RATE_LIMIT": 1000.0}
    if db:
        config["DB"] = db
    return inprocess_server(**config), leds


def test_a_game_through_the_server_lights_the_bidder_blinks_each_call_winner_and_holds_the_winner(inprocess_server):
    factory = RecordingFactory()
    srv, leds = make(inprocess_server, factory)
    phones = {c: Phone(srv) for c in COLORS3}
    gid = create_game(phones["blue"], COLORS3, mode="expert", seed=11)

    # Lobby: the seated players' LEDs blink gently; an empty seat stays dark.
    phones["blue"].post(f"/api/games/{gid}/seats/blue", {"name": "Ann"})
    phones["red"].post(f"/api/games/{gid}/seats/red", {"name": "Ben"})
    since = mark(factory)
    time.sleep(1.6)
    seen = shown(factory, PINS, since)
    assert set().union(*seen) == {"blue", "red"}
    assert any(s == set() for s in seen), "a pulse goes dark between flashes"

    view = seat_and_start(gid, phones["blue"], {"white": phones["white"]})
    assert lit(factory) == {view["to_act"]}

    rng = random.Random(5)
    calls = 0
    while view["phase"] == "playing":
        color = view["to_act"]
        mine = phones[color].view(gid)
        before = sum(p["buildings"] for p in mine["players"])
        since = mark(factory)
        r = phones[color].post(f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.5), expect_seq=mine["seq"]))
        assert r.status == 200, r
        view = r.json
        if sum(p["buildings"] for p in view["players"]) > before:
            calls += 1
            winner = view["last_call"]["color"]
            assert leds.wait_idle(3)
            if calls <= 3 and view["phase"] == "playing":
                # "when a call ends, the winner's LED blinks for a few seconds", then the next bidder's is lit.
                # Three flashes; the last runs on into the next bidder's light when the winner bids next.
                seen = shown(factory, PINS, since)[1:]
                assert set().union(*seen[:-1]) <= {winner}, seen
                assert seen.count({winner}) >= 3 and set() in seen, ("the call winner's LED blinks", seen)
                assert seen[-1] == {view["to_act"]}
        if view["phase"] == "playing":
            # Exactly the current bidder's LED, after every action.
            assert lit(factory) == {view["to_act"]}, (view["seq"], view["to_act"])

    winners = set(view["scores"]["winners"])
    assert leds.wait_idle(3)
    # At the end the winner's LED (or the tied winners') stays lit: steady, no blinking.
    since = mark(factory)
    time.sleep(0.3)
    assert shown(factory, PINS, since) == [winners]
    assert calls >= 13


def test_after_a_power_cut_the_restarted_server_lights_the_right_player_again(inprocess_server, tmp_path):
    db = str(tmp_path / "cut.sqlite3")
    first = RecordingFactory()
    srv, leds = make(inprocess_server, first, db=db)
    phones = {c: Phone(srv) for c in COLORS3}
    gid = create_game(phones["blue"], COLORS3, mode="family", seed=3)
    view = seat_and_start(gid, phones["blue"], phones)
    rng = random.Random(9)
    for _ in range(17):
        mine = phones[view["to_act"]].view(gid)
        view = phones[view["to_act"]].post(f"/api/games/{gid}/actions",
                                           dict(choose(mine, rng), expect_seq=mine["seq"])).json
    srv.stop()
    leds.close()

    second = RecordingFactory()
    srv2, leds2 = make(inprocess_server, second, db=db)
    assert leds2.wait_idle(3)
    assert lit(second) == {view["to_act"]}
    assert Phone(srv2).view(gid)["to_act"] == view["to_act"]


@pytest.mark.parametrize("active_high", [True, False])
def test_hardware_report_and_wiring_test_through_the_api(inprocess_server, active_high):
    factory = RecordingFactory()
    srv, leds = make(inprocess_server, factory, active_high=active_high)
    host = Phone(srv)
    gid = create_game(host, COLORS3, seed=1)
    seat_and_start(gid, host, {c: Phone(srv) if c != "blue" else host for c in COLORS3})
    status = host.get("/api/hardware").json
    assert status["gpio"] == "mock" and status["lit"] == ["blue"] and status["pins"] == PINS
    assert lit(factory, active_high) == {"blue"}
    stranger = Phone(srv)
    r = stranger.post("/api/hardware/test", {})
    assert r.status == 403 and r.json["code"] == "not_host"  # mid-game, nobody else takes the LEDs away
    assert lit(factory, active_high) == {"blue"}
    r = host.post("/api/hardware/test", {})
    assert r.status == 200
    seen = set()
    end = time.monotonic() + 4
    while not leds.wait_idle(0.01) and time.monotonic() < end:
        seen |= lit(factory, active_high)
    assert seen == set(PINS), "the wiring test lights each LED in turn"
    assert lit(factory, active_high) == {"blue"}
