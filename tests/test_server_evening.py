"""A whole evening through the real server and real sockets: seats moved to new phones, the host role
handed on or claimed, passes for an absent player, abandon, rematch, the front door, seat races, readable
codes, a seat removed. Every refusal leaves the log as it was."""
from __future__ import annotations

import json
import random
import re
import sqlite3
import threading
import time
from types import SimpleNamespace

from companion.codes import ALPHABET
from companion.game.record import replay
from server_helpers import Phone, create_game, play, score_record, seat_and_start

FAST_AWAY = {"COMPANION_RATE_LIMIT": "1000", "COMPANION_HOST_AWAY": "1", "COMPANION_SEAT_MOVE_WAIT": "1"}


def refused(reply, status: int, code: str) -> None:
    assert reply.status == status and reply.json["code"] == code, reply
    assert reply.json["error"][0].isupper(), reply   # a sentence, not just a code


def display(server) -> Phone:
    """The Pi's own screen: the kiosk opens http://localhost:PORT/table on the Pi itself."""
    local = SimpleNamespace(origin=f"http://localhost:{server.port}", ws_base=f"ws://localhost:{server.port}")
    return Phone(local, name="table")


def dealt(server, gid: str) -> dict:
    for _, _, kind, body in server.events(gid):
        if kind == "start":
            return {c: tuple(v) for c, v in json.loads(body)["cards"].items()}
    raise AssertionError("not started")


def card_values(cards: dict, color: str) -> set:
    return {v for v in cards[color] if v}


def values(node):
    """Every string value in a view (keys left out: "removed_districts" is not the Districts card)."""
    if isinstance(node, dict):
        for v in node.values():
            yield from values(v)
    elif isinstance(node, list):
        for v in node:
            yield from values(v)
    elif isinstance(node, str):
        yield node


def three(server, phone, mode="family"):
    host, red, white = phone(server), phone(server), phone(server)
    gid = create_game(host, ["blue", "red", "white"], mode=mode)
    seat_and_start(gid, host, {"blue": host, "red": red, "white": white})
    return gid, {"blue": host, "red": red, "white": white}


def test_a_seat_moves_to_a_new_phone_with_the_code_shown_on_the_old_one(server, phone):
    gid, ph = three(server, phone, mode="expert")
    cards = dealt(server, gid)
    watcher, new = phone(server), phone(server)
    sockets = {c: p.ws(gid) for c, p in ph.items()}
    wsock = watcher.ws(gid)
    seq = ph["red"].view(gid)["seq"]
    for s in [*sockets.values(), wsock]:
        s.wait_seq(seq)

    # Only the seat's own device gets a code for it: not a watcher, not the host (issue 21).
    n = server.event_count()
    refused(watcher.post(f"/api/games/{gid}/seats/red/code"), 403, "not_your_seat")
    refused(ph["blue"].post(f"/api/games/{gid}/seats/red/code"), 403, "not_your_seat")
    r = ph["red"].post(f"/api/games/{gid}/seats/red/code")
    assert r.status == 200, r
    code = r.json["move_codes"]["red"]
    assert re.fullmatch(f"[{ALPHABET}]{{6}}", code)
    # Nobody else is ever sent the code.
    for p in (ph["blue"], ph["white"], watcher, new):
        assert "move_codes" not in p.view(gid)
    # Wrong codes, the host's own device, a device already seated: refused, nothing logged.
    refused(new.post(f"/api/games/{gid}/seats/red/move", {"code": "2345AB"}), 403, "bad_code")
    refused(ph["white"].post(f"/api/games/{gid}/seats/red/move", {"code": code}), 409, "one_seat")
    assert server.event_count() == n

    r = new.post(f"/api/games/{gid}/seats/red/move", {"code": code.lower()})   # any case
    assert r.status == 200, r
    assert r.json["you"]["color"] == "red"
    assert (r.json["you"]["area"], r.json["you"]["neighborhood"]) == cards["red"]
    kinds = [k for _, _, k, _ in server.events(gid)]
    assert kinds[-1] == "move" and server.event_count() == n + 1
    # The code is used up.
    refused(watcher.post(f"/api/games/{gid}/seats/red/move", {"code": code}), 403, "bad_code")

    # Every screen is told; the old phone is a watcher now and sees no cards.
    for s in [*sockets.values(), wsock]:
        last = s.wait_seq(seq + 1)
        assert last["notice"]["key"] == "notice_seat_moved" and last["notice"]["color"] == "red"
    old_view = sockets["red"].last
    assert "you" not in old_view
    assert not card_values(cards, "red") & set(values(old_view))
    assert "you" not in ph["red"].view(gid)
    refused(ph["red"].post(f"/api/games/{gid}/actions", {"pass": True}), 403, "not_seated")
    assert new.view(gid)["you"]["color"] == "red"


