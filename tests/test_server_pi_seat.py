"""A seat the Pi plays (issue 32): taken in the lobby by the host, played through the one path, never peeking."""
from __future__ import annotations

import json
import os
import random
import sqlite3
import threading

import pytest

from companion import players
from companion.game.rules import apply, new_game
from companion.game.setup import deal, make_setup, random_layout
from companion.game.state import Bid, Seat
from companion.pi_seat import deal_rest
from conftest import FAST
from pages_helpers import frame_leaks
from server_helpers import LiveServer, Phone, choose, create_game, score_record

PI_ENV = dict(FAST, COMPANION_BOT_DELAY="0")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One `companion serve` whose Pi acts at once (COMPANION_BOT_DELAY=0)."""
    s = LiveServer(tmp_path_factory.mktemp("pi") / "companion.sqlite3", env=PI_ENV)
    s.start()
    yield s
    s.kill()


def devices(server, gid: str) -> list[tuple]:
    """(seq, kind, body, device) of every event, read straight from the log."""
    conn = sqlite3.connect(f"file:{server.db}?mode=ro", uri=True, timeout=10)
    try:
        rows = conn.execute("SELECT seq, kind, body, device FROM events WHERE game = ? ORDER BY seq", (gid,)).fetchall()
    finally:
        conn.close()
    return [(seq, kind, json.loads(body), device) for seq, kind, body, device in rows]


def pi_lobby(server, phone, mode="family", level="strong", colors=("blue", "red")) -> tuple[str, Phone]:
    """A game whose host sits at the first colour; the Pi plays the second."""
    host = phone(server)
    gid = create_game(host, colors, mode=mode, seed=7, pace="timer")   # the Pi at the timer's pace, as before
    assert host.post(f"/api/games/{gid}/seats/{colors[0]}", {"name": "Ann"}).status == 200
    r = host.post(f"/api/games/{gid}/seats/{colors[1]}/pi", {"level": level})
    assert r.status == 200, r
    return gid, host


def play_to_the_end(gid: str, me: Phone, color: str, rng: random.Random, sock) -> dict:
    """The phone plays its seat; the Pi's turns are waited for on the live socket (it acts by itself)."""
    view = me.view(gid)
    while view["phase"] == "playing":
        if view["to_act"] == color:
            mine = me.view(gid)
            r = me.post(f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.3), expect_seq=mine["seq"]))
            assert r.status == 200, r
            view = r.json
        else:
            view = sock.wait_seq(view["seq"] + 1, timeout=30)
            view = me.view(gid) if view["seq"] < me.view(gid)["seq"] else view
    return view


