"""Stored data never runs as script: hostile layouts, names and token maps on every page, in real Chromium.

Each payload, if it ever became markup, would open a dialog and set `window.pwned`; the strict
Content-Security-Policy would also report it. Every page must show the payloads as plain text."""
from __future__ import annotations

import base64
import hashlib
import json
import re
import random
import sqlite3
import time

import pytest

from companion.store.db import Store
from companion.game.board import load_board
from companion.game.setup import random_layout
from companion.web.slim import slim
from pages_helpers import browser, devices  # noqa: F401
from server_helpers import ROOT, LiveServer, Phone, play
from conftest import FAST

PWN = "window.pwned=(window.pwned||0)+1;alert(1)"
# Too long for the API's names: only a hand-edited (or older) database could hold these.
LONG = ['"><img src=x onerror="' + PWN + '">', "<script>" + PWN + "</script>",
        "</text><foreignObject><img src=x onerror='" + PWN + "'/></foreignObject>"]
# Names the API takes (24 characters, printable): still markup if a page ever built HTML from them.
SHORT = ["<svg onload=alert(1)>", "<img src onerror=pwn()>", '"><b>bold</b>']
TOKENS_EVIL = {"C01": '"/><image href=x onerror="' + PWN + '"/>', "<img src=x onerror=alert(1)>": "trendy",
               "N03": "trendy\" onload=\"" + PWN}


def _plant(db, evil_game: str) -> None:
    """A database written by someone else: an unchecked layout, and a lobby game whose log holds hostile tokens and names."""
    store = Store(str(db))
    store.conn  # creates the schema
    store.close()
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("INSERT INTO layouts (name, tokens, saved_at) VALUES (?, ?, ?)",
                     ("Welcome", json.dumps(TOKENS_EVIL), time.time()))
        conn.execute("INSERT INTO layouts (name, tokens, saved_at) VALUES (?, ?, ?)",
                     (LONG[0], json.dumps({"c1": "trendy"}), time.time()))
        body = {"mode": "family", "players": ["blue", "red", "white"], "removed_districts": ["west"],
                "tokens": TOKENS_EVIL, "deal": "app", "seed": None}
        rows = [(1, "create", body, "d-host"), (2, "seat", {"color": "red", "name": LONG[0]}, "d-red"),
                (3, "seat", {"color": "white", "name": LONG[1]}, "d-white"),
                (4, "seat", {"color": "blue", "name": LONG[2]}, "d-host")]
        for seq, kind, b, dev in rows:
            conn.execute("INSERT INTO events (game, seq, kind, body, device, at) VALUES (?, ?, ?, ?, ?, ?)",
                         (evil_game, seq, kind, json.dumps(b), dev, time.time()))
    conn.close()


# The page policy, written out here rather than imported: weakening it in companion/web/guard.py (an
# 'unsafe-inline', a missing frame-ancestors, a wider source, a hash of any other script) must fail these tests.
# The one inline script admitted: the phone's socket opener, static/socket.js as written into the phone's head
# (without its comments: companion/web/slim.py).
SOCKET_JS = slim((ROOT / "static" / "socket.js").read_text(encoding="utf-8"))
SOCKET_HASH = "'sha256-" + base64.b64encode(hashlib.sha256(SOCKET_JS.encode()).digest()).decode() + "'"
POLICY = {"default-src": ["'self'"], "script-src": ["'self'", SOCKET_HASH], "object-src": ["'none'"],
          "frame-ancestors": ["'none'"], "base-uri": ["'none'"]}


def policy(header) -> dict:
    """A Content-Security-Policy header as {directive: [sources]}; a directive given twice fails the test."""
    assert header, "no Content-Security-Policy"
    out: dict = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            assert words[0].lower() not in out, header
            out[words[0].lower()] = words[1:]
    return out


