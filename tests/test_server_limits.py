"""Every store a device can grow has a ceiling and a rate, and says so in the device's language when full."""
from __future__ import annotations

import pytest

from server_helpers import LiveServer, Phone

GAME = {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"]}


@pytest.fixture
def strict(tmp_path):
    """The limits as a Pi ships them (only the action rate raised: no robot here bids)."""
    s = LiveServer(tmp_path / "strict.sqlite3", env={"COMPANION_RATE_LIMIT": "1000"})
    s.start()
    yield s
    s.kill()


def test_a_device_opens_five_games_that_nobody_plays_then_is_told_why(strict):
    host = Phone(strict, lang="fr")
    for _ in range(5):
        assert host.post("/api/games", GAME).status == 201
    before = strict.event_count()
    r = host.post("/api/games", GAME)
    assert r.status == 429 and r.json["code"] == "games_full"
    assert r.json["error"] == "Cet appareil a ouvert autant de parties qu’il le peut pour l’instant (5) : jouez ou terminez-en une d’abord."
    assert strict.event_count() == before


def test_devices_that_drop_their_cookie_share_their_addresss_ceiling(strict):
    made = []
    for _ in range(12):
        r = Phone(strict, lang="de").post("/api/games", GAME)   # a new cookie jar each time: a new device
        made.append(r.status)
    assert made == [201] * 10 + [429, 429]
    r = Phone(strict, lang="de").post("/api/games", GAME)
    assert r.json["code"] == "games_full" and "(10)" in r.json["error"]


def test_renames_are_rate_limited_per_device(strict):
    host = Phone(strict)
    gid = host.post("/api/games", GAME).json["id"]
    replies = [host.post(f"/api/games/{gid}/seats/blue", {"name": f"Ann {i}"}) for i in range(40)]
    statuses = [r.status for r in replies]
    # A burst of 30 (the game's creation took one), then about 2 a second.
    assert statuses[:29] == [200] * 29 and 429 in statuses[29:]
    refused = replies[statuses.index(429)]
    assert refused.json["code"] == "rate_limited"
    last = max(i for i, st in enumerate(statuses) if st == 200)
    assert host.view(gid)["you"]["name"] == f"Ann {last}"      # a refused rename changed nothing


def test_a_device_changes_seats_and_names_at_most_100_times_per_game(start_server):
    s = start_server(env={"COMPANION_RATE_LIMIT": "1000", "COMPANION_WRITE_RATE_LIMIT": "1000"})
    host = Phone(s, lang="de")
    gid = host.post("/api/games", GAME).json["id"]
    for i in range(100):
        assert host.post(f"/api/games/{gid}/seats/blue", {"name": f"Ann {i}"}).status == 200
    before = s.event_count()
    r = host.post(f"/api/games/{gid}/seats/blue", {"name": "Ann 100"})
    assert r.status == 429 and r.json["code"] == "names_full" and "(100)" in r.json["error"]
    assert s.event_count() == before
    # Another device is not held back by this one.
    other = Phone(s)
    assert other.post(f"/api/games/{gid}/seats/red", {"name": "Bert"}).status == 200
