"""A whole Expert game in real Chromium: set up on the host page, three phones join by the join URL and play
every move by tapping, each sees only its own cards, and the tally on screen is what `companion score` prints."""
from __future__ import annotations

import json
import random
import subprocess

from pages_helpers import (browser, card_strings, dealt_cards, devices, expected_tally, frame_leaks,  # noqa: F401
                           tally_on_screen)
from server_helpers import COMPANION, ROOT

SEATS = [("blue", "Ann"), ("red", "Bert"), ("white", "Chloé")]
PASS_RATE = 0.7   # passing often keeps calls short; every move still goes through the page


def join(device, url: str, color: str, name: str) -> None:
    device.goto(url)
    device.page.wait_for_selector("#join:not([hidden])")
    device.press(f'#join-colors button:has(.c-{color})')
    device.page.fill("#join-name", name)
    device.press("#join button[type=submit]")
    device.page.wait_for_function("n => document.getElementById('lobby-seats').textContent.includes(n)", arg=name)


def test_three_phones_play_a_whole_expert_game_and_the_tally_matches_companion_score(server, devices, tmp_path):
    rng = random.Random(20240601)
    phones = {c: devices(server, name=n) for c, n in SEATS}
    host = phones["blue"]

    # The host sets up the game on the host page: Expert, three players (blue, red, white), West out.
    host.goto("/")
    host.page.check("input[name=mode][value=expert]")
    assert [c for c in host.page.eval_on_selector_all("#seats input:checked", "els => els.map(e => e.value)")] == \
        [c for c, _ in SEATS]
    host.page.check("#removed input[value=west]")
    host.shot("host-setup", full_page=True)
    host.press("#create")
    host.page.wait_for_url("**/g/*")
    gid = host.page.url.rsplit("/g/", 1)[1]
    join(host, host.page.url, "blue", "Ann")

    # The join URL the host's phone shows (under its QR code) is where the others go.
    url = host.text("#join-url").strip()
    assert url == f"{server.origin}/g/{gid}"
    host.page.wait_for_function("() => document.querySelector('#host-lobby img').naturalWidth > 0")

    # "Start" before every seat is taken: refused with a sentence, nothing changes.
    seq = host.state()["seq"]
    host.press("#start")
    host.page.wait_for_function("() => document.getElementById('msg').textContent.length > 0")
    assert host.text("#msg") == "Every seat needs a player before the start."
    assert host.view(gid)["seq"] == seq and host.view(gid)["phase"] == "lobby"

    table = devices(server, table=True)
    table.goto("/table")
    table.wait_seq(seq)
    assert table.visible("#join-qr img") and table.text("#join-url").strip() == url

    for color, name in SEATS[1:]:
        join(phones[color], url, color, name)
    host.wait_seq(seq + 2)
    host.shot("phone-lobby-host")
    table.shot("table-lobby")
    host.press("#start")
    for d in [*phones.values(), table]:
        d.wait_phase("playing")

    cards = dealt_cards(server, gid)
    forbidden = {c: [s for o, (a, h) in cards.items() if o != c for s in card_strings("en", "expert", a, h)]
                 for c in cards}
    forbidden["table"] = [s for a, h in cards.values() for s in card_strings("en", "expert", a, h)]

    # Each phone opens its own secret cards panel: its two cards, and no one else's.
    panels = {}
    for color, d in phones.items():
        d.press("#show-cards")
        d.page.wait_for_selector("#cards-overlay:not([hidden])")
        panels[color] = d.text("#cards-body")
        if color == "red":
            d.shot("phone-secret-cards")
        d.press("#hide-cards")
        for s in card_strings("en", "expert", *cards[color]):
            assert s in panels[color], (color, s)
        for s in forbidden[color]:
            assert s not in panels[color], (color, s)

    # Play to the end, every move by tapping the phone of the player to act.
    everyone = {**phones, "table": table}
    moves = bids = 0
    shot_turn = shot_wait = False
    while True:
        seq = host.view(gid)["seq"]
        states = {}
        for who, d in everyone.items():
            d.wait_seq(seq)
            states[who] = d.state(forbidden[who])
            if states[who]["phase"] != "finished":   # the end reveals every card, as the rulebook's scoring does
                assert states[who]["leaks"] == [], (who, moves, states[who]["leaks"])
        if states["table"]["phase"] == "finished":
            break
        to_act = states["table"]["toAct"]
        for who, st in states.items():
            assert st["seq"] == seq and st["toAct"] == to_act, (who, st)
            assert st["turn"] == (who == to_act), f"{who} shows a turn panel: {st['turn']} (to act: {to_act})"
        actor = phones[to_act]
        legal = actor.view(gid)["legal"]
        # The highlighted neighborhoods are exactly the legal ones; Pass is offered only when allowed.
        assert actor.highlights() == sorted(legal["neighborhoods"]), moves
        assert actor.visible("#pass") == legal["pass"]
        if not shot_wait:
            phones[next(c for c in phones if c != to_act)].shot("phone-waiting")
            shot_wait = True
        if legal["pass"] and (not legal["neighborhoods"] or rng.random() < PASS_RATE):
            actor.press("#pass")
        else:
            nb = rng.choice(sorted(legal["neighborhoods"]))
            actor.tap(nb)
            actor.page.wait_for_selector("#values button")
            offered = actor.values()
            assert offered == legal["neighborhoods"][nb], (nb, offered)
            value = rng.choice(offered)
            actor.press(f'#values button:text-is("{value}")')
            actor.page.wait_for_selector("#confirm:not([hidden])")
            assert actor.text("#confirm") == f"Bid {value} on {nb}"
            if not shot_turn and bids > 3:
                actor.shot("phone-your-turn")
                table.shot("table-display")
                shot_turn = True
            actor.press("#confirm")
            bids += 1
        actor.wait_seq(seq + 1)
        moves += 1
        assert moves < 400, "the game does not end"

    final = host.view(gid)
    assert final["phase"] == "finished" and max(p["buildings"] for p in final["players"]) == 13

    # The record, downloaded through the end panel's link, scored by the real `companion score`.
    with host.page.expect_download() as dl:
        host.press("#end a[download]")
    path = tmp_path / "record.json"
    dl.value.save_as(path)
    record = json.loads(path.read_text())
    assert len(record["actions"]) >= moves   # the phones' moves, plus automatic passes if recorded
    assert {p["color"]: (p["area"], p["neighborhood"]) for p in record["players"]} == cards
    assert [(p["color"], p["name"]) for p in record["players"]] == SEATS
    out = subprocess.run([str(COMPANION), "score", str(path)], capture_output=True, text=True, timeout=60,
                         cwd=str(ROOT))
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    assert printed["finished"] is True

    want = expected_tally("en", "expert", record["players"], printed)
    for who, d in everyone.items():
        shown = tally_on_screen(d)
        assert shown["visible"], who
        assert {k: shown[k] for k in want} == want, who
    host.shot("phone-end", at="#end")
    table.shot("table-end")

    # No socket frame any device got before the end carried a card that was not its own.
    for who, d in everyone.items():
        assert d.frames, who
        assert frame_leaks(d.frames, None if who == "table" else who, cards) == [], who

    # Every move went over the phone's open live socket (web/live_acts.py), none by a POST to /actions.
    sent = [json.loads(f)["act"] for d in phones.values() for f in d.sent if f.startswith('{"id"')]
    assert len(sent) == moves and not [p for d in phones.values() for p in d.posts if p.endswith("/actions")]


