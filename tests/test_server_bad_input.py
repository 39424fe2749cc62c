"""Bad requests get a clear sentence and change nothing: same seq, same number of events in the log."""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import simple_websocket

from server_helpers import LiveServer, create_game, seat_and_start, timeless


@pytest.fixture(scope="module")
def strict(tmp_path_factory):
    """A server with the shipped rate limit (10 actions a second per device, bursts of 20); its many games all come
    from one address, so the cap on games being played is raised (tests/test_server_pi_secret.py checks it)."""
    s = LiveServer(tmp_path_factory.mktemp("strict") / "companion.sqlite3",
                   env={"COMPANION_RATE_LIMIT": "", "COMPANION_STARTED_LIMIT": "100000"})
    s.start()
    yield s
    s.kill()


class Table:
    def __init__(self, server, phone):
        self.server = server
        self.blue, self.red, self.stranger = phone(server), phone(server), phone(server)
        self.gid = create_game(self.blue, ["blue", "red"], seed=1)
        seat_and_start(self.gid, self.blue, {"blue": self.blue, "red": self.red})
        self.path = f"/api/games/{self.gid}"

    def legal_bid(self) -> dict:
        legal = self.blue.view(self.gid)["legal"]["neighborhoods"]
        nb = sorted(legal)[0]
        return {"bid": nb, "value": legal[nb][0]}

    def snapshot(self):
        return self.blue.view(self.gid), self.server.event_count()


@pytest.fixture
def table(strict, phone):
    return Table(strict, phone)


def refused(reply, status: int, code: str) -> None:
    """The refusal: the status, the code, and a sentence a player can read (not the code itself)."""
    assert reply.status == status, reply
    body = reply.json
    assert isinstance(body, dict) and set(body) >= {"error", "code"}, reply
    assert body["code"] == code, reply
    sentence = body["error"]
    assert isinstance(sentence, str) and " " in sentence and sentence != code, reply
    assert not sentence[0].islower() and sentence.rstrip()[-1] in ".!?", reply


def unchanged(table: Table, before) -> None:
    view, events = before
    after_view, after_events = table.snapshot()
    assert after_events == events, "the log grew"
    assert timeless(after_view) == timeless(view), "the game changed"


ACTION_CASES = {
    # name: (raw body, status, code)
    "malformed_json": (b'{"bid": "C01", "value": ', 400, "bad_json"),
    "json_list": (b'[{"pass": true}]', 400, "bad_json"),
    "json_string": (b'"pass"', 400, "bad_json"),
    "empty_body": (b"", 400, "bad_json"),
    "unknown_field": (b'{"pass": true, "cheat": 1}', 400, "unknown_field"),
    "claims_another_player": (b'{"player": "red", "pass": true}', 400, "unknown_field"),
    "value_as_text": (b'{"bid": "C04", "value": "3"}', 400, "bad_type"),
    "value_as_bool": (b'{"bid": "C04", "value": true}', 400, "bad_type"),
    "value_as_float": (b'{"bid": "C04", "value": 3.0}', 400, "bad_type"),
    "bid_as_number": (b'{"bid": 4, "value": 3}', 400, "bad_type"),
    "pass_false": (b'{"pass": false}', 400, "bad_type"),
    "expect_seq_text": (b'{"pass": true, "expect_seq": "5"}', 400, "bad_type"),
    "bid_and_pass": (b'{"bid": "C04", "value": 3, "pass": true}', 400, "bad_action"),
    "bid_without_value": (b'{"bid": "C04"}', 400, "bad_action"),
    "nothing": (b"{}", 400, "bad_action"),
    "value_out_of_range": (b'{"bid": "C04", "value": 14}', 422, "bad_value"),
    "no_such_neighborhood": (b'{"bid": "Z99", "value": 3}', 422, "unknown_neighborhood"),
    "removed_district": (b'{"bid": "N01", "value": 3}', 422, "district_removed"),
    "start_player_passes": (b'{"pass": true}', 422, "start_cannot_pass"),
}


