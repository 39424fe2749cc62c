"""10,000 malformed requests over raw sockets, across every endpoint and the live socket: never a 5xx,
nothing logged, and the server still answering."""
from __future__ import annotations

import base64
import os
import random
import socket

from server_helpers import LiveServer, Phone, create_game, seat_and_start
from conftest import FAST

N = 10_000


def deep(n: int) -> bytes:
    return b"[" * n + b"]" * n


BODIES = [
    deep(100_000 // 2), b'{"a":' * 3000 + b"1" + b"}" * 3000, b"{" * 20000, b'{"name": "\\ud800"}', b'{"name": "\\udfff x"}',
    b'{"name": "a\\u0000b"}', b'{"name": "\\u202eevil"}', b'{"name": "\\u200b"}', b"{", b"[]", b"null", b"1e99999",
    b'{"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"], "seed": 1' + b"9" * 5000 + b"}",
    b'{"bid": "C01", "value": NaN}', b'{"bid": "C01", "value": 1e400}', b'{"tokens": {"\\ud800": "trendy"}, "name": "x"}',
    b'{"tokens": "x", "name": 5}', b"\xff\xfe\x00", b'{"pass": true, "expect_seq": -99999999999999999999999}',
    b'{"area": "\\ud83d", "neighborhood": [[[[]]]]}', b'{"layout": {"tokens": {"C01": {"a": [1, {"b": null}]}}}}',
    b'"just a string"', b'{"mode": "family", "players": [' + b'"blue",' * 5000 + b'"red"]}',
]
ORIGINS = ["http://[::1", "http://]", "http://[", "http://a[b]:80", "null", "http://evil.example", "", "\x7f",
           "http://127.0.0.1:99999999", "http://127.0.0.1:-1", "javascript:alert(1)", "http://" + "a" * 3000,
           "http://[fe80::1%25eth0]:80", "ftp://127.0.0.1", "http://127.0.0.1:abc", "http://user@[::1]:x"]
HOSTS = ["[::1", "[", "]", "evil.example", "a b", "127.0.0.1:abc", "[::1]x", ":", "", "\x01", "é.example",
         "localhost:99999999", "x" * 2000]
TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json;;;",
         "application/json; charset=utf-\xff", "", "application/jsonx", "*/*"]
METHODS = ["PUT", "DELETE", "PATCH", "TRACE", "FOO", "CONNECT", "OPTIONS", "HEAD"]


def paths(gid: str) -> list[tuple[str, str]]:
    c = "blue"
    return [("GET", "/"), ("GET", "/table"), ("GET", f"/g/{gid}"), ("GET", f"/qr/join/{gid}.svg"),
            ("GET", "/qr/wifi.svg"), ("GET", "/static/app.js"), ("GET", "/api/games/current"),
            ("GET", f"/api/games/{gid}"), ("GET", f"/api/games/{gid}/record"), ("GET", "/api/board"),
            ("GET", "/api/layouts"), ("GET", "/api/layouts?name=%ED%A0%80"), ("GET", "/api/hardware"),
            ("GET", f"/api/games/{gid}/live"),
            ("POST", "/api/games"), ("POST", f"/api/games/{gid}/setup"), ("POST", f"/api/games/{gid}/seats/{c}"),
            ("POST", f"/api/games/{gid}/seats/{c}/release"), ("POST", f"/api/games/{gid}/seats/{c}/cards"),
            ("POST", f"/api/games/{gid}/start"), ("POST", f"/api/games/{gid}/actions"), ("POST", f"/api/games/{gid}/undo"),
            ("POST", "/api/layouts"), ("POST", "/api/hardware/test"),
            ("GET", "/history"), ("GET", "/api/history?mode=x&q=%ED%A0%80"), ("GET", "/api/standings"),
            ("GET", "/api/history.csv"), ("GET", f"/api/games/{gid}/bgstats"), ("POST", "/api/names/merge")]


def mangle_path(rng: random.Random, path: str) -> str:
    return rng.choice([path, path + "%", path + "%zz", path + "/%00", path + "?" + "a=%ff" * 50, path + "/..%2F..%2F",
                       path.replace("/api", "/api/" + "x" * 3000), path + "?name=%ED%A0%80", "//" + path,
                       path + "#frag", path + "\\x", path + "?since=[[[", path + ";x"])


