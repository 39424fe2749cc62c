"""A bid or a pass sent over the phone's open live socket (web/live_acts.py): the POST route's checks, limits,
sentences and answers, applied once, answered only once it is durable, and never for another seat."""
from __future__ import annotations

import json
import random

import pytest

from conftest import FAST
from server_helpers import LiveServer, Phone, choose, create_game, free_port, seat_and_start, timeless

COLORS = ["blue", "red"]


@pytest.fixture(scope="module")
def strict(tmp_path_factory):
    """The real per-device action limit (1 a second here, the same burst of 20), everything else raised."""
    s = LiveServer(tmp_path_factory.mktemp("acts") / "companion.sqlite3", env=dict(FAST, COMPANION_RATE_LIMIT="1"))
    s.start()
    yield s
    s.kill()


def started(server, phone, seed, lang=None):
    phones = {c: phone(server, lang=lang) for c in COLORS}
    gid = create_game(phones["blue"], COLORS, seed=seed)
    seat_and_start(gid, phones["blue"], phones)
    return gid, phones


def test_a_bid_over_the_socket_is_applied_once_and_answered_after_its_view(strict, phone):
    gid, phones = started(strict, phone, 31)
    who = phones["blue"].view(gid)["to_act"]
    other = phones["red" if who == "blue" else "blue"]
    mine = phones[who].view(gid)
    ws, theirs = phones[who].ws(gid), other.ws(gid)
    ws.wait_seq(mine["seq"])
    move = dict(choose(mine, random.Random(31), pass_rate=0), expect_seq=mine["seq"])
    events = strict.event_count()

    ack = ws.act(move, "a1")
    assert ack["status"] == 200 and ack["body"]["seq"] == mine["seq"] + 1
    assert ack["body"]["actions"] == mine["actions"] + 1
    # The view the bid published came on the socket before its answer (the page shows it as it does a POST's).
    assert ws.messages[-1]["seq"] == mine["seq"] + 1
    assert theirs.wait_seq(mine["seq"] + 1)["actions"] == mine["actions"] + 1
    assert strict.event_count() == events + 1
    assert json.loads(strict.events(gid)[-1][3])["bid"] == move["bid"]
    # The same view the POST route's GET gives the same device.
    assert timeless(ack["body"]) == timeless(phones[who].view(gid))


def test_a_resend_of_the_same_id_is_answered_not_applied_again(strict, phone):
    gid, phones = started(strict, phone, 32)
    who = phones["blue"].view(gid)["to_act"]
    mine = phones[who].view(gid)
    ws = phones[who].ws(gid)
    move = dict(choose(mine, random.Random(32), pass_rate=0), expect_seq=mine["seq"])
    first = ws.act(move, "same")
    events = strict.event_count()
    ws.client.send(json.dumps({"id": "same", "act": move}))
    again = ws.ack("same", count=2)
    assert again["status"] == 200 and again["body"]["seq"] == first["body"]["seq"]
    # After a reconnect (a new socket of the same device) the same id is answered too, never applied again.
    ws.close()
    back = phones[who].ws(gid)
    resent = back.act(move, "same")
    assert resent["status"] == 200 and resent["body"]["seq"] == first["body"]["seq"]
    assert strict.event_count() == events
    # Without an id's memory the same body would be refused as stale: the id is what answers it as done.
    stale = back.act(move, "other")
    assert stale["status"] == 409 and stale["body"]["code"] == "stale"
    assert strict.event_count() == events


def refusals(phone_, gid, body, aid):
    """The same action by POST and over the device's socket: (POST's status and body, the socket's)."""
    posted = phone_.post(f"/api/games/{gid}/actions", body)
    sock = phone_.sockets[-1] if phone_.sockets else phone_.ws(gid)
    acked = sock.act(body, aid)
    return (posted.status, posted.json), (acked["status"], acked["body"])


