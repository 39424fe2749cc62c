"""Listening sockets for the benchmarks, read by one thread that stamps each frame as its last byte comes in.

bench_peer.py times a bid to the moment all 8 sockets have its view. With a thread per socket that parses each
view as JSON (tests/server_helpers.Socket), the stamps also carry the listeners' own work: eight threads on one
core take turns at the GIL, and each waits for the views parsed before it. That work depends on the view's shape
(the companion's nested objects parse far slower than the peer's one long string of the same size), so it
weighed on one server's figure and not the other's. Here one thread reads every socket, finds a frame's end and
its "seq" in its first bytes, and parses nothing: a few microseconds a view for either server. A view's JSON is
parsed only when the bench asks for it (`last`), between bids.
"""
from __future__ import annotations

import base64
import json
import os
import re
import selectors
import socket
import threading
import time
from typing import Optional

_SEQ = re.compile(rb'"seq": ?(\d+)')
_ACK = re.compile(rb'^\{"ack":"([^"]*)"')


def _frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame: masked, as RFC 6455 asks of every frame a client sends."""
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    key = os.urandom(4)
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes((key * (n // 4 + 1))[:n], "big")).to_bytes(n, "big")
    return head + key + masked


class _Conn:
    def __init__(self, sock: socket.socket, rest: bytes):
        self.sock, self.buf = sock, bytearray(rest)
        self.arrived: dict[int, float] = {}     # seq -> when the first frame carrying it was whole
        self.raw: Optional[bytes] = None        # the newest view, unparsed
        self.acks: dict[str, tuple[float, bytes]] = {}
        self.closed = False


class Listeners:
    """Sockets on one reader thread. `add` opens one (the handshake in the caller's thread); `arrival(i, seq)`
    waits for the first view at `seq` or later on socket i; `send(i, text)` sends a text frame on it."""

    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.conns: list[_Conn] = []
        self.cond = threading.Condition()
        self._wake_r, self._wake_w = socket.socketpair()
        self.sel.register(self._wake_r, selectors.EVENT_READ, None)
        self._stop = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def add(self, port: int, path: str, headers: dict) -> int:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"{path}: closed during the handshake")
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(f"{path}: {head[:200]!r}")
        conn = _Conn(sock, rest)
        with self.cond:
            self.conns.append(conn)
            i = len(self.conns) - 1
            self._frames(conn, time.perf_counter())
        self.sel.register(sock, selectors.EVENT_READ, conn)
        self._wake_w.send(b"x")
        return i

    def send(self, i: int, text: str) -> None:
        self.conns[i].sock.sendall(_frame(1, text.encode()))

    def _read(self) -> None:
        while not self._stop:
            for key, _ in self.sel.select():
                conn = key.data
                if conn is None:
                    self._wake_r.recv(4096)
                    continue
                try:
                    chunk = conn.sock.recv(262144)
                except OSError:
                    chunk = b""
                now = time.perf_counter()
                with self.cond:
                    if not chunk:
                        conn.closed = True
                        self.sel.unregister(conn.sock)
                    else:
                        conn.buf += chunk
                        self._frames(conn, now)
                    self.cond.notify_all()

    def _frames(self, conn: _Conn, now: float) -> None:
        """Every whole frame in the buffer: a view stamped by its seq, an answer kept by its id (under the lock)."""
        buf = conn.buf
        while len(buf) >= 2:
            n, at = buf[1] & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            opcode, payload = buf[0] & 0x0F, bytes(buf[at:at + n])
            del buf[:at + n]
            if opcode == 9:                             # a ping: the pong it asks for
                conn.sock.sendall(_frame(10, payload))
            elif opcode == 8:
                conn.closed = True
            elif opcode == 1:
                ack = _ACK.match(payload)
                if ack:
                    conn.acks[ack.group(1).decode()] = (now, payload)
                    continue
                seq = _SEQ.search(payload, 0, 200)
                if seq:
                    conn.arrived.setdefault(int(seq.group(1)), now)
                conn.raw = payload

    def arrival(self, i: int, seq: int, timeout: float = 10.0) -> float:
        conn = self.conns[i]
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                later = [s for s in conn.arrived if s >= seq]
                if later:
                    return conn.arrived[min(later)]
                left = deadline - time.monotonic()
                if left <= 0 or conn.closed:
                    raise AssertionError(f"socket {i}: no view at seq {seq}")
                self.cond.wait(left)

    def ack(self, i: int, aid: str, timeout: float = 10.0) -> dict:
        conn = self.conns[i]
        deadline = time.monotonic() + timeout
        with self.cond:
            while aid not in conn.acks:
                left = deadline - time.monotonic()
                if left <= 0 or conn.closed:
                    raise AssertionError(f"socket {i}: no answer to {aid!r}")
                self.cond.wait(left)
            return json.loads(conn.acks[aid][1])

    def last(self, i: int) -> Optional[dict]:
        with self.cond:
            raw = self.conns[i].raw
        return None if raw is None else json.loads(raw)

    def close(self) -> None:
        self._stop = True
        self._wake_w.send(b"x")
        self.thread.join(timeout=5)
        for conn in self.conns:
            try:
                conn.sock.close()
            except OSError:
                pass
        self._wake_r.close()
        self._wake_w.close()