def test_the_seat_tricks_of_issue_14_and_21_fail_the_host_frees_no_seat_and_guesses_void_no_code(server, phone):
    gid, ph = three(server, phone, mode="expert")
    cards = dealt(server, gid)
    host, watcher = ph["blue"], phone(server)
    n = server.event_count()
    # Issue 21, channel 2: the host frees neither its own seat nor a live player's, and gets no code for one.
    refused(host.post(f"/api/games/{gid}/seats/blue/release"), 403, "seat_stays")
    refused(host.post(f"/api/games/{gid}/seats/red/release"), 403, "seat_stays")
    refused(host.post(f"/api/games/{gid}/seats/red/code"), 403, "not_your_seat")
    refused(host.post(f"/api/games/{gid}/seats/red", {"name": "Mallory"}), 409, "seat_taken")
    assert server.event_count() == n
    # Red hands its seat on; the host (a seat already) and a watcher guessing cannot use or void red's code.
    code = ph["red"].post(f"/api/games/{gid}/seats/red/code").json["move_codes"]["red"]
    refused(host.post(f"/api/games/{gid}/seats/red/move", {"code": code}), 409, "one_seat")
    for guess in ["AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD", "EEEEEE", "FFFFFF"]:
        r = watcher.post(f"/api/games/{gid}/seats/red/move", {"code": guess})
        assert r.status in (403, 429) and r.json["code"] in ("bad_code", "code_wait"), r
    assert server.event_count() == n
    for p in (host, watcher):
        v = p.view(gid)
        assert v["you"]["color"] == "blue" if p is host else "you" not in v
        assert not card_values(cards, "red") & set(values(dict(v, you=None))), v
    # Six wrong guesses later the code still works for the real new phone, with exactly red's cards.
    new = phone(server)
    r = new.post(f"/api/games/{gid}/seats/red/move", {"code": code})
    assert r.status == 200 and (r.json["you"]["area"], r.json["you"]["neighborhood"]) == cards["red"]
    assert "you" not in watcher.view(gid) and host.view(gid)["you"]["color"] == "blue"


