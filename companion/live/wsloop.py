"""Every live socket on one thread, never blocking: no socket holds a server thread, a bid never waits
on a phone, a phone that stops reading is dropped after a deadline, and what a phone sends is capped."""
from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import os
import selectors
import socket
import threading
import time
from collections import deque
from types import SimpleNamespace
from typing import Callable, Optional

from companion.limits import (LIVE_TICK, MAX_MESSAGE, MAX_QUEUED, PING_INTERVAL, SOCKET_RECV_BYTES, SOCKET_SEND_DEADLINE,
                              WAKE_BYTES)

# RFC 6455 1.3: the accept token is base64(SHA-1(key + this GUID)). Written here rather than taken from
# wsproto.utilities.generate_accept_token, which wsproto does not document (its handshake class does it inside).
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

# RFC 6455 7.4.1's close codes this loop sends (wsproto's CloseReason names them; see wsproto() below).
NORMAL_CLOSURE = 1000
MESSAGE_TOO_BIG = 1009

log = logging.getLogger(__name__)
_wsproto: Optional[SimpleNamespace] = None


def wsproto() -> SimpleNamespace:
    """wsproto's classes, imported with the first socket, not at start: the server's first answer never
    needs them, and their import is 13 ms of a 200 ms start (its dataclasses) on the build machine."""
    global _wsproto
    if _wsproto is None:
        from wsproto.connection import Connection, ConnectionState, ConnectionType
        from wsproto.events import BytesMessage, CloseConnection, Ping, Pong, TextMessage
        from wsproto.utilities import LocalProtocolError   # documented in wsproto's API reference (Exceptions)

        _wsproto = SimpleNamespace(
            Connection=Connection, ConnectionState=ConnectionState, ConnectionType=ConnectionType,
            BytesMessage=BytesMessage, CloseConnection=CloseConnection, Ping=Ping, Pong=Pong,
            TextMessage=TextMessage, LocalProtocolError=LocalProtocolError)
    return _wsproto


class HandshakeError(ValueError):
    """The request is not a WebSocket handshake this server accepts (a 400 with a sentence)."""


def accept_headers(environ: dict) -> bytes:
    """The 101 answer to a WebSocket request, offering no extension (permessage-deflate is never on)."""
    connection = {t.strip().lower() for t in environ.get("HTTP_CONNECTION", "").split(",")}
    if environ.get("HTTP_UPGRADE", "").lower() != "websocket" or "upgrade" not in connection:
        raise HandshakeError("not a WebSocket upgrade")
    if environ.get("HTTP_SEC_WEBSOCKET_VERSION", "").strip() != "13":
        raise HandshakeError("Sec-WebSocket-Version must be 13")
    key = environ.get("HTTP_SEC_WEBSOCKET_KEY", "").strip()
    try:
        if len(base64.b64decode(key, validate=True)) != 16:
            raise HandshakeError("Sec-WebSocket-Key must be 16 bytes in base64")
    except (binascii.Error, ValueError):
        raise HandshakeError("Sec-WebSocket-Key must be 16 bytes in base64") from None
    return (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + base64.b64encode(hashlib.sha1(key.encode() + WS_GUID).digest()) + b"\r\n\r\n")


def text_frame(text: str) -> bytes:
    """A whole text message as one final, unmasked frame (RFC 6455 5.2), the bytes wsproto would frame: a
    view sent to many sockets is framed once, not once per socket."""
    data = text.encode()
    n = len(data)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 1 << 16:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return head + data