@pytest.mark.parametrize("name", sorted(ACTION_CASES))
def test_bad_action_body_is_refused_and_changes_nothing(table, name):
    raw, status, code = ACTION_CASES[name]
    before = table.snapshot()
    refused(table.blue.post(f"{table.path}/actions", raw=raw), status, code)
    unchanged(table, before)


def test_huge_body_is_refused_with_413(table):
    before = table.snapshot()
    big = json.dumps({"bid": "C04", "value": 3, "pad": "x" * (65 * 1024)}).encode()
    refused(table.blue.post(f"{table.path}/actions", raw=big), 413, "too_large")
    refused(table.blue.post("/api/games", raw=big), 413, "too_large")
    unchanged(table, before)


def test_a_body_just_under_the_limit_is_read(table):
    """The control for 413: 60 KB is read, and refused only for its unknown field."""
    before = table.snapshot()
    body = json.dumps({"pass": True, "pad": "x" * (60 * 1024)}).encode()
    refused(table.blue.post(f"{table.path}/actions", raw=body), 400, "unknown_field")
    unchanged(table, before)


def test_acting_out_of_turn_is_refused(table):
    before = table.snapshot()
    bid = table.legal_bid()
    refused(table.red.post(f"{table.path}/actions", bid), 422, "not_your_turn")
    refused(table.red.post(f"{table.path}/actions", {"pass": True}), 422, "not_your_turn")
    unchanged(table, before)


def test_a_phone_cannot_send_an_automatic_pass(table):
    """Blue's 13 leaves Red without a legal bid: the rules pass Red (API.md: "automatic passes ... are made by
    the rules, never sent"), so Red's phone sending that pass is refused and nothing is logged."""
    legal = table.blue.view(table.gid)["legal"]["neighborhoods"]
    nb = sorted(legal)[0]
    assert table.blue.post(f"{table.path}/actions", {"bid": nb, "value": 13}).status == 200
    view = table.red.view(table.gid)
    assert view["to_act"] == "blue" and view["legal"] is None  # Red passed automatically; Blue built and opens
    before = table.snapshot()
    refused(table.red.post(f"{table.path}/actions", {"pass": True}), 422, "not_your_turn")
    unchanged(table, before)


def test_a_device_without_a_seat_cannot_act(table):
    before = table.snapshot()
    refused(table.stranger.post(f"{table.path}/actions", table.legal_bid()), 403, "not_seated")
    unchanged(table, before)


def test_a_device_cannot_act_for_another_seat(table):
    """There is no way to name a colour: the seat is the device's own, so red's phone cannot move blue."""
    before = table.snapshot()
    refused(table.red.post(f"{table.path}/actions", dict(table.legal_bid(), player="blue")), 400, "unknown_field")
    refused(table.red.post(f"{table.path}/seats/blue", {"name": "Mallory"}), 409, "seat_taken")
    refused(table.red.post(f"{table.path}/seats/blue/cards", {"area": "lakes"}), 409, "started")
    refused(table.stranger.post(f"{table.path}/seats/blue", {"name": "Mallory"}), 409, "seat_taken")
    unchanged(table, before)
    # and blue's own phone can (the control)
    assert table.blue.post(f"{table.path}/actions", table.legal_bid()).status == 200


def test_one_device_holds_one_seat(strict, phone):
    host, other = phone(strict), phone(strict)
    gid = create_game(host, ["blue", "red", "white"], seed=2)
    assert host.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    events = strict.event_count()
    refused(host.post(f"/api/games/{gid}/seats/red", {"name": "Ann"}), 409, "one_seat")
    refused(other.post(f"/api/games/{gid}/seats/green", {"name": "Gus"}), 404, "no_seat")
    refused(other.post(f"/api/games/{gid}/seats/red", {"name": ""}), 400, "bad_type")
    refused(other.post(f"/api/games/{gid}/seats/red", {"name": "x" * 25}), 400, "bad_type")
    refused(other.post(f"/api/games/{gid}/seats/red", {}), 400, "missing_field")
    refused(other.post(f"/api/games/{gid}/seats/blue/cards", {"area": "lakes"}), 403, "not_your_seat")
    assert strict.event_count() == events