@pytest.mark.parametrize("mode", ["family", "expert"])
def test_a_whole_game_with_one_phone_and_one_pi_seat_reaches_the_tally(server, phone, mode):
    gid, ann = pi_lobby(server, phone, mode)
    lobby = ann.view(gid)
    red = next(p for p in lobby["players"] if p["color"] == "red")
    assert red["seated"] and red["pi"] == "strong" and red["name"] == "Pi Red (strong)"
    r = ann.post(f"/api/games/{gid}/start")
    assert r.status == 200, r
    assert r.json["you"]["color"] == "blue" and r.json["you"]["area"]   # the app dealt the person's cards
    sock = ann.ws(gid)
    end = play_to_the_end(gid, ann, "blue", random.Random(3), sock)
    assert end["phase"] == "finished" and set(end["scores"]["players"]) == {"blue", "red"}
    log = devices(server, gid)
    pi_moves = [(body, device) for _, kind, body, device in log if kind == "action" and body["player"] == "red"]
    assert pi_moves and all(device == "pi:strong" for _, device in pi_moves)   # logged as the Pi's own
    assert all(device != "pi:strong" for _, kind, body, device in log if kind == "action" and body["player"] == "blue")
    # The record names the Pi's seat (optional field) and scores as the table did, with or without the field.
    record = ann.get(f"/api/games/{gid}/record").json
    assert record["pi"] == {"red": "strong"}
    scored = score_record(record)
    assert scored["winners"] == end["scores"]["winners"]
    assert {c: p["total"] for c, p in scored["players"].items()} == {
        c: p["total"] for c, p in end["scores"]["players"].items()}
    assert score_record({k: v for k, v in record.items() if k != "pi"}) == scored
    # Nothing the phone was sent before the end held the Pi's cards (nor any card but its own).
    cards = {c: tuple(v) for c, v in next(b for _, k, b, _ in log if k == "start")["cards"].items()}
    assert frame_leaks([json.dumps(m) for m in sock.messages], "blue", cards) == []
    # It thought in a process of its own, at a lower priority than the server's.
    kids = [int(k) for t in os.listdir(f"/proc/{server.proc.pid}/task")
            for k in open(f"/proc/{server.proc.pid}/task/{t}/children").read().split()]
    thinkers = [k for k in kids if b"companion.think" in open(f"/proc/{k}/cmdline", "rb").read()]
    below = min(19, os.getpriority(os.PRIO_PROCESS, server.proc.pid) + 10)   # think.NICE below the server's own
    assert thinkers and all(os.getpriority(os.PRIO_PROCESS, k) == below for k in thinkers), (kids, below)
    # History and BG Stats name it.
    plays = ann.get(f"/api/games/{gid}/bgstats").json
    assert "Pi Red (strong)" in [p["name"] for p in plays["data"]["players"]]
    standings = ann.get("/api/standings").json
    assert "Pi Red (strong)" in json.dumps(standings)
    # A rematch keeps the Pi in its seat (the next player clockwise starts).
    r = ann.post(f"/api/games/{gid}/rematch", {"rotate": True})
    assert r.status == 200, r
    new = ann.view(r.json["next_game"])
    assert [(p["color"], p.get("pi")) for p in new["players"]] == [("red", "strong"), ("blue", None)]
    assert new["you"]["color"] == "blue" and new["phase"] == "lobby"


def test_refusals_say_why_and_change_nothing(server, phone):
    host, other = phone(server), phone(server, lang="de")
    gid = create_game(host, ["white", "red", "blue"], seed=3)   # white opens: the Pi acts later
    assert other.post(f"/api/games/{gid}/seats/white", {"name": "Ben"}).status == 200
    before = server.event_count()

    def refused(p, path, body, status, code, method="POST"):
        r = p.request(method, f"/api/games/{gid}/seats/{path}", body)
        assert (r.status, r.json["code"]) == (status, code), r
        assert server.event_count() == before
        return r.json["error"]

    assert refused(other, "blue/pi", {"level": "strong"}, 403, "not_host") == "Das darf nur der Gastgeber."
    refused(host, "white/pi", {"level": "strong"}, 409, "seat_taken")       # a person sits there
    refused(host, "blue/pi", {"level": "brilliant"}, 400, "pi_level")
    refused(host, "green/pi", {"level": "easy"}, 404, "no_seat")
    refused(host, "blue/pi", {}, 400, "missing_field")
    refused(host, "white/pi", {}, 409, "not_pi_seat", method="DELETE")
    assert host.post(f"/api/games/{gid}/seats/blue/pi", {"level": "easy"}).status == 200
    before += 1
    # Freed by Ben, white is free; red and white both the Pi's would leave no seat for a person.
    assert other.post(f"/api/games/{gid}/seats/white/release").status == 403   # only the host frees seats
    assert host.post(f"/api/games/{gid}/seats/white/release").status == 200
    before += 1
    assert host.post(f"/api/games/{gid}/seats/red/pi", {"level": "normal"}).status == 200
    before += 1
    error = refused(host, "white/pi", {"level": "strong"}, 409, "pi_last_person")
    assert error == "At least one seat must stay a person's: the Pi cannot play every colour."
    r = host.post(f"/api/games/{gid}/seats/white/pi", {"level": "strong"}, headers={"Accept-Language": "fr"})
    assert r.json["error"] == ("Au moins une place doit rester à une personne : le Pi ne peut pas jouer toutes "
                               "les couleurs.")
    # Turned back into a free seat before the start; then a person takes it.
    r = host.request("DELETE", f"/api/games/{gid}/seats/red/pi", {})
    assert r.status == 200 and not next(p for p in r.json["players"] if p["color"] == "red")["seated"]
    before += 1
    fr = phone(server, lang="fr")
    assert fr.post(f"/api/games/{gid}/seats/red", {"name": "Cleo"}).status == 200
    assert host.post(f"/api/games/{gid}/seats/white", {"name": "Ann"}).status == 200
    before += 2
    assert host.post(f"/api/games/{gid}/start").status == 200
    before += 1
    refused(host, "red/pi", {"level": "strong"}, 409, "started")
    refused(host, "blue/pi", {}, 409, "started", method="DELETE")
    # The Pi's seat cannot be handed the host role nor moved to a phone.
    r = host.post(f"/api/games/{gid}/host", {"color": "blue"})
    assert (r.status, r.json["code"]) == (409, "pi_plays"), r
    r = phone(server).post(f"/api/games/{gid}/seats/blue/rescue")   # a new phone asks for the Pi's seat
    assert (r.status, r.json["code"]) == (409, "pi_plays"), r


