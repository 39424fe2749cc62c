"""A real `companion serve` on 127.0.0.1, phones with their own cookie jars, and games driven through the API."""
from __future__ import annotations

import functools
import http.client
import http.cookiejar
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Optional

import simple_websocket
from wsproto.events import Ping
from wsproto.utilities import LocalProtocolError

ROOT = Path(__file__).resolve().parent.parent
COMPANION = ROOT / ".venv" / "bin" / "companion"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """`companion serve` as a subprocess in its own session, so a SIGKILL takes it whole."""

    def __init__(self, db: Path, port: Optional[int] = None, env: Optional[dict] = None,
                 cmd_prefix: tuple = (), host: str = "127.0.0.1"):
        self.db = Path(db)
        self.host = host   # where it listens; the tests still talk to it on 127.0.0.1
        self.port = port or free_port()
        self.env = dict(os.environ, **(env or {}))
        self.env.setdefault("PYTHONUNBUFFERED", "1")
        self.cmd_prefix = tuple(cmd_prefix)
        self.proc: Optional[subprocess.Popen] = None
        self.log = self.db.with_suffix(".log")

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 15.0) -> float:
        """Launch and wait until it answers; returns the seconds that took."""
        t0 = time.perf_counter()
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [*self.cmd_prefix, str(COMPANION), "serve", "--host", self.host, "--port", str(self.port),
             "--db", str(self.db)],
            stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True, cwd=str(ROOT))
        out.close()
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", "/api/games/current")
                c.getresponse().read()
                c.close()
                return time.perf_counter() - t0
            except OSError:
                if time.perf_counter() - t0 > timeout:
                    self.kill()
                    raise RuntimeError("server did not answer in time:\n" + self.log.read_text()[-3000:])
                time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL the whole process group: no shutdown code runs, as in a power cut of the process."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

    def worker_pid(self) -> Optional[int]:
        """The one process that serves (HTTP loop, the app's threads, the live loop)."""
        return self.proc.pid if self.proc is not None else None

    # -- the log, read straight from the SQLite file --

    def events(self, game: Optional[str] = None) -> list[tuple]:
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        try:
            if game is None:
                return conn.execute("SELECT game, seq, kind, body FROM events ORDER BY game, seq").fetchall()
            return conn.execute("SELECT game, seq, kind, body FROM events WHERE game = ? ORDER BY seq",
                                (game,)).fetchall()
        finally:
            conn.close()

    def event_count(self) -> int:
        return len(self.events())


class Reply:
    """An HTTP answer: status, raw body and its JSON."""

    def __init__(self, status: int, body: bytes, headers):
        self.status = status
        self.body = body
        self.headers = headers
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def __repr__(self) -> str:
        return f"<Reply {self.status} {self.body[:300]!r}>"


class _FromHandler(urllib.request.HTTPHandler):
    """urllib's HTTP, leaving from one source address (127.0.0.0/8 gives each test device its own)."""

    def __init__(self, source: str):
        super().__init__()
        self.source = source

    def http_open(self, req):
        return self.do_open(functools.partial(http.client.HTTPConnection, source_address=(self.source, 0)), req)


class _BoundSocketModule:
    """The `socket` module as simple_websocket sees it, except that new sockets leave from `source`."""

    def __init__(self, source: str):
        self.source = source

    def __getattr__(self, name):
        return getattr(socket, name)

    def socket(self, *args, **kwargs):
        s = socket.socket(*args, **kwargs)
        s.bind((self.source, 0))
        return s


_ws_source_lock = threading.Lock()


