"""Page weight and time to interactive in headless Chromium, the server pinned to one core. Prints figures.

Run: .venv/bin/python benchmarks/bench_pages.py [rounds]

Bytes: every HTTP exchange of a first load in a fresh browser context (empty cache, its own cookies), counted
from Playwright's Request.sizes(): request headers + body, response headers + body (as sent, i.e. encoded),
plus the WebSocket frames received until the page is interactive.
Time to interactive (TTI): from navigation start (performance.timeOrigin) to the end of the task that handled
the first WebSocket message, i.e. the page's JS has rendered the first live view and taps do something.
The host page has no socket: its TTI is the load event's end (its scripts have run and drawn the form).
"""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_helpers import LiveServer  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
PHONE_TARGET = 150 * 1024

FIRST_LIVE = """(() => {
  const Real = window.WebSocket;
  window.__firstLive = null;
  window.WebSocket = function (url, protocols) {
    const ws = protocols === undefined ? new Real(url) : new Real(url, protocols);
    ws.addEventListener('message', () => {
      if (window.__firstLive === null) setTimeout(() => { if (window.__firstLive === null) window.__firstLive = performance.now(); }, 0);
    });
    return ws;
  };
  window.WebSocket.prototype = Real.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();"""


def load(browser, origin: str, path: str, setup=None, live=True, table=False) -> dict:
    """One first load in a fresh context; returns bytes by resource and the timings."""
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080} if table else {"width": 412, "height": 915})
    if setup:
        setup(ctx)
    page = ctx.new_page()
    page.add_init_script(FIRST_LIVE)
    items, frames = [], []

    def done(req):
        s = req.sizes()
        items.append((req.url.replace(origin, ""), s["requestHeadersSize"] + s["requestBodySize"],
                      s["responseHeadersSize"] + s["responseBodySize"]))

    page.on("requestfinished", done)
    page.on("websocket", lambda ws: ws.on("framereceived",
                                          lambda p: frames.append(len(p if isinstance(p, bytes) else p.encode()))))
    page.goto(origin + path, wait_until="load")
    if live:
        page.wait_for_function("() => window.__firstLive !== null", timeout=20000)
    page.wait_for_load_state("networkidle")
    t = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
        return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, live: window.__firstLive}; }""")
    ctx.close()
    sent = sum(i[1] for i in items)
    received = sum(i[2] for i in items) + (frames[0] if frames else 0)
    return {"items": items, "ws_first": frames[0] if frames else 0, "sent": sent, "received": received,
            "total": sent + received, "dcl": t["dcl"], "load": t["load"],
            "tti": t["live"] if live else t["load"]}


def api(ctx, origin, path, body=None):
    r = ctx.request.post(origin + path, data=json.dumps(body or {}),
                         headers={"Origin": origin, "Content-Type": "application/json"})
    assert r.ok, r.text()
    return r.json()


def main(rounds: int = 5) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp) / "bench.sqlite3", env={"COMPANION_RATE_LIMIT": "1000"},
                            cmd_prefix=("taskset", "-c", "0"))
        server.start()
        o = server.origin
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                host = browser.new_context()
                lobby_gid = api(host, o, "/api/games", {"mode": "expert", "players": ["blue", "red", "white"],
                                                        "removed_districts": ["west"], "seed": 1})["id"]
                play_gid = api(host, o, "/api/games", {"mode": "expert", "players": ["blue", "red", "white"],
                                                       "removed_districts": ["west"], "seed": 2})["id"]
                seated = {}
                for c in ("blue", "red", "white"):
                    ctx = host if c == "blue" else browser.new_context()
                    api(ctx, o, f"/api/games/{play_gid}/seats/{c}", {"name": c})
                    seated[c] = ctx
                api(host, o, f"/api/games/{play_gid}/start")
                red_cookies = seated["red"].cookies()

                pages = [
                    ("host setup  /", "/", None, False, False),
                    ("phone lobby /g/<id> (not seated)", f"/g/{lobby_gid}", None, True, False),
                    ("phone playing /g/<id> (seated)", f"/g/{play_gid}", lambda c: c.add_cookies(red_cookies), True, False),
                    ("table /table (1920x1080)", "/table", None, True, True),
                ]
                print(f"Server: companion serve pinned with taskset -c 0; Chromium {browser.version} headless; "
                      f"{rounds} fresh-context loads per page, median (min-max).")
                results = {}
                for name, path, setup, live, table in pages:
                    runs = [load(browser, o, path, setup, live, table) for _ in range(rounds)]
                    results[name] = runs
                    tti = [r["tti"] for r in runs]
                    dcl = [r["dcl"] for r in runs]
                    r0 = runs[-1]
                    print(f"\n{name}")
                    print(f"  bytes: {r0['total']:,} total = {r0['received']:,} received + {r0['sent']:,} sent "
                          f"({r0['total'] / 1024:.1f} KiB)")
                    for url, up, down in sorted(r0["items"], key=lambda i: -i[2]):
                        print(f"    {down:>8,} B  {url}")
                    if r0["ws_first"]:
                        print(f"    {r0['ws_first']:>8,} B  first WebSocket view")
                    print(f"  DOMContentLoaded: {statistics.median(dcl):.0f} ms ({min(dcl):.0f}-{max(dcl):.0f})")
                    what = "first live view rendered" if live else "load event end"
                    print(f"  TTI ({what}): {statistics.median(tti):.0f} ms ({min(tti):.0f}-{max(tti):.0f})")
                phone = max(r["total"] for k, v in results.items() if k.startswith("phone") for r in v)
                verdict = "under" if phone < PHONE_TARGET else "OVER"
                print(f"\nPhone page first load: {phone:,} B, {verdict} the {PHONE_TARGET // 1024} KiB target.")
                browser.close()
        finally:
            server.kill()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
