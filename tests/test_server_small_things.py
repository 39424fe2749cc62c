"""Issue 30's smaller things through the real server and real sockets: a secret card entered twice on a board is
refused at entry, names come with the colours, no call-over card after an abandon, a lobby's host abandons it,
and a 2-player table gets past a gone host without the table display."""
from __future__ import annotations

import json
import random
import time

from companion.lang import i18n
from server_helpers import Phone, create_game, play, seat_and_start
from test_server_evening import FAST_AWAY, refused


def new_board(host: Phone, colors, names=None, mode="family", removed=("north", "east")) -> str:
    body = {"mode": mode, "players": list(colors), "removed_districts": list(removed)}
    if names is not None:
        body["names"] = names
    r = host.post("/api/boards", body)
    assert r.status == 201, r
    return r.json["id"]


def wait_for(sock, test, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        last = sock.last
        if last is not None and test(last):
            return last
        time.sleep(0.05)
    raise AssertionError(f"no such view; last {sock.last}")


# -- 1. a secret card entered twice on a board: refused at entry, on the entering phone only --

def test_a_secret_card_entered_for_a_second_colour_is_refused_at_entry_naming_the_entry_to_change(server, phone):
    host, ana, bo = phone(server), phone(server, lang="de"), phone(server)
    gid = new_board(host, ("blue", "red", "white"), mode="expert", removed=("north",))
    assert ana.post(f"/api/games/{gid}/seats/blue", {"name": "Ana"}).status == 200
    assert bo.post(f"/api/games/{gid}/seats/red", {"name": "Bo"}).status == 200
    assert ana.post(f"/api/games/{gid}/board/secret/blue", {"area": "lakes", "neighborhood": "park"}).status == 200
    ana_sock, host_sock = ana.ws(gid), host.ws(gid)
    seq = wait_for(ana_sock, lambda v: True)["seq"]
    wait_for(host_sock, lambda v: v["seq"] == seq)
    n = server.event_count()
    # "Each player receives [...] one area card" from a deck that holds each card once: Lakes is Ana's already.
    r = bo.post(f"/api/games/{gid}/board/secret/red", {"area": "lakes", "neighborhood": "mall"})
    assert r.status == 422 and r.json["code"] == "board_area_twice", r
    assert r.json["error"] == ("You cannot enter Lakes: it is entered for Ana (Blue) already, and the game has one of "
                               "each card. Check your area card; if it really is Lakes, Ana (Blue)'s entry is the one to "
                               "change."), r   # Bo's own phone says "you"; the others by name with colour (issue 37)
    # The neighborhood card too, named as such; and the host entering for a colour is told the same way.
    r = host.post(f"/api/games/{gid}/board/secret/white", {"area": "bridges", "neighborhood": "park"})
    assert r.status == 422 and r.json["code"] == "board_neighborhood_twice", r
    assert "Check White's neighborhood card" in r.json["error"] and "Ana (Blue)'s entry" in r.json["error"], r
    assert server.event_count() == n                        # nothing appended
    time.sleep(0.5)
    assert ana_sock.last["seq"] == seq and host_sock.last["seq"] == seq   # no other screen was told anything
    assert "lakes" not in json.dumps(ana_sock.messages[1:]) and "Lakes" not in host.get(f"/api/games/{gid}").body.decode()
    # Said in the entering phone's language (Ana's phone speaks German).
    assert bo.post(f"/api/games/{gid}/board/secret/red", {"area": "bridges", "neighborhood": "mall"}).status == 200
    r = ana.post(f"/api/games/{gid}/board/secret/blue", {"area": "bridges", "neighborhood": "park"})
    assert r.status == 422 and r.json["error"].startswith("Du kannst Brücken nicht eingeben: diese Karte ist schon für Bo (Rot)"), r
    # Changing one's own entry is no clash, and a card freed by a change may be taken.
    assert ana.post(f"/api/games/{gid}/board/secret/blue", {"area": "statues", "neighborhood": "park"}).status == 200
    assert bo.post(f"/api/games/{gid}/board/secret/red", {"area": "lakes", "neighborhood": "mall"}).status == 200


# -- 2. names asked when the colours sit down --

def test_a_board_s_colours_are_named_when_it_is_set_up_and_checked_like_seats(server, phone):
    host = phone(server)
    r = host.post("/api/boards", {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"],
                                  "names": {"blue": "Ana", "red": "ana"}})
    refused(r, 409, "name_taken")
    refused(host.post("/api/boards", {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"],
                                      "names": {"blue": "Ana", "white": "Cy"}}), 404, "no_seat")
    refused(host.post("/api/boards", {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"],
                                      "names": {"blue": "A\u202eB"}}), 400, "bad_name")
    gid = new_board(host, ("blue", "red"), names={"blue": " Ana ", "red": "Bo"})
    view = host.view(gid)
    assert [(p["color"], p["name"], p["seated"]) for p in view["players"]] == [("blue", "Ana", False), ("red", "Bo", False)]
    # A player who then sits down on their own phone says their own name.
    cy = phone(server)
    assert cy.post(f"/api/games/{gid}/seats/red", {"name": "Cy"}).status == 200
    assert [p["name"] for p in host.view(gid)["players"]] == ["Ana", "Cy"]
    # The names are in the log's create event: a restart keeps them (replayed like every event).
    create = json.loads(server.events(gid)[0][3])
    assert create["names"] == {"blue": "Ana", "red": "Bo"}


def test_a_board_s_names_survive_a_restart(start_server, phone):
    server = start_server()
    host = phone(server)
    gid = new_board(host, ("blue", "red"), names={"blue": "Ana", "red": "Bo"})
    server.kill()
    again = start_server(db=server.db)
    assert [p["name"] for p in phone(again).view(gid)["players"]] == ["Ana", "Bo"]


# -- 3. no stale call-over card after an abandon --

def test_after_an_abandon_no_screen_shows_the_last_call_over_card(server, phone):
    host, red, watcher = phone(server), phone(server), phone(server)
    gid = create_game(host, ["blue", "red"], seed=3)
    seat_and_start(gid, host, {"blue": host, "red": red})
    rng = random.Random(4)
    for _ in range(60):
        play(gid, {"blue": host, "red": red}, rng, max_actions=1, pass_rate=0.6)
        if host.view(gid)["call_over"]:
            break
    assert host.view(gid)["call_over"], "no call ended"
    sock = watcher.ws(gid)
    assert wait_for(sock, lambda v: True)["call_over"]
    assert host.post(f"/api/games/{gid}/abandon", {"confirm": gid}).status == 200
    last = wait_for(sock, lambda v: v["phase"] == "abandoned")
    assert last["call_over"] is None, last["call_over"]
    for p in (host, red, watcher):
        assert p.view(gid)["call_over"] is None


# -- 4. a lobby's host abandons it (one path: an abandon event appended) --

def test_a_lobby_s_host_abandons_it_and_every_phone_is_told(server, phone):
    host, red = phone(server), phone(server)
    gid = create_game(host, ["blue", "red"])
    assert red.post(f"/api/games/{gid}/seats/red", {"name": "Bo"}).status == 200
    sock = red.ws(gid)
    wait_for(sock, lambda v: True)
    refused(red.post(f"/api/games/{gid}/abandon", {"confirm": gid}), 403, "not_host")
    before = server.events(gid)
    assert host.post(f"/api/games/{gid}/abandon", {"confirm": gid}).status == 200
    after = server.events(gid)
    assert after[:len(before)] == before and [k for _, _, k, _ in after[len(before):]] == ["abandon"]   # appended
    assert wait_for(sock, lambda v: v["phase"] == "abandoned")["notice"]["key"] == "notice_abandoned"
    refused(red.post(f"/api/games/{gid}/seats/red", {"name": "Bo2"}), 409, "abandoned")


# -- 6. a 2-player table past a gone host, without the table display --

def test_in_a_two_player_game_the_other_player_takes_the_host_role_after_the_host_away_wait(start_server, phone):
    server = start_server(env=FAST_AWAY)      # the host counts as gone after 1 s here (120 s by default)
    host, red = phone(server), phone(server)
    gid = create_game(host, ["red", "blue"])
    seat_and_start(gid, host, {"blue": host, "red": red})
    hsock, rsock = host.ws(gid), red.ws(gid)
    wait_for(rsock, lambda v: True)
    n = server.event_count()
    refused(red.post(f"/api/games/{gid}/host/claim"), 409, "host_here")     # the host's phone is here
    hsock.close()
    wait_for(rsock, lambda v: v["offline"] == ["blue"])
    wait_for(rsock, lambda v: v["host_away"], timeout=10)
    # Nobody else is seated to confirm: the claim itself, after the wait, makes red the host (no table display).
    r = red.post(f"/api/games/{gid}/host/claim")
    assert r.status == 200 and r.json["host"] is True and r.json["host_claim"] is None, r
    kinds = [(k, json.loads(b)) for _, _, k, b in server.events(gid)[n:]]
    assert kinds == [("host", {"color": "red", "confirmed": "wait"})]
    assert wait_for(rsock, lambda v: v["seq"] == n + 1)["notice"] == {"key": "notice_host", "color": "red", "seq": n + 1}
    # The new host can pass for the gone player when blue is to act; the old phone back is a player, not the host.
    back = Phone(server)
    back.adopt(host)
    v = back.view(gid)
    assert v["host"] is False and v["you"]["color"] == "blue" and v["host_color"] == "red"


def test_in_a_lobby_a_lone_seated_device_does_not_take_a_gone_host_s_role_alone(start_server, phone):
    """A lobby seat is free to any device on the network: sitting down next to a gone host must not make one host."""
    server = start_server(env=FAST_AWAY)
    host, stranger = phone(server), phone(server)
    gid = create_game(host, ["red", "blue"])
    assert host.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    hsock = host.ws(gid)
    assert stranger.post(f"/api/games/{gid}/seats/red", {"name": "Eve"}).status == 200
    ssock = stranger.ws(gid)
    wait_for(ssock, lambda v: True)
    hsock.close()
    wait_for(ssock, lambda v: v["host_away"], timeout=10)
    n = server.event_count()
    r = stranger.post(f"/api/games/{gid}/host/claim")
    assert r.status == 200 and r.json["host"] is False and r.json["host_claim"] == {"color": "red"}, r
    assert server.event_count() == n      # a claim only: the table display's code is still needed here


def test_with_a_third_player_seated_a_claim_still_waits_for_a_confirmation(start_server, phone):
    server = start_server(env=FAST_AWAY)
    host, red, white = phone(server), phone(server), phone(server)
    gid = create_game(host, ["red", "white", "blue"])
    seat_and_start(gid, host, {"blue": host, "red": red, "white": white})
    hsock, rsock, wsock = host.ws(gid), red.ws(gid), white.ws(gid)
    wait_for(rsock, lambda v: True)
    n = server.event_count()
    hsock.close()
    wait_for(rsock, lambda v: v["host_away"], timeout=10)
    r = red.post(f"/api/games/{gid}/host/claim")
    assert r.status == 200 and r.json["host"] is False and r.json["host_claim"] == {"color": "red"}, r
    assert server.event_count() == n      # a claim, not yet the role: white (or the table's code) confirms
    assert white.post(f"/api/games/{gid}/host/approve", {"color": "red"}).status == 200
    assert red.view(gid)["host"] is True


def test_the_claim_sentence_says_where_the_code_is_shown_and_where_it_is_typed():
    """The code is on the table display; the claiming player types it on their own phone, which says "you" (en, de,
    fr; issue 37 item 4: a person by name with their colour elsewhere)."""
    for lang, shown, typed, mine in (("en", "shown on the table display", "Bert (Red) types the code", "you type below"),
                                     ("de", "Tischanzeige", "Bert (Rot) gibt den Code ein", "du gibst unten den Code ein"),
                                     ("fr", "écran de la table", "Bert (Rouge) saisit le code", "vous saisissez ci-dessous")):
        said = i18n.t(lang, "host_claimed", player=f"Bert ({i18n.term(lang, 'red').capitalize()})")
        assert shown in said and typed in said, said
        yours = i18n.t(lang, "host_claimed_you")
        assert shown in yours and mine in yours and "Bert" not in yours, yours