def test_undo_takes_back_to_the_last_persons_action(server, phone):
    gid, ann = pi_lobby(server, phone, "family", "easy")
    assert ann.post(f"/api/games/{gid}/start").status == 200
    sock = ann.ws(gid)
    rng = random.Random(11)
    for _ in range(40):   # until the phone's action was followed by at least one of the Pi's
        mine = ann.view(gid)
        assert mine["to_act"] == "blue"
        r = ann.post(f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.2), expect_seq=mine["seq"]))
        assert r.status == 200, r
        after = r.json
        if after["to_act"] == "red":
            break
    else:
        pytest.fail("the Pi never got a turn")
    now = after
    while now["to_act"] != "blue" or now["seq"] == after["seq"]:
        now = sock.wait_seq(now["seq"] + 1, timeout=30)
    assert now["actions"] > after["actions"]
    r = ann.post(f"/api/games/{gid}/undo", {"expect_seq": now["seq"]})
    assert r.status == 200, r
    back = r.json
    # Back to where the phone was before its action: its turn, the Pi's moves since taken back with it.
    assert back["actions"] == mine["actions"] and back["to_act"] == "blue"
    hand = lambda v: [(p["color"], p["values"], p["tokens"], p["buildings"]) for p in v["players"]]  # noqa: E731
    assert back["call"] == mine["call"] and back["built"] == mine["built"] and hand(back) == hand(mine)
    assert back["undone"]["color"] == "blue" and all(a["color"] == "red" for a in back["undone"]["also"])
    undo = [body for _, kind, body, _ in devices(server, gid) if kind == "undo"][-1]
    assert undo["count"] == now["actions"] - mine["actions"]


def test_the_seen_state_hides_every_other_seats_cards_and_they_change_no_move():
    """It never peeks: the same position with the other seats' secret cards exchanged gives the same move."""
    from companion.views import seat_state

    class G:   # what seat_state reads of a game
        pass

    rng = random.Random(5)
    checked = 0
    for n in (2, 3, 4):
        for mode in ("family", "expert"):
            colors = ("blue", "red", "white", "gray")[:n]
            removed = {4: [], 3: ["west"], 2: ["north", "east"]}[n]
            tokens = random_layout(n, frozenset(removed), rng)
            hands = deal(mode, n, rng)
            # The other seats dealt again from what the first seat's cards left (as a physical deal deals the Pi).
            others = dict(deal_rest(mode, n, {colors[0]: hands[0]}, list(colors[1:]), rng), **{colors[0]: hands[0]})
            st = new_game(make_setup(mode, [Seat(c, "", *h) for c, h in zip(colors, hands)], removed, tokens))
            swapped = new_game(make_setup(mode, [Seat(c, "", *others[c]) for c in colors], removed, tokens))
            for _ in range(60):
                if st.finished:
                    break
                color = st.to_act_color
                a, b = G(), G()
                a.state, b.state = st, swapped
                seen_a, seen_b = seat_state(a, color), seat_state(b, color)
                for s in seen_a.setup.seats:
                    mine = s.color == color
                    assert (s.area is not None) == mine and (s.neighborhood is not None) == (mine and mode == "expert")
                if color == colors[0]:
                    assert seen_a == seen_b
                    # strong's own code at a small budget (strong@16): the same search, a fraction of its playouts
                    assert players.play(seen_a, color, "strong@16", random.Random(1)) == players.play(
                        seen_b, color, "strong@16", random.Random(1))
                    checked += 1
                action = players.play(seen_a, color, "random", rng)
                st, swapped = apply(st, action), apply(swapped, action)
    assert checked > 30


