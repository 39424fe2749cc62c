"""Issue 10 item 5 in real Chromium at phone sizes: after a tap on a legal neighborhood the values and Confirm
open in a sheet near the thumb, grouped by the rulebook's value classes in Expert games, with no jump of the map
under the finger, and a bid in two taps when only one value is legal.

What the sheet should offer is read back from the server (the view of the player to act), never written here."""
from __future__ import annotations

import json
import re

import pytest

from pages_helpers import SHOTS, browser, devices  # noqa: F401  (the module's browser fixture)

PHONES = [(390, 844), (320, 568)]
# Rulebook, Expert game: "Each player has 5 small buildings (1 to 5), 4 medium buildings (6 to 9) and 4 tall
# buildings (10 to 13)." Those three classes, and no others, are what the sheet marks.
CLASSES = ((1, 5), (6, 9), (10, 13))
TWO_PLAYERS = {"removed_districts": ["north", "east"], "seed": 7}


def klass(value: int) -> tuple[int, int]:
    return next(c for c in CLASSES if c[0] <= value <= c[1])


# The sheet as drawn: its groups (label and buttons) and any buttons outside a group; a button is offered
# when it is neither greyed (.no) nor marked aria-disabled (a too-low value only says why not when tapped).
SHEET_JS = """() => {
  const vals = document.getElementById('values');
  const btn = b => ({v: +b.textContent, offered: !b.classList.contains('no') && b.getAttribute('aria-disabled') !== 'true' && !b.disabled});
  const seen = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  return {
    grouped: vals.classList.contains('grouped'),
    groups: [...vals.querySelectorAll(':scope > .vclass')].map(g => {
      const l = g.querySelector(':scope > .vlabel');
      return {label: l && seen(l) ? l.textContent : '', values: [...g.querySelectorAll('button.val')].map(btn)};
    }),
    loose: [...vals.querySelectorAll(':scope > button.val')].map(btn),
    others: [...vals.children].filter(e => !e.matches('.vclass, button.val')).map(e => e.outerHTML.slice(0, 80)),
    all: [...vals.querySelectorAll('button.val')].map(btn),
  };
}"""

# Where the neighborhood's shape is on the screen, and whether its label point is really it (not covered).
SHAPE_JS = """nb => {
  const svg = document.getElementById('map'), g = svg.querySelector('.nb[data-nb="' + nb + '"]');
  const r = g.getBoundingClientRect();
  const pt = svg.createSVGPoint(); pt.x = +g.dataset.x; pt.y = +g.dataset.y;
  const p = pt.matrixTransform(svg.getScreenCTM());
  const hit = document.elementFromPoint(p.x, p.y);
  const named = hit && hit.closest('[data-nb]');   // the shape, or its touch target on a turn (static/map-fit.js)
  return {box: [r.left, r.top, r.width, r.height], x: p.x, y: p.y, ours: !!named && named.getAttribute('data-nb') === nb,
          scroll: scrollY};
}"""

# An element's box against the viewport, and whether it is all there (not scrolled away inside the sheet).
BOX_JS = """([sel, text]) => {
  const e = [...document.querySelectorAll(sel)].find(x => text === null || x.textContent === text); if (!e) return null;
  const r = e.getBoundingClientRect(), s = document.getElementById('pick').getBoundingClientRect();
  return {box: [r.left, r.top, r.right, r.bottom], view: [innerWidth, innerHeight],
          inside: r.width > 0 && r.height > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5,
          inSheet: r.top >= s.top - 0.5 && r.bottom <= s.bottom + 0.5}; }"""


class Table:
    """A two-player game created, seated and started through the API with each phone's own cookies."""

    def __init__(self, server, devices, mode, size):
        self.server = server
        self.phones = {"blue": devices(server, name="Ann"), "red": devices(server, name="Bert")}
        for d in self.phones.values():
            d.page.set_viewport_size({"width": size[0], "height": size[1]})
        status, data = self.phones["blue"].api("POST", "/api/games", dict(TWO_PLAYERS, mode=mode,
                                                                           players=list(self.phones)))
        assert status == 201, data
        self.gid = data["id"]
        for c, d in self.phones.items():
            status, data = d.api("POST", f"/api/games/{self.gid}/seats/{c}", {"name": d.name})
            assert status == 200, data
        status, data = self.phones["blue"].api("POST", f"/api/games/{self.gid}/start")
        assert status == 200, data

    def view(self, color: str) -> dict:
        return self.phones[color].view(self.gid)

    def bid(self, color: str, value: int, pass_: bool = False) -> str:
        """`color` bids `value` on the first neighborhood the server calls legal for it (or passes)."""
        v = self.view(color)
        assert v["to_act"] == color, v["to_act"]
        nb = sorted(v["legal"]["neighborhoods"])[0]
        move = {"pass": True} if pass_ else {"bid": nb, "value": value}
        status, data = self.phones[color].api("POST", f"/api/games/{self.gid}/actions", dict(move, expect_seq=v["seq"]))
        assert status == 200, data
        return nb

    def open(self, color: str):
        d = self.phones[color]
        d.goto(f"/g/{self.gid}")
        d.wait_seq(self.view(color)["seq"])
        return d