def test_host_claimed_by_a_seated_player_with_the_table_s_confirmation_then_passes_for_the_absent(start_server, phone):
    server = start_server(env=FAST_AWAY)
    host, red, white = phone(server), phone(server), phone(server)
    gid = create_game(host, ["red", "white", "blue"])   # red opens; the host (blue) sits third
    seat_and_start(gid, host, {"blue": host, "red": red, "white": white})
    pi = display(server)
    pi_sock = pi.ws(gid)
    hsock, rsock, wsock = host.ws(gid), red.ws(gid), white.ws(gid)
    time.sleep(0.3)
    n = server.event_count()
    refused(red.post(f"/api/games/{gid}/host/claim"), 409, "host_here")
    refused(red.post(f"/api/games/{gid}/pass-for"), 403, "not_host")
    # The host's phone goes (browser closed mid-call); the table sees the seat offline.
    hsock.close()
    rsock.wait_seq(n)
    deadline = time.monotonic() + 10
    while "blue" not in rsock.last["offline"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert rsock.last["offline"] == ["blue"]
    time.sleep(1.2)
    r = red.post(f"/api/games/{gid}/host/claim")
    assert r.status == 200 and r.json["host_claim"] == {"color": "red"}, r
    assert "host_claim_code" not in r.json and "host_claim_code" not in white.view(gid)
    deadline = time.monotonic() + 10
    while "host_claim_code" not in (pi_sock.last or {}) and time.monotonic() < deadline:
        time.sleep(0.05)
    code = pi_sock.last["host_claim_code"]
    refused(red.post(f"/api/games/{gid}/host/claim", {"code": "ZZZZ" if code != "ZZZZ" else "YYYY"}), 403, "bad_code")
    refused(red.post(f"/api/games/{gid}/host/approve", {"color": "red"}), 403, "approve_other")
    refused(phone(server).post(f"/api/games/{gid}/host/approve", {"color": "red"}), 403, "not_seated")
    assert server.event_count() == n
    r = red.post(f"/api/games/{gid}/host/claim", {"code": code})
    assert r.status == 200 and r.json["host"] is True, r
    # A stale pass for the absent player (the game moved on meanwhile) changes nothing.
    seq_now = red.view(gid)["seq"]
    refused(red.post(f"/api/games/{gid}/pass-for", {"expect_seq": seq_now - 1}), 409, "stale")
    assert red.view(gid)["seq"] == seq_now
    assert white.view(gid)["host_color"] == "red" and host.view(gid)["host"] is False
    assert wsock.wait_seq(n + 1)["notice"] == {"key": "notice_host", "color": "red", "seq": n + 1}

    # Play on; whenever blue (gone) is to act, the new host passes for blue, to the end. When blue must open
    # a call (the rules allow no pass then), the host frees blue's seat for a new phone with its code.
    rng = random.Random(5)
    phones = {"red": red, "white": white}
    passes = 0
    while True:
        v = red.view(gid)
        if v["phase"] != "playing":
            break
        if v["to_act"] == "blue" and "blue" not in phones:
            r = red.post(f"/api/games/{gid}/pass-for", {"expect_seq": v["seq"]})
            if r.status == 200:
                passes += 1
                continue
            assert r.json["code"] == "start_cannot_pass", r
            # Blue's phone is long gone: a new phone asks, types the code only the Pi's screen shows, and
            # after every screen has said so for a while the seat moves (the host cannot free it).
            refused(red.post(f"/api/games/{gid}/seats/blue/release"), 403, "seat_stays")
            fresh = phone(server)
            r = fresh.post(f"/api/games/{gid}/seats/blue/rescue")
            assert r.status == 200 and r.json["seat_move"] == {"color": "blue", "stage": "code"}, r
            assert "seat_move_code" not in r.json and "seat_move_code" not in red.view(gid)
            deadline = time.monotonic() + 10
            while "seat_move_code" not in (pi_sock.last or {}) and time.monotonic() < deadline:
                time.sleep(0.05)
            code = pi_sock.last["seat_move_code"]["code"]
            r = fresh.post(f"/api/games/{gid}/seats/blue/rescue", {"code": code})
            assert r.status == 200 and r.json["seat_move"]["stage"] == "moving" and "you" not in r.json, r
            assert wsock.wait_seq(r.json["seq"])["seat_move"] == {"color": "blue", "stage": "moving"}
            n_moved = r.json["seq"] + 1
            assert wsock.wait_seq(n_moved)["notice"]["key"] == "notice_seat_moved"
            assert fresh.view(gid)["you"]["color"] == "blue"
            phones["blue"] = fresh
            fresh.ws(gid)
            continue
        if v["to_act"] != "blue":
            refused(red.post(f"/api/games/{gid}/pass-for", {"expect_seq": v["seq"]}), 409, "player_here")
        play(gid, phones, rng, max_actions=1, pass_rate=0.5)
    assert passes > 0 and red.view(gid)["phase"] == "finished"
    rows = [(k, json.loads(b)) for _, _, k, b in server.events(gid)]
    assert any(k == "action" and b.get("by_host") and b["player"] == "blue" for k, b in rows)
    conn = sqlite3.connect(str(server.db))
    devices = {d for (d,) in conn.execute(
        "SELECT device FROM events WHERE game = ? AND kind = 'action' AND body LIKE '%by_host%'", (gid,))}
    red_device = {d for (d,) in conn.execute(
        "SELECT device FROM events WHERE game = ? AND kind = 'seat' AND body LIKE '%\"red\"%'", (gid,))}
    conn.close()
    assert devices == red_device, "the acting device (the new host's) is recorded with the pass"


def test_abandon_is_logged_the_partial_record_replays_and_the_table_moves_on(server, phone):
    host, red = phone(server), phone(server)
    gid = create_game(host, ["blue", "red"])
    seat_and_start(gid, host, {"blue": host, "red": red})
    play(gid, {"blue": host, "red": red}, random.Random(3), max_actions=9)
    last = host.view(gid)
    n = server.event_count()
    refused(red.post(f"/api/games/{gid}/abandon", {"confirm": gid}), 403, "not_host")
    refused(host.post(f"/api/games/{gid}/abandon", {"confirm": "XXXXX"}), 400, "confirm_game")
    refused(host.get(f"/api/games/{gid}/record"), 409, "not_finished")
    assert server.event_count() == n
    r = host.post(f"/api/games/{gid}/abandon", {"confirm": gid.lower()})
    assert r.status == 200 and r.json["phase"] == "abandoned", r
    assert [k for _, _, k, _ in server.events(gid)][-1] == "abandon"
    rec = red.get(f"/api/games/{gid}/record")
    assert rec.status == 200
    assert len(rec.json["actions"]) == last["actions"] == 9
    # Its record downloads, so BG Stats' refusal says why there is no play, not "once the game is over" (issue 37).
    r = host.get(f"/api/games/{gid}/bgstats")
    assert r.status == 409 and r.json["code"] == "bgstats_abandoned" and "abandoned" in r.json["error"]
    printed = score_record(rec.json)
    assert printed["finished"] is False
    state = replay(rec.json)
    assert {nb: b.player for nb, b in state.built.items()} == {nb: b["color"] for nb, b in last["built"].items()}
    assert [b.neighborhood for b in state.call] == [b["neighborhood"] for b in last["call"]]
    assert state.to_act_color == last["to_act"]
    cur = phone(server).get("/api/games/current").json
    assert cur["id"] != gid
    # An abandoned game takes no more moves.
    refused(host.post(f"/api/games/{gid}/abandon", {"confirm": gid}), 409, "not_playing")
    assert server.event_count() == n + 1


def test_rematch_keeps_seats_names_and_devices_and_deals_anew(server, phone):
    ph = {c: phone(server) for c in ("blue", "red", "white", "gray")}
    gid = create_game(ph["blue"], list(ph), mode="expert")
    seat_and_start(gid, ph["blue"], ph)
    first = dealt(server, gid)
    sockets = {c: p.ws(gid) for c, p in ph.items()}
    refused(ph["blue"].post(f"/api/games/{gid}/rematch"), 409, "not_finished")
    play(gid, ph, random.Random(8), pass_rate=0.6)
    record_before = ph["red"].get(f"/api/games/{gid}/record").json
    n = server.event_count()
    refused(ph["red"].post(f"/api/games/{gid}/rematch"), 403, "not_host")
    assert server.event_count() == n
    r = ph["blue"].post(f"/api/games/{gid}/rematch", {"rotate": True})
    assert r.status == 200 and r.json["next_game"], r
    new = r.json["next_game"]
    refused(ph["blue"].post(f"/api/games/{gid}/rematch"), 409, "rematch_made")
    for c, s in sockets.items():
        assert s.wait_seq(r.json["seq"])["next_game"] == new
    # Same seats, names and devices, no rescan; the next player starts.
    views = {c: p.view(new) for c, p in ph.items()}
    assert [p["color"] for p in views["blue"]["players"]] == ["red", "white", "gray", "blue"]
    for c, v in views.items():
        assert v["phase"] == "lobby" and v["you"]["color"] == c and v["you"]["name"] == f"P-{c}"
    assert views["blue"]["host"] is True and views["red"]["host"] is False
    assert ph["blue"].post(f"/api/games/{new}/start").status == 200
    second = dealt(server, new)
    assert second != first
    assert ph["white"].get(f"/api/games/{gid}/record").json == record_before


def test_the_front_door_a_watcher_cannot_switch_the_table_or_stop_the_game(start_server, phone):
    server = start_server()
    host, red, watcher = phone(server), phone(server), phone(server)
    gid = create_game(host, ["blue", "red"])
    seat_and_start(gid, host, {"blue": host, "red": red})
    assert watcher.get("/api/games/current").json["id"] == gid
    n = len(server.events(gid))
    r = watcher.post("/api/games", {"mode": "family", "players": ["blue", "red"],
                                    "removed_districts": ["north", "east"]})
    assert r.status == 201 and r.json["shown"] is False
    hidden = r.json["id"]
    # Its game changes last (a seat taken), yet the table keeps the game being played, restart or not.
    assert watcher.post(f"/api/games/{hidden}/seats/red", {"name": "Eve"}).status == 200
    assert watcher.get("/api/games/current").json["id"] == gid
    server.kill()
    server.start()
    assert watcher.get("/api/games/current").json["id"] == gid
    refused(watcher.post(f"/api/games/{gid}/abandon", {"confirm": gid}), 403, "not_host")
    refused(watcher.post(f"/api/games/{gid}/host", {"color": "red"}), 403, "not_host")
    refused(watcher.post(f"/api/games/{gid}/host", {"table": True}), 403, "not_table")
    refused(watcher.post("/api/table/claim", {"code": "ABCDEF"}), 409, "display_seated")   # it sits in its own game
    refused(phone(server).post("/api/table/claim", {"code": "ABCDEF"}), 403, "bad_code")
    assert len(server.events(gid)) == n
    # The host may start a new game that takes the table.
    r = host.post("/api/games", {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"]})
    assert r.status == 201 and r.json["shown"] is True
    assert watcher.get("/api/games/current").json["id"] == r.json["id"]
    # After a restart the table shows the game the host chose, not the one changed last.
    assert watcher.post(f"/api/games/{gid}/seats/blue", {"name": "x"}).status == 409
    server.kill()
    server.start()
    assert watcher.get("/api/games/current").json["id"] == r.json["id"]


def test_a_device_holding_the_code_asked_for_on_the_pi_s_screen_becomes_a_display_not_a_host(start_server, phone):
    server = start_server()
    host, red = phone(server), phone(server)
    gid = create_game(host, ["blue", "red"])
    seat_and_start(gid, host, {"blue": host, "red": red})
    pi = display(server)
    assert pi.get("/api/table").json == {"display": True, "kiosk": True}
    assert red.get("/api/table").json == {"display": False, "kiosk": False}
    # The code exists only once someone asks for it on the Pi's own screen (issue 21).
    refused(red.post("/api/table/code"), 403, "not_table")
    refused(phone(server).post("/api/table/claim", {"code": "ABCDEF"}), 403, "bad_code")
    code = pi.post("/api/table/code").json["code"]
    assert re.fullmatch(f"[{ALPHABET}]{{6}}", code)
    tablet = phone(server)
    refused(tablet.post(f"/api/games/{gid}/host", {"table": True}), 403, "not_table")
    refused(red.post("/api/table/claim", {"code": code}), 409, "display_seated")   # a player's phone stays a phone
    assert tablet.post("/api/table/claim", {"code": code}).status == 200
    refused(phone(server).post("/api/table/claim", {"code": code}), 403, "bad_code")   # used up
    # A screen, not a host: the public view, no host powers, no seat.
    v = tablet.view(gid)
    assert v["host"] is False and v["table_display"] is True and "you" not in v
    n = server.event_count()
    refused(tablet.post(f"/api/games/{gid}/host", {"table": True}), 403, "not_table")
    refused(tablet.post(f"/api/games/{gid}/undo"), 403, "not_host")
    refused(tablet.post(f"/api/games/{gid}/abandon", {"confirm": gid}), 403, "not_host")
    refused(tablet.post(f"/api/games/{gid}/seats/red/code"), 403, "not_your_seat")
    assert server.event_count() == n
    # The Pi's own screen keeps the table's powers.
    r = pi.post(f"/api/games/{gid}/host", {"table": True})
    assert r.status == 200 and red.view(gid)["notice"]["key"] == "notice_host_table"
    assert host.view(gid)["host"] is False


def test_seat_race_exactly_one_is_seated_the_other_told(server, phone):
    host = phone(server)
    gid = create_game(host, ["blue", "red", "white"])
    for color in ("red", "white"):
        a, b = phone(server), phone(server)
        go = threading.Barrier(2)
        out = {}

        def claim(p, who):
            go.wait()   # names differ per colour: a seat's name is unique in its game
            out[who] = p.post(f"/api/games/{gid}/seats/{color}", {"name": f"{who} {color}"})

        ts = [threading.Thread(target=claim, args=(a, "A")), threading.Thread(target=claim, args=(b, "B"))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert sorted(r.status for r in out.values()) == [200, 409], out
        loser, reply = (a, out["A"]) if out["A"].status == 409 else (b, out["B"])
        assert reply.json["code"] == "seat_taken"
        assert "you" not in loser.view(gid)


def test_game_codes_are_readable_and_any_case_and_old_codes_still_open(start_server, phone, tmp_path):
    db = tmp_path / "old.sqlite3"
    server = start_server(db=db)
    host = phone(server)
    gid = create_game(host, ["blue", "red"])
    assert re.fullmatch(f"[{ALPHABET}]{{5}}", gid), gid
    assert not set(gid) & set("IL1O0")
    assert host.get(f"/api/games/{gid.lower()}").json["id"] == gid
    assert host.get(f"/g/{gid.lower()}").status == 200
    # A game made before readable codes (mixed case, look-alikes) is still found by its code.
    server.kill()
    conn = sqlite3.connect(str(db))
    body = {"mode": "family", "players": ["blue", "red"], "removed_districts": ["east", "north"],
            "tokens": json.loads(conn.execute("SELECT body FROM events WHERE seq = 1").fetchone()[0])["tokens"],
            "deal": "app", "seed": None}
    conn.execute("INSERT INTO events (game, seq, kind, body, device, at) VALUES ('azGIjOOR', 1, 'create', ?, 'x', 1.0)",
                 (json.dumps(body),))
    conn.commit()
    conn.close()
    server.start()
    assert host.get("/api/games/azGIjOOR").json["id"] == "azGIjOOR"


def test_the_host_removes_an_empty_seat_in_the_lobby_and_the_setup_follows_the_rules(server, phone):
    host, red = phone(server), phone(server)
    gid = create_game(host, ["blue", "red", "white", "gray"])
    assert host.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    assert red.post(f"/api/games/{gid}/seats/red", {"name": "Bert"}).status == 200
    sock = red.ws(gid)
    n = server.event_count()
    refused(red.post(f"/api/games/{gid}/seats/gray/remove"), 403, "not_host")
    refused(host.post(f"/api/games/{gid}/seats/red/remove"), 409, "seat_taken")
    assert server.event_count() == n
    r = host.post(f"/api/games/{gid}/seats/gray/remove")
    assert r.status == 200, r
    v = r.json
    assert [p["color"] for p in v["players"]] == ["blue", "red", "white"]
    assert len(v["removed_districts"]) == 1
    assert sock.wait_seq(v["seq"])["notice"]["key"] == "notice_seat_removed"
    r = host.post(f"/api/games/{gid}/seats/white/remove")
    assert r.status == 200
    v = r.json
    assert [p["color"] for p in v["players"]] == ["blue", "red"] and len(v["removed_districts"]) == 2
    assert v["you"]["name"] == "Ann"
    # The rules' counts for two players: the server would refuse anything else at start.
    assert host.post(f"/api/games/{gid}/start").status == 200
    refused(host.post(f"/api/games/{gid}/seats/red/remove"), 409, "started")


def test_a_name_typed_with_a_moved_seat_follows_the_name_rules(server, phone):
    """A seat moved with a name gets the name rules a seat taken gets: cleaned, and never another seat's name."""
    gid, ph = three(server, phone)
    new = phone(server)
    code = ph["red"].post(f"/api/games/{gid}/seats/red/code").json["move_codes"]["red"]
    n = server.event_count()
    # Blue's name in other letters, and a name with an invisible character: refused, nothing logged.
    refused(new.post(f"/api/games/{gid}/seats/red/move", {"code": code, "name": "p-BLUE"}), 409, "name_taken")
    refused(new.post(f"/api/games/{gid}/seats/red/move", {"code": code, "name": "Ann\u200b"}), 400, "bad_name")
    assert server.event_count() == n
    r = new.post(f"/api/games/{gid}/seats/red/move", {"code": code, "name": "  Rosa  "})
    assert r.status == 200, r
    assert json.loads(server.events(gid)[-1][3])["name"] == "Rosa"
