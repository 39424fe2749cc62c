"""No answer or socket message to one device carries another player's secret cards before the game ends."""
from __future__ import annotations

import json
import random
import re

import pytest

from companion.game.setup import deal
from companion.game.state import EXPERT_AREAS, FAMILY_AREAS, NEIGHBORHOOD_CARDS
from server_helpers import choose, create_game

CARD_WORDS = sorted(set(FAMILY_AREAS) | set(EXPERT_AREAS) | set(NEIGHBORHOOD_CARDS))


def strings(node, skip_you: bool = True):
    """Every string value in a JSON document (keys left out), without the device's own `you`."""
    if isinstance(node, dict):
        for k, v in node.items():
            if not (skip_you and k == "you"):
                yield from strings(v, skip_you)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v, skip_you)
    elif isinstance(node, str):
        yield node


def without_you(node):
    """The document without any `you` object."""
    if isinstance(node, dict):
        return {k: without_you(v) for k, v in node.items() if k != "you"}
    if isinstance(node, list):
        return [without_you(v) for v in node]
    return node


def find_key(node, key):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                yield v
            yield from find_key(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from find_key(v, key)


def is_finished(doc) -> bool:
    view = doc.get("view") if isinstance(doc, dict) and "view" in doc else doc
    return isinstance(view, dict) and view.get("phase") == "finished"


def check_device(who: str, own: tuple, others: dict, seen: list) -> tuple[int, int]:
    """Every message this device got before the end: its own `you` only, no one else's card anywhere."""
    before = after = 0
    other_words = {w for cards in others.values() for w in cards if w} - {w for w in own if w}
    pattern = re.compile(r"\b(" + "|".join(CARD_WORDS) + r")\b", re.I)
    ended = False
    for channel, method, path, body in seen:
        doc = json.loads(body)
        ended = ended or is_finished(doc)   # from the first finished view on, the cards are public
        if ended:
            after += 1
            continue
        if channel == "http" and path.endswith("/record"):
            assert doc.get("code") == "not_finished", (who, doc)
        before += 1
        for you in find_key(doc, "you"):
            assert you is None or you["color"] == who, (who, channel, path, you)
        for secret in ("revealed", "scores", "details"):
            assert not list(find_key(doc, secret)), (who, channel, path, secret)
        for text in strings(doc):
            # A card word outside one's own `you` would be a card said aloud: none is, in any message.
            assert not pattern.search(text), (who, channel, path, text)
        # Outside its own `you` (checked above to be this seat's): in the physical deal a seat's own entry may
        # be another seat's card until the clash check clears it, and that is what this phone typed itself.
        raw = json.dumps(without_you(doc), separators=(",", ":"), ensure_ascii=False)
        for color, (area, hood) in others.items():
            for key, card in (("area", area), ("neighborhood", hood)):
                if card and card in other_words:
                    assert f'"{key}":"{card}"' not in raw, (who, channel, path, color, key)
    return before, after


def play_capturing(gid, phones, rng, probes=True):
    """Play to the end; now and then the others poke the server (out of turn, stale, record) to fish for more."""
    first = next(iter(phones.values()))
    view = first.view(gid)
    while view["phase"] == "playing":
        color = view["to_act"]
        mine = phones[color].view(gid)
        move = choose(mine, rng)
        if probes and rng.random() < 0.15:
            other = rng.choice([c for c in phones if c != color])
            assert phones[other].post(f"/api/games/{gid}/actions", move).status == 422
            assert phones[other].get(f"/api/games/{gid}/record").status == 409
            assert phones[color].post(f"/api/games/{gid}/actions",
                                      dict(move, expect_seq=mine["seq"] - 1)).status == 409
        r = phones[color].post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]))
        assert r.status == 200, r
        view = r.json
    return view


@pytest.mark.parametrize("mode,players,how", [("expert", 4, "app"), ("family", 3, "app"),
                                              ("expert", 3, "physical")])
