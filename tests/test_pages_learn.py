"""Issue 19 item 2 in real Chromium: the "How to play" card on every phone (phone page, front door, a watching
phone) in English, German and French, fetched only when opened, with the real board's neighborhoods painted as in a
game, fitting 320 px; and the first game's one-line hint on the new player's own phone only, at their turn, naming
the bid on the board, gone after their first bid, and off for good on that phone once turned off."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from companion.lang import i18n
from companion.web import learn
from companion.game.board import load_board
from pages_helpers import browser, devices, shots_at  # noqa: F401  (the module's browser fixture)
from test_pages_hostile import SOCKET_HASH

SECTIONS = ["learn-goal", "learn-call", "learn-outbid", "learn-pass", "learn-end-call", "learn-tokens", "learn-cards",
            "learn-end"]
TITLES = ["goal_title", "call_title", "outbid_title", "pass_title", "end_call_title", "tokens_title", "cards_title",
          "end_title"]
PHONES = [(320, 568), (390, 844)]
HINT = "first_game_hint"

# What the card shows, read from its frame: each section's title, each example's pieces and lit shapes, the widths.
CARD_JS = """() => {
  const d = document;
  return {
    lang: d.documentElement.lang,
    sections: [...d.querySelectorAll('main > section')].map(s => [s.id, s.querySelector('h2').textContent]),
    examples: Object.fromEntries([...d.querySelectorAll('figure.example')].map(f => [f.dataset.example, {
      shapes: [...f.querySelectorAll('.nb')].map(g => g.dataset.nb),
      bids: [...f.querySelectorAll('.piece.bid')].map(p => [p.dataset.bidOf, p.querySelector('.bv').textContent]),
      built: [...f.querySelectorAll('.piece.built')].map(p => p.dataset.buildingOf),
      lit: [...f.querySelectorAll('.nb.legal')].map(g => g.dataset.nb).sort(),
      caption: f.querySelector('figcaption').textContent,
      shown: f.querySelector('svg').getBoundingClientRect().width > 100,
    }])),
    tokens: [...d.querySelectorAll('.tokenlist li')].map(li => [li.dataset.token, !!li.querySelector('use')]),
    width: [d.documentElement.scrollWidth, d.documentElement.clientWidth],
  };
}"""


def card_frame(d):
    for _ in range(100):
        frame = next((f for f in d.page.frames if urlsplit(f.url).path == "/learn"), None)
        if frame is not None:
            return frame
        d.page.wait_for_timeout(100)
    raise AssertionError("the card's page was never fetched")


def open_card(d) -> dict:
    """Taps "How to play" (the header's button), waits for the card's pieces, returns what the card shows."""
    d.page.locator(".bar [data-learn]").tap()
    d.page.wait_for_selector("#learn-overlay:not([hidden])")
    frame = card_frame(d)
    frame.wait_for_function("() => document.querySelectorAll('figure.example .piece').length >= 5")
    return frame.evaluate(CARD_JS)


def errors_of(d) -> list:
    """Uncaught errors and policy violations on the page and in its card, from now on."""
    seen: list = []
    d.page.on("pageerror", lambda e: seen.append(str(e)))
    d.page.on("console", lambda m: seen.append(m.text) if m.type == "error" else None)
    return seen


def check_card(card: dict, lang: str) -> None:
    """Every section in the device's language, every example on the board's own shapes, nothing wider than the card."""
    assert card["lang"] == lang
    assert [s for s, _ in card["sections"]][:len(SECTIONS)] == SECTIONS
    titles = dict(card["sections"])
    for sid, key in zip(SECTIONS, TITLES):
        assert titles[sid] == learn.texts(lang)[key], (lang, sid)
    board = load_board()
    ex = card["examples"]
    assert set(ex) == {"call", "outbid", "bridge", "end"} and all(e["shown"] for e in ex.values())
    # Outbidding (rulebook: "an orthogonally adjacent neighborhood ... Crossing bridges is allowed, but lakes and
    # rivers are impassable"): the lit shapes are exactly the free neighbors of the bid, and the caption names them,
    # and names a shape across a lake from it that is not lit.
    (nb, value), = ex["outbid"]["bids"]
    assert ex["outbid"]["lit"] == sorted(board.neighborhoods[nb].neighbors) and value == "3"
    water = re.findall(r"[CNESW]\d\d", ex["outbid"]["caption"])
    across = [w for w in water if board.water_between(nb, w)]
    assert across and all(w not in ex["outbid"]["lit"] and w in ex["outbid"]["shapes"] for w in across)
    assert all(n in ex["outbid"]["caption"] for n in ex["outbid"]["lit"])
    # Bridges: the last bid's free neighbors, those over a bridge among them, each named in the caption.
    bids = dict(ex["bridge"]["bids"])
    last = [n for n in bids if bids[n] == "7"][0]
    assert ex["bridge"]["lit"] == sorted(set(board.neighborhoods[last].neighbors) - set(bids))
    assert board.neighborhoods[last].bridges and all(b in ex["bridge"]["caption"] and b in ex["bridge"]["lit"]
                                                     for b in board.neighborhoods[last].bridges)
    # What ends a call: a bid in a blind alley whose one way out is built has no free neighborhood next to it.
    (blind, _), = ex["end"]["bids"]
    assert board.neighborhoods[blind].blind_alley and set(board.neighborhoods[blind].neighbors) == set(ex["end"]["built"])
    assert [k for k, has_picture in card["tokens"] if has_picture] == ["trendy", "subway", "archaeological"]
    assert card["width"][0] <= card["width"][1], f"the card scrolls sideways: {card['width']}"


def no_sideways(d) -> None:
    w = d.page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert w[0] <= w[1], w


def fetched_learn(d) -> list[str]:
    """The card's own page among the requests this phone made (its style and script come with it)."""
    return [u for u in d.requests if urlsplit(u).path in ("/learn", "/static/learn.css")
            or re.fullmatch(r"/static/js/[0-9a-f]+/learn\.js", urlsplit(u).path)]


def watch_requests(d) -> None:
    d.requests = []
    d.page.on("request", lambda r: d.requests.append(r.url))


def new_game(d, players=("blue", "red")) -> str:
    status, data = d.api("POST", "/api/games", {"mode": "family", "players": list(players),
                                                "removed_districts": ["north", "east"]})
    assert status == 201, data
    return data["id"]


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_how_to_play_opens_on_every_phone_in_its_language_only_when_asked_and_fits_320(start_server, devices, lang):
    server = start_server()
    host = devices(server, lang=lang, name="Ann")
    watch_requests(host)
    errors = errors_of(host)
    host.page.set_viewport_size({"width": 320, "height": 568})
    host.goto("/")
    host.page.wait_for_load_state("load")
    assert not fetched_learn(host), "the front door's first load fetched the card"
    check_card(open_card(host), lang)
    no_sideways(host)
    if lang == "en":
        shots_at(host, "learn-front-door", PHONES)

    # The phone page: seated in the lobby, the card is not in its first load; opened, it covers the page that stays live.
    gid = new_game(host)
    assert host.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    host.requests.clear()
    host.goto(f"/g/{gid}")
    host.wait_seq(host.view(gid)["seq"])
    assert not fetched_learn(host), "the phone page's first load fetched the card"
    if lang == "en":
        shots_at(host, "phone-lobby-how-to-play", PHONES, at="#lobby")
    card = open_card(host)
    check_card(card, lang)
    assert sorted(re.sub(r"/js/[0-9a-f]+/", "/js/B/", urlsplit(u).path) for u in fetched_learn(host)) == [
        "/learn", "/static/js/B/learn.js", "/static/learn.css"]
    no_sideways(host)
    shots_at(host, f"learn-phone-{lang}", PHONES)
    card_frame(host).evaluate("() => document.getElementById('learn-outbid').scrollIntoView()")
    shots_at(host, f"learn-phone-{lang}-outbid", PHONES)
    assert errors == []
    host.page.locator("#learn-close").tap()
    host.page.wait_for_selector("#learn-overlay", state="hidden")
    assert host.page.evaluate("() => document.getElementById('app').dataset.live") == "1"

    # A phone that only watches (every seat taken, the game under way) has it too.
    bert = devices(server, name="Bert")
    assert bert.api("POST", f"/api/games/{gid}/seats/red", {"name": "Bert"})[0] == 200
    assert host.api("POST", f"/api/games/{gid}/start")[0] == 200
    watcher = devices(server, lang=lang)
    watcher.page.set_viewport_size({"width": 320, "height": 568})
    watcher.goto(f"/g/{gid}")
    watcher.wait_phase("playing")
    watcher.page.wait_for_selector("#watching:not([hidden])")
    check_card(open_card(watcher), lang)
    no_sideways(watcher)


def hint(d) -> str:
    """The hint line as shown on the screen ('' when it takes no room there)."""
    return d.page.evaluate("() => { const h = document.getElementById('first-hint'); "
                           "return h.getClientRects().length ? document.getElementById('first-hint-text').textContent : ''; }")


def test_the_first_game_hint_names_the_bid_on_the_board_on_the_new_player_s_own_phone_only(start_server, devices):
    server = start_server()
    ann, bert = devices(server, lang="en", name="Ann"), devices(server, lang="de", name="Bert")
    gid = new_game(ann)
    for d, c in ((ann, "blue"), (bert, "red")):
        assert d.api("POST", f"/api/games/{gid}/seats/{c}", {"name": d.name})[0] == 200
    assert ann.api("POST", f"/api/games/{gid}/start")[0] == 200
    table = devices(server, table=True)
    table.goto("/table")
    phones = {"blue": ann, "red": bert}
    for d in phones.values():
        d.page.set_viewport_size({"width": 390, "height": 844})
        d.goto(f"/g/{gid}")
    view = ann.view(gid)
    opener = view["to_act"]
    other = "red" if opener == "blue" else "blue"
    first, second = phones[opener], phones[other]
    for d in phones.values():
        d.wait_seq(view["seq"])
    lang = {"blue": "en", "red": "de"}

    # The opener's phone: the opening bid's sentence, in its language; the other phone: nothing.
    first.page.wait_for_selector("#first-hint:not([hidden])")
    assert hint(first) == i18n.t(lang[opener], "hint_open")
    assert hint(second) == ""
    shots_at(first, "phone-first-hint-open", PHONES)

    # The opener bids (a tap on a lit neighborhood, a value, the bid button): the hint is gone from its phone.
    nb = sorted(first.view(gid)["legal"]["neighborhoods"])[0]
    first.page.evaluate("nb => document.querySelector('#map .nb[data-nb=\"' + nb + '\"]').scrollIntoView({block: 'center'})", nb)
    # Over the map: still in sight with the neighborhood to tap in the middle of the screen.
    box = first.page.evaluate("() => { const r = document.getElementById('first-hint').getBoundingClientRect(); "
                              "return [r.top, r.bottom, innerHeight]; }")
    assert 0 <= box[0] and box[1] <= box[2], box
    shots_at(first, "phone-first-hint-over-map", PHONES, at="#map")
    first.tap(nb)
    first.page.locator("#values button.val", has_text=re.compile(r"^4$")).tap()
    first.page.locator("#confirm").tap()
    first.wait_seq(view["seq"] + 1)
    assert hint(first) == ""

    # Now the other player's turn: the hint names the opener's bid, read from the board, in that phone's language.
    second.wait_seq(view["seq"] + 1)
    second.page.wait_for_selector("#first-hint:not([hidden])")
    # Named as every screen names a person: name with colour ("Ann (Blau)"), in that phone's language.
    who = f"{phones[opener].name} ({i18n.term(lang[other], opener).capitalize()})"
    assert hint(second) == i18n.t(lang[other], "hint_outbid", player=who, value=4, nb=nb)
    assert hint(first) == ""
    shots_at(second, "phone-first-hint-outbid", PHONES)

    # Turned off on that phone: gone, and still off after a reload though the server still offers it.
    second.page.locator("#hints-off").tap()
    assert hint(second) == ""
    second.goto(f"/g/{gid}")
    second.wait_seq(view["seq"] + 1)
    assert HINT in second.view(gid)
    assert hint(second) == "" and not second.page.is_checked("#hints")
    # Turned on again from the box under the map: back.
    second.page.locator("#hints").check()
    second.page.wait_for_selector("#first-hint:not([hidden])")
    second.page.locator("#hints").uncheck()
    assert hint(second) == ""

    # The table screen and the other phone never heard of it: no such field, no such sentence.
    sentences = [i18n.t(lg, k, player=who, value=4, nb=nb) for lg in ("en", "de", "fr")
                 for k in ("hint_open", "hint_outbid", "hint_cannot")]
    table.page.wait_for_function("n => +(document.getElementById('app')?.dataset.seq ?? document.body.dataset.seq ?? n) >= n",
                                 arg=view["seq"] + 1)
    table_text = table.page.inner_text("body")
    assert not any(s in table_text for s in sentences)
    assert table.frames and not any(HINT in f for f in table.frames)
    # Each phone's own socket carried it only while it was that phone's turn (the opener's before its bid).
    assert not any(HINT in f for f in first.frames if f'"to_act":"{opener}"' not in f)
    assert not any(HINT in f for f in second.frames if f'"to_act":"{other}"' not in f)


def test_only_the_card_may_be_framed_and_only_by_our_own_pages(start_server, devices):
    """The page policy is the one every page has (tests/test_pages_hostile.py), but for frame-ancestors 'self' on
    /learn: the card opens over the phone page in a frame; no other page may be framed, the card by nobody else."""
    server = start_server()
    d = devices(server)
    for path, framing in (("/learn", "'self'"), ("/learn?embed=1&lang=fr", "'self'"), ("/", "'none'"),
                          ("/table", "'none'"), ("/history", "'none'")):
        r = d.page.request.get(server.origin + path)
        assert r.status == 200
        got = dict(part.strip().split(" ", 1) for part in r.headers["content-security-policy"].split(";") if part.strip())
        assert got == {"default-src": "'self'", "script-src": "'self' " + SOCKET_HASH, "object-src": "'none'",
                       "frame-ancestors": framing, "base-uri": "'none'"}, path
