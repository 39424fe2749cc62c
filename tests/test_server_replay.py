"""Issue 41 item 1 through a real server: GET /api/games/<id>/replay is refused (409 not_finished) to the host, a
seat, a watcher and the table screen until the game is over; then every device gets the same steps, the last one's
scores the tally, and the host's phone tells the table screen which step to show (over its socket), a choice that
writes nothing to the game's log and changes nothing in its record."""
from __future__ import annotations

import random
import time
from types import SimpleNamespace

from server_helpers import Phone, create_game, play, score_record, seat_and_start


def wait_for(sock, test, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        last = sock.last
        if last is not None and test(last):
            return last
        time.sleep(0.02)
    raise AssertionError(f"the socket never got it; last {sock.last and sock.last.get('replay_step')}")


def test_replay_refused_to_every_device_until_the_end_then_the_tally_and_the_table_follows_the_host(server):
    colors = ("blue", "red", "white")
    phones = {c: Phone(server) for c in colors}
    watcher = Phone(server)
    local = SimpleNamespace(origin=f"http://localhost:{server.port}", ws_base=f"ws://localhost:{server.port}")
    kiosk = Phone(local)            # the Pi's own screen: a table display (with the table's powers)
    screen = Phone(server, source="127.0.0.81")   # a display let in by the code on the Pi's screen
    gid = create_game(phones["blue"], colors, mode="expert")
    code = kiosk.post("/api/table/code").json["code"]
    assert screen.post("/api/table/claim", {"code": code}).status == 200
    seat_and_start(gid, phones["blue"], phones)
    devices = {"host": phones["blue"], "seat": phones["red"], "watcher": watcher, "table screen": screen,
               "kiosk": kiosk}
    rng = random.Random(41)
    play(gid, phones, rng, max_actions=7)
    for who, device in devices.items():
        r = device.get(f"/api/games/{gid}/replay")
        assert r.status == 409 and r.json["code"] == "not_finished", (who, r)
    assert phones["blue"].post(f"/api/games/{gid}/replay/show", {"step": 3}).status == 409
    play(gid, phones, rng)
    final = phones["blue"].view(gid)
    assert final["phase"] == "finished" and final["replay_step"] is None
    got = {who: device.get(f"/api/games/{gid}/replay") for who, device in devices.items()}
    assert all(r.status == 200 for r in got.values()), got
    assert len({r.body for r in got.values()}) == 1    # the same for every device: the game is over
    replay = got["host"].json
    record = phones["blue"].get(f"/api/games/{gid}/record").json
    assert [dict(s["action"], player=s["color"]) for s in replay["steps"]] == record["actions"]
    assert [s["seq"] for s in replay["steps"]] == list(range(1, len(record["actions"]) + 1))
    tally = score_record(record)
    assert replay["steps"][-1]["scores"] == {c: p["total"] for c, p in tally["players"].items()}
    assert replay["steps"][-1]["scores"] == {c: p["total"] for c, p in final["scores"]["players"].items()}
    assert {p["color"]: (p["area"], p["neighborhood"]) for p in replay["players"]} == {
        c: (v["area"], v["neighborhood"]) for c, v in final["revealed"].items()}
    assert [a["award"] for a in replay["awards"]] and all(set(a) == {"award", "colour", "value"}
                                                          for a in replay["awards"])

    # The host's phone drives the table screen; nobody else may; nothing is logged, the record is the same.
    sock = screen.ws(gid)
    wait_for(sock, lambda v: v["phase"] == "finished")
    events = len(server.events(gid))
    for who in ("seat", "watcher", "table screen"):
        r = devices[who].post(f"/api/games/{gid}/replay/show", {"step": 2})
        assert r.status == 403 and r.json["code"] == "not_host", (who, r)
    r = phones["blue"].post(f"/api/games/{gid}/replay/show", {"step": len(record["actions"]) + 1})
    assert r.status == 400 and r.json["code"] == "bad_step"
    assert phones["blue"].post(f"/api/games/{gid}/replay/show", {"step": "2"}).status == 400
    assert phones["blue"].post(f"/api/games/{gid}/replay/show", {"step": 5}).status == 200
    assert wait_for(sock, lambda v: v["replay_step"] == 5)["seq"] == final["seq"]
    assert kiosk.post(f"/api/games/{gid}/replay/show", {"step": 0}).status == 200   # the Pi's screen hosts too
    wait_for(sock, lambda v: v["replay_step"] == 0)
    assert phones["blue"].post(f"/api/games/{gid}/replay/show", {"step": None}).status == 200
    wait_for(sock, lambda v: v["replay_step"] is None)
    assert len(server.events(gid)) == events
    assert phones["blue"].get(f"/api/games/{gid}/record").json == record
    for p in list(phones.values()) + [watcher, kiosk, screen]:
        p.close()
