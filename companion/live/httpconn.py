"""One HTTP/1.1 connection as h11 parses it, the WSGI environ made from a whole request, and the bytes of an
answer: the reading and writing of HTTP, apart from the loop that decides whose turn it is."""
from __future__ import annotations

import io
import socket
import sys
from typing import Optional
from urllib.parse import unquote_to_bytes, urlsplit

import h11

from companion.limits import IDLE_DEADLINE, KEEPALIVE, MAX_BODY, MAX_HEAD, OWN

REASONS = {400: "Bad Request", 414: "URI Too Long", 431: "Request Header Fields Too Large"}


class Conn:
    """One client connection and where it is: reading, queued, running (in a thread), writing."""

    __slots__ = ("sock", "address", "port", "h11", "state", "deadline", "opened", "known", "head",
                 "body", "too_large", "out", "detached", "watching", "begun", "upgrade")

    def __init__(self, sock: socket.socket, peer, now: float):
        self.sock = sock
        self.address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        self.port = str(peer[1]) if isinstance(peer, tuple) and len(peer) > 1 else ""
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self.state = "reading"
        self.opened = now
        self.deadline = now + IDLE_DEADLINE
        self.known = self.address in OWN
        self.head: Optional[h11.Request] = None
        self.body = bytearray()
        self.too_large = False
        self.out = bytearray()
        self.detached = False   # a WebSocket taken by the live loop: no longer ours
        self.watching = 0       # selector events registered
        self.begun = False      # the current request's first byte has come: its deadline runs
        self.upgrade = False    # the request being run asks for an upgrade: the app may take the socket

    def next_request(self):
        """What h11 has parsed: "wait" (more bytes needed), "whole" (a request to run, or one too large to
        read), "closed", or an int, the status a request h11 cannot parse is refused with."""
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as e:
                return e.error_status_hint if 400 <= e.error_status_hint < 500 else 400
            if event is h11.NEED_DATA:
                if self.h11.they_are_waiting_for_100_continue and self.head is not None:
                    try:
                        self.sock.send(self.h11.send(h11.InformationalResponse(status_code=100, headers=[])))
                    except (OSError, h11.LocalProtocolError):
                        pass
                return "wait"
            if isinstance(event, h11.Request):
                self.head, self.body, self.too_large = event, bytearray(), False
                if declared_length(event) > MAX_BODY:
                    self.too_large = True   # the app says 413 from the head alone; the body is never read
                    return "whole"
            elif isinstance(event, h11.Data):
                self.body += event.data
                if len(self.body) > MAX_BODY:
                    self.too_large = True
                    return "whole"
            elif isinstance(event, h11.EndOfMessage):
                return "whole"
            elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                return "closed"

    def answer(self, answer: dict, body: bytes) -> bytes:
        """The app's answer framed by h11 (raises h11.LocalProtocolError if it cannot be)."""
        status = answer["status"]
        code = int(status[:3])
        headers = [(str(k).encode("latin-1"), str(v).encode("latin-1")) for k, v in answer["headers"]]
        bodyless = self.head is None or self.head.method == b"HEAD" or code < 200 or code in (204, 304)
        if not any(k.lower() == b"content-length" for k, _ in headers) and not bodyless:
            headers.append((b"Content-Length", str(len(body)).encode()))
        if self.too_large:
            headers.append((b"Connection", b"close"))
        else:
            # Said, so a client stops reusing the connection before we close it (Node's agent does, from this
            # header): a POST sent on it as it closes would otherwise be lost to the client as "socket hang up".
            headers.append((b"Keep-Alive", b"timeout=%d" % int(KEEPALIVE)))
        out = self.h11.send(h11.Response(status_code=code, reason=status[4:].encode("latin-1"), headers=headers))
        if body and not bodyless:
            out += self.h11.send(h11.Data(data=body))
        return out + self.h11.send(h11.EndOfMessage())

    def next_cycle(self) -> bool:
        """Ready for the next request on this connection (False: h11 says it must close)."""
        if self.h11.our_state is not h11.DONE or self.h11.their_state is not h11.DONE:
            return False
        self.h11.start_next_cycle()
        self.head, self.body, self.too_large, self.begun = None, bytearray(), False, False
        return True


def refusal(status: int) -> bytes:
    """The short answer to a request h11 cannot parse; the connection closes after it."""
    body = b"This request could not be read.\n"
    return (f"HTTP/1.1 {status} {REASONS.get(status, 'Bad Request')}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


def environ(conn: Conn, local: tuple) -> dict:
    """The WSGI environ of the request `conn` has read whole."""
    req = conn.head
    target = req.target
    if target[:7].lower() == b"http://" or target[:8].lower() == b"https://":
        parts = urlsplit(target.decode("latin-1"))
        path, query = parts.path or "/", parts.query
    else:
        raw, _, q = target.partition(b"?")
        path, query = raw.decode("latin-1"), q.decode("latin-1")
    path = path.partition("#")[0]
    env = {
        "REQUEST_METHOD": req.method.decode("latin-1"),
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
        "QUERY_STRING": query,
        "RAW_URI": target.decode("latin-1"),
        "SERVER_PROTOCOL": "HTTP/" + req.http_version.decode("latin-1"),
        "REMOTE_ADDR": conn.address,
        "REMOTE_PORT": conn.port,
        "SERVER_NAME": str(local[0]),
        "SERVER_PORT": str(local[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(bytes(conn.body)),
        "wsgi.input_terminated": True,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "companion.socket": conn.sock,
        "companion.detach": lambda: setattr(conn, "detached", True),
    }
    _headers(env, req.headers)
    env["CONTENT_LENGTH"] = str(max(len(conn.body), declared_length(req) if conn.too_large else 0))
    return env


def _headers(env: dict, headers) -> None:
    for name, value in headers:
        text_name = name.decode("latin-1")
        if "_" in text_name:
            continue   # X_Forwarded_For would pass for X-Forwarded-For: such names are dropped
        key = text_name.upper().replace("-", "_")
        text = value.decode("latin-1")
        if key == "CONTENT_TYPE":
            env["CONTENT_TYPE"] = text
            continue
        if key in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
            continue
        key = "HTTP_" + key
        if key in env:
            env[key] += ("; " if key == "HTTP_COOKIE" else ",") + text
        else:
            env[key] = text


def declared_length(req: h11.Request) -> int:
    for name, value in req.headers:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0
