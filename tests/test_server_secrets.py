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
        raw = body.decode()
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
        for c in colors[2:]:
            assert phones[c].post(f"{base}/{c}/cards", dict(zip(("area", "neighborhood"), cards[c]))).status == 200
        clash = phones["blue"].post(f"/api/games/{gid}/start")
        assert clash.status == 409 and clash.json["code"] == "cards_clash", clash
        assert not re.search("|".join(CARD_WORDS), clash.json["error"], re.I), clash
        assert phones["red"].post(f"{base}/red/cards", dict(zip(("area", "neighborhood"), cards["red"]))).status == 200
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