def test_the_pis_led_is_lit_on_its_turns_and_its_player_sees_only_its_own_cards(inprocess_server, monkeypatch):
    """Mock pins (as test_server_leds.py); the Pi's player held at each decision until the test has looked."""
    from gpiozero.pins.mock import MockFactory

    from companion.pi.leds import Leds

    pins = {"blue": 17, "red": 27, "white": 22, "gray": 23}
    factory = MockFactory()
    leds = Leds(pins, pin_factory=factory, blink_seconds=0.2)
    # On a thread (BOT_PROCESS False), so that this test's stand-in player is the one asked.
    srv = inprocess_server(LEDS=leds, RATE_LIMIT=1000.0, WRITE_RATE_LIMIT=1000.0, BOT_DELAY=0, BOT_PROCESS=False)
    asked, go = [], threading.Semaphore(0)
    thinking = threading.Condition()
    real = players.play

    def held(seen, color, level, rng):
        with thinking:
            asked.append((seen, color, level))
            thinking.notify_all()
        assert go.acquire(timeout=30)
        return real(seen, color, level, rng)

    monkeypatch.setattr(players, "play", held)
    ann = Phone(srv)
    gid = create_game(ann, ["blue", "red", "white"], mode="expert", seed=4, pace="timer")
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    assert ann.post(f"/api/games/{gid}/seats/red/pi", {"level": "normal"}).status == 200
    assert ann.post(f"/api/games/{gid}/seats/white/pi", {"level": "strong"}).status == 200
    sock = ann.ws(gid)
    view = ann.post(f"/api/games/{gid}/start").json
    dealt = {s.color: (s.area, s.neighborhood) for s in srv.table.games[gid].state.setup.seats}
    rng = random.Random(2)
    turns = 0
    try:
        while view["phase"] == "playing" and turns < 12:
            if view["to_act"] == "blue":
                view = ann.post(f"/api/games/{gid}/actions", dict(choose(view, rng, 0.2), expect_seq=view["seq"])).json
                continue
            with thinking:
                assert thinking.wait_for(lambda: len(asked) > turns, timeout=30)
            assert leds.wait_idle(5)
            lit = {c for c, pin in pins.items() if factory.pin(pin).state}
            assert lit == {view["to_act"]}, (view["seq"], lit)   # the Pi's LED, like any player's
            seen, color, _ = asked[turns]
            assert color == view["to_act"]
            # Nothing the Pi's player receives holds another seat's cards; its own are there.
            assert {s.color: (s.area, s.neighborhood) for s in seen.setup.seats} == {
                c: v if c == color else (None, None) for c, v in dealt.items()}
            turns += 1
            go.release()
            view = sock.wait_seq(view["seq"] + 1, timeout=30)
            view = ann.view(gid)
        assert turns >= 4
    finally:
        for _ in range(100):
            go.release()   # let it finish whatever it holds
        ann.close()


