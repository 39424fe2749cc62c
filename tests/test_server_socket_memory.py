"""One watcher cannot run the Pi out of memory through its socket (issue 14): messages are capped at what
the socket carries (it carries no actions) and permessage-deflate is never negotiated, so a 10 MB
message and a compressed bomb each close that one socket while the server's memory stays flat."""
from __future__ import annotations

import base64
import os
import socket
import struct
import threading
import time
import zlib
from pathlib import Path

from server_helpers import Phone, create_game, seat_and_start

SOURCE = "127.0.0.3"


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(field)


def frame(payload: bytes, opcode: int = 0x1, rsv1: bool = False, fin: bool = True) -> bytes:
    """One masked client frame (RFC 6455 section 5.2)."""
    head = bytes([(0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    mask = os.urandom(4)
    key = (mask * (n // 4 + 1))[:n]
    return head + mask + (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


class Watcher:
    """A raw WebSocket client from its own address that offers permessage-deflate, as browsers do."""

    def __init__(self, server, gid: str):
        self.sock = socket.socket()
        self.sock.bind((SOURCE, 0))
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", server.port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /api/games/{gid}/live HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           f"Sec-WebSocket-Version: 13\r\nOrigin: {server.origin}\r\n"
                           f"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            assert chunk, head
            head += chunk
        self.head = head.decode("latin-1")
        self.received = bytearray()
        self.closed = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                self.received += data
        except OSError:
            pass
        self.closed.set()

    def send_all(self, data: bytes) -> None:
        """Send, stopping quietly when the server has closed the connection."""
        try:
            self.sock.sendall(data)
        except OSError:
            pass

    def close_code(self) -> int | None:
        """The code of the close frame the server sent, if one came (frames from the server are unmasked)."""
        buf, i = bytes(self.received), 0
        while i + 2 <= len(buf):
            op, n = buf[i] & 0x0F, buf[i + 1] & 0x7F
            i += 2
            if n == 126:
                n, i = struct.unpack("!H", buf[i:i + 2])[0], i + 2
            elif n == 127:
                n, i = struct.unpack("!Q", buf[i:i + 8])[0], i + 8
            if op == 0x8 and n >= 2:
                return struct.unpack("!H", buf[i:i + 2])[0]
            i += n
        return None


class Peak:
    """The worker's resident memory, sampled every 5 ms in a thread, and its kernel high-water mark."""

    def __init__(self, pid: int):
        self.pid = pid
        self.base = status_kb(pid, "VmRSS")
        self.hwm_before = status_kb(pid, "VmHWM")
        self.peak = self.base
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, status_kb(self.pid, "VmRSS"))
            time.sleep(0.005)

    def done(self) -> tuple[int, int]:
        self.stop.set()
        self.thread.join()
        after = status_kb(self.pid, "VmRSS")
        return after, max(self.peak, after)


def test_big_message_and_compressed_bomb_close_only_that_socket(start_server):
    srv = start_server()
    phones = {c: Phone(srv, source=f"127.0.0.{41 + i}") for i, c in enumerate(("blue", "red"))}
    gid = create_game(phones["blue"], ("blue", "red"), seed=5)
    seat_and_start(gid, phones["blue"], phones)
    seated = {c: p.ws(gid) for c, p in phones.items()}
    worker = srv.worker_pid()

    # 1. A 10 MB text message in one frame.
    big = Watcher(srv, gid)
    assert "Sec-WebSocket-Extensions" not in big.head, "permessage-deflate must never be accepted"
    peak = Peak(worker)
    big.send_all(frame(b"x" * (10 * 1024 * 1024)))
    assert big.closed.wait(15), "the server kept a socket that sent a 10 MB message"
    after, top = peak.done()
    print(f"\n10 MB message: worker RSS {peak.base / 1024:.1f} MB before, peak {top / 1024:.1f} MB, "
          f"after {after / 1024:.1f} MB; close code {big.close_code()}")
    assert top - peak.base < 10 * 1024, (peak.base, top)
    assert big.close_code() in (1009, None)   # 1009: message too big (a reset may beat the frame)

    # 2. A compressed bomb: 200 MB of zeros deflated to a fraction of a MB, sent with RSV1 set as if
    # compression had been agreed. It was not, so the frame is a protocol error and is never inflated.
    bomb = Watcher(srv, gid)
    assert "Sec-WebSocket-Extensions" not in bomb.head
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    deflated = packer.compress(b"\0" * (200 * 1024 * 1024)) + packer.flush(zlib.Z_SYNC_FLUSH)
    peak = Peak(worker)
    bomb.send_all(frame(deflated[:-4], rsv1=True))
    assert bomb.closed.wait(15), "the server kept a socket that sent a compressed frame"
    after, top = peak.done()
    print(f"compressed bomb ({len(deflated) // 1024} KB for 200 MB): worker RSS {peak.base / 1024:.1f} MB "
          f"before, peak {top / 1024:.1f} MB, after {after / 1024:.1f} MB; close code {bomb.close_code()}")
    assert top - peak.base < 10 * 1024, (peak.base, top)
    assert bomb.close_code() in (1002, None)   # 1002: protocol error

    # 3. Fragments adding up past the cap are refused the same way (the length counts across frames).
    pieces = Watcher(srv, gid)
    pieces.send_all(frame(b"y" * 800, fin=False) + frame(b"y" * 800, opcode=0x0, fin=False)
                    + frame(b"y" * 800, opcode=0x0))
    assert pieces.closed.wait(15), "fragments of a message past 1 KB must close the socket too"

    # The others are unaffected: the seated phones' sockets are open and get the next move.
    host = phones["blue"]
    view = host.view(gid)
    legal = view["legal"]
    nb = sorted(legal["neighborhoods"])[0]
    r = host.post(f"/api/games/{gid}/actions", {"bid": nb, "value": legal["neighborhoods"][nb][0],
                                               "expect_seq": view["seq"]})
    assert r.status == 200, r
    for s in seated.values():
        assert not s.closed
        assert s.wait_seq(r.json["seq"])["seq"] == r.json["seq"]
    # A small message from a phone is read and ignored; its socket stays open.
    small = Watcher(srv, gid)
    small.send_all(frame(b'{"hello": 1}'))
    time.sleep(0.5)
    assert not small.closed.is_set()
    small.sock.close()
    for p in phones.values():
        p.close()


def test_a_socket_request_that_is_not_a_proper_handshake_gets_a_sentence(start_server):
    import http.client
    import json

    srv = start_server()
    host = Phone(srv)
    gid = create_game(host, ("blue", "red"), seed=6)
    good = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(), "Origin": srv.origin}
    for change in ({"Sec-WebSocket-Key": None}, {"Sec-WebSocket-Key": "c2hvcnQ="}, {"Sec-WebSocket-Version": "8"},
                   {"Sec-WebSocket-Version": None}):
        headers = {k: v for k, v in dict(good, **change).items() if v is not None}
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        c.request("GET", f"/api/games/{gid}/live", headers=headers)
        r = c.getresponse()
        body = json.loads(r.read())
        c.close()
        assert r.status == 400 and body["code"] == "bad_request" and body["error"], (change, r.status, body)
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    c.request("GET", f"/api/games/{gid}/live", headers=good)
    assert c.getresponse().status == 101   # the control
    c.close()


def test_the_live_socket_works_under_werkzeugs_server_too(inprocess_server):
    """Without `companion serve` (the tests' in-process server) the request's thread waits out its socket."""
    srv = inprocess_server()
    phones = {c: Phone(srv) for c in ("blue", "red")}
    gid = create_game(phones["blue"], ("blue", "red"), seed=7)
    seat_and_start(gid, phones["blue"], phones)
    socks = {c: p.ws(gid) for c, p in phones.items()}
    view = phones["blue"].view(gid)
    nb = sorted(view["legal"]["neighborhoods"])[0]
    r = phones["blue"].post(f"/api/games/{gid}/actions", {"bid": nb, "value": view["legal"]["neighborhoods"][nb][0]})
    assert r.status == 200, r
    for c, s in socks.items():
        got = s.wait_seq(r.json["seq"])
        assert got["seq"] == r.json["seq"] and got["you"]["color"] == c
    for p in phones.values():
        p.close()
