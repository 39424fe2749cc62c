"""The phone page's first live view on an old and a mid phone (Chromium throttled over CDP), now and at a commit.

    .venv/bin/python benchmarks/bench_phone_throttled.py [ROUNDS] [REV]

Old phone: CPU 6x slower (Emulation.setCPUThrottlingRate), 1.6 Mbps down, 750 kbps up, 150 ms round trip
(Network.emulateNetworkConditions); mid phone: 4x, 20 Mbps / 5 Mbps, 40 ms. Each load is a fresh context (empty
cache) of a seated player's page in a game being played, the server pinned to one core. First live view: from
navigation start to the end of the task that first drew the page live (the task after the one that set #app's
data-live to 1: the view from the socket is on screen and taps work), whenever the socket's message arrived.
The time is reported with a console message, so nothing is evaluated in the page while it loads.
With REV, the same loads against that commit's pages (served from a git archive), interleaved with this tree's,
so both see the same machine load; the load average is printed with the figures. Target (issue 20): old phone
under 1 s.
"""
from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_pages import ARGS, CHROMIUM, api  # noqa: E402
from server_helpers import LiveServer  # noqa: E402

# The page says it is live by #app's data-live (static/app.js M.mark, at the start of a render). Two ends of the
# first live view: "drawn", the task after that render's (its DOM is built; the measure), and "painted", the
# task after the next frame (styled, laid out and painted: what the player sees). Reported through the console, so
# nothing is evaluated in the page meanwhile.
FIRST_LIVE_VIEW = """(() => {
  let done = false;
  new MutationObserver(() => {
    const app = document.getElementById('app');
    if (done || !app || app.getAttribute('data-live') !== '1') return;
    done = true;
    let drawn = null, painted = null;
    const say = () => { if (drawn !== null && painted !== null) console.debug('first-live-view ' + drawn + ' ' + painted); };
    setTimeout(() => { drawn = performance.now(); say(); }, 0);
    requestAnimationFrame(() => setTimeout(() => { painted = performance.now(); say(); }, 0));
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-live']});
})();"""

PHONES = {
    "old phone (CPU 6x, 1.6 Mbps, 150 ms)": (6, 1.6e6, 0.75e6, 150),
    "mid phone (CPU 4x, 20 Mbps, 40 ms)": (4, 20e6, 5e6, 40),
}


def tree_at(rev: str, into: Path) -> Path:
    """That commit's companion, templates and static, as a tree `python -m companion serve` runs from."""
    data = subprocess.run(["git", "archive", rev, "companion", "templates", "static"], cwd=ROOT,
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    for name in ("templates", "static"):
        if not (into / "companion" / name).exists():
            (into / "companion" / name).symlink_to(into / name)
    return into


class TreeServer(LiveServer):
    """`python -m companion serve` from another tree (PYTHONPATH), pinned to core 0 like this tree's."""

    def __init__(self, db: Path, tree: Path):
        super().__init__(db, env={"COMPANION_RATE_LIMIT": "1000", "PYTHONPATH": str(tree),
                                  "PYTHONDONTWRITEBYTECODE": "1"}, cmd_prefix=("taskset", "-c", "0"))
        self.tree = tree

    def start(self, timeout: float = 15.0) -> float:
        import http.client
        import time
        t0 = time.perf_counter()
        out = open(self.log, "ab")
        self.proc = subprocess.Popen([*self.cmd_prefix, sys.executable, "-m", "companion", "serve", "--host",
                                      "127.0.0.1", "--port", str(self.port), "--db", str(self.db)],
                                     stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True,
                                     cwd=str(self.tree))
        out.close()
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", "/api/games/current")
                c.getresponse().read()
                c.close()
                return time.perf_counter() - t0
            except OSError:
                if self.proc.poll() is not None or time.perf_counter() - t0 > timeout:
                    self.kill()
                    raise RuntimeError(self.log.read_text()[-3000:])
                time.sleep(0.05)


def seated_game(browser, origin: str) -> tuple[str, list]:
    """A 3-player Expert game being played; the cookies of red's phone."""
    host = browser.new_context()
    gid = api(host, origin, "/api/games", {"mode": "expert", "players": ["blue", "red", "white"],
                                           "removed_districts": ["west"], "seed": 2})["id"]
    ctxs = {}
    for c in ("blue", "red", "white"):
        ctx = host if c == "blue" else browser.new_context()
        api(ctx, origin, f"/api/games/{gid}/seats/{c}", {"name": c})
        ctxs[c] = ctx
    api(host, origin, f"/api/games/{gid}/start")
    cookies = ctxs["red"].cookies()
    for ctx in ctxs.values():
        ctx.close()
    return gid, cookies


def first_live(browser, origin: str, gid: str, cookies: list, phone: tuple) -> tuple[float, float]:
    """One fresh load of red's page on that phone: (drawn, painted) in ms from navigation start."""
    cpu, down, up, rtt = phone
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    ctx.add_cookies(cookies)
    page = ctx.new_page()
    page.add_init_script(FIRST_LIVE_VIEW)
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": rtt,
                                                  "downloadThroughput": down / 8, "uploadThroughput": up / 8})
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": cpu})
    with page.expect_console_message(lambda m: m.text.startswith("first-live-view "), timeout=60000) as said:
        page.goto(f"{origin}/g/{gid}", wait_until="commit")
    drawn, painted = (float(x) for x in said.value.text.split()[1:3])
    ctx.close()
    return drawn, painted


