"""Issue 31: cards stay secret at the physical deal too, no stranger holds a seat's rescue or a host claim, the
Pi's powers go by address, and what the table is told is true (presence after a restart, the storage notice).
Each phone is a real client with its own cookies on its own 127.0.0.x address (127.0.0.1 is the Pi)."""
from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path

import pytest

from companion.game.setup import deal
from conftest import FAST
from server_helpers import LiveServer, Phone, create_game, play, seat_and_start
from test_server_cards import AWAY_1S, pi_screen, refused
from test_server_storage import _bid_last, _damage_last_wal_frame, _game

COLORS = ["blue", "red", "white", "gray"]


def plain(doc, gid: str):
    """A view or answer without what differs between two games for no secret's sake (ids, counts, the clock,
    the random token layout, whether the game took the table display when it was made)."""
    if isinstance(doc, dict):
        return {k: plain(v, gid) for k, v in doc.items()
                if k not in ("id", "seq", "you", "host_wait", "seat_waits", "tokens", "shown")}
    if isinstance(doc, list):
        return [plain(v, gid) for v in doc]
    return "GAME" if doc == gid else doc


def differences(a, b, path=""):
    """Where two JSON documents differ, as paths (for the assertion's message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


# -- 1. a clash names nobody and is bounded --

def _lobby(server, at, base: int, seated=COLORS):
    ph = {c: at(server, f"127.0.0.{base + i}", c) for i, c in enumerate(COLORS)}
    gid = create_game(ph["blue"], COLORS, mode="family", deal="physical")
    for c in seated:
        assert ph[c].post(f"/api/games/{gid}/seats/{c}", {"name": f"P-{c}"}).status == 200
    return gid, ph


def _enter(ph, gid, color, area):
    return ph[color].post(f"/api/games/{gid}/seats/{color}/cards", {"area": area})


@pytest.mark.parametrize("when", ["first", "last", "removed"])
def test_a_seat_entering_each_other_card_in_turn_learns_no_holder(server, at, when):
    """Blue enters red's card, then white's, then gray's (each in a lobby of its own, where the others enter
    their real cards), first, last, or before the host removes the last seat without cards: whatever blue and
    the table are told is the same whoever holds the card, and names no seat and no card. Rulebook: "Each
    player receives ... one Objective card" that the others do not see."""
    real = dict(zip(COLORS, (a for a, _ in deal("family", 4, random.Random(31)))))
    holders = ("red", "white") if when == "removed" else ("red", "white", "gray")
    told = {}
    for i, holder in enumerate(holders):
        seated = COLORS[:3] if when == "removed" else COLORS
        gid, ph = _lobby(server, at, 30 + 4 * i + {"first": 0, "last": 12, "removed": 24}[when], seated)
        others = [c for c in seated if c != "blue"]
        order = ["blue"] + others if when == "first" else others + ["blue"]
        answers = {}
        for c in order:
            r = _enter(ph, gid, c, real[holder] if c == "blue" else real[c])
            assert r.status == 200, r
            answers[c] = r.json
        if when == "removed":
            r = ph["blue"].post(f"/api/games/{gid}/seats/gray/remove")
            assert r.status == 200, r
            answers["remove"] = r.json
        views = {c: ph[c].view(gid) for c in seated}
        notice = views["red"]["notice"]
        assert notice["key"] == "notice_cards_clash" and set(notice) == {"key", "seq"}, notice
        assert [p["cards_entered"] for p in views["red"]["players"]] == [False] * len(seated)
        told[holder] = (plain(answers, gid), plain(views, gid))
        # Nothing blue got outside its own `you` names a card but the one it typed itself.
        for _, _, _, body in ph["blue"].seen:
            doc = json.loads(body)
            doc.pop("you", None)
            text = json.dumps(doc)
            assert not [a for a in real.values() if f'"{a}"' in text], doc
    for holder in holders[1:]:
        assert told[holder] == told["red"], differences(told["red"], told[holder])