def test_a_bid_goes_over_the_phones_socket_and_by_post_when_the_socket_is_closed(server, devices):
    ann, bert = devices(server, name="Ann"), devices(server, lang="de", name="Bert")
    status, game = ann.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red"], "seed": 7,
                                                  "removed_districts": ["north", "east"], "layout": "random"})
    assert status == 201, game
    gid = game["id"]
    for d, color in ((ann, "blue"), (bert, "red")):
        assert d.api("POST", f"/api/games/{gid}/seats/{color}", {"name": d.name})[0] == 200
    assert ann.api("POST", f"/api/games/{gid}/start")[0] == 200
    view = ann.view(gid)
    first, second = (ann, bert) if view["to_act"] == "blue" else (bert, ann)
    for d in (first, second):
        d.goto(f"/g/{gid}")
        d.wait_seq(view["seq"])

    # A bid tapped on the phone: sent on its socket, answered there, no POST.
    legal = first.view(gid)["legal"]["neighborhoods"]
    nb = sorted(legal)[0]
    first.tap(nb)
    first.page.wait_for_selector("#values button")
    first.press(f'#values button:text-is("{legal[nb][0]}")')
    first.press("#confirm")
    for d in (first, second):
        d.wait_seq(view["seq"] + 1)
    acts = [json.loads(f) for f in first.sent if f.startswith('{"id"')]
    assert [a["act"] for a in acts] == [{"bid": nb, "value": legal[nb][0], "expect_seq": view["seq"]}]
    for _ in range(100):   # its answer follows the view it published
        if any(json.loads(f).get("ack") == acts[0]["id"] for f in first.frames if f.startswith('{"ack"')):
            break
        first.page.wait_for_timeout(50)
    else:
        raise AssertionError("the bid was not answered on the socket")
    assert not [p for p in first.posts if p.endswith("/actions")]
    assert ann.view(gid)["actions"] == view["actions"] + 1

    # A refusal over the socket is shown as the POST's would be, in the phone's language (German here).
    stale = second.page.evaluate("() => window.__phone.post('/actions', {pass: true, expect_seq: 0})"
                                 ".then(r => r && r.data && r.data.error)")
    posted = second.page.evaluate(
        "p => fetch(p, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{\"pass\": true,"
        " \"expect_seq\": 0}'}).then(r => r.json()).then(d => d.error)", f"/api/games/{gid}/actions")
    assert stale == posted == "Die Partie ist weitergegangen; hier ist der aktuelle Stand."
    assert second.text("#msg") == stale

    # With its socket closed, the same send path posts (and nothing goes on a socket).
    sent_before, posts_before = len(second.sent), len(second.posts)
    second.page.evaluate("() => window.__phone.sock.stop()")
    done = second.page.evaluate("s => window.__phone.post('/actions', {pass: true, expect_seq: s}).then(r => r.ok)",
                                view["seq"] + 1)
    assert done and second.posts[posts_before:] == [f"api/games/{gid}/actions"]
    assert len(second.sent) == sent_before and ann.view(gid)["seq"] == view["seq"] + 2