def main(argv: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    rounds = int(argv[0]) if argv else 7
    rev = argv[1] if len(argv) > 1 else None
    with tempfile.TemporaryDirectory() as tmp:
        servers = {"this tree": LiveServer(Path(tmp) / "now.sqlite3", env={"COMPANION_RATE_LIMIT": "1000"},
                                           cmd_prefix=("taskset", "-c", "0"))}
        if rev:
            servers[rev] = TreeServer(Path(tmp) / "then.sqlite3", tree_at(rev, Path(tmp) / "then"))
        try:
            for s in servers.values():
                s.start()
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                games = {name: seated_game(browser, s.origin) for name, s in servers.items()}
                times: dict = {(n, p): [] for n in servers for p in PHONES}
                loads = [os.getloadavg()[0]]
                for n in range(rounds):
                    for p, phone in PHONES.items():
                        order = list(servers.items())
                        for name, s in (order if n % 2 == 0 else order[::-1]):   # each goes first every other round
                            gid, cookies = games[name]
                            times[(name, p)].append(first_live(browser, s.origin, gid, cookies, phone))
                    loads.append(os.getloadavg()[0])
                print(f"Chromium {browser.version} headless, throttled over CDP; server pinned to core 0; "
                      f"{rounds} fresh-context loads each, interleaved; load average (1 min) "
                      f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores.\nFirst live view, median "
                      f"(min-max): drawn (the task after the render that went live: the issue's measure) / painted "
                      f"(after the next frame: laid out and on screen).")
                for p in PHONES:
                    print(f"\n{p}")
                    for name in servers:
                        drawn = [t[0] / 1000 for t in times[(name, p)]]
                        painted = [t[1] / 1000 for t in times[(name, p)]]
                        print(f"  {name:>12}: drawn {statistics.median(drawn):.2f} s ({min(drawn):.2f}-{max(drawn):.2f})"
                              f"   painted {statistics.median(painted):.2f} s ({min(painted):.2f}-{max(painted):.2f})")
                if rev:   # each round's two loads ran back to back: their difference shrugs off the slower swings of load
                    print(f"\nPer round, this tree minus {rev} (drawn), median (min-max):")
                    for p in PHONES:
                        d = [(a[0] - b[0]) / 1000 for a, b in zip(times[("this tree", p)], times[(rev, p)])]
                        print(f"  {p}: {statistics.median(d):+.2f} s ({min(d):+.2f} to {max(d):+.2f}), "
                              f"faster in {sum(x < 0 for x in d)} of {len(d)}")
                old = [t[0] / 1000 for t in times[("this tree", next(iter(PHONES)))]]
                print(f"\nOld phone, this tree: drawn {statistics.median(old):.2f} s, "
                      f"{'under' if statistics.median(old) < 1 else 'OVER'} the 1 s target.")
                browser.close()
        finally:
            for s in servers.values():
                s.kill()


if __name__ == "__main__":
    main(sys.argv[1:])
