"""One device cannot grow the server's memory: 5,000 distinct static paths that name the same few files."""
from __future__ import annotations

import http.client
from pathlib import Path

FILES = ["app.js", "phone.js", "host.js", "table.js", "app.css"]


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def hammer(server, paths) -> dict:
    """Keep-alive GETs, reconnecting when the server closes; the statuses seen."""
    statuses: dict[int, int] = {}
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    for path in paths:
        for attempt in range(3):
            try:
                c.request("GET", path, headers={"Accept-Encoding": "gzip"})
                r = c.getresponse()
                r.read()
                statuses[r.status] = statuses.get(r.status, 0) + 1
                if r.getheader("Connection", "").lower() == "close":
                    c.close()
                break
            except (http.client.HTTPException, OSError):
                c.close()
                c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    c.close()
    return statuses


def test_five_thousand_distinct_static_paths_grow_the_server_by_less_than_10_mb(server):
    """A cache keyed by path would keep a compressed copy per path (about 5 KB each, gzipped: about 25 MB here)."""
    pid = server.worker_pid()
    # Warm up: every file compressed once, every code path loaded, the allocator at its working size.
    hammer(server, [f"/static/{f}" for f in FILES] * 20 + [f"/static/w{i}/..%2F{FILES[i % 5]}" for i in range(2000)])
    before = rss_kb(pid)
    statuses = hammer(server, [f"/static/{i}/..%2F{FILES[i % 5]}" for i in range(5000)])
    after = rss_kb(pid)
    print(f"worker VmRSS {before} kB -> {after} kB (+{after - before} kB) over 5,000 distinct static paths: {statuses}")
    assert statuses == {200: 5000}
    assert after - before < 10 * 1024
