"""Addresses without netlink, under the unit's own address-family sandbox; the join URL worked out per request."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server_helpers import COMPANION, ROOT

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sandbox  # noqa: E402

needs_sandbox = pytest.mark.skipif(not sandbox.supported(), reason="the seccomp sandbox knows x86_64 and aarch64 only")

PROBE = """
import json, socket
from companion.pi import netaddr
try:
    socket.if_nameindex()
    refused = None
except OSError as e:
    refused = e.errno
print(json.dumps({"if_nameindex_errno": refused, "addresses": netaddr.lan_addresses(),
                  "routed": netaddr.default_route_interfaces()}))
"""


def ip(*args: str) -> str:
    exe = shutil.which("ip")
    if exe is None:
        pytest.fail("ip is missing: these tests compare with it (scripts/bootstrap test installs iproute2).",
                    pytrace=False)
    return subprocess.run([exe, *args], capture_output=True, text=True, check=True).stdout


@needs_sandbox
def test_addresses_are_found_where_netlink_is_forbidden():
    """RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 made if_nameindex() crash the service on bookworm."""
    out = subprocess.run([sys.executable, str(HERE / "sandbox.py"), sys.executable, "-c", PROBE],
                         capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["if_nameindex_errno"] == 97, "the sandbox must refuse netlink as systemd does (EAFNOSUPPORT)"
    up = re.findall(r"^\d+: (\S+)\s+inet (\d+\.\d+\.\d+\.\d+)/", ip("-4", "-o", "addr", "show", "up"), re.M)
    expected = {addr for _, addr in up if not addr.startswith("127.")}
    assert set(seen["addresses"]) == expected and len(seen["addresses"]) == len(expected)
    route = re.findall(r"^default .*?dev (\S+)", ip("-4", "route", "show", "default"), re.M)
    assert seen["routed"][:1] == route[:1]
    if route:  # the default route's address comes first: that is where the kiosk's QR points
        assert seen["addresses"][0] in {addr for name, addr in up if name == route[0]}


def test_join_url_follows_each_request_and_a_lease_that_came_late(tmp_path):
    """A private network namespace: the server starts with loopback only; addresses and routes arrive later."""
    if not sandbox.supported():
        pytest.skip("the seccomp sandbox knows x86_64 and aarch64 only")
    probe = subprocess.run(["unshare", "--net", "--map-root-user", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no network namespace here: {probe.stderr.decode().strip()}")
    ip("-V")
    port = 8000
    out = subprocess.run(["unshare", "--net", "--map-root-user", sys.executable, str(HERE / "netns_join.py"),
                          str(COMPANION), str(port), str(tmp_path / "ns.sqlite3"), str(tmp_path / "ns.log")],
                         capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout)
    gid = seen["game"]
    on = lambda addr: f"http://{addr}:{port}/g/{gid}"  # noqa: E731
    assert "no network address yet" in seen["log"] and "Join at" not in seen["log"], seen["log"]
    assert seen["no_address_yet"] == on("127.0.0.1")           # nothing better exists yet
    assert seen["nogame_no_address"]["no_network"] is True     # the table display says what to do instead
    assert seen["loopback"] == on("10.9.8.7")                  # the kiosk: the default route's address
    assert seen["localhost"] == on("10.9.8.7")
    assert seen["routed"] == on("10.9.8.7")                    # a phone: the address it reached
    assert seen["other"] == on("10.7.7.7")
    current = json.loads(seen["api_on_other"])     # the front door's game: its id and join URL, and more
    assert (current["id"], current["join_url"]) == (gid, on("10.7.7.7"))
    assert f'<span id="join-url" class="mono">{on("10.7.7.7")}</span>' in seen["page_other"]
    assert seen["loopback_after_move"] == on("10.7.7.7")       # the route moved: so does the kiosk's QR
    assert seen["loopback_no_route"] in (on("10.9.8.7"), on("10.7.7.7"))
    assert seen["server_alive"]


def test_a_server_on_loopback_only_keeps_loopback_urls(start_server, phone):
    """Listening on 127.0.0.1 nobody else can reach it: a LAN address in its QR would be a lie."""
    server = start_server()
    host = phone(server)
    r = host.post("/api/games", {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"]})
    assert r.status == 201 and r.json["join_url"] == f"{server.origin}/g/{r.json['id']}"


def test_no_network_is_said_only_to_the_kiosk_of_a_machine_with_no_reachable_address(monkeypatch):
    """Issue 20: with no network the table display said "open http://localhost:8000/"; it now says what to do."""
    from companion.pi import netaddr
    monkeypatch.setattr(netaddr, "lan_addresses", lambda: [])
    assert netaddr.no_network("http://localhost:8000/", None, "0.0.0.0")
    assert netaddr.no_network("http://127.0.0.1:8000/", None, None)
    assert not netaddr.no_network("http://10.0.0.5:8000/", None, "0.0.0.0")      # a phone reached it: a network
    assert not netaddr.no_network("http://localhost:8000/", None, "127.0.0.1")   # loopback by choice
    assert not netaddr.no_network("http://localhost:8000/", "http://pi.example:8000", "0.0.0.0")
    monkeypatch.setattr(netaddr, "lan_addresses", lambda: ["192.168.1.20"])
    assert not netaddr.no_network("http://localhost:8000/", None, "0.0.0.0")


def test_a_server_on_loopback_only_says_no_network_never(start_server, phone):
    server = start_server()
    r = phone(server).get("/api/games/current")
    assert r.json["id"] is None and r.json["no_network"] is False and r.json["start_url"] == server.origin + "/"