class Phone:
    """One browser: its own cookie jar, JSON requests with this server's Origin, and its sockets;
    `source` makes it another device on the network (an address such as 127.0.0.11)."""

    def __init__(self, server: LiveServer, lang: Optional[str] = None, name: str = "",
                 source: Optional[str] = None):
        self.server = server
        self.name = name
        self.source = source
        self.jar = http.cookiejar.CookieJar()
        handlers = [urllib.request.HTTPCookieProcessor(self.jar)] + ([_FromHandler(source)] if source else [])
        self.opener = urllib.request.build_opener(*handlers)
        self.lang = lang
        self.seen: list = []          # every reply body and socket message, when capture is on
        self.capture = False
        self.sockets: list = []

    def request(self, method: str, path: str, body: Any = None, headers: Optional[dict] = None,
                raw: Optional[bytes] = None, timeout: float = 15.0) -> Reply:
        h = {"Origin": self.server.origin}
        if body is not None or raw is not None or method == "POST":
            h["Content-Type"] = "application/json"
        if self.lang:
            h["Accept-Language"] = self.lang
        h.update(headers or {})
        h = {k: v for k, v in h.items() if v is not None}
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else
                                            (b"{}" if method == "POST" else None))
        req = urllib.request.Request(self.server.origin + path, data=data, method=method, headers=h)
        try:
            with self.opener.open(req, timeout=timeout) as r:
                reply = Reply(r.status, r.read(), r.headers)
        except urllib.error.HTTPError as e:
            reply = Reply(e.code, e.read(), e.headers)
        if self.capture:
            self.seen.append(("http", method, path, reply.body))
        return reply

    def post(self, path: str, body: Any = None, **kw) -> Reply:
        return self.request("POST", path, {} if body is None else body, **kw)

    def get(self, path: str, **kw) -> Reply:
        return self.request("GET", path, **kw)

    def view(self, gid: str) -> dict:
        r = self.get(f"/api/games/{gid}")
        assert r.status == 200, r
        return r.json

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def adopt(self, other: "Phone") -> None:
        """Carry another phone's cookies: the same device coming back."""
        for c in other.jar:
            self.jar.set_cookie(c)

    def ws(self, gid: str, since: Optional[int] = None, origin: Optional[str] = "") -> "Socket":
        url = f"{self.server.ws_base}/api/games/{gid}/live" + (f"?since={since}" if since is not None else "")
        headers = {"Cookie": self.cookie_header()}
        if self.lang:   # as a browser sends it on the handshake too: a socket's answers are in this language
            headers["Accept-Language"] = self.lang
        o = self.server.origin if origin == "" else origin
        if o is not None:
            headers["Origin"] = o
        if self.source:
            with _ws_source_lock:
                plain, simple_websocket.ws.socket = simple_websocket.ws.socket, _BoundSocketModule(self.source)
                try:
                    client = simple_websocket.Client.connect(url, headers=headers)
                finally:
                    simple_websocket.ws.socket = plain
        else:
            client = simple_websocket.Client.connect(url, headers=headers)
        sock = Socket(client, self)
        self.sockets.append(sock)
        return sock

    def close(self) -> None:
        for s in self.sockets:
            s.close()
        self.sockets.clear()


