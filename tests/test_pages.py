"""The phone and table pages in real Chromium: reload, illegal taps, races, languages, dropped sockets."""
from __future__ import annotations

import json
import urllib.request

import pytest

from pages_helpers import browser, card_strings, dealt_cards, devices  # noqa: F401

FAMILY_2P = {"mode": "family", "removed_districts": ["north", "east"]}


def new_game(server, phones: dict, host: str, options=FAMILY_2P, seed: int = 7) -> str:
    """Created, seated and started through the API with each browser's own cookies; then each phone opens it."""
    colors = list(phones)
    status, data = phones[host].api("POST", "/api/games", dict(options, players=colors, seed=seed))
    assert status == 201, data
    gid = data["id"]
    for c, d in phones.items():
        status, data = d.api("POST", f"/api/games/{gid}/seats/{c}", {"name": d.name or c.title()})
        assert status == 200, data
    status, data = phones[host].api("POST", f"/api/games/{gid}/start")
    assert status == 200, data
    for d in phones.values():
        d.goto(f"/g/{gid}")
        d.wait_seq(data["seq"])
    return gid


def bid(device, nb: str, value: int) -> None:
    seq = device.state()["seq"]
    device.tap(nb)
    device.press(f'#values button:text-is("{value}")')
    device.press("#confirm")
    device.wait_seq(seq + 1)


def sync(gid: str, *phones) -> int:
    seq = phones[0].view(gid)["seq"]
    for d in phones:
        d.wait_seq(seq)
    return seq


def legal_of(device, gid):
    return device.view(gid)["legal"]


# -- a reload --

def test_reload_mid_call_restores_the_same_view(server, devices):
    phones = {"blue": devices(server, name="Ann"), "red": devices(server, name="Bert")}
    gid = new_game(server, phones, "blue")
    blue, red = phones["blue"], phones["red"]
    first = sorted(legal_of(blue, gid)["neighborhoods"])[0]
    bid(blue, first, 2)
    sync(gid, blue, red)
    outbid = sorted(legal_of(red, gid)["neighborhoods"])[0]
    bid(red, outbid, 5)
    sync(gid, blue, red)
    # Mid-call: two bids on the map, blue to act with highlighted outbids.
    before = {who: (d.state(), d.bids(), d.highlights(), d.text("#status"), d.text("#call")) for who, d in phones.items()}
    assert before["blue"][1] == {first: "B2", outbid: "R5"} and before["blue"][2]
    assert before["blue"][0]["turn"] and not before["red"][0]["turn"]
    blue.tap(before["blue"][2][0])          # a half-made choice is not part of the view
    for d in phones.values():
        d.page.reload()
        d.wait_seq(before["blue"][0]["seq"])
    after = {who: (d.state(), d.bids(), d.highlights(), d.text("#status"), d.text("#call")) for who, d in phones.items()}
    assert after == before
    assert blue.values() == [] and not blue.visible("#confirm")


# -- illegal taps --

def test_illegal_taps_select_nothing_and_only_legal_values_are_offered(server, devices):
    phones = {"blue": devices(server), "red": devices(server)}
    gid = new_game(server, phones, "blue", seed=8)
    blue, red = phones["blue"], phones["red"]
    posts = []
    for d in phones.values():
        d.page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    seq = sync(gid, blue, red)

    def nothing_picked(d):
        return d.page.evaluate("() => !document.querySelector('#map .nb.picked')") and d.values() == [] \
            and not d.visible("#confirm")

    # North is out of play in a 2-player game: its neighborhoods are never highlighted nor selectable.
    assert "N01" not in blue.highlights()
    blue.tap("N01")
    assert nothing_picked(blue)
    # Red is not to act: a tap on a neighborhood blue could take does nothing on red's phone.
    legal = legal_of(blue, gid)["neighborhoods"]
    red.tap(sorted(legal)[0])
    assert nothing_picked(red) and not red.visible("#turn")
    # "A start player cannot pass": no Pass button when opening a call.
    assert not blue.visible("#pass")
    bid(blue, "C05" if "C05" in legal else sorted(legal)[0], 6)
    sync(gid, blue, red)
    opened = next(iter(blue.bids()))
    legal = legal_of(red, gid)["neighborhoods"]
    # Red may only outbid next to the last bid, with a higher building.
    for nb in ("S10", opened):
        assert nb not in legal and nb not in red.highlights()
        red.tap(nb)
        assert nothing_picked(red)
    nb = sorted(legal)[0]
    red.tap(nb)
    red.page.wait_for_selector("#values button")
    assert red.values() == legal[nb] and min(red.values()) == 7
    # Only blue's bid was ever sent (over its live socket; Device.sent has every frame a page sent).
    sent = [json.loads(f)["act"] for d in phones.values() for f in d.sent]
    assert posts == [] and len(sent) == 1 and sent[0]["value"] == 6, (posts, sent)
    assert red.view(gid)["seq"] == seq + 1


