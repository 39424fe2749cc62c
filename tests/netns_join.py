"""Run inside a fresh network namespace (unshare --net): a Pi whose network comes up after the service.

`companion serve --host 0.0.0.0` starts under the unit's address-family sandbox with only loopback;
then interfaces, addresses and a default route arrive, as DHCP or the hotspot would bring them.
Prints what each request was told as JSON; the test (test_join_url.py) judges it.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True)


def get(host: str, port: int, path: str) -> str:
    with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=10) as r:
        return r.read().decode()


def main(companion: str, port: int, db: str, log: str) -> None:
    ip("link", "set", "lo", "up")
    with open(log, "wb") as out:
        server = subprocess.Popen([sys.executable, str(HERE / "sandbox.py"), companion, "serve",
                                   "--host", "0.0.0.0", "--port", str(port), "--db", db],
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                get("127.0.0.1", port, "/api/games/current")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"server did not answer: {Path(log).read_text()[-2000:]}")
                time.sleep(0.05)
        origin = f"http://127.0.0.1:{port}"
        # No game and no address yet: the kiosk's screen is told there is no network (issue 20).
        nogame = json.loads(get("127.0.0.1", port, "/api/games/current"))
        req = urllib.request.Request(origin + "/api/games", method="POST", headers={
            "Content-Type": "application/json", "Origin": origin},
            data=json.dumps({"mode": "family", "players": ["blue", "red"],
                             "removed_districts": ["north", "east"]}).encode())
        with urllib.request.urlopen(req, timeout=10) as r:
            gid = json.loads(r.read())["id"]
        current = lambda host: json.loads(get(host, port, "/api/games/current"))["join_url"]  # noqa: E731
        seen = {"game": gid, "no_address_yet": current("127.0.0.1"), "nogame_no_address": nogame}
        # The lease arrives: one interface with the default route, one without (a phone may reach either).
        for a, b, addr in (("v0", "v1", "10.9.8.7/24"), ("v2", "v3", "10.7.7.7/24")):
            ip("link", "add", a, "type", "veth", "peer", "name", b)
            ip("addr", "add", addr, "dev", a)
            ip("link", "set", a, "up")
            ip("link", "set", b, "up")
        ip("route", "add", "default", "via", "10.9.8.1", "dev", "v0")
        seen["loopback"] = current("127.0.0.1")
        seen["localhost"] = current("localhost")
        seen["routed"] = current("10.9.8.7")
        seen["other"] = current("10.7.7.7")
        seen["page_other"] = get("10.7.7.7", port, f"/g/{gid}")
        seen["api_on_other"] = get("10.7.7.7", port, "/api/games/current")
        # The default route moves to the other interface (say, Ethernet unplugged, Wi-Fi left).
        ip("route", "del", "default")
        ip("route", "add", "default", "via", "10.7.7.1", "dev", "v2")
        seen["loopback_after_move"] = current("127.0.0.1")
        # No default route at all: a hotspot with no way out; the kiosk still gets an address of this machine.
        ip("route", "del", "default")
        seen["loopback_no_route"] = current("127.0.0.1")
        seen["server_alive"] = server.poll() is None
    finally:
        server.kill()
        server.wait(timeout=10)
    seen["log"] = Path(log).read_text()
    print(json.dumps(seen))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])
