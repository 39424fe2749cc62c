"""Score a finished board in real Chromium (issue 19 item 1): a whole 4-player Expert board entered by taps on two
phones at once (the host for three colours, a player for their own), the table screen following, the tally shown,
saved to /history and sent to BG Stats with the same scores; every bad entry refused with its sentence.

PAGES_SCREENSHOTS=dir keeps screenshots at 320x568 and 390x844 (and of the table screen)."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from games import BOARD
from pages_helpers import browser, devices, expected_tally, shots_at, tally_on_screen  # noqa: F401
from test_board_entry import height_of
from test_server_board import NAMES, finished_game

from companion.game.scoring import explain

PHONES = [(320, 568), (390, 844)]
TABLES = [(1920, 1080), (1280, 720), (1024, 600)]


class Counted:
    """Every tap a person makes on a phone, counted (typing a name is one tap on the field)."""

    def __init__(self):
        self.taps = 0
        self.seq = 0

    def tap(self, d, nb):
        d.tap(nb)
        self.taps += 1

    def press(self, d, selector):
        d.press(selector)
        self.taps += 1

    def wrote(self, d):
        """One more event in the game's log, shown on the device that wrote it."""
        self.seq += 1
        d.wait_seq(self.seq)


def built_on(d) -> int:
    return d.page.eval_on_selector_all("#map .piece.built", "els => els.length")


@pytest.mark.parametrize("size", PHONES, ids=["320x568", "390x844"])
def test_a_whole_four_player_board_entered_on_two_phones_is_tallied_saved_and_logged(server, devices, size):
    final = finished_game(seed=5)
    colors = final.setup.colors
    w, h = size
    host, anna = devices(server, name="host"), devices(server, name="anna")
    for d in (host, anna):
        d.page.set_viewport_size({"width": w, "height": h})
    count = Counted()
    # From the front door: "Score a game played on the board", Expert, the four colours (ticked already).
    host.goto("/")
    shots_at(host, "score-door", [size])
    count.press(host, "#score-door")
    host.page.wait_for_selector("#new")
    count.press(host, "input[name=mode][value=expert]")
    for c in colors:     # each colour's player named as it sits down (issue 30): the tally asks nothing
        host.page.fill(f"input[data-name={c}]", NAMES[c])
        count.taps += 1
    shots_at(host, "score-new", [size])
    count.press(host, "#begin")
    host.page.wait_for_url("**/score/*")
    gid = host.page.url.rsplit("/", 1)[1]
    count.wrote(host)
    tv = devices(server, table=True)
    tv.goto("/table")
    tv.wait_phase("board")
    # Anna sits on white with her own phone; the host enters the other three colours.
    anna.goto(f"/score/{gid}")
    anna.page.wait_for_selector("#join:not([hidden])")
    count.press(anna, "[data-join=white]")
    anna.page.fill("#join-name", "Anna")
    count.taps += 1
    count.press(anna, "#join button[type=submit]")
    count.wrote(anna)
    anna.page.wait_for_selector("#entry:not([hidden])")
    who = {"white": anna}
    by_colour = {c: [] for c in colors}
    for nb, b in sorted(final.built.items()):
        by_colour[b.player].append((nb, height_of(b.value)))
    # Two phones at once: the host's and Anna's taps interleave, each phone its own colour (and height).
    queues = {}
    for c in colors:
        d = who.get(c, host)
        order = sorted(by_colour[c], key=lambda x: ("tall", "medium", "small").index(x[1]))
        queues.setdefault(d.name, []).append((c, order))
    state = {"host": {"pen": None, "height": "small"}, "anna": {"pen": "white", "height": "small"}}
    steps = {name: [(c, nb, hgt) for c, order in q for nb, hgt in order] for name, q in queues.items()}
    entered = 0
    while any(steps.values()):
        for d in (host, anna):
            if not steps[d.name]:
                continue
            c, nb, hgt = steps[d.name].pop(0)
            s = state[d.name]
            if s["pen"] != c:
                count.press(d, f"[data-pen={c}]")
                s["pen"] = c
            if s["height"] != hgt:
                count.press(d, f"[data-height={hgt}]")
                s["height"] = hgt
            count.tap(d, nb)
            count.wrote(d)
            entered += 1
            if entered == 20:
                # The table screen follows: the board fills up as the phones enter it.
                tv.wait_seq(count.seq)
                assert built_on(tv) == 20
                if (w, h) == (390, 844):
                    shots_at(tv, "table-score-filling", TABLES)
                shots_at(host, "score-entering", [size], at="#entry")
    tv.wait_seq(count.seq)
    assert built_on(tv) == len(final.built) == built_on(host)
    # Tokens: each a tap on its "+"; the card holders; the secret cards, Anna's on her own phone.
    for i, c in enumerate(colors):
        d = who.get(c, host)
        if d is host and state["host"]["pen"] != c:
            count.press(host, f"[data-pen={c}]")
            state["host"]["pen"] = c
        for k, kind in enumerate(("trendy", "subway", "archaeological")):
            for _ in range(final.collected[i][k]):
                count.press(d, f"[data-tokens={kind}] [data-step='1']")
                count.wrote(d)
        seat = final.setup.seats[i]
        count.press(d, f"#secret [data-area={seat.area}]")
        count.press(d, f"#secret [data-neighborhood={seat.neighborhood}]")
        count.wrote(d)
    for card, holder in (("subway", final.subway_card), ("archaeological", final.archaeological_card)):
        if holder is not None:
            count.press(host, f"[data-holder={card}] [data-who={colors[holder]}]")
            count.wrote(host)
    # Before the tally nobody's phone holds another player's cards: not Anna's, not the table's.
    others = {s.color: s.area for s in final.setup.seats}
    for d, own in ((anna, "white"), (tv, None)):
        for frame in d.frames:
            v = json.loads(frame)
            assert "revealed" not in v and "scores" not in v
            assert (v.get("you") or {}).get("color") in (own, None)
    assert anna.view(gid)["you"]["area"] == others["white"]
    shots_at(anna, "score-cards", [size], at="#secret")
    count.press(host, "#tally")
    for d in (host, anna, tv):
        d.wait_phase("finished")
    want = explain(final, BOARD)
    players = [{"color": c, "name": "Anna" if c == "white" else NAMES[c]} for c in colors]
    shown = expected_tally("en", "expert", players, want["scores"])
    for d in (host, anna):
        got = tally_on_screen(d)
        assert got["visible"] and got["head"] == shown["head"] and got["body"] == shown["body"]
        assert got["record"] is None   # no bids were recorded: nothing to download
        assert d.page.is_visible("#end .decider")
    # BG Stats: the link decodes to the same scores.
    host.page.wait_for_selector("#bgstats-app")
    data = json.loads(parse_qs(urlsplit(host.page.get_attribute("#bgstats-app", "href")).query)["data"][0])
    assert [p["score"] for p in data["players"]] == [want["scores"]["players"][c]["total"] for c in colors]
    assert [p["name"] for p in data["players"]] == ["Anna" if c == "white" else NAMES[c] for c in colors]
    assert "scored from the board" in data["comments"]
    shots_at(host, "score-tally", [size], at="#end")
    if (w, h) == (390, 844):
        tv.page.wait_for_timeout(300)
        shots_at(tv, "table-score-end", TABLES)
    # Saved to /history, marked "scored from the board".
    count_taps = count.taps
    host.goto("/history")
    row = host.page.wait_for_selector(f"li.game[data-game='{gid}']")
    assert "scored from the board" in row.inner_text()
    assert row.query_selector("a[download]") is None
    print(f"\n4-player Expert board ({len(final.built)} buildings, "
          f"{sum(map(sum, final.collected))} tokens) entered in {count_taps} taps at {w}x{h}")
    assert count_taps < 2 * len(final.built) + 60


