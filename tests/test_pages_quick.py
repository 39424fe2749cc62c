"""Issue 20 item 6, the phone stays quick: its live socket is opened from the page's head (no fetch first) and is
the only one, its scripts come from the head and hold the first paint until they ran, the first view comes over the
socket alone (no second copy by HTTP drawn again), the page still comes up without that early socket or without
WebSockets at all, and a phone that comes back asks for no script or style again."""
from __future__ import annotations

from urllib.parse import urlsplit

from pages_helpers import browser, devices  # noqa: F401
from test_pages_evening import new_game, seat

FAST = {"COMPANION_RATE_LIMIT": "1000"}


def started(start_server, devices):  # noqa: F811
    """Ann (blue, the host) and Bert (red) seated, the game started; Bert's phone has not opened the page yet."""
    server = start_server(env=FAST)
    ann, bert = devices(server, name="Ann"), devices(server, name="Bert")
    gid = new_game(ann, ["blue", "red"])
    seat(ann, gid, "blue", "Ann")
    seat(bert, gid, "red", "Bert")
    status, view = ann.api("POST", f"/api/games/{gid}/start", {})
    assert status == 200, view
    return server, gid, bert, view


def watch(device) -> tuple[list, list]:
    """The sockets the page opens and the paths it asks for, from before it loads."""
    sockets, asked = [], []
    device.page.on("websocket", lambda ws: sockets.append(ws.url))
    device.page.on("request", lambda r: asked.append((r.method, urlsplit(r.url).path)))
    return sockets, asked


def test_the_phone_opens_one_socket_from_its_head_and_takes_its_first_view_from_it(start_server, devices):  # noqa: F811
    server, gid, bert, view = started(start_server, devices)
    sockets, asked = watch(bert)
    bert.goto(f"/g/{gid}")
    bert.wait_seq(view["seq"])
    bert.page.wait_for_timeout(2500)   # past the moment the page would ask by HTTP when no view had come
    # Opened by static/socket.js, written into the head (no fetch before it), then taken over by app.js: one socket.
    assert sockets == [f"{server.ws_base}/api/games/{gid}/live"]
    assert bert.page.eval_on_selector("head script[data-game]", "s => !s.src && s.text.includes('new WebSocket(')")
    assert not [p for m, p in asked if p.endswith("/socket.js")]
    # The page's own scripts come from the head too, all named there (fetched side by side, not one import after
    # another), as modules (deferred), and hold the first paint until they ran.
    named = bert.page.eval_on_selector_all("head script[src]", "ss => ss.map(s => s.type === 'module' && "
                                           "s.blocking.contains('render') && new URL(s.src).pathname)")
    build = named[0].split("/")[3] if named and named[0] else ""
    assert named == [f"/static/js/{build}/{name}" for name in (
        "map.js", "map-fit.js", "app.js", "glance.js", "board-steps.js", "evening.js", "review.js", "phone.js")]
    # The view came once, over the socket: no GET of the same view drawn a second time.
    assert ("GET", f"/api/games/{gid}") not in asked
    assert bert.state()["live"] and bert.state()["turn"] is False   # blue (Ann) acts first: Bert's page says so
    assert bert.text("#status")


def test_without_the_early_socket_the_page_opens_its_own(start_server, devices):  # noqa: F811
    """As on a browser where the head's opener did nothing: its socket cannot be made while the head is parsed."""
    server, gid, bert, view = started(start_server, devices)
    sockets, _ = watch(bert)
    bert.page.add_init_script("""(() => {
      const Real = WebSocket;
      function Refusing(url, protocols) {
        if (document.readyState === 'loading') throw new Error('no socket while the head is parsed');
        return new Real(url, protocols);
      }
      Refusing.prototype = Real.prototype;
      Object.assign(Refusing, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
      window.WebSocket = Refusing;
    })()""")
    bert.goto(f"/g/{gid}")
    bert.wait_seq(view["seq"])
    bert.page.wait_for_timeout(500)
    assert sockets == [f"{server.ws_base}/api/games/{gid}/live"]


def test_a_network_that_lets_no_websocket_through_still_shows_the_game(start_server, devices):  # noqa: F811
    """The view then comes by a plain GET (greyed, "reconnecting"), a moment after the socket failed to bring it."""
    server, gid, bert, view = started(start_server, devices)
    _, asked = watch(bert)
    bert.page.route_web_socket("**/live*", lambda ws: ws.close())
    bert.goto(f"/g/{gid}")
    bert.page.wait_for_function("n => +(document.getElementById('app').dataset.seq ?? -1) === n", arg=view["seq"],
                                timeout=10000)
    state = bert.state()
    assert state["phase"] == "playing" and state["toAct"] == "blue" and not state["live"]
    assert ("GET", f"/api/games/{gid}") in asked


def test_a_phone_that_comes_back_loads_no_script_or_style_again(start_server, devices):  # noqa: F811
    """A reload, Back, or a rematch's new page: only the page and the socket travel (each file kept under its hash)."""
    server, gid, bert, view = started(start_server, devices)
    bert.goto(f"/g/{gid}")
    bert.wait_seq(view["seq"])
    cdp = bert.ctx.new_cdp_session(bert.page)
    cdp.send("Network.enable")
    asked, cached, travelled = {}, set(), set()
    cdp.on("Network.requestWillBeSent", lambda e: asked.__setitem__(e["requestId"], urlsplit(e["request"]["url"]).path))
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    cdp.on("Network.responseReceived", lambda e: None if e["response"].get("fromDiskCache") else travelled.add(e["requestId"]))
    bert.goto(f"/g/{gid}")
    bert.wait_seq(view["seq"])
    statics = {i: p for i, p in asked.items() if p.startswith("/static/") and p.endswith((".js", ".css"))}
    assert len(set(statics.values())) >= 7, asked   # app.css, map.css, map, app, glance, phone, evening
    assert [p for i, p in statics.items() if i in travelled and i not in cached] == []
    assert f"/g/{gid}" in asked.values()