class LiveSocket:
    """One open WebSocket. `send` may be called from any thread and never blocks: what the kernel does
    not take at once waits here, and only the newest unsent view is kept (a whole view supersedes)."""

    def __init__(self, sock: socket.socket, loop: "Loop", on_close: Optional[Callable[[], None]] = None,
                 on_message: Optional[Callable[["LiveSocket", str], None]] = None):
        sock.setblocking(False)
        self.sock = sock
        self.loop = loop
        self.on_close = on_close
        self.on_message = on_message  # a whole text message, on the loop's thread, outside the lock (None: dropped)
        self.p = p = wsproto()
        self.ws = p.Connection(p.ConnectionType.SERVER)   # no extensions: a compressed frame is a protocol error
        self.closed = threading.Event()
        self._lock = threading.Lock()
        self._out = bytearray()       # framed bytes, in order; the first may be partly sent
        self._out_since = 0.0         # when the oldest byte in _out was queued
        self._view: Optional[bytes] = None   # the newest view, framed, not yet queued
        self._incoming = 0            # bytes of the message being received
        self._parts: list[str] = []   # its text so far (kept only when on_message takes messages)
        self._pong = True
        self._next_ping = time.monotonic() + PING_INTERVAL
        self._closing = False         # a close frame is queued: drop the socket once it is out

    # -- any thread --

    def send(self, text: str) -> None:
        self.send_frame(text_frame(text))

    def send_frame(self, frame: bytes) -> None:
        """Send a view framed by text_frame() (framed once for every socket it goes to)."""
        with self._lock:
            if self.closed.is_set() or self._closing:
                return
            self._view = frame
            self._write()
            waiting = bool(self._out) or self._closing   # bytes left, or the socket failed under us
        if waiting:
            self.loop.watch(self)

    def send_message(self, text: str) -> None:
        """An answer to what the phone sent: queued after every view sent before it, never superseded by one."""
        with self._lock:
            if self.closed.is_set() or self._closing:
                return
            if self._view is not None and self.ws.state is self.p.ConnectionState.OPEN:
                self._queue(self._view)   # the view the answer follows goes first
                self._view = None
            self._queue(text_frame(text))
            self._write()
            waiting = bool(self._out) or self._closing
        if waiting:
            self.loop.watch(self)

    def close(self, code: int = NORMAL_CLOSURE, reason: str = "") -> None:
        """Say goodbye (when the socket takes it) and drop the connection."""
        p = self.p
        with self._lock:
            if self.closed.is_set() or self._closing:
                return
            self._view = None
            try:
                self._queue(self.ws.send(p.CloseConnection(code, reason)))
            except p.LocalProtocolError:
                pass
            self._closing = True
            self._write()
        self.loop.watch(self)

    # -- under the lock --

    def _queue(self, data: bytes) -> None:
        if not self._out:
            self._out_since = time.monotonic()
        self._out += data

    def _write(self) -> None:
        """Send what the kernel takes now; frame the newest view once earlier bytes are out."""
        while True:
            if not self._out and self._view is not None and self.ws.state is self.p.ConnectionState.OPEN:
                self._queue(self._view)   # wsproto keeps no state for a whole, unfragmented message
                self._view = None
            if not self._out:
                return
            try:
                n = self.sock.send(self._out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._out.clear()
                self._closing = True
                return
            del self._out[:n]

    # -- the loop's thread only --

    def _on_readable(self) -> None:
        try:
            data = self.sock.recv(SOCKET_RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        p = self.p
        messages: list[str] = []
        with self._lock:
            if not data:
                self._closing = True
                self._out.clear()
                return
            if self._closing:
                return   # a close is on its way: what else comes is dropped unread
            try:
                self.ws.receive_data(data)
                for event in self.ws.events():
                    if isinstance(event, p.Ping):
                        self._queue(self.ws.send(event.response()))
                    elif isinstance(event, p.Pong):
                        self._pong = True
                    elif isinstance(event, p.CloseConnection):
                        # A protocol error (a compressed frame, bad UTF-8, an unmasked frame) comes here too.
                        if self.ws.state is p.ConnectionState.REMOTE_CLOSING:
                            self._queue(self.ws.send(event.response()))
                        elif self.ws.state is p.ConnectionState.OPEN:
                            self._queue(self.ws.send(p.CloseConnection(event.code, event.reason)))
                        self._view = None
                        self._closing = True
                        break
                    elif isinstance(event, (p.TextMessage, p.BytesMessage)):
                        # A text message goes to on_message whole (a phone's action); anything else is read and
                        # dropped, only its length kept.
                        self._incoming += len(event.data)
                        if self.on_message is not None and isinstance(event, p.TextMessage):
                            self._parts.append(event.data)
                        if self._incoming > MAX_MESSAGE:
                            self._queue(self.ws.send(p.CloseConnection(MESSAGE_TOO_BIG,
                                                                       "messages are limited to 1 KB")))
                            self._view = None
                            self._closing = True
                            break
                        if event.message_finished:
                            self._incoming = 0
                            if self._parts:
                                messages.append("".join(self._parts))
                                self._parts = []
            except p.LocalProtocolError:
                self._closing = True
            if len(self._out) > MAX_QUEUED:   # pongs piling up for a peer that pings and never reads
                self._out.clear()
                self._closing = True
            self._write()
            if self._closing:
                return
        for text in messages:   # outside the lock: answering publishes views to this very socket
            self.on_message(self, text)

    def _on_writable(self) -> None:
        with self._lock:
            self._write()

    def _tick(self, now: float) -> None:
        """Deadlines: a view the phone has not read in time, a ping without pong, too much queued."""
        with self._lock:
            if self._out and (now - self._out_since > SOCKET_SEND_DEADLINE or len(self._out) > MAX_QUEUED):
                self._out.clear()
                self._closing = True
                return
            if self._closing:
                return
            if now >= self._next_ping:
                if not self._pong:
                    self._out.clear()
                    self._closing = True
                    return
                self._pong = False
                self._next_ping = now + PING_INTERVAL
                self._queue(self.ws.send(self.p.Ping()))
                self._write()

    def _abandon(self) -> None:
        """Drop at once, whatever was queued."""
        with self._lock:
            self._out.clear()
            self._view = None
            self._closing = True

    def _wants_write(self) -> bool:
        return bool(self._out)

    def _done(self) -> bool:
        """Closing and nothing left to send (or nothing more that could be sent)."""
        return self._closing and not self._out

    def _drop(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        self.closed.set()
        if self.on_close is not None:
            self.on_close()


class Loop:
    """The thread that owns every LiveSocket's reads, waits and deadlines (started on first use)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._todo: deque[LiveSocket] = deque()
        self._thread: Optional[threading.Thread] = None
        self._wake_r: Optional[socket.socket] = None
        self._wake_w: Optional[socket.socket] = None
        self._pid = 0

    def watch(self, live: LiveSocket) -> None:
        """Ask the loop to look at `live` again (new, bytes waiting, or closing)."""
        with self._lock:
            self._start()
            self._todo.append(live)
            try:
                self._wake_w.send(b"\0")
            except (BlockingIOError, OSError):
                pass  # the loop is awake already

    def _start(self) -> None:
        if self._thread is not None and self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._thread = threading.Thread(target=self._run, args=(self._wake_r,), name="companion-live",
                                        daemon=True)
        self._thread.start()

    def _run(self, wake: socket.socket) -> None:
        sel = selectors.DefaultSelector()
        sel.register(wake, selectors.EVENT_READ, None)
        lives: dict[LiveSocket, int] = {}   # -> the events registered for it
        next_tick = time.monotonic() + LIVE_TICK
        while True:
            now = time.monotonic()
            seen: set[LiveSocket] = set()
            for key, mask in sel.select(max(0.0, next_tick - now)):
                live = key.data
                if live is None:
                    try:
                        while wake.recv(WAKE_BYTES):
                            pass
                    except (BlockingIOError, InterruptedError):
                        pass
                    continue
                try:
                    if mask & selectors.EVENT_READ:
                        live._on_readable()
                    if mask & selectors.EVENT_WRITE:
                        live._on_writable()
                except Exception:   # a bug with one socket must not stop every other phone's
                    log.exception("live socket failed; dropping it")
                    live._abandon()
                seen.add(live)
            with self._lock:
                todo, self._todo = self._todo, deque()
            seen.update(todo)
            now = time.monotonic()
            if now >= next_tick:
                next_tick = now + LIVE_TICK
                for live in lives:
                    try:
                        live._tick(now)
                    except Exception:
                        log.exception("live socket failed; dropping it")
                        live._abandon()
                seen.update(lives)
            for live in seen:
                self._update(sel, lives, live)

    @staticmethod
    def _update(sel: selectors.BaseSelector, lives: dict, live: LiveSocket) -> None:
        """Register what `live` now waits for; drop it once it is done."""
        with live._lock:
            done, wants = live._done(), live._wants_write()
        if done:
            if live in lives:
                del lives[live]
                try:
                    sel.unregister(live.sock)
                except (KeyError, ValueError, OSError):
                    pass
            if not live.closed.is_set():
                live._drop()
            return
        if live.closed.is_set():
            return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if wants else 0)
        try:
            if live not in lives:
                sel.register(live.sock, events, live)
            elif lives[live] != events:
                sel.modify(live.sock, events, live)
        except (KeyError, ValueError, OSError):
            live._abandon()
            lives.pop(live, None)
            live._drop()
            return
        lives[live] = events
