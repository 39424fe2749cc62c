"""DNS rebinding: a page whose name was made to point at the Pi is not this server; refused before routing."""
from __future__ import annotations

import base64
import http.client
import json
import os
import socket

import pytest

from companion.web.guard import host_allowed, own_names


def raw(server, method: str, path: str, host, origin=None, body: bytes = b"", extra=()) -> tuple[int, bytes]:
    """One request with exactly these Host and Origin headers (http.client would fill in its own Host)."""
    lines = [f"{method} {path} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    if origin is not None:
        lines.append(f"Origin: {origin}")
    if body:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    lines += list(extra) + ["Connection: close", "", ""]
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall("\r\n".join(lines).encode() + body)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
            if method == "GET" and b"Upgrade: websocket" in "\r\n".join(lines).encode() and b"\r\n\r\n" in data:
                break
    head, _, rest = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), rest


def ws_headers():
    return ("Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: " + base64.b64encode(os.urandom(16)).decode())


@pytest.mark.parametrize("evil", ["evil.example", "rebind.attacker.test", "localhost.evil.example", "192.0.2.7",
                                  "metropolys.local.evil.example"])
def test_rebinding_pairs_are_refused_for_get_post_and_the_socket(server, phone, evil):
    host = phone(server)
    gid = host.post("/api/games", {"mode": "family", "players": ["blue", "red"],
                                   "removed_districts": ["north", "east"]}).json["id"]
    before = server.event_count()
    h, o = f"{evil}:{server.port}", f"http://{evil}:{server.port}"
    status, body = raw(server, "GET", "/", h, o)
    assert status == 421 and b"does not answer" in body
    status, body = raw(server, "GET", f"/api/games/{gid}", h, o)
    assert status == 421 and json.loads(body)["code"] == "bad_host"
    status, body = raw(server, "POST", "/api/games", h, o,
                       json.dumps({"mode": "family", "players": ["blue", "red"],
                                   "removed_districts": ["north", "east"]}).encode())
    assert status == 421
    status, _ = raw(server, "POST", f"/api/games/{gid}/seats/blue", h, o, b'{"name": "x"}')
    assert status == 421
    status, _ = raw(server, "GET", f"/api/games/{gid}/live", h, o, extra=ws_headers())
    assert status == 421
    assert server.event_count() == before
    # The same requests naming this server are answered.
    ok = f"127.0.0.1:{server.port}"
    assert raw(server, "GET", "/", ok)[0] == 200
    assert raw(server, "GET", f"/api/games/{gid}/live", ok, f"http://{ok}", extra=ws_headers())[0] == 101


def test_the_servers_own_names_are_answered(server):
    me = socket.gethostname().lower()
    for name in ("localhost", "127.0.0.1", "127.8.9.10", "[::1]", me, me.split(".")[0] + ".local", "LOCALHOST",
                 "localhost."):
        status, _ = raw(server, "GET", "/api/games/current", f"{name}:{server.port}")
        assert status == 200, name
    assert raw(server, "GET", "/api/games/current", "localhost")[0] == 200     # no port: still this server
    for bad in ("[::1", "evil.example:x", "a b", ":80", "[::1]x"):
        assert raw(server, "GET", "/api/games/current", bad)[0] == 421, bad


def test_the_join_urls_host_is_this_server_and_pages_use_it(start_server, phone):
    s = start_server(env={"COMPANION_JOIN_URL": "http://metropolys.example:8123", "COMPANION_RATE_LIMIT": "1000"})
    status, body = raw(s, "GET", "/api/games/current", "metropolys.example:8123")
    assert status == 200
    p = phone(s)
    made = p.post("/api/games", {"mode": "family", "players": ["blue", "red"],
                                 "removed_districts": ["north", "east"]}).json
    gid = made["id"]
    assert made["join_url"] == f"http://metropolys.example:8123/g/{gid}"
    assert f"http://metropolys.example:8123/g/{gid}" in p.get(f"/g/{gid}").body.decode()
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
    c.request("GET", f"/qr/join/{gid}.svg", headers={"Host": "metropolys.example:8123"})
    r = c.getresponse()
    assert r.status == 200 and b"<svg" in r.read()
    assert raw(s, "GET", "/api/games/current", "other.example:8123")[0] == 421


def test_host_allowed_by_the_connections_own_address():
    names = own_names(None)
    assert host_allowed("192.168.4.1:8000", names, "192.168.4.1")
    assert not host_allowed("192.168.4.2:8000", names, "192.168.4.1")
    assert host_allowed("[fe80::1]:8000", names, "fe80::1")
    assert not host_allowed("evil.example", names, "192.168.4.1")
    assert host_allowed(None, names, None)          # HTTP/1.0 without Host: no browser sent it
    forwarded = own_names("http://203.0.113.9:8000")
    assert host_allowed("203.0.113.9:8000", forwarded, "192.168.4.1")   # the join URL's address, forwarded
    assert not host_allowed("203.0.113.10:8000", forwarded, "192.168.4.1")