def outbid_position(table: Table) -> None:
    """Blue has built a 3, opened this call with a 2, and Red outbid it with a 7: Blue to act with values built,
    on the board, too low, and legal ones in more than one class."""
    table.bid("blue", 3)
    table.bid("red", 0, pass_=True)            # two players: the call ends, Blue builds its 3 and opens the next
    table.bid("blue", 2)
    table.bid("red", 7)


POSITIONS = {"first-bid": lambda table: None,  # the fullest sheet: all 13 values legal
             "outbid": outbid_position}


def tap_neighborhood(device, nb: str) -> tuple[dict, dict]:
    """A finger on `nb`'s own spot; the shape's place just before and once the sheet is open."""
    device.page.evaluate("""nb => document.querySelector('#map .nb[data-nb="' + nb + '"]').scrollIntoView({block: 'center'})""", nb)
    before = device.page.evaluate(SHAPE_JS, nb)
    assert before["ours"], f"{nb}'s spot on the map is covered by something else"
    device.page.touchscreen.tap(before["x"], before["y"])
    device.page.wait_for_selector("#pick:not([hidden])")
    return before, device.page.evaluate(SHAPE_JS, nb)


def box(device, sel: str, text=None):
    return device.page.evaluate(BOX_JS, [sel, text])


def tap_at(device, sel: str, text=None) -> None:
    """A finger on the middle of `sel` (the one reading `text`) where it is on the screen (no scrolling first)."""
    b = box(device, sel, text)
    assert b and b["inside"] and b["inSheet"], (sel, b)
    device.page.touchscreen.tap((b["box"][0] + b["box"][2]) / 2, (b["box"][1] + b["box"][3]) / 2)


def same_place(before: dict, after: dict) -> bool:
    return after["scroll"] == before["scroll"] and all(abs(a - b) <= 0.5 for a, b in zip(before["box"], after["box"]))