def one(rng: random.Random, port: int, gid: str, cookie: str) -> bytes:
    method, path = rng.choice(paths(gid))
    host = f"127.0.0.1:{port}"
    origin = f"http://{host}"
    headers = {"Host": host, "Cookie": cookie}
    body = b""
    defects = rng.sample(["origin", "referer", "host", "type", "body", "method", "chunk", "length", "path",
                          "headers", "ws", "version"], rng.randint(1, 3))
    if method == "POST":
        headers.update({"Origin": origin, "Content-Type": "application/json"})
        body = rng.choice(BODIES)
        # A POST that could be legal must carry a defect that is always refused: the log never changes.
        if not {"origin", "type", "chunk", "host", "method"} & set(defects):
            defects.append(rng.choice(["origin", "type", "chunk", "host"]))
    if "origin" in defects:
        headers["Origin"] = rng.choice(ORIGINS)
    if "referer" in defects:
        headers.pop("Origin", None)
        headers["Referer"] = rng.choice(ORIGINS) + "/x"
    if "host" in defects:
        if rng.random() < 0.2:
            headers.pop("Host")
        else:
            headers["Host"] = rng.choice(HOSTS)
    if "type" in defects:
        headers["Content-Type"] = rng.choice(TYPES)
    if "body" in defects:
        body = rng.choice(BODIES)
    if "method" in defects:
        method = rng.choice(METHODS)
    if "path" in defects:
        path = mangle_path(rng, path)
    if "headers" in defects:
        for _ in range(rng.randint(1, 4)):
            headers[rng.choice(["Accept-Language", "Cookie", "If-Modified-Since", "Range", "Accept-Encoding",
                                "Connection", "Expect", "X-Forwarded-For", "Upgrade"])] = rng.choice(
                ["*;q=x", "de-DE;q=1e999", "lang=\xff; device=" + "a" * 64, "bytes=99999999-", "bytes=-0,a-b",
                 "\t", "gzip;q=nan", "100-continue", "[[[", "websocket", "Upgrade, keep-alive", "x" * 5000])
    if "ws" in defects or path.endswith("/live"):
        ws = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
              "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(), "Origin": origin}
        # At least one piece missing or wrong (or the Host, when that is this request's defect).
        for k in rng.sample(sorted(ws), rng.randint(0 if "host" in defects else 1, 3)):
            if rng.random() < 0.5:
                del ws[k]
            else:
                ws[k] = rng.choice(["", "13, 8", "8", "dGhlIHNhbXBsZSBub25jZQ", "!!!", "h2c", "close", "[::1"])
        headers.update(ws)
        if "Origin" not in ws:
            headers.pop("Origin", None)
    head = f"{method} {path} {'HTTP/1.1' if 'version' not in defects else rng.choice(['HTTP/1.0', 'HTTP/9.9', 'HTTP/1.1x', ''])}\r\n"
    chunked = "chunk" in defects and method in ("POST", "PUT", "PATCH")
    if chunked:
        headers["Transfer-Encoding"] = rng.choice(["chunked", "chunked, chunked", "gzip, chunked", "chunked;x"])
        size = rng.choice(["zz", "-1", "ffffffffffffffffffff", "1;" + "x" * 100, "0x10", " 5", "5 ", ""])
        payload = f"{size}\r\n".encode() + body[:200] + b"\r\n0\r\n\r\n"
    elif "length" in defects:
        headers["Content-Length"] = rng.choice(["-1", "abc", str(len(body) + 100), "1, 2", "99999999999", "", "0x10"])
        payload = body
    else:
        headers["Content-Length"] = str(len(body))
        payload = body
    raw = head.encode("latin-1", "replace") + b"".join(
        f"{k}: {v}\r\n".encode("latin-1", "replace") for k, v in headers.items()) + b"\r\n" + payload
    with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
        try:
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        data = b""
        try:
            while True:
                while data.startswith(b"HTTP/1.1 100 ") and b"\r\n\r\n" in data:
                    data = data.split(b"\r\n\r\n", 1)[1]        # "100 Continue" first: the answer follows
                if b"\r\n" in data and not data.startswith(b"HTTP/1.1 100 "):
                    break
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
    return data.split(b"\r\n", 1)[0]