class Watch:
    """Everything a page does that it must not: dialogs, uncaught errors, policy violations."""

    def __init__(self, device):
        self.device = device
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.console: list[str] = []
        page = device.page
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.console.append(m.text) if m.type in ("error", "warning") else None)

    def goto(self, path: str):
        response = self.device.page.goto(self.device.server.origin + path)
        headers = response.headers
        assert policy(headers.get("content-security-policy")) == POLICY, (path, headers)
        assert headers.get("x-content-type-options") == "nosniff"
        assert headers.get("referrer-policy") == "same-origin"
        return response

    def clean(self) -> None:
        page = self.device.page
        page.wait_for_timeout(300)   # an onerror or onload would have fired by now
        assert self.dialogs == []
        assert self.errors == []
        assert [m for m in self.console if "Content Security Policy" in m or "Refused" in m] == []
        assert page.evaluate("window.pwned") is None
        # Nothing the payloads carry ever became an element (the phone's socket opener, the exact text the policy
        # admits by its hash, is the page's own).
        assert page.evaluate("opener => [...document.querySelectorAll('img:not([src^=\"/qr/\"]), foreignObject, image, "
                             "script:not([src]):not([type=\"application/json\"]), [onerror], [onload]')]"
                             ".filter(e => !(e.matches('head > script[data-game]') && e.text === opener)).length",
                             SOCKET_JS) == 0


@pytest.fixture
def hostile(tmp_path):
    db = tmp_path / "companion.sqlite3"
    _plant(db, "evilgame")
    server = LiveServer(db, env=FAST)
    server.start()
    yield server
    server.kill()


def test_hostile_layouts_names_and_tokens_stay_text_on_every_page(hostile, devices):
    server = hostile
    # -- the host page: the planted layout is refused on load, the map paints hostile data as text --
    host = devices(server, name="host")
    w = Watch(host)
    w.goto("/")
    host.page.check("input[name=layout][value=hand]")
    assert host.page.eval_on_selector_all("#saved option", "os => os.map(o => o.textContent)") == \
        sorted(["Welcome", LONG[0]])
    host.page.select_option("#saved", label="Welcome")
    host.press("#load")
    host.page.wait_for_function("() => document.getElementById('msg').textContent.length > 0")
    assert "neighborhood" in host.text("#msg").lower()      # the rule's own sentence: unknown neighborhood
    host.page.select_option("#saved", label=LONG[0])
    host.press("#load")                                     # a legal (if odd) layout: loads, name stays text
    w.clean()
    # Whatever reaches the painter (a view from anywhere) lands in attributes and text only.
    host.page.evaluate("""([toks, name]) => new M.Map(document.getElementById('map')).paint({
        tokens: toks, removed_districts: [name],
        call: [{neighborhood: "C02", color: 'blue"onload="' + name, value: name}],
        built: {C03: {color: 'red"/><img/src/onerror=alert(1)>', value: name}}})""", [TOKENS_EVIL, LONG[0]])
    assert LONG[0] in host.page.text_content("#map .slot[data-nb=C02]")
    w.clean()
    # Saving: a hostile token map is refused with the rule's sentence; a hostile name is only a name.
    status, data = host.api("POST", "/api/layouts", {"name": "Evil", "tokens": TOKENS_EVIL})
    assert status == 422 and "code" in data
    legal = random_layout(4, frozenset(), random.Random(1))
    status, data = host.api("POST", "/api/layouts", {"name": SHORT[0], "tokens": legal})
    assert status == 201, data
    w.goto("/")
    host.page.check("input[name=layout][value=hand]")
    host.page.wait_for_function("n => [...document.querySelectorAll('#saved option')].some(o => o.textContent === n)",
                                arg=SHORT[0])
    host.page.select_option("#saved", label=SHORT[0])
    host.press("#load")
    # Every token of the loaded layout is painted, but for districts the form has out of play
    # (the form remembers the last game's table size).
    host.page.wait_for_function("""n => {
        const out = [...document.querySelectorAll('#removed input:checked')].map(i => i.value);
        const want = Object.keys(n).filter(nb => !out.includes(n[nb])).length;
        return document.querySelectorAll('#map [data-token-of]').length === want; }""",
        arg={nb: load_board().neighborhoods[nb].district for nb in legal})
    w.clean()

    # -- a phone and the table display on the planted lobby game: hostile tokens and names --
    phone = devices(server, name="phone")
    pw = Watch(phone)
    pw.goto("/g/evilgame")
    phone.page.wait_for_function("n => document.getElementById('lobby-seats').textContent.includes(n)", arg=LONG[0])
    for name in LONG:
        assert name in phone.text("#lobby-seats")
    pw.clean()
    table = devices(server, table=True, name="table")
    tw = Watch(table)
    tw.goto("/table")
    table.page.wait_for_function("n => document.getElementById('players').textContent.includes(n)", arg=LONG[1])
    tw.clean()

    # -- a whole game with hostile (but legal) names, to its end: phones and the table show the tally --
    # The table display follows the game its host chose, and the planted lobby has seated players:
    # the Pi's own screen (which may act as host) sets up the game that takes the table.
    origin = f"http://localhost:{server.port}"
    table.page.goto(origin + "/table")

    def as_pi(path, body):
        r = table.ctx.request.post(origin + path, headers={"Origin": origin, "Content-Type": "application/json"},
                                   data=json.dumps(body), fail_on_status_code=False)
        return r.status, r.json()

    seats = {c: Phone(server, name=c) for c in ("blue", "red", "white")}
    status, data = as_pi("/api/games", {"mode": "family", "players": list(seats), "removed_districts": ["west"]})
    assert status == 201 and data["shown"], data
    gid = data["id"]
    for (color, p), name in zip(seats.items(), SHORT):
        assert p.post(f"/api/games/{gid}/seats/{color}", {"name": name}).status == 200
    assert as_pi(f"/api/games/{gid}/start", {})[0] == 200
    play(gid, seats, random.Random(7), pass_rate=0.8)
    assert seats["blue"].view(gid)["phase"] == "finished"
    table.page.goto(origin + "/table")
    table.page.wait_for_function("() => !document.getElementById('end').hidden")
    for name in SHORT:
        assert name in table.text("#end")
    tw.clean()
    hw = Watch(host)                                        # the history page lists the finished game
    hw.goto("/history")
    host.page.wait_for_function("n => document.body.textContent.includes(n)", arg=SHORT[1])
    hw.clean()
    for c in ("blue", "red"):
        p = seats[c]
        d = devices(server, name=f"end-{c}")
        d.ctx.add_cookies([{"name": ck.name, "value": ck.value, "url": server.origin} for ck in p.jar])
        dw = Watch(d)
        dw.goto(f"/g/{gid}")
        d.page.wait_for_function("() => !document.getElementById('end').hidden")
        for name in SHORT:
            assert name in d.text("#end")
        dw.clean()