def what_blue_may_bid(table: Table) -> tuple[str, dict, list[int]]:
    """From the server: the neighborhood Blue will tap, Blue's view, and the values legal there."""
    v = table.view("blue")
    assert v["to_act"] == "blue"
    nb = sorted(v["legal"]["neighborhoods"])[0]
    return nb, v, v["legal"]["neighborhoods"][nb]


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_expert_sheet_groups_the_values_by_the_rulebooks_classes_inside_the_screen(server, devices, size, position):  # noqa: F811
    """Rulebook, Expert game: small 1 to 5, medium 6 to 9, tall 10 to 13; the sheet marks exactly those."""
    table = Table(server, devices, "expert", size)
    POSITIONS[position](table)
    nb, v, legal = what_blue_may_bid(table)
    hand = next(p for p in v["players"] if p["color"] == "blue")["values"]
    built = [b["value"] for b in v["built"].values() if b["color"] == "blue"]
    on_board = [b["value"] for b in v["call"] if b["color"] == "blue"]
    last = v["call"][-1]["value"] if v["call"] else 0
    too_low = [x for x in hand if x <= last]
    # The position is the one this test means: something of each kind to leave out, legal values in two classes.
    if position == "outbid":
        assert built and on_board and too_low and len({klass(x) for x in legal}) >= 2, (built, on_board, too_low, legal)
    else:
        assert len(legal) == 13 and {klass(x) for x in legal} == set(CLASSES), legal

    blue = table.open("blue")
    before, after = tap_neighborhood(blue, nb)
    assert same_place(before, after), f"the map moved under the finger: {before} -> {after}"
    sheet = blue.page.evaluate(SHEET_JS)
    assert sheet["grouped"] and not sheet["loose"] and not sheet["others"], sheet
    shown = [b["v"] for b in sheet["all"]]
    offered = [b["v"] for b in sheet["all"] if b["offered"]]
    assert offered == sorted(legal), (offered, legal)
    assert not set(shown) & set(built + on_board), f"built {built} / on the board {on_board} shown: {shown}"
    assert set(shown) <= set(hand), (shown, hand)
    assert not set(offered) & set(too_low), (offered, too_low)
    # Each group is one rulebook class, named by its bounds, in the rulebook's order, each value inside it.
    classes = []
    for g in sheet["groups"]:
        values = [b["v"] for b in g["values"]]
        assert values, g
        c = klass(values[0])
        assert all(klass(x) == c for x in values), f"{values} are not one class of {CLASSES}"
        assert re.search(rf"(?<!\d){c[0]}\s*[-–]\s*{c[1]}(?!\d)", g["label"]), f"group {values} is labelled {g['label']!r}"
        classes.append(c)
    assert classes == sorted(set(classes)) == sorted({klass(x) for x in shown}), classes
    assert {klass(x) for x in legal} <= set(classes)

    # A value picked: the sheet with every value and Confirm is on the screen; the map still has not moved.
    tap_at(blue, "#values button.val:not(.no)", str(min(legal)))
    blue.page.wait_for_selector("#confirm:not([hidden])")
    for sel, text in [("#pick", None), ("#confirm", None), ("#cancel", None)] + [("#values button.val", str(x)) for x in shown]:
        b = box(blue, sel, text)
        assert b and b["inside"] and b["inSheet"], f"{sel} {text or ''} is not all on the screen at {size}: {b}"
    assert same_place(before, blue.page.evaluate(SHAPE_JS, nb)), "the map moved once a value was picked"
    if SHOTS:   # as the player sees it: the map behind, where the finger left it
        blue.page.screenshot(path=f"{SHOTS}/phone-sheet-expert-{position}-{size[0]}.png")


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_family_sheet_does_not_group_the_values(server, devices, size):  # noqa: F811
    """The Family game has no value classes: one plain row of values, the legal ones offered."""
    table = Table(server, devices, "family", size)
    outbid_position(table)
    nb, v, legal = what_blue_may_bid(table)
    blue = table.open("blue")
    before, after = tap_neighborhood(blue, nb)
    assert same_place(before, after), f"the map moved under the finger: {before} -> {after}"
    sheet = blue.page.evaluate(SHEET_JS)
    assert not sheet["grouped"] and not sheet["groups"] and not sheet["others"], sheet
    assert blue.page.locator("#values .vclass, #values .vlabel").count() == 0
    assert [b["v"] for b in sheet["loose"] if b["offered"]] == sorted(legal), (sheet, legal)


@pytest.mark.parametrize("mode", ["expert", "family"])
@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_one_legal_value_bids_in_two_taps(server, devices, size, mode):  # noqa: F811
    """Neighborhood, then Confirm: with one value legal there is nothing to pick in between."""
    table = Table(server, devices, mode, size)
    table.bid("blue", 1)
    table.bid("red", 12)                      # Blue holds 13 and nothing else above 12
    nb, v, legal = what_blue_may_bid(table)
    assert legal == [13], legal
    blue = table.open("blue")
    posts = []
    blue.page.on("request", lambda r: posts.append((r.url, r.post_data_json)) if r.method != "GET" else None)
    before, after = tap_neighborhood(blue, nb)                         # tap one: the neighborhood
    assert same_place(before, after), f"the map moved under the finger: {before} -> {after}"
    assert blue.page.locator("#confirm").is_visible() and blue.page.locator("#confirm").is_enabled()
    tap_at(blue, "#confirm")                                           # tap two: Confirm
    blue.wait_seq(v["seq"] + 1)
    # One action sent: over the phone's open live socket (web/live_acts.py), or posted when it is not open.
    sent = [("actions", a["act"].get("bid"), a["act"].get("value")) for a in map(json.loads, blue.sent) if "act" in a]
    assert [(u.rsplit("/", 1)[1], b.get("bid"), b.get("value")) for u, b in posts] + sent == [("actions", nb, 13)], \
        (posts, sent)
    # The server holds it: Blue's 13 on `nb` is in its log and in the game (Red cannot outbid a 13: built).
    after_view = table.view("red")
    assert after_view["built"].get(nb) == {"color": "blue", "value": 13}, after_view["built"]
    actions = [json.loads(body) for _, _, kind, body in table.server.events(table.gid) if kind == "action"]
    assert actions[-1] == {"player": "blue", "bid": nb, "value": 13}, actions