def test_a_bid_that_lost_a_race_is_refused_with_a_sentence_and_changes_nothing(server, devices):
    """Two tabs of one player: the other tab's pass lands first, so this tab's bid is stale."""
    phones = {"blue": devices(server), "red": devices(server)}
    gid = new_game(server, phones, "blue", seed=9)
    blue, red = phones["blue"], phones["red"]
    bid(blue, sorted(legal_of(blue, gid)["neighborhoods"])[0], 1)
    seq = sync(gid, blue, red)
    nb = sorted(legal_of(red, gid)["neighborhoods"])[0]
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in red.ctx.cookies())

    def other_tab_first(route):
        req = urllib.request.Request(f"{server.origin}/api/games/{gid}/actions", method="POST",
                                     data=json.dumps({"pass": True}).encode(),
                                     headers={"Content-Type": "application/json", "Origin": server.origin,
                                              "Cookie": cookie})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 200
        route.continue_()

    red.page.route("**/actions", other_tab_first)   # the bid posted (a phone whose socket is not open) ...
    # ... or sent on the live socket: the other tab's pass is made, and answered, just before it leaves.
    red.page.evaluate("""url => { const send = WebSocket.prototype.send; WebSocket.prototype.send = function (data) {
        if (String(data).includes('"act"') && !window.raced) {
          window.raced = true;
          const x = new XMLHttpRequest();
          x.open("POST", url, false);
          x.setRequestHeader("Content-Type", "application/json");
          x.send('{"pass": true}');
        }
        return send.call(this, data); }; }""", f"/api/games/{gid}/actions")
    red.tap(nb)
    red.press(f'#values button:text-is("{red.values()[0]}")')
    red.press("#confirm")
    red.page.wait_for_function("() => document.getElementById('msg').textContent.length > 0")
    assert red.text("#msg") == "The game moved on; here is the current view."
    red.wait_seq(seq + 1)
    view = red.view(gid)
    assert view["seq"] == seq + 1 and view["actions"] == 2
    assert all(b["color"] != "red" for b in view["call"]) and red.bids().get(nb) is None
    assert not red.visible("#turn")


# -- languages --

@pytest.mark.parametrize("lang,words,turn", [
    ("de", ["U-Bahn", "Schickes Stadtviertel", "Experten-Spiel"], "Du bist am Zug"),
    ("fr", ["Métropolitain", "Quartier branché", "Expert"], "À vous de jouer"),
])
def test_german_and_french_pages_use_the_rulebooks_terms(server, devices, lang, words, turn):
    host = devices(server, lang="de-DE" if lang == "de" else None)
    host.goto("/")
    if lang == "fr":   # the language buttons at the foot of every page
        host.press('footer [data-lang="fr"]')
        host.page.wait_for_function("() => document.documentElement.lang === 'fr'")
    assert host.page.get_attribute("html", "lang") == lang
    page_text = host.page.content()
    for w in words:
        assert w.lower() in page_text.lower(), w
    host.shot(f"host-setup-{lang}", full_page=False)
    other = devices(server, lang="de-DE" if lang == "de" else "fr-FR")
    gid = new_game(server, {"blue": host, "red": other}, "blue", {"mode": "expert", "removed_districts": ["north", "east"]})
    for d in (host, other):
        assert d.page.get_attribute("html", "lang") == lang
        d.page.click(".legend summary")
        legend = d.text(".legend")
        for w in words[:2]:
            assert w.lower() in legend.lower(), (w, legend)
    assert host.text("#status").strip().endswith(turn)
    assert not other.text("#status").strip().endswith(turn)
    host.shot(f"phone-your-turn-{lang}")
    other.press("#show-cards")
    other.page.wait_for_selector("#cards-overlay:not([hidden])")
    area, hood = dealt_cards(server, gid)["red"]
    for s in card_strings(lang, "expert", area, hood):
        assert s in other.text("#cards-body"), s
    other.shot(f"phone-secret-cards-{lang}")