def test_two_clashes_hand_the_deal_to_the_app_in_front_of_the_table(server, at):
    real = dict(zip(COLORS, (a for a, _ in deal("family", 4, random.Random(7)))))
    gid, ph = _lobby(server, at, 80)
    for round_ in (1, 2):
        for c in COLORS:
            assert _enter(ph, gid, c, real["red"] if c == "blue" else real[c]).status == 200
    v = ph["white"].view(gid)
    assert v["notice"]["key"] == "notice_cards_app_deals" and set(v["notice"]) == {"key", "seq"}
    assert v["deal"] == "app" and "cards_entered" not in v["players"][0]
    refused(_enter(ph, gid, "blue", real["blue"]), 409, "app_deals")
    setup = {"mode": "family", "players": COLORS, "deal": "physical", "layout": "random", "removed_districts": []}
    refused(ph["blue"].post(f"/api/games/{gid}/setup", setup), 409, "app_deals_now")
    german = Phone(server, lang="de")
    german.jar, german.opener = ph["blue"].jar, ph["blue"].opener
    assert german.post(f"/api/games/{gid}/setup", setup).json["error"].startswith("Nach zwei doppelten Eingaben")
    assert ph["blue"].post(f"/api/games/{gid}/start").status == 200
    dealt = {c: ph[c].view(gid)["you"]["area"] for c in COLORS}
    assert all(dealt.values()) and len(set(dealt.values())) == 4


def test_a_removed_seat_is_checked_and_the_lobby_is_never_stuck(server, at):
    """The issue's lobby: blue, red and white sit and enter (blue and red both "bridges"), gray never sits and
    the host removes it. The removal completes the entries, so they are checked then: a clash is told (no
    names), everyone enters again, and the game starts."""
    gid, ph = _lobby(server, at, 90, seated=COLORS[:3])
    for c, area in (("blue", "bridges"), ("red", "bridges"), ("white", "lakes")):
        assert _enter(ph, gid, c, area).status == 200
    r = ph["blue"].post(f"/api/games/{gid}/seats/gray/remove")
    assert r.status == 200, r
    assert r.json["notice"]["key"] == "notice_cards_clash" and set(r.json["notice"]) == {"key", "seq"}
    assert [p["cards_entered"] for p in r.json["players"]] == [False] * 3
    refused(ph["blue"].post(f"/api/games/{gid}/start"), 409, "cards_missing")
    for c, area in (("blue", "statues"), ("red", "bridges"), ("white", "lakes")):
        assert _enter(ph, gid, c, area).status == 200
    refused(_enter(ph, gid, "blue", "borders"), 409, "cards_locked")
    assert ph["blue"].post(f"/api/games/{gid}/start").status == 200
    # Without a clash, a removal fixes the cards as a last entry would, and the game starts.
    gid, ph = _lobby(server, at, 94, seated=COLORS[:3])
    for c, area in (("blue", "bridges"), ("red", "statues"), ("white", "lakes")):
        assert _enter(ph, gid, c, area).status == 200
    assert ph["blue"].post(f"/api/games/{gid}/seats/gray/remove").status == 200
    refused(_enter(ph, gid, "red", "borders"), 409, "cards_locked")
    assert ph["blue"].post(f"/api/games/{gid}/start").status == 200


# -- 2. a rescue and a host claim belong to the table --

class Script(threading.Thread):
    """A stranger's script posting the same request every 50 ms until stopped; counts its answers."""

    def __init__(self, who: Phone, path: str, fresh_cookies: bool = False):
        super().__init__(daemon=True)
        self.who, self.path, self.fresh = who, path, fresh_cookies
        self.answers: dict[int, int] = {}
        self.halt = threading.Event()

    def run(self):
        while not self.halt.is_set():
            if self.fresh:
                self.who.jar.clear()
            r = self.who.post(self.path)
            self.answers[r.status] = self.answers.get(r.status, 0) + 1
            self.halt.wait(0.05)

    def stop(self):
        self.halt.set()
        self.join(timeout=10)


def _pi_code(pi: Phone, gid: str, field: str, match) -> str:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for entry in pi.view(gid).get(field) or []:
            if match(entry):
                return entry["code"]
        time.sleep(0.05)
    raise AssertionError(f"no code in the Pi's {field}")