def test_a_refusal_is_the_post_routes_sentence_in_the_devices_language(strict, phone):
    gid, phones = started(strict, phone, 33, lang="de")
    who = phones["blue"].view(gid)["to_act"]
    mine = phones[who].view(gid)
    legal = mine["legal"]["neighborhoods"]
    nb = sorted(legal)[0]
    events = strict.event_count()
    wrong_value = max(legal[nb]) + 20   # not a piece this player has: the rules refuse it (422)
    cases = {"rule": {"bid": nb, "value": wrong_value, "expect_seq": mine["seq"]},
             "fields": {"bid": nb},                                   # a bid without its value
             "type": {"bid": nb, "value": "7"},                       # a value that is not a number
             "stale": {"pass": True, "expect_seq": mine["seq"] - 1}}
    for i, (case, body) in enumerate(cases.items()):
        posted, acked = refusals(phones[who], gid, body, f"r{i}")
        assert posted[0] >= 400 and acked[0] == posted[0], (case, posted, acked)
        if case == "stale":
            assert timeless(acked[1]["view"]) == timeless(posted[1]["view"])
            acked[1].pop("view"), posted[1].pop("view")
        assert acked[1] == posted[1], case
    assert strict.event_count() == events
    # The sentence is German on this device (the rules' refusal, said to "you").
    german = refusals(phones[who], gid, cases["rule"], "r-de")[1][1]["error"]
    english = Phone(strict)
    english.adopt(phones[who])
    english.lang = "en"
    said_en = english.post(f"/api/games/{gid}/actions", cases["rule"]).json["error"]
    assert german != said_en and german


def test_a_device_cannot_act_for_another_seat(strict, phone):
    """Rulebook: "Players take turns in clockwise order" -- a phone bids only for its own seat, when it is to act."""
    gid, phones = started(strict, phone, 34)
    who = phones["blue"].view(gid)["to_act"]
    waiting = "red" if who == "blue" else "blue"
    view = phones[waiting].view(gid)
    watcher = phone(strict)
    events = strict.event_count()
    move = {"pass": True, "expect_seq": view["seq"]}
    posted, acked = refusals(phones[waiting], gid, move, "not-mine")
    assert acked == posted and acked[0] in (403, 409, 422), acked
    posted, acked = refusals(watcher, gid, move, "no-seat")
    assert acked == posted and acked[0] in (403, 409), acked
    assert strict.event_count() == events
    assert phones[who].view(gid)["seq"] == view["seq"]


def test_the_action_limit_holds_over_the_socket_and_is_shared_with_post(strict, phone):
    gid, phones = started(strict, phone, 35)
    who = phones["blue"].view(gid)["to_act"]
    seq = phones[who].view(gid)["seq"]
    ws = phones[who].ws(gid)
    events = strict.event_count()
    for i in range(25):   # stale (old expect_seq): each is charged, none applied; the burst is 20
        ws.client.send(json.dumps({"id": f"s{i}", "act": {"pass": True, "expect_seq": seq - 1}}))
    codes = [ws.ack(f"s{i}")["body"]["code"] for i in range(25)]
    assert codes.count("rate_limited") >= 3 and codes[0] == "stale", codes
    # The same bucket as the POST route: the device is limited there too.
    assert phones[who].post(f"/api/games/{gid}/actions", {"pass": True, "expect_seq": seq}).json["code"] == \
        "rate_limited"
    assert strict.event_count() == events


def test_what_is_not_an_action_is_refused_and_the_socket_stays(strict, phone):
    gid, phones = started(strict, phone, 36)
    ws = phones["blue"].ws(gid)
    for raw in ("not json", json.dumps({"act": {"pass": True}}), json.dumps({"id": "x" * 41, "act": {}}),
                json.dumps({"id": "a", "act": {}, "more": 1})):
        ws.client.send(raw)
    ws.ack(None, count=4)
    assert all(a["status"] == 400 and a["body"]["code"] == "bad_json" for a in ws.acks)
    ok = ws.act({"bid": "nowhere", "value": 1}, "after")
    assert ok["status"] == 422 or ok["status"] == 409, ok   # still open and answering


def test_an_acknowledged_socket_bid_survives_sigkill(tmp_path, phone):
    """kill -9 right after the answer: the bid is in the log and in the view after the restart."""
    server = LiveServer(tmp_path / "crash.sqlite3", port=free_port(), env=FAST)
    server.start()
    try:
        gid, phones = started(server, phone, 37)
        rng = random.Random(37)
        for i in range(3):
            who = phones["blue"].view(gid)["to_act"]
            mine = phones[who].view(gid)
            ws = phones[who].sockets[-1] if phones[who].sockets else phones[who].ws(gid)
            move = dict(choose(mine, rng, pass_rate=0), expect_seq=mine["seq"])
            ack = ws.act(move, f"k{i}")
            assert ack["status"] == 200, ack
            server.kill()
            for p in phones.values():
                p.close()
            server.start()
            after = phones[who].view(gid)
            assert after["seq"] == ack["body"]["seq"] and after["actions"] == mine["actions"] + 1
            assert json.loads(server.events(gid)[-1][3])["bid"] == move["bid"]
    finally:
        server.kill()
