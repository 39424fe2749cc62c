"""Codes read aloud and the price of a wrong one, on a clock the test moves: the limits' own numbers, literally."""
from __future__ import annotations

import pytest

from companion import codes, limits


class Clock:
    """time.monotonic for codes.py only, moved by the test."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(codes, "time", c)
    return c


def test_the_limits_are_three_free_tries_a_minute_at_most_and_forgotten_after_an_hour():
    """The numbers limits.py's table promises, written out: a test that derived them from the module would
    pass whatever they became."""
    assert (limits.FREE_TRIES, limits.MAX_WAIT, limits.FORGET) == (3, 60.0, 3600.0)
    assert (codes.GAME_LENGTH, codes.SEAT_LENGTH, codes.LIFETIME) == (5, 6, 900.0)
    assert codes.ALPHABET == "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


def test_three_wrong_codes_are_free_then_the_wait_doubles_up_to_a_minute(clock):
    g = codes.Guesses()
    keys = ["device:d", "address:a"]
    waits = []
    for _ in range(12):
        assert g.wait(keys) == 0
        g.wrong(keys)
        waits.append(g.wait(keys))
        clock.now += waits[-1]
    assert waits == [0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60]


def test_each_key_pays_alone_and_a_right_code_clears_only_the_device(clock):
    g = codes.Guesses()
    for _ in range(4):
        g.wrong(["device:d", "address:a"])
    assert g.wait(["device:d"]) == g.wait(["address:a"]) == 1
    assert g.wait(["device:other"]) == 0
    assert g.wait(["device:other", "address:a"]) == 1, "a fresh cookie behind the same address waits too"
    clock.now += 0.25
    assert g.wait(["device:d"]) == 0.75
    g.right(["device:d"])
    assert g.wait(["device:d"]) == 0 and g.wait(["address:a"]) == 0.75
    g.right(["device:never-wrong"])   # nothing to clear: no error


def test_an_hour_of_quiet_forgets_the_wrong_codes(clock):
    g = codes.Guesses()
    for _ in range(5):
        g.wrong(["device:d"])
        clock.now += 10
    clock.now += 3600.5    # more than FORGET since the last wrong code: it counts as the first again
    g.wrong(["device:d"])
    g.wrong(["device:d"])
    g.wrong(["device:d"])
    assert g.wait(["device:d"]) == 0
    g.wrong(["device:d"])
    assert g.wait(["device:d"]) == 1


def test_within_the_hour_the_count_goes_on(clock):
    g = codes.Guesses()
    for _ in range(4):
        g.wrong(["device:d"])
    clock.now += 3600       # an hour to the second is not more than FORGET: the fifth wrong code waits 2 s
    g.wrong(["device:d"])
    assert g.wait(["device:d"]) == 2


def test_past_4096_keys_only_those_quiet_for_an_hour_are_forgotten(clock):
    g = codes.Guesses()
    for i in range(4096):
        g.wrong([f"device:{i}"])
    clock.now += 3000
    for _ in range(4):
        g.wrong(["device:recent"])     # the 4097th key, waiting 1 s, 10 minutes before the next
    clock.now += 600                   # the 4096 first are now an hour old to the second: forgotten
    g.wrong(["device:new"])            # more than 4096 keys: the quiet ones go before it is counted
    assert set(g._keys) == {"device:recent", "device:new"}
    assert g.wait(["device:recent"]) == 0 and g._keys["device:recent"][0] == 4, "kept whole, though not waiting"


def test_exactly_4096_keys_are_all_kept(clock):
    g = codes.Guesses()
    for i in range(4096):
        g.wrong([f"device:{i}"])
    clock.now += 3601
    g.wrong(["device:new"])
    assert len(g._keys) == 4097


def test_a_code_is_read_in_any_case_with_spaces_and_dashes_and_dies_after_15_minutes(clock):
    code = codes.Code("ABC234", issuer="dev", made=clock.now)
    assert codes.normal(" ab-c 2-34 ") == "ABC234"
    assert codes.normal("wx-yz") == "WXYZ", "every letter of the alphabet kept, only spaces and dashes go"
    assert code.check("abc-234") and code.check("ABC 234")
    assert not code.check("ABC235") and not code.check(None) and not code.check(123456)
    clock.now += 900
    assert code.check("ABC234"), "good for 15 minutes to the second"
    clock.now += 0.001
    assert code.expired and not code.check("ABC234")


def test_fresh_codes_use_only_the_alphabet_and_the_lengths():
    made = [codes.Code.fresh() for _ in range(200)]
    assert {len(c.value) for c in made} == {6}
    assert len(codes.new(codes.GAME_LENGTH)) == 5
    assert set("".join(c.value for c in made)) <= set(codes.ALPHABET)
    assert len({c.value for c in made}) > 190, "random, not repeated"
    assert codes.Code.fresh("dev").issuer == "dev"