@pytest.mark.parametrize("headers,status,code", [
    ({"Origin": "http://evil.example"}, 403, "bad_origin"),
    ({"Origin": "http://127.0.0.1:1"}, 403, "bad_origin"),          # same host, another port
    ({"Origin": "null"}, 403, "bad_origin"),
    ({"Origin": None}, 403, "bad_origin"),                           # neither Origin nor Referer
    ({"Origin": None, "Referer": "http://evil.example/g/x"}, 403, "bad_origin"),
    ({"Content-Type": "text/plain"}, 415, "bad_json"),
    ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "bad_json"),
], ids=["foreign", "other-port", "null", "missing", "foreign-referer", "text", "form"])
def test_csrf_guard_refuses_writes(table, headers, status, code):
    before = table.snapshot()
    bid = table.legal_bid()
    refused(table.blue.post(f"{table.path}/actions", bid, headers=headers), status, code)
    refused(table.blue.post(f"{table.path}/undo", headers=headers), status, code)
    refused(table.stranger.post("/api/games", {"mode": "family", "players": ["blue", "red"],
                                               "removed_districts": ["north", "east"]}, headers=headers),
            status, code)
    unchanged(table, before)


def test_a_same_server_referer_without_origin_is_accepted(table):
    """The control for the CSRF cases: a Referer of this server stands in for a missing Origin."""
    r = table.blue.post(f"{table.path}/actions", table.legal_bid(),
                        headers={"Origin": None, "Referer": f"{table.server.origin}/g/{table.gid}"})
    assert r.status == 200, r


def test_foreign_origin_socket_is_refused_before_any_view(table):
    for origin in ("http://evil.example", None, "http://127.0.0.1:1"):
        with pytest.raises(simple_websocket.ConnectionError) as e:
            table.blue.ws(table.gid, origin=origin)
        assert e.value.status_code == 403
    sock = table.blue.ws(table.gid)  # the control: our own origin opens and gets the view
    assert sock.wait_seq(0)["you"]["color"] == "blue"


def test_socket_for_no_game_is_closed_without_a_view(table):
    sock = table.blue.ws("nosuchgame")
    sock.thread.join(timeout=5)
    assert sock.closed and sock.messages == []


@pytest.mark.parametrize("what", ["start", "undo", "release", "setup"])
def test_only_the_host_may(strict, phone, what):
    host, red, white = phone(strict), phone(strict), phone(strict)
    gid = create_game(host, ["blue", "red", "white"], seed=4)
    for c, p in (("blue", host), ("red", red), ("white", white)):
        assert p.post(f"/api/games/{gid}/seats/{c}", {"name": c}).status == 200
    if what == "undo":
        assert host.post(f"/api/games/{gid}/start").status == 200
        bid = host.view(gid)["legal"]["neighborhoods"]
        nb = sorted(bid)[0]
        assert host.post(f"/api/games/{gid}/actions", {"bid": nb, "value": 5}).status == 200
    path, body = {
        "start": ("start", {}),
        "undo": ("undo", {}),
        "release": ("seats/white/release", {}),
        "setup": ("setup", {"mode": "expert", "players": ["blue", "red", "white"], "removed_districts": ["west"]}),
    }[what]
    before = (timeless(host.view(gid)), strict.event_count())
    refused(red.post(f"/api/games/{gid}/{path}", body), 403, "not_host")
    assert (timeless(host.view(gid)), strict.event_count()) == before
    assert host.post(f"/api/games/{gid}/{path}", body).status == 200  # the control: the host may


