"""The phone page in the three engines phones run (Chromium, WebKit, Gecko): join, the secret cards, a live turn, a
refusal, a bid, a pass, the call-over card, a reload, the tally fitting the screen, German and French, and /history's
filter on one line; no console error and no CSP violation in any of them (tests/engines.py drives each engine)."""
from __future__ import annotations

import random
import time

import pytest

from companion.lang import i18n
from engines import phone as make_phone
from engines import wait_live
from pages_helpers import driver
from server_helpers import Phone, choose, create_game

SITE = """nb => { const svg = document.getElementById('map'), g = svg.querySelector('.nb[data-nb="' + nb + '"]');
  g.scrollIntoView({block: 'center'});
  const pt = svg.createSVGPoint(); pt.x = +g.dataset.x; pt.y = +g.dataset.y;
  const p = pt.matrixTransform(svg.getScreenCTM()); return [p.x, p.y]; }"""
FITS = "() => document.documentElement.scrollWidth <= innerWidth + 1"
SHOWN = "s => { const e = document.querySelector(s); return !!e && !e.hidden && e.getBoundingClientRect().height > 0; }"


@pytest.fixture(scope="module")
def playwright():
    return driver()   # the process's one Playwright driver (a second one in the same thread is refused)


def tap(p, nb: str) -> None:
    x, y = p.js(SITE, nb)
    p.click_at(x, y)


def red_acts(p, host: Phone, gid: str, move: dict) -> dict:
    """Red's move through the page's own buttons: a neighborhood on the map, a value, Confirm; or Pass."""
    before = host.view(gid)["seq"]
    if move.get("pass"):
        p.click("#pass")
    else:
        tap(p, move["bid"])
        p.wait(SHOWN, "#pick")
        p.click("#values .btn.val:not(.no)")   # the lowest value that may be bid
        p.wait(SHOWN, "#confirm")
        p.click("#confirm")
    p.wait("n => +document.getElementById('app').dataset.seq > n", before)
    return host.view(gid)


@pytest.mark.parametrize("engine", ["chromium", "webkit", "gecko"])
def test_a_phone_plays_a_game_in_each_engine(engine, server, playwright):
    t0 = time.monotonic()
    rng = random.Random(5)
    host = Phone(server, name="Ann")
    gid = create_game(host, ["blue", "red"], seed=3)
    assert host.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    p = make_phone(engine, playwright)
    try:
        # Join: pick the free colour, type a name.
        p.open(f"{server.origin}/g/{gid}")
        wait_live(p)
        p.wait(SHOWN, "#join-colors button")
        p.click("#join-colors button")
        p.js("() => { document.getElementById('join-name').value = 'Zoë'; }")
        p.click("#join button[type=submit]")
        p.wait("() => !!(window.__phone.view && window.__phone.view.you && window.__phone.view.you.color === 'red')")
        assert host.post(f"/api/games/{gid}/start").status == 200
        p.wait("() => document.getElementById('app').dataset.phase === 'playing'")
        # The secret cards, this seat's only.
        p.wait(SHOWN, "#show-cards")
        p.click("#show-cards")
        p.wait("() => document.querySelectorAll('#cards-overlay:not([hidden]) .card').length > 0")
        p.click("#hide-cards")
        # A refusal at the tap: a neighborhood of a district out of play (north, in a 2-player game).
        seq = host.view(gid)["seq"]
        tap(p, "N01")
        p.wait(SHOWN, "#tapmsg")
        said = p.js("() => document.getElementById('tapmsg').textContent")
        assert said.startswith("You cannot") and host.view(gid)["seq"] == seq, said     # said, and nothing sent
        did = {"bid": False, "pass": False, "card": False, "turn": False}
        while not all(did.values()):
            view = host.view(gid)
            assert view["phase"] == "playing"
            if view["to_act"] == "blue":
                legal = view["legal"]["neighborhoods"]
                mv = {"pass": True} if not legal else {"bid": max(legal, key=lambda n: len(legal[n]))}
                if not mv.get("pass"):
                    mv["value"] = min(legal[mv["bid"]])
                assert host.post(f"/api/games/{gid}/actions", dict(mv, expect_seq=view["seq"])).status == 200
                continue
            # Red's turn arrives live on the page.
            wait_live(p, view["seq"])
            p.wait(SHOWN, "#turn")
            did["turn"] = True
            mine = p.js("() => window.__phone.view.legal")
            if did["bid"] and mine["pass"]:
                view = red_acts(p, host, gid, {"pass": True})
                did["pass"] = True
            else:
                nb = max(mine["neighborhoods"], key=lambda n: len(mine["neighborhoods"][n]))
                view = red_acts(p, host, gid, {"bid": nb, "value": None})
                assert any(b["color"] == "red" and b["neighborhood"] == nb for b in view["call"] + [view.get("call_over") or {}])
                did["bid"] = True
            if view["call_over"]:
                wait_live(p, view["seq"])
                p.wait(SHOWN, "#callover")
                did["card"] = did["card"] or did["pass"]
        # A reload comes back to the same live view.
        seq = host.view(gid)["seq"]
        p.reload()
        wait_live(p, seq)
        # To the end: red's moves through the page's own post, blue's from the host's client.
        view = host.view(gid)
        while view["phase"] == "playing":
            if view["to_act"] == "blue":
                host.post(f"/api/games/{gid}/actions", dict(choose(view, rng), expect_seq=view["seq"]))
            else:
                wait_live(p, view["seq"])
                mv = choose({"legal": p.js("() => window.__phone.view.legal")}, rng)
                p.js("mv => { window.__phone.post('/actions', Object.assign(mv, {expect_seq: window.__phone.view.seq})); }", mv)
                p.wait("n => +document.getElementById('app').dataset.seq > n", view["seq"])
            view = host.view(gid)
        p.wait(SHOWN, "#end")
        for w, h in ((390, 844), (320, 568)):
            p.size(w, h)
            assert p.js(FITS), (engine, w, p.js("() => document.documentElement.scrollWidth"))
        # German and French, from the page's own language buttons.
        for lang in ("de", "fr"):
            p.click(f'[data-lang="{lang}"]')
            p.wait("l => document.documentElement.lang === l && document.getElementById('app').dataset.live === '1'", lang)
            assert p.js("() => document.getElementById('status').textContent") == i18n.t(lang, "game_over")
            assert p.js(FITS), (engine, lang)
            # /history's filter: the button stays beside its field at 390 px (Gecko wrapped it under in fr/de).
            p.size(390, 844)
            p.open(f"{server.origin}/history")
            p.wait(SHOWN, "#games li.game")
            rows = p.js("""() => [document.getElementById('player'), document.querySelector('#filter button[type=submit]')]
                .map(e => Math.round(e.getBoundingClientRect().top))""")
            assert abs(rows[0] - rows[1]) <= 8, (engine, lang, rows)
            p.open(f"{server.origin}/g/{gid}")
            wait_live(p)
        assert p.problems() == [], (engine, p.problems())
    finally:
        p.close()
    print(f"{engine}: {time.monotonic() - t0:.1f} s")