def test_after_a_restart_mid_game_the_pi_whose_turn_it_is_acts(start_server, tmp_path, phone):
    db = tmp_path / "restart.sqlite3"
    slow = start_server(env=dict(FAST, COMPANION_BOT_DELAY="600"), db=db)   # the Pi would wait ten minutes
    ann = phone(slow)
    gid = create_game(ann, ["blue", "red"], seed=9, pace="timer")
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    assert ann.post(f"/api/games/{gid}/seats/red/pi", {"level": "strong"}).status == 200
    view = ann.post(f"/api/games/{gid}/start").json
    view = ann.post(f"/api/games/{gid}/actions", dict(choose(view, random.Random(1), 0), expect_seq=view["seq"])).json
    assert view["to_act"] == "red"
    slow.kill()
    fast = start_server(env=PI_ENV, db=db, port=slow.port)
    again = Phone(fast)
    again.adopt(ann)
    sock = again.ws(gid)
    sock.wait_seq(view["seq"] + 1, timeout=30)
    seq, kind, body, device = devices(fast, gid)[view["seq"]]
    assert (seq, kind, body["player"], device) == (view["seq"] + 1, "action", "red", "pi:strong")
    again.close()


def test_a_physical_deal_the_people_enter_theirs_and_the_pi_is_dealt_from_the_rest(server, phone):
    ann, ben = phone(server), phone(server)
    gid = create_game(ann, ["blue", "red", "white"], mode="expert", deal="physical", seed=5)
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    assert ben.post(f"/api/games/{gid}/seats/red", {"name": "Ben"}).status == 200
    assert ann.post(f"/api/games/{gid}/seats/white/pi", {"level": "easy"}).status == 200
    assert ann.post(f"/api/games/{gid}/start").json["code"] == "cards_missing"
    assert ann.post(f"/api/games/{gid}/seats/blue/cards", {"area": "lakes", "neighborhood": "park"}).status == 200
    r = ben.post(f"/api/games/{gid}/seats/red/cards", {"area": "chains", "neighborhood": "mall"})
    assert r.status == 200 and all(p.get("cards_entered", True) for p in r.json["players"])
    # Every person's cards in and checked: the Pi's seat cannot be freed for another entry (a guess at theirs).
    r = ann.request("DELETE", f"/api/games/{gid}/seats/white/pi", {})
    assert (r.status, r.json["code"]) == (409, "cards_locked"), r
    view = ann.post(f"/api/games/{gid}/start").json
    assert view["phase"] == "playing"
    # Nobody is shown the Pi's cards before the tally.
    for p in (ann, ben):
        text = p.get(f"/api/games/{gid}").body.decode()
        assert "revealed" not in json.loads(text) or json.loads(text)["revealed"] is None
    start = next(body for _, kind, body, _ in devices(server, gid) if kind == "start")
    pi = start["cards"]["white"]
    assert pi[0] not in ("lakes", "chains") and pi[1] not in ("park", "mall")
    assert start["cards"]["blue"] == ["lakes", "park"] and start["cards"]["red"] == ["chains", "mall"]


def test_a_game_changed_while_the_pi_thinks_gets_no_stale_move_and_it_never_acts_for_a_person(inprocess_server,
                                                                                             monkeypatch):
    """The Pi held in mid-thought while the host undoes and the person plays the same move again (the same position,
    a later seq): the decision made for the old seq never commits; and one for a person's seat never does either."""
    srv = inprocess_server(RATE_LIMIT=1000.0, WRITE_RATE_LIMIT=1000.0, BOT_DELAY=0, BOT_PROCESS=False)
    table = srv.table
    entered, go = threading.Event(), threading.Event()
    real_play, real_act = players.play, table.pi_act
    handed = []   # (the seq the Pi decided at, the game's seq before, after)

    def held(seen, color, level, rng):
        entered.set()
        assert go.wait(30)
        return real_play(seen, color, level, rng)

    def act(gid, seq, color, action):
        before = table.games[gid].seq
        real_act(gid, seq, color, action)
        handed.append((seq, before, table.games[gid].seq))

    monkeypatch.setattr(players, "play", held)
    monkeypatch.setattr(table, "pi_act", act)
    ann = Phone(srv)
    gid = create_game(ann, ["blue", "red"], seed=12, pace="timer")
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    assert ann.post(f"/api/games/{gid}/seats/red/pi", {"level": "strong"}).status == 200
    view = ann.post(f"/api/games/{gid}/start").json
    move = choose(view, random.Random(2), 0)
    # A decision handed in for a person's seat, at the current seq and legal, is never played.
    real_act(gid, view["seq"], "blue", Bid("blue", move["bid"], move["value"]))
    assert table.games[gid].seq == view["seq"]
    view = ann.post(f"/api/games/{gid}/actions", dict(move, expect_seq=view["seq"])).json
    assert view["to_act"] == "red" and entered.wait(30)   # the Pi is thinking about this position
    r = ann.post(f"/api/games/{gid}/pass-for", {"expect_seq": view["seq"]})   # the host cannot act for the Pi
    assert (r.status, r.json["code"]) == (409, "pi_plays"), r
    back = ann.post(f"/api/games/{gid}/undo", {"expect_seq": view["seq"]}).json
    again = ann.post(f"/api/games/{gid}/actions", dict(move, expect_seq=back["seq"])).json
    assert again["to_act"] == "red" and again["seq"] == view["seq"] + 2
    go.set()

    def settled():
        return len(handed) >= 2 and table.pi.thinking == 0 and table.pi.jobs.empty()

    for _ in range(3000):
        if settled():
            break
        threading.Event().wait(0.01)
    assert settled(), handed
    stale = [h for h in handed if h[0] != h[1]]
    assert stale and all(before == after for _, before, after in stale), handed   # dropped
    assert [h for h in handed if h[0] == again["seq"]] == [(again["seq"], again["seq"], again["seq"] + 1)]
    ann.close()