def test_every_answer_carries_the_page_policy(hostile):
    p = Phone(hostile)
    for path in ("/", "/table", "/g/evilgame", "/history", "/api/history", "/static/app.js", "/static/app.css", "/api/games/current",
                 "/api/layouts", "/api/board", "/nowhere", "/api/nowhere", "/qr/join/evilgame.svg"):
        r = p.get(path)
        assert policy(r.headers.get("Content-Security-Policy")) == POLICY, (path, r.status)
        assert r.headers.get("X-Content-Type-Options") == "nosniff", path
        assert r.headers.get("Referrer-Policy") == "same-origin", path
    # The pages hold no inline script or handler but the socket opener in the phone's head, byte for byte the text
    # whose hash the policy names: the policy would block any other.
    for path in ("/", "/table", "/g/evilgame", "/history"):
        html = p.get(path).body.decode()
        markup = re.sub(r"<script[^>]*>.*?</script>", "", html, flags=re.S)
        assert not re.search(r"<[^>]*\son[a-z]+\s*=", markup), path
        inline = []
        for tag in html.split("<script")[1:]:
            head, rest = tag.split(">", 1)
            if "src=" not in head and 'type="application/json"' not in head:
                inline.append(rest.split("</script>", 1)[0])
        assert inline == ([SOCKET_JS] if path.startswith("/g/") else []), (path, inline)
        assert "style=" not in html, path