class Socket:
    """A live connection that keeps every message it receives (in a thread) and the newest view."""

    def __init__(self, client, phone: Phone):
        self.client = client
        self.phone = phone
        self.messages: list[dict] = []
        self.acks: list[dict] = []            # answers to actions sent over this socket (web/live_acts.py)
        self.arrived: dict[int, float] = {}   # seq -> perf_counter() when it first came in (benchmarks)
        self.cond = threading.Condition()
        self.closed = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        # simple_websocket's client stops reading at the handshake's answer: a view that came in the
        # same packet waits in its buffer until more bytes arrive. A ping brings a pong, and with it
        # that view. (Browsers read on; the server has sent it either way.)
        try:
            client.sock.send(client.ws.send(Ping()))
        except (OSError, LocalProtocolError):
            pass  # already closed by the server: the reader thread has seen it

    def _read(self) -> None:
        try:
            while True:
                raw = self.client.receive()
                if raw is None:
                    break
                now = time.perf_counter()
                msg = json.loads(raw)
                with self.cond:
                    if "ack" in msg:
                        self.acks.append(msg)
                        self.cond.notify_all()
                        continue
                    self.arrived.setdefault(msg["seq"], now)
                    if self.phone.capture:
                        self.phone.seen.append(("ws", "", "", raw if isinstance(raw, bytes) else raw.encode()))
                    self.messages.append(msg)
                    self.cond.notify_all()
        except (simple_websocket.ConnectionClosed, OSError):
            pass
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    @property
    def last(self) -> Optional[dict]:
        with self.cond:
            return self.messages[-1] if self.messages else None

    def wait_seq(self, seq: int, timeout: float = 10.0) -> dict:
        """Block until a view at `seq` or later has arrived."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not (self.messages and self.messages[-1]["seq"] >= seq):
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError(f"no view at seq {seq}; last {self.messages[-1]['seq'] if self.messages else None}")
                self.cond.wait(left)
            return self.messages[-1]

    def arrival(self, seq: int, timeout: float = 10.0) -> float:
        """When the view at `seq` (or the first one after it) came in, once it has."""
        self.wait_seq(seq, timeout)
        with self.cond:
            return self.arrived.get(seq, self.arrived[min(s for s in self.arrived if s >= seq)])

    def act(self, body: dict, aid: str, timeout: float = 10.0) -> dict:
        """Send an action over the socket as the phone's page does, and wait for its answer."""
        self.client.send(json.dumps({"id": aid, "act": body}))
        return self.ack(aid, timeout)

    def ack(self, aid: Optional[str], timeout: float = 10.0, count: int = 1) -> dict:
        """The `count`th answer to the action `aid` (once it has come)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while len([a for a in self.acks if a["ack"] == aid]) < count:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError(f"no answer to {aid!r}; answers {self.acks}")
                self.cond.wait(left)
            return [a for a in self.acks if a["ack"] == aid][count - 1]

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:
            pass
        self.thread.join(timeout=5)


# -- games through the API --

def create_game(host: Phone, colors, mode: str = "family", deal: str = "app", seed: Optional[int] = None,
                removed=None, layout: Any = "random", pace: Optional[str] = None) -> str:
    body = {"mode": mode, "players": list(colors), "deal": deal, "layout": layout}
    if pace is not None:
        body["pace"] = pace
    if removed is None:
        removed = {4: [], 3: ["west"], 2: ["north", "east"]}[len(colors)]
    body["removed_districts"] = list(removed)
    if seed is not None:
        body["seed"] = seed
    r = host.post("/api/games", body)
    assert r.status == 201, r
    return r.json["id"]


def seat_and_start(gid: str, host: Phone, phones: dict, cards: Optional[dict] = None) -> dict:
    """Each phone claims its colour (and types its cards for a physical deal); the host starts."""
    for color, phone in phones.items():
        r = phone.post(f"/api/games/{gid}/seats/{color}", {"name": f"P-{color}"})
        assert r.status == 200, r
        assert r.json["you"]["color"] == color
    for color, (area, hood) in (cards or {}).items():
        r = phones[color].post(f"/api/games/{gid}/seats/{color}/cards", {"area": area, "neighborhood": hood})
        assert r.status == 200, r
    r = host.post(f"/api/games/{gid}/start")
    assert r.status == 200, r
    return r.json


def choose(view: dict, rng: random.Random, pass_rate: float = 0.3) -> dict:
    """A move picked from the `legal` field the server sent to the player to act."""
    legal = view["legal"]
    assert legal is not None, "the player to act got no legal moves"
    if legal["pass"] and (not legal["neighborhoods"] or rng.random() < pass_rate):
        return {"pass": True}
    nb = rng.choice(sorted(legal["neighborhoods"]))
    return {"bid": nb, "value": rng.choice(legal["neighborhoods"][nb])}


def as_action(color: str, move: dict) -> dict:
    return {"player": color, "pass": True} if move.get("pass") else {"player": color, "bid": move["bid"],
                                                                      "value": move["value"]}


def play(gid: str, phones: dict, rng: random.Random, max_actions: Optional[int] = None,
         pass_rate: float = 0.3) -> list[dict]:
    """Play on through the API, each move sent by the phone of the player to act; returns the actions sent."""
    done = []
    view = next(iter(phones.values())).view(gid)
    while view["phase"] == "playing" and (max_actions is None or len(done) < max_actions):
        color = view["to_act"]
        mine = phones[color].view(gid)
        move = choose(mine, rng, pass_rate)
        r = phones[color].post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]))
        assert r.status == 200, r
        assert r.json["seq"] == mine["seq"] + 1
        done.append(as_action(color, move))
        view = r.json
    return done


def score_record(record: dict) -> dict:
    """Scores as the real `companion score -` prints them."""
    p = subprocess.run([str(COMPANION), "score", "-"], input=json.dumps(record), capture_output=True,
                       text=True, timeout=60, cwd=str(ROOT))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def timeless(view: dict) -> dict:
    """A view without the countdowns, the fields that move with the clock (seconds until a host claim or a seat ask)."""
    return {k: v for k, v in view.items() if k not in ("host_wait", "seat_waits")}