def test_a_seat_given_to_the_pi_after_the_others_entered_their_cards_checks_them_as_a_last_entry_would(server, phone):
    """Two people entered the same card; once the third seat is the Pi's every person's entry is in: the clash is said
    (naming the seats, never the card) and both enter again, as when the last person types theirs."""
    ann, ben = phone(server), phone(server)
    gid = create_game(ann, ["blue", "red", "white"], mode="family", deal="physical", seed=6)
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    assert ben.post(f"/api/games/{gid}/seats/red", {"name": "Ben"}).status == 200
    assert ann.post(f"/api/games/{gid}/seats/blue/cards", {"area": "lakes"}).status == 200
    assert ben.post(f"/api/games/{gid}/seats/red/cards", {"area": "lakes"}).status == 200
    r = ann.post(f"/api/games/{gid}/seats/white/pi", {"level": "easy"})
    assert r.status == 200 and r.json["notice"]["key"] == "notice_cards_clash", r
    assert r.json["you"]["area"] is None and "lakes" not in r.body.decode()   # never the card
    assert not any(p.get("cards_entered") for p in r.json["players"])
    assert ann.post(f"/api/games/{gid}/start").json["code"] == "cards_missing"
    assert ben.post(f"/api/games/{gid}/seats/red/cards", {"area": "bridges"}).status == 200
    assert ann.post(f"/api/games/{gid}/seats/blue/cards", {"area": "lakes"}).status == 200
    assert ann.post(f"/api/games/{gid}/start").json["phase"] == "playing"


def test_the_pages_offer_the_levels_the_table_accepts_and_no_list_of_their_own(server, phone):
    """The host's setup page and the lobby's choice are made from the levels the server sends with a page's strings
    (players.PI_LEVELS, which the table checks a Pi seat against): a new level needs no page changed."""
    import re
    from server_helpers import ROOT
    gid = create_game(phone(server), ("blue", "red"))
    for path in ("/", f"/g/{gid}"):
        page = phone(server).get(path).body.decode()
        sent = json.loads(re.search(r'<script id="strings" type="application/json">(.*?)</script>', page, re.S).group(1))
        assert sent["levels"] == list(players.PI_LEVELS), path
    host = phone(server).get("/").body.decode()
    assert re.findall(r'<select id="pi-level"[^>]*>(.*?)</select>', host, re.S) and all(
        f'value="{lv}"' in host for lv in players.PI_LEVELS)
    listed = re.compile(r"""["'](easy|normal|strong)["']\s*,\s*["'](easy|normal|strong)["']""")
    for path in [*(ROOT / "static").glob("*.js"), *(ROOT / "templates").glob("*.html")]:
        assert not listed.search(path.read_text("utf-8")), f"{path.name} lists the Pi's levels itself"