def test_no_device_hears_another_players_cards_before_the_end(server, phone, mode, players, how):
    rng = random.Random(f"{mode}{players}{how}")
    colors = ["blue", "red", "white", "gray"][:players]
    phones = {c: phone(server) for c in colors}
    viewer = phone(server)
    for p in [*phones.values(), viewer]:
        p.capture = True
    gid = create_game(phones["blue"], colors, mode=mode, deal=how)
    socks = [p.ws(gid) for p in [*phones.values(), viewer]]
    for c, p in phones.items():
        assert p.post(f"/api/games/{gid}/seats/{c}", {"name": f"P-{c}"}).status == 200
    if how == "physical":
        cards = dict(zip(colors, deal(mode, players, rng)))
        base = f"/api/games/{gid}/seats"
        assert phones["blue"].post(f"{base}/blue/cards", dict(zip(("area", "neighborhood"), cards["blue"]))).status == 200
        # Red types blue's cards by mistake (or to fish): the answer must not say that blue holds them.
        r = phones["red"].post(f"{base}/red/cards", dict(zip(("area", "neighborhood"), cards["blue"])))
        assert r.status == 200, r
        refused = phones["blue"].post(f"/api/games/{gid}/start")
        assert refused.status == 409 and refused.json["code"] == "cards_missing", refused
        for c in colors[2:]:
            assert phones[c].post(f"{base}/{c}/cards", dict(zip(("area", "neighborhood"), cards[c]))).status == 200
        # The last seat in: every entry is checked at once; the clash names no seat and no card, and every
        # seat enters again.
        clash = phones[colors[-1]].view(gid)["notice"]
        assert clash["key"] == "notice_cards_clash" and set(clash) == {"key", "seq"}, clash
        for c in colors:
            assert phones[c].post(f"{base}/{c}/cards", dict(zip(("area", "neighborhood"), cards[c]))).status == 200
        # red's phone saw blue's cards only as its own mistaken entry; forget those messages for the check
        phones["red"].seen.clear()
    assert phones["blue"].post(f"/api/games/{gid}/start").status == 200

    final = play_capturing(gid, phones, rng)
    assert final["phase"] == "finished"
    revealed = {c: (v["area"], v["neighborhood"]) for c, v in final["revealed"].items()}
    if how == "physical":
        assert revealed == cards
    for s in socks:
        s.wait_seq(final["seq"])
    record = viewer.get(f"/api/games/{gid}/record")
    assert record.status == 200  # after the end, the record (with every card) is open to all

    for c, p in phones.items():
        own = revealed[c]
        others = {o: v for o, v in revealed.items() if o != c}
        before, after = check_device(c, own, others, p.seen)
        assert before > 50 and after >= 1, (c, before, after)
        # The control: the device did hear its own cards, in its own `you`.
        mine = [y for _, _, _, b in p.seen for y in find_key(json.loads(b), "you") if y]
        dealt = [(y["area"], y["neighborhood"]) for y in mine if y["area"]]
        assert dealt and set(dealt) == {own}, c
        finished = [json.loads(b) for _, _, _, b in p.seen if is_finished(json.loads(b))]
        assert any("revealed" in d for d in finished)
    before, after = check_device("viewer", (None, None), revealed, viewer.seen)
    assert before > 50 and after >= 1
    assert not [y for _, _, _, b in viewer.seen for y in find_key(json.loads(b), "you")]


def test_the_public_seed_fixes_the_token_layout_but_never_the_deal(server, phone):
    """A seed anyone at the table may know must not tell them the secret cards."""
    colors = ("blue", "red", "white", "gray")
    layouts, deals = [], []
    for _ in range(5):
        seats = {c: phone(server) for c in colors}
        gid = create_game(seats["blue"], colors, mode="expert", seed=1234)
        for c, p in seats.items():
            assert p.post(f"/api/games/{gid}/seats/{c}", {"name": c}).status == 200
        assert seats["blue"].post(f"/api/games/{gid}/start").status == 200
        layouts.append(seats["blue"].view(gid)["tokens"])
        deals.append(tuple((seats[c].view(gid)["you"]["area"], seats[c].view(gid)["you"]["neighborhood"])
                           for c in colors))
    assert all(layout == layouts[0] for layout in layouts)
    # 14,400 possible expert deals for 4 players: five equal deals in a row would be chance 1 in 4e16.
    assert len(set(deals)) > 1