def test_lobby_refusals(strict, phone):
    host = phone(strict)
    gid = create_game(host, ["blue", "red"], seed=5)
    events = strict.event_count()
    refused(host.post(f"/api/games/{gid}/start"), 409, "seats_free")
    refused(host.post(f"/api/games/{gid}/actions", {"pass": True}), 403, "not_seated")
    assert host.post(f"/api/games/{gid}/seats/blue", {"name": "A"}).status == 200
    refused(host.post(f"/api/games/{gid}/actions", {"pass": True}), 409, "not_started")
    refused(host.post(f"/api/games/{gid}/undo"), 409, "nothing_to_undo")
    refused(host.get(f"/api/games/{gid}/record"), 409, "not_finished")
    refused(host.post(f"/api/games/{gid}/seats/blue/cards", {"area": "lakes"}), 409, "app_deals")
    refused(host.get("/api/games/nosuchgame"), 404, "no_game")
    refused(host.post("/api/games/nosuchgame/actions", {"pass": True}), 404, "no_game")
    refused(host.get("/api/nothing/here"), 404, "not_found")
    refused(host.request("DELETE", f"/api/games/{gid}"), 405, "bad_method")
    assert strict.event_count() == events + 1  # only blue's seat


@pytest.mark.parametrize("body,status,code", [
    ({"mode": "chess", "players": ["blue", "red"], "removed_districts": ["north", "east"]}, 422, "bad_mode"),
    ({"mode": "family", "players": ["blue"]}, 422, "player_count"),
    ({"mode": "family", "players": ["blue", "blue"], "removed_districts": ["north", "east"]}, 422, "duplicate_color"),
    ({"mode": "family", "players": ["blue", "green"], "removed_districts": ["north", "east"]}, 422, "bad_color"),
    ({"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "south"]}, 422,
     "removed_not_adjacent"),
    ({"mode": "family", "players": ["blue", "red", "white"]}, 422, "removed_count"),
    ({"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"],
      "layout": {"tokens": {"C01": "trendy"}}}, 422, "token_kind_count"),
    ({"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"], "layout": "nice"},
     400, "bad_type"),
    ({"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"], "deal": "cards"},
     400, "bad_type"),
    ({"mode": "family", "players": "blue,red"}, 400, "bad_type"),
    ({"players": ["blue", "red"]}, 400, "missing_field"),
    ({"mode": "family", "players": ["blue", "red"], "host": "me"}, 400, "unknown_field"),
])
def test_bad_new_game_is_refused_and_nothing_is_logged(strict, phone, body, status, code):
    p = phone(strict)
    events = strict.event_count()
    refused(p.post("/api/games", body), status, code)
    assert strict.event_count() == events


def test_rate_limit_refuses_a_flood_of_actions(table):
    """A phone gone mad: after its burst it is refused (429) and the log does not move. Exact on any machine:
    it floods until the first refusal, and what got through fits the bucket (burst + rate x time taken)."""
    before = table.snapshot()
    codes, start = [], time.monotonic()
    with ThreadPoolExecutor(4) as pool:  # four at once, so a slow machine still outpaces the refill
        while len(codes) < 800 and not any(r.status == 429 for r in codes):
            codes += pool.map(lambda _: table.red.post(f"{table.path}/actions", {"pass": True}), range(8))
    took = time.monotonic() - start
    assert all(r.status in (422, 429) for r in codes), codes
    through = [r for r in codes if r.status != 429]
    assert len(through) <= 20 + 10 * took + 1, (len(through), took)   # the shipped bucket: burst 20, 10 a second
    assert len(through) >= 20, [r.status for r in codes]              # the burst itself is never refused
    refused(next(r for r in codes if r.status == 429), 429, "rate_limited")
    unchanged(table, before)
    # Blue's phone has its own bucket.
    assert table.blue.post(f"{table.path}/actions", table.legal_bid()).status == 200