def test_a_script_re_asking_a_gone_seat_never_keeps_it_from_its_player(start_server, at):
    """White's phone is gone; a stranger's script asks for white's seat every 50 ms (one cookie, then fresh
    cookies). White's player, on a borrowed phone, asks too, reads the code the Pi's screen lists under the
    number its own screen shows, types it, and gets the seat: 10 times in 10, each within a minute."""
    server = start_server(env=AWAY_1S)
    ph = {c: at(server, f"127.0.0.{110 + i}", c) for i, c in enumerate(COLORS)}
    gid = create_game(ph["blue"], COLORS)
    seat_and_start(gid, ph["blue"], ph)
    for c in ("blue", "red", "gray"):
        ph[c].ws(gid)
    pi = pi_screen(server)
    stranger = at(server, "127.0.0.120", "stranger")
    rescue = f"/api/games/{gid}/seats/white/rescue"
    time.sleep(1.2)   # white's phone (no socket) has been gone a second
    took, stranger_asked = [], 0
    for i in range(10):
        script = Script(stranger, rescue, fresh_cookies=i % 2 == 1)
        script.start()
        time.sleep(0.3)
        t0 = time.monotonic()
        borrowed = at(server, f"127.0.0.{130 + i}", "white")
        r = borrowed.post(rescue)
        assert r.status == 200 and r.json["seat_move_mine"] == "white", r
        number = r.json["seat_move_ask"]
        code = _pi_code(pi, gid, "seat_move_codes", lambda a: a["ask"] == number)
        stranger_asked += len(pi.view(gid)["seat_move_codes"]) > 1   # the script's ask stands beside it
        r = borrowed.post(rescue, {"code": code})
        assert r.status == 200 and r.json["seat_move"] == {"color": "white", "stage": "moving"}, r
        while "you" not in borrowed.view(gid) and time.monotonic() - t0 < 60:
            time.sleep(0.1)
        script.stop()
        assert borrowed.view(gid)["you"]["color"] == "white"
        took.append(time.monotonic() - t0)
        assert not script.answers.get(500), script.answers
    assert len(took) == 10 and max(took) < 60, took
    assert stranger_asked == 10
    moves = [json.loads(b) for _, _, kind, b in server.events(gid) if kind == "move"]
    assert [m["color"] for m in moves] == ["white"] * 10
    print(f"10 of 10 rescues through a 50 ms script; slowest {max(took):.1f} s")
    pi.close()


def test_the_pi_turning_an_ask_down_makes_that_device_and_address_wait_longer_each_time(start_server, at):
    server = start_server(env=AWAY_1S)
    ph = {c: at(server, f"127.0.0.{140 + i}", c) for i, c in enumerate(COLORS[:2])}
    gid = create_game(ph["blue"], COLORS[:2])
    seat_and_start(gid, ph["blue"], ph)
    pi = pi_screen(server)
    stranger = at(server, "127.0.0.145", "stranger")
    rescue = f"/api/games/{gid}/seats/red/rescue"
    time.sleep(1.2)   # red's phone (no socket) has been gone a second
    waits = []
    for _ in range(2):
        r = stranger.post(rescue)
        assert r.status == 200, r
        number = r.json["seat_move_ask"]
        # Only the Pi's screen may turn a stranger's ask down; the stranger cancelling is no cost.
        refused(ph["blue"].post(f"{rescue}/cancel", {"ask": number}), 403, "not_your_seat")
        assert pi.post(f"{rescue}/cancel", {"ask": number}).status == 200
        again = stranger.post(rescue)
        assert again.status == 429 and again.json["code"] == "ask_wait", again
        fresh = at(server, "127.0.0.145", "same address, new cookie")
        assert fresh.post(rescue).json["code"] == "ask_wait"
        waits.append(int(again.json["error"].split(" in ")[1].split()[0]))
        time.sleep(waits[-1] + 0.2)
    assert waits[1] > waits[0] >= 1, waits
    # Another phone's ask was never held up by any of it.
    other = at(server, "127.0.0.146", "red")
    assert other.post(rescue).status == 200
    pi.close()