# -- dropped sockets --

WATCH_JS = """() => {
  window.__seen = [];
  const a = document.getElementById('app'), t = document.getElementById('turn');
  const note = () => window.__seen.push([+a.dataset.seq, a.dataset.live === '1', !t.hidden && !t.classList.contains('stale')
      && !document.getElementById('pass').disabled, Date.now()]);
  new MutationObserver(note).observe(document.body, {attributes: true, childList: true, subtree: true});
  note();
}"""


def turn_looks_dead(d) -> bool:
    """The turn panel may stay in sight, but greyed out with its buttons off, and the map not choosing."""
    return d.page.evaluate("""() => { const t = document.getElementById('turn');
        return document.getElementById('app').dataset.live === '0' && (t.hidden || t.classList.contains('stale'))
          && document.getElementById('pass').disabled && !document.querySelector('#map.choosing'); }""")


def stale_and_live(seen, old_seq):
    return [s for s in seen if s[0] <= old_seq and s[1] and s[2]]


def _blue_to_act_then_red_undoes(server, devices):
    phones = {"blue": devices(server), "red": devices(server)}
    gid = new_game(server, phones, "red", seed=10)     # red's phone is the host: it may undo
    blue, red = phones["blue"], phones["red"]
    bid(blue, sorted(legal_of(blue, gid)["neighborhoods"])[0], 1)
    sync(gid, blue, red)
    bid(red, sorted(legal_of(red, gid)["neighborhoods"])[0], 3)
    seq = sync(gid, blue, red)
    assert blue.state()["turn"] and blue.visible("#pass")
    return gid, blue, red, seq


def test_offline_phone_greys_its_turn_and_comes_back_to_the_current_one(server, devices):
    gid, blue, red, seq = _blue_to_act_then_red_undoes(server, devices)
    blue.page.evaluate(WATCH_JS)
    blue.ctx.set_offline(True)
    blue.page.wait_for_function("() => document.getElementById('app').dataset.live === '0'")
    assert turn_looks_dead(blue)
    dropped = blue.page.evaluate("Date.now()")
    blue.shot("phone-reconnecting")
    # While blue is away, the host takes red's bid back: it is red's turn again.
    red.page.once("dialog", lambda dlg: dlg.accept())
    red.press("#undo")
    red.wait_seq(seq + 1)
    assert red.state()["toAct"] == "red"
    blue.ctx.set_offline(False)
    blue.wait_seq(seq + 1)
    st = blue.state()
    assert st["toAct"] == "red" and not st["turn"] and blue.highlights() == []
    seen = blue.page.evaluate("window.__seen")
    assert seen[0][:3] == [seq, True, True]          # the watch began on a live turn
    assert [s for s in stale_and_live(seen, seq) if s[3] >= dropped] == []


def test_phone_reconnects_after_a_server_restart_and_never_shows_a_stale_turn_as_live(start_server, devices):
    server = start_server()
    gid, blue, red, seq = _blue_to_act_then_red_undoes(server, devices)
    blue.page.evaluate(WATCH_JS)
    port, db = server.port, server.db
    server.kill()
    blue.page.wait_for_function("() => document.getElementById('app').dataset.live === '0'")
    assert turn_looks_dead(blue)
    dropped = blue.page.evaluate("Date.now()")
    # Blue stays cut off until the undo has landed: otherwise, on a busy machine, its reconnect may
    # reach the restarted server first and rightly show the turn that was live at that moment.
    blue.ctx.set_offline(True)
    server = start_server(db=db, port=port)
    status, data = red.api("POST", f"/api/games/{gid}/undo")      # the host's undo lands before blue is back
    assert status == 200 and data["to_act"] == "red", data
    blue.ctx.set_offline(False)
    blue.wait_seq(seq + 1, timeout=20000)
    st = blue.state()
    assert st["toAct"] == "red" and not st["turn"] and blue.highlights() == []
    seen = blue.page.evaluate("window.__seen")
    assert [s for s in stale_and_live(seen, seq) if s[3] >= dropped] == []
    # And the game goes on from the restarted server: red bids from its reconnected page.
    red.wait_seq(seq + 1)
    nb = sorted(legal_of(red, gid)["neighborhoods"])[0]
    bid(red, nb, 4)
    blue.wait_seq(seq + 2)
    assert blue.bids()[nb] == "R4"