def test_ten_thousand_malformed_requests_get_no_5xx_and_change_nothing(tmp_path):
    server = LiveServer(tmp_path / "fuzz.sqlite3", env=FAST)
    server.start()
    try:
        phones = {c: Phone(server) for c in ("blue", "red")}
        gid = create_game(phones["blue"], list(phones))
        seat_and_start(gid, phones["blue"], phones)
        cookie = phones["blue"].cookie_header()
        events = server.events()
        log = server.log.read_bytes()
        rng = random.Random(14)
        statuses: dict[str, int] = {}
        for _ in range(N):
            line = one(rng, server.port, gid, cookie)
            key = line.split()[1].decode() if len(line.split()) > 1 else "closed without an answer"
            statuses[key] = statuses.get(key, 0) + 1
        print(f"{N} malformed requests: {dict(sorted(statuses.items()))}")
        assert not [k for k in statuses if k[:1] == "5"], statuses
        assert server.events() == events                          # the log is unchanged
        # A request that cannot be parsed is answered 400 and closed; nothing is logged.
        new = server.log.read_text(errors="replace")[len(log.decode(errors="replace")):].splitlines()
        assert new == [], new[:20]
        assert phones["blue"].view(gid)["seq"] == events[-1][1]   # and the table still answers
        assert Phone(server).get("/api/games/current").status == 200
    finally:
        server.kill()


def _send(port: int, raw: bytes) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
        s.sendall(raw)
        s.shutdown(socket.SHUT_WR)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    return int(data.split()[1])


def test_each_crash_path_the_attack_run_found_is_a_4xx(server):
    """The 449 5xx of the attack run, one of each kind (issue 14): each now a 4xx."""
    host = f"127.0.0.1:{server.port}"
    ok = f"Host: {host}\r\nOrigin: http://{host}\r\nContent-Type: application/json\r\n"

    def post(path: str, body: bytes, headers: str = ok) -> int:
        return _send(server.port, f"POST {path} HTTP/1.1\r\n{headers}Content-Length: {len(body)}\r\n\r\n".encode() + body)

    assert post("/api/games", b"{}", ok.replace(f"Origin: http://{host}", "Origin: http://[::1")) == 403
    assert post("/api/games", b"{}", ok.replace(f"Origin: http://{host}\r\n", "Referer: http://]/x\r\n")) == 403
    assert post("/api/games", deep(20_000)) == 400      # 40 KB: under the 64 KB limit, far over the parser's depth
    assert post("/api/layouts", b'{"name": "\\ud800", "tokens": {}}') == 400
    phone = Phone(server)
    gid = create_game(phone, ["blue", "red"])
    assert phone.post(f"/api/games/{gid}/seats/blue", {"name": "\ud800"}).status == 400
    ws = (f"GET /api/games/{gid}/live HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\nUpgrade: websocket\r\n"
          f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n")
    for drop in ("Sec-WebSocket-Key", "Sec-WebSocket-Version", "Connection"):
        lines = "".join(line + "\r\n" for line in ws.split("\r\n") if line and not line.startswith(drop))
        assert _send(server.port, (lines + "\r\n").encode()) == 400, drop
    no_host = "".join(line + "\r\n" for line in ws.split("\r\n") if line and not line.startswith("Host"))
    assert _send(server.port, (no_host + "\r\n").encode()) == 400
    assert _send(server.port, f"GET /api/games/{gid}/live HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()) == 400
    chunked = f"POST /api/games HTTP/1.1\r\n{ok}Transfer-Encoding: chunked\r\n\r\n".encode()
    assert _send(server.port, chunked + b"zz\r\n{}\r\n0\r\n\r\n") == 400
    assert _send(server.port, chunked.replace(b"chunked", b"gzip, chunked") + b"2\r\n{}\r\n0\r\n\r\n") == 400