def test_every_new_way_to_a_seat_keeps_the_cards_with_their_owner(start_server, phone):
    """Issue 21's flows, all in one evening with every device capturing: a lobby squatter taken off its seat,
    a physical deal with a clash, a seat moved with its own phone's code, a gone phone's seat moved with the
    Pi's code (cancelled once by the phone coming back, then done), the host role claimed with the Pi's code,
    a display claimed by code, strangers guessing codes. Before the end nobody hears another seat's cards."""
    import time
    from types import SimpleNamespace

    from server_helpers import Phone

    server = start_server(env={"COMPANION_RATE_LIMIT": "1000", "COMPANION_WRITE_RATE_LIMIT": "1000",
                               "COMPANION_HOST_AWAY": "1", "COMPANION_SEAT_MOVE_WAIT": "8"})
    rng = random.Random("issue 21")
    colors = ["blue", "red", "white", "gray"]
    made = []

    def device(source, who):
        p = Phone(server, name=who, source=source)
        p.capture = True
        made.append(p)
        return p

    ph = {c: device(f"127.0.0.{60 + i}", c) for i, c in enumerate(colors)}
    # The squatter sat at gray in the lobby (no cards yet): its `you` said gray then.
    squatter, watcher, tablet = device("127.0.0.70", "gray"), device("127.0.0.71", ""), device("127.0.0.72", "")
    red2, white2 = device("127.0.0.73", "red"), device("127.0.0.74", "white")
    local = SimpleNamespace(origin=f"http://localhost:{server.port}", ws_base=f"ws://localhost:{server.port}")
    pi = Phone(local, name="")
    pi.capture = True
    made.append(pi)
    gid = create_game(ph["blue"], colors, mode="expert", deal="physical")
    for p in (watcher, pi, squatter):
        p.ws(gid)
    base = f"/api/games/{gid}/seats"
    # The lobby: a squatter sits, the host takes it off, it cannot sit again.
    assert squatter.post(f"{base}/gray", {"name": "Sq"}).status == 200
    assert ph["blue"].post(f"{base}/gray/release").status == 200
    assert squatter.post(f"{base}/gray", {"name": "Sq"}).json["code"] == "removed_here"
    for c, p in ph.items():
        assert p.post(f"{base}/{c}", {"name": f"P-{c}"}).status == 200
        p.ws(gid)
    # The physical deal, with a clash on the way (white types gray's cards, gray enters last).
    cards = dict(zip(colors, deal("expert", 4, rng)))

    def enter(c, pair):
        return ph[c].post(f"{base}/{c}/cards", dict(zip(("area", "neighborhood"), pair)))

    for c in ("blue", "red"):
        assert enter(c, cards[c]).status == 200
    assert enter("white", cards["gray"]).status == 200
    assert enter("gray", cards["gray"]).json["notice"]["key"] == "notice_cards_clash"
    ph["white"].seen.clear()   # white saw gray's cards only as its own mistaken entry
    for c in colors:
        assert enter(c, cards[c]).status == 200
    assert ph["blue"].post(f"/api/games/{gid}/start").status == 200
    view = ph["blue"].view(gid)
    phones = dict(ph)

    def play_some(k):
        nonlocal view
        for _ in range(k):
            view = phones[view["to_act"]].view(gid)
            if view["phase"] != "playing":
                return
            move = choose(view, rng)
            r = phones[view["to_act"]].post(f"/api/games/{gid}/actions", dict(move, expect_seq=view["seq"]))
            assert r.status == 200, r
            view = r.json

    play_some(6)
    # Strangers guess every kind of code.
    for path in (f"{base}/red/move", f"{base}/white/rescue", "/api/table/claim"):
        for g in ("ABCDEF", "GHJKMN", "PQRSTU", "VWXYZ2", "345678"):
            assert watcher.post(path, {"code": g}).status in (403, 409, 429)
    # Red moves with its own phone's code.
    code = phones["red"].post(f"{base}/red/code").json["move_codes"]["red"]
    assert red2.post(f"{base}/red/move", {"code": code}).status == 200
    red2.ws(gid)
    phones["red"] = red2
    play_some(4)
    # White's phone goes; a new phone asks the table; white comes back and cancels; then it goes for good.
    for s in phones["white"].sockets:
        s.close()
    time.sleep(1.5)
    assert white2.post(f"{base}/white/rescue").status == 200
    pi_code = pi.view(gid)["seat_move_code"]["code"]
    assert white2.post(f"{base}/white/rescue", {"code": pi_code}).status == 200
    assert ph["white"].post(f"{base}/white/rescue/cancel").status == 200
    assert "you" not in white2.view(gid)
    assert white2.post(f"{base}/white/rescue").status == 200
    assert white2.post(f"{base}/white/rescue", {"code": pi.view(gid)["seat_move_code"]["code"]}).status == 200
    deadline = time.monotonic() + 30
    while "you" not in white2.view(gid) and time.monotonic() < deadline:
        time.sleep(0.1)
    white2.ws(gid)
    phones["white"] = white2
    # The host's phone goes; gray claims the role with the Pi's code; a tablet becomes a display.
    for s in phones["blue"].sockets:
        s.close()
    time.sleep(1.5)
    assert phones["gray"].post(f"/api/games/{gid}/host/claim").status == 200
    claim = pi.view(gid)["host_claim_code"]
    assert phones["gray"].post(f"/api/games/{gid}/host/claim", {"code": claim}).status == 200
    display_code = pi.post("/api/table/code").json["code"]
    assert tablet.post("/api/table/claim", {"code": display_code}).status == 200
    tablet.ws(gid)
    phones["blue"].ws(gid)
    final = play_capturing(gid, phones, rng, probes=False)
    assert final["phase"] == "finished"
    revealed = {c: (v["area"], v["neighborhood"]) for c, v in final["revealed"].items()}
    assert revealed == cards
    time.sleep(0.5)
    for p in made:
        who = p.name
        own = revealed.get(who, (None, None)) if p is not squatter else (None, None)
        others = {c: v for c, v in revealed.items() if c != who or p is squatter}
        before, _ = check_device(who or "nobody", own, others, p.seen)
        assert before > 0, who
    for p in made:
        p.close()