def test_strangers_filling_a_seats_asks_are_turned_down_by_the_table_and_the_player_gets_in(start_server, at):
    """Six stranger addresses hold every place in the list of asks for red's seat; the player's ask is refused
    with a sentence; the Pi's screen turns one stranger down; the player asks in its place and takes the seat."""
    from companion.limits import ASKS_PER_SEAT

    server = start_server(env=AWAY_1S)
    ph = {c: at(server, f"127.0.0.{185 + i}", c) for i, c in enumerate(COLORS[:2])}
    gid = create_game(ph["blue"], COLORS[:2])
    seat_and_start(gid, ph["blue"], ph)
    pi = pi_screen(server)
    rescue = f"/api/games/{gid}/seats/red/rescue"
    time.sleep(1.2)
    strangers = [at(server, f"127.0.0.{190 + i}", "stranger") for i in range(ASKS_PER_SEAT)]
    for s in strangers:
        assert s.post(rescue).status == 200
    player = at(server, "127.0.0.199", "red")
    other = create_game(ph["blue"], COLORS[:2])   # the player sat at this table before, in another game
    assert player.post(f"/api/games/{other}/seats/red", {"name": "Red"}).status == 200
    r = player.post(rescue)
    assert r.status == 429 and r.json["code"] == "asks_full", r
    assert r.json["error"] == "Too many phones ask for P-red (Red)'s seat: the table display can turn some down."
    first = pi.view(gid)["seat_move_codes"][0]["ask"]
    assert pi.post(f"{rescue}/cancel", {"ask": first}).status == 200
    refused(strangers[0].post(rescue), 429, "ask_wait")
    number = player.post(rescue).json["seat_move_ask"]
    code = _pi_code(pi, gid, "seat_move_codes", lambda a: a["ask"] == number)
    listed = {a["ask"]: a["played"] for a in pi.view(gid)["seat_move_codes"]}
    # The Pi's screen says when each asking phone last sat at this table: the player minutes ago, strangers never.
    assert abs(listed.pop(number) - time.time()) < 60 and set(listed.values()) == {None}, listed
    assert player.post(rescue, {"code": code}).status == 200
    deadline = time.monotonic() + 30
    while "you" not in player.view(gid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert player.view(gid)["you"]["color"] == "red"
    pi.close()


def test_a_second_host_claim_never_voids_the_first_claimers_code(start_server, at):
    """The host's phone is gone; gray's script claims the host role every 50 ms. Red, then white, then blue ...
    claims, reads its own code on the Pi's screen and becomes host: 10 times in 10, each within a minute."""
    server = start_server(env=AWAY_1S)
    ph = {c: at(server, f"127.0.0.{150 + i}", c) for i, c in enumerate(COLORS)}
    gid = create_game(ph["blue"], COLORS)
    seat_and_start(gid, ph["blue"], ph)
    pi = pi_screen(server)
    time.sleep(1.2)   # no phone has a socket: the host has been gone a second
    script = Script(ph["gray"], f"/api/games/{gid}/host/claim")
    script.start()
    took, contended = [], 0
    try:
        for i in range(10):
            claimer = ("red", "white", "blue")[i % 3]
            t0 = time.monotonic()
            r = ph[claimer].post(f"/api/games/{gid}/host/claim")
            assert r.status == 200 and claimer in r.json["host_claims"], r
            time.sleep(0.2)   # the script claims in between
            code, deadline = None, time.monotonic() + 10
            while code is None and time.monotonic() < deadline:
                code = (pi.view(gid).get("host_claim_codes") or {}).get(claimer)
                time.sleep(0.05)
            contended += "gray" in pi.view(gid)["host_claim_codes"]   # the script's claim stands beside it
            r = ph[claimer].post(f"/api/games/{gid}/host/claim", {"code": code})
            assert r.status == 200 and r.json["host"] is True, r
            took.append(time.monotonic() - t0)
            time.sleep(1.1)   # the new host's phone (no socket) is gone a second later
    finally:
        script.stop()
    assert len(took) == 10 and max(took) < 60 and contended == 10, (took, contended)
    hosts = [json.loads(b).get("color") for _, _, kind, b in server.events(gid) if kind == "host"]
    assert hosts == [("red", "white", "blue")[i % 3] for i in range(10)]
    print(f"10 of 10 host claims through a 50 ms script; slowest {max(took):.1f} s")
    pi.close()


# -- 3. the Pi's powers go by address --

def test_a_kiosk_cookie_from_another_address_gets_no_kiosk_power(server, at):
    ph = {c: at(server, f"127.0.0.{160 + i}", c) for i, c in enumerate(COLORS[:2])}
    gid = create_game(ph["blue"], COLORS[:2])
    seat_and_start(gid, ph["blue"], ph)
    play(gid, ph, random.Random(2), max_actions=3)
    pi = pi_screen(server)
    assert pi.get("/api/table").json == {"display": True, "kiosk": True}
    cookie = {"Cookie": pi.cookie_header()}
    thief = at(server, "127.0.0.78", "thief")
    assert thief.get("/api/table", headers=cookie).json == {"display": False, "kiosk": False}
    v = thief.get(f"/api/games/{gid}", headers=cookie).json
    assert v["host"] is False and v["table_display"] is False
    n = server.event_count()
    refused(thief.post(f"/api/games/{gid}/undo", headers=cookie), 403, "not_host")
    refused(thief.post("/api/table/code", headers=cookie), 403, "not_table")
    refused(thief.post(f"/api/games/{gid}/host", {"table": True}, headers=cookie), 403, "not_table")
    assert server.event_count() == n
    # The same cookie back on the Pi's own screen is the Pi again.
    assert pi.post(f"/api/games/{gid}/undo").status == 200
    pi.close()


# -- 4 and 5. what the table is told is true --

def test_every_seat_starts_offline_after_a_restart_until_its_socket_opens(tmp_path):
    server = LiveServer(tmp_path / "companion.sqlite3", env=FAST)
    server.start()
    try:
        phones = {c: Phone(server) for c in ("blue", "red", "white")}
        gid = create_game(phones["blue"], list(phones))
        seat_and_start(gid, phones["blue"], phones)
        socks = {c: p.ws(gid) for c, p in phones.items()}
        for s in socks.values():
            s.wait_seq(1)
        server.kill()
        for p in phones.values():
            p.close()
        server.start()
        v = Phone(server).view(gid)
        assert v["offline"] == ["blue", "red", "white"], v["offline"]
        assert [p["online"] for p in v["players"]] == [False, False, False]
        sock = phones["red"].ws(gid)
        first = sock.wait_seq(v["seq"])
        assert first["offline"] == ["blue", "white"] and [p["online"] for p in first["players"]] == [False, True, False]
    finally:
        server.kill()


def test_a_lost_action_is_told_in_the_json_and_socket_views_too(tmp_path):
    db = tmp_path / "companion.sqlite3"
    server = LiveServer(db, env=FAST)
    server.start()
    try:
        gid, phones = _game(server)
        rng = random.Random(3)
        play(gid, phones, rng, max_actions=6)
        lost = _bid_last(gid, phones, rng)
        server.kill()
        _damage_last_wal_frame(Path(db))
        server.start()
        want = {"key": "lost_bid", "player": lost["player"], "value": lost["value"], "nb": lost["bid"]}
        # A phone that only reconnects: its socket's first view, and its JSON view, say what was lost.
        sock = phones["red"].ws(gid)
        seq = phones["red"].view(gid)["seq"]
        assert sock.wait_seq(seq)["storage"] == want
        assert phones["blue"].view(gid)["storage"] == want
        assert Phone(server).view(gid)["storage"] == want
        # Played again: every socket is told the notice is gone.
        view = phones[lost["player"]].view(gid)
        r = phones[lost["player"]].post(f"/api/games/{gid}/actions",
                                        {"bid": lost["bid"], "value": lost["value"], "expect_seq": view["seq"]})
        assert r.status == 200 and r.json["storage"] is None, r
        assert sock.wait_seq(r.json["seq"])["storage"] is None
    finally:
        server.kill()



# -- every flow above in one evening, every device capturing --

def test_every_flow_of_issue_31_keeps_every_card_with_its_seat(start_server, at):
    """A physical deal with a probe and a removed seat (a clash), a kiosk cookie used from another address, a
    gone seat taken back through a stranger's 50 ms script, two host claims, a restart: every answer and socket
    message each device got before the end holds no card but its own seat's (test_server_secrets.check_device)."""
    from test_server_secrets import check_device, play_capturing

    server = start_server(env=AWAY_1S)
    rng = random.Random("issue 31")
    colors = ["blue", "red", "white"]
    ph = {c: at(server, f"127.0.0.{170 + i}", c) for i, c in enumerate(colors)}
    stranger, thief, white2 = (at(server, "127.0.0.180", ""), at(server, "127.0.0.181", ""),
                               at(server, "127.0.0.182", "white"))
    pi = pi_screen(server)
    pi.capture = True
    gid = create_game(ph["blue"], colors + ["gray"], mode="family", deal="physical")
    base = f"/api/games/{gid}/seats"
    for c, p in ph.items():
        assert p.post(f"{base}/{c}", {"name": f"P-{c}"}).status == 200
        p.ws(gid)
    for p in (stranger, pi):
        p.ws(gid)
    cards = dict(zip(colors, (a for a, _ in deal("family", 3, rng))))
    # Red probes white's card; gray never sits and the host removes it: the entries are checked then.
    for c in colors:
        assert _enter(ph, gid, c, cards["white"] if c == "red" else cards[c]).status == 200
    r = ph["blue"].post(f"{base}/gray/remove")
    assert r.json["notice"] == {"key": "notice_cards_clash", "seq": r.json["seq"]}
    ph["red"].seen.clear()   # red saw white's card only as its own typed entry
    for c in colors:
        assert _enter(ph, gid, c, cards[c]).status == 200
    assert ph["blue"].post(f"/api/games/{gid}/start").status == 200
    play(gid, ph, rng, max_actions=4)
    # The Pi's cookie, used from another address, is a plain device.
    thief.adopt(pi)
    steal = {"Cookie": pi.cookie_header()}
    thief.ws(gid)
    assert thief.get(f"/api/games/{gid}", headers=steal).json["host"] is False
    refused(thief.post(f"/api/games/{gid}/undo", headers=steal), 403, "not_host")
    # White's phone goes; a stranger's script asks for the seat every 50 ms; white's player takes it back.
    for s in ph["white"].sockets:
        s.close()
    time.sleep(1.3)
    script = Script(stranger, f"{base}/white/rescue")
    script.start()
    try:
        number = white2.post(f"{base}/white/rescue").json["seat_move_ask"]
        code = _pi_code(pi, gid, "seat_move_codes", lambda a: a["ask"] == number)
        assert white2.post(f"{base}/white/rescue", {"code": code}).status == 200
        deadline = time.monotonic() + 30
        while "you" not in white2.view(gid) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        script.stop()
    white2.ws(gid)
    phones = dict(ph, white=white2)
    # The host's phone goes; red's script claims the role every 50 ms while white claims with its own code.
    for s in ph["blue"].sockets:
        s.close()
    time.sleep(1.3)
    script = Script(ph["red"], f"/api/games/{gid}/host/claim")
    script.start()
    try:
        assert white2.post(f"/api/games/{gid}/host/claim").status == 200
        code, deadline = None, time.monotonic() + 10
        while code is None and time.monotonic() < deadline:
            code = (pi.view(gid).get("host_claim_codes") or {}).get("white")
        assert white2.post(f"/api/games/{gid}/host/claim", {"code": code}).json["host"] is True
    finally:
        script.stop()
    # A restart: every seat offline until its phone's socket opens again; then play to the end.
    server.kill()
    server.start()
    assert Phone(server).view(gid)["offline"] == colors
    for p in [*phones.values(), stranger, thief, pi]:
        p.ws(gid)
    final = play_capturing(gid, phones, rng, probes=False)
    assert final["phase"] == "finished"
    revealed = {c: v["area"] for c, v in final["revealed"].items()}
    assert revealed == cards
    time.sleep(0.5)
    whole = {c: (a, None) for c, a in cards.items()}
    seen = 0
    for who, p in [*ph.items(), ("white", white2), ("", stranger), ("", thief), ("", pi)]:
        before, _ = check_device(who or "nobody", whole.get(who, (None, None)),
                                 {c: v for c, v in whole.items() if c != who}, p.seen)
        assert before > 0, who
        seen += before
    print(f"{seen} answers and socket messages before the end, 0 with a card outside its seat")
    pi.close()