def test_every_bad_entry_is_refused_on_the_page_with_its_sentence_and_changes_nothing(server, devices):
    host = devices(server, name="host")
    host.page.set_viewport_size({"width": 320, "height": 568})
    status, made = host.api("POST", "/api/boards", {"mode": "expert", "players": ["blue", "red", "white"],
                                                   "removed_districts": ["north"]})
    assert status == 201
    gid = made["id"]
    spots = sorted(BOARD.in_play(frozenset({"north"})))
    for i, nb in enumerate(spots[:13]):   # blue: 5 small, 4 medium, 4 tall
        height = "small" if i < 5 else "medium" if i < 9 else "tall"
        assert host.api("POST", f"/api/games/{gid}/board/buildings",
                        {"neighborhood": nb, "color": "blue", "height": height})[0] == 200
    for c, t in (("blue", [3, 0, 0]), ("white", [0, 2, 0]), ("red", [0, 1, 0])):
        assert host.api("POST", f"/api/games/{gid}/board/tokens/{c}", {"tokens": t})[0] == 200
    host.goto(f"/score/{gid}")
    host.page.wait_for_selector("#entry:not([hidden])")
    view = host.view(gid)
    host.wait_seq(view["seq"])

    def refused(sentence):
        host.page.wait_for_function("t => document.getElementById('msg').textContent === t", arg=sentence)
        assert host.view(gid) == view, "a refused entry changed the board"
        assert built_on(host) == 13

    # A 14th blue building; a 6th small one (blue has all 13, so any height is one too many).
    host.press("[data-pen=blue]")
    host.tap(spots[13])
    refused("Blue has only 13 buildings, not 14.")
    # A building in a district out of play.
    host.press("[data-pen=red]")
    host.tap(BOARD.districts["north"][0])
    refused(f"No building can stand on {BOARD.districts['north'][0]}: the north district is not in play.")
    # More tokens of a kind than the setup lays (3 players: 8 trendy).
    host.press("[data-pen=red]")
    for n in range(1, 6):
        host.press("[data-tokens=trendy] [data-step='1']")
        host.page.wait_for_function("n => document.querySelector('[data-tokens=trendy] .tokn').textContent === n",
                                    arg=str(n))
    view = host.view(gid)
    host.press("[data-tokens=trendy] [data-step='1']")
    refused("3 players use 8 trendy neighborhood tokens, not 9.")
    # A subway card with fewer subway tokens than another; a special card without its tokens.
    host.press("[data-holder=subway] [data-who=red]")
    refused("Red cannot hold the subway card: White has more subway tokens (2 to 1), and it goes to the player with the most.")   # a seat, capitalised (issue 37)
    host.press("[data-holder=archaeological] [data-who=white]")
    refused("White cannot hold the archaeological site card without a single archaeological site token.")
    shots_at(host, "score-refused", PHONES, at="#holders")
    # Red took a token with no building to take it with: the tally says so (the last refusal closed by a tap first).
    host.press("#msg")
    host.press("#tally")
    refused("Red has 6 tokens but only 0 buildings where a token can lie (not a blind alley).")


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_the_page_speaks_the_phones_language_and_so_do_its_refusals(server, devices, lang):
    from companion.game.errors import RuleError
    from companion.lang import i18n

    host = devices(server, lang=lang)
    host.page.set_viewport_size({"width": 390, "height": 844})
    status, made = host.api("POST", "/api/boards", {"mode": "expert", "players": ["blue", "red"],
                                                   "removed_districts": ["north", "east"]})
    gid = made["id"]
    host.goto(f"/g/{gid}")   # the table screen's join QR leads here: a board being scored has its own page
    host.page.wait_for_url(f"**/score/{gid}")
    host.page.wait_for_selector("#entry:not([hidden])")
    text = host.page.inner_text("body")
    for key in ("score_pen", "score_height", "height_small", "score_tokens", "score_secret", "score_tally"):
        assert i18n.t(lang, key) in text and i18n.t(lang, key) != i18n.t("en", key)
    assert "score_" not in text and "height_" not in text
    out = BOARD.districts["north"][0]
    host.tap(out)
    sentence = i18n.error_sentence(lang, RuleError("board_district_removed", neighborhood=out, district="north"))
    host.page.wait_for_function("t => document.getElementById('msg').textContent === t", arg=sentence)
    shots_at(host, f"score-refused-{lang}", [(390, 844)])


def test_a_family_board_asks_no_heights_and_tallies_as_the_engine(server, devices):
    final = finished_game(seed=21, mode="family", colors=("red", "white", "gray"), removed=("west",))
    host = devices(server, name="host")
    host.page.set_viewport_size({"width": 320, "height": 568})
    status, made = host.api("POST", "/api/boards", {"mode": "family", "players": list(final.setup.colors),
                                                   "removed_districts": ["west"]})
    gid = made["id"]
    built = sorted(final.built.items())
    for nb, b in built[:-1]:   # all but the last building through the API; the last one tapped on the page
        assert host.api("POST", f"/api/games/{gid}/board/buildings", {"neighborhood": nb, "color": b.player})[0] == 200
    for i, seat in enumerate(final.setup.seats):
        assert host.api("POST", f"/api/games/{gid}/board/tokens/{seat.color}",
                        {"tokens": list(final.collected[i])})[0] == 200
        assert host.api("POST", f"/api/games/{gid}/board/secret/{seat.color}", {"area": seat.area})[0] == 200
        assert host.api("POST", f"/api/games/{gid}/board/names/{seat.color}", {"name": NAMES[seat.color]})[0] == 200
    for card, holder in (("subway", final.subway_card), ("archaeological", final.archaeological_card)):
        color = None if holder is None else final.setup.colors[holder]
        assert host.api("POST", f"/api/games/{gid}/board/holders/{card}", {"color": color})[0] == 200
    host.goto(f"/score/{gid}")
    host.page.wait_for_selector("#entry:not([hidden])")
    assert not host.visible("#heights") and not host.visible("#secret [data-neighborhood]")
    nb, b = built[-1]
    host.press(f"[data-pen={b.player}]")
    seq = host.view(gid)["seq"]
    host.tap(nb)
    host.wait_seq(seq + 1)
    assert built_on(host) == len(final.built)
    # Family buildings carry no number and no height on the map: the colour alone.
    assert host.page.eval_on_selector_all("#map .piece.built .pv", "els => els.map(e => e.textContent)") == [""] * len(built)
    host.press("#tally")
    host.wait_phase("finished")
    players = [{"color": c, "name": NAMES[c]} for c in final.setup.colors]
    shown = expected_tally("en", "family", players, explain(final, BOARD)["scores"])
    got = tally_on_screen(host)
    assert got["head"] == shown["head"] and got["body"] == shown["body"]
