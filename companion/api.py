"""Blueprint: the JSON API and the live socket. Requests are checked here; `table` does the rest."""
from __future__ import annotations

import secrets
import threading
import time
from typing import Optional
from urllib.parse import urlparse

from flask import Blueprint, Response, current_app, g, jsonify, request
from werkzeug.exceptions import HTTPException

from . import i18n, names
from .db import StoreError, StoreFull
from .game.board import board_data
from .game.errors import RuleError
from .game.setup import check_saved_layout
from .live import OWN
from .netaddr import join_url, no_network, start_url

from .table import Refused, Table, device_id
from .wsloop import HandshakeError, LiveSocket, accept_headers

bp = Blueprint("api", __name__, url_prefix="/api")

# Field -> (what a player is told it must be, check). Unknown fields are refused.
_STR = ("text", lambda v: isinstance(v, str))
_INT = ("a whole number", lambda v: type(v) is int)
_STRS = ("a list of text", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
_TRUE = ("true", lambda v: v is True)
_OBJ = ("an object", lambda v: isinstance(v, dict))
_LAYOUT = ('"random" or {"tokens": {...}}', lambda v: v == "random" or (
    isinstance(v, dict) and set(v) == {"tokens"} and isinstance(v["tokens"], dict)
    and all(isinstance(k, str) and isinstance(x, str) for k, x in v["tokens"].items())))
_DEAL = ('"app" or "physical"', lambda v: v in ("app", "physical"))
_OPT_STR = ("text or null", lambda v: v is None or isinstance(v, str))
_NAME = ("a name of 1 to 24 characters", lambda v: isinstance(v, str) and 0 < len(v.strip()) <= 24)

GAME_FIELDS = {"mode": (_STR, True), "players": (_STRS, True), "removed_districts": (_STRS, False),
               "layout": (_LAYOUT, False), "seed": (_INT, False), "deal": (_DEAL, False)}


def table() -> Table:
    return current_app.extensions["table"]


def lang() -> str:
    return i18n.pick_lang(request)


@bp.before_app_request
def identify_device() -> None:
    """Every device carries an unguessable cookie; the log knows it only by its hash."""
    cookie = request.cookies.get("device", "")
    g.new_cookie = None
    if not (20 <= len(cookie) <= 64 and cookie.replace("-", "").replace("_", "").isalnum()):
        cookie = secrets.token_urlsafe(32)
        g.new_cookie = cookie
    g.device = device_id(cookie)


@bp.before_app_request
def notice_table_display() -> None:
    """The Pi's own screen (its kiosk opens http://localhost/... on the Pi, from 127.0.0.1 or ::1) keeps the
    table's powers (start, undo, pass for the absent, abandon, rematch); no other address ever gets them."""
    addr = request.remote_addr or ""
    host = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
    if host.lower() == "localhost" and addr in OWN:
        t = table()
        t.kiosks.add(g.device)
        t.displays.add(g.device)


def address() -> str:
    return request.remote_addr or ""


@bp.after_app_request
def set_device_cookie(response: Response) -> Response:
    if getattr(g, "new_cookie", None):
        response.set_cookie("device", g.new_cookie, max_age=400 * 86400, httponly=True, samesite="Strict")
    return response


def _host_port(netloc: str, default_port: str) -> str:
    """host:port, lower case, with the port filled in when the header left it out."""
    netloc = netloc.lower()
    return netloc if ":" in netloc.rsplit("]", 1)[-1] else f"{netloc}:{default_port}"


def _same_origin(value: Optional[str]) -> bool:
    """Origin (or Referer) names this server: same host and port (a Host header may omit the port)."""
    if not value:
        return False
    try:
        url = urlparse(value)
    except ValueError:   # "http://[::1" and the like: not an origin at all
        return False
    if url.scheme not in ("http", "https") or not url.netloc:
        return False
    theirs = _host_port(url.netloc, "443" if url.scheme == "https" else "80")
    return theirs == _host_port(request.host, request.environ.get("SERVER_PORT", "80"))


@bp.before_app_request
def guard_sockets() -> Optional[Response]:
    """A socket from a foreign page is refused before the handshake: it never gets a byte of a view."""
    if request.headers.get("Upgrade", "").lower() != "websocket" or not request.path.startswith("/api/"):
        return None
    if not request.headers.get("Host"):
        return refuse(400, "bad_request")   # RFC 6455 4.1: a handshake names its host
    if not _same_origin(request.headers.get("Origin")):
        return refuse(403, "bad_origin")
    return None


@bp.before_request
def guard_writes() -> Optional[Response]:
    """CSRF as OWASP advises for JSON APIs: a JSON body and an Origin (or Referer) of this server."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    if request.mimetype != "application/json":
        return refuse(415, "bad_json")
    origin = request.headers.get("Origin")
    if not (_same_origin(origin) if origin else _same_origin(request.headers.get("Referer"))):
        return refuse(403, "bad_origin")
    return None


def refuse(status: int, key: str, **params) -> Response:
    sentence = i18n.t(lang(), key, **params)
    response = jsonify({"error": sentence[:1].upper() + sentence[1:], "code": key})
    response.status_code = status
    return response


def view_response(text: str) -> Response:
    """A view already encoded once for this device (the same text its socket gets)."""
    return Response(text, mimetype="application/json")


def payload(fields: dict) -> dict:
    """The request's JSON object, with every field known and of the right type."""
    try:
        request.get_data(cache=True)
    except HTTPException:   # 413 and the like: already the right answer
        raise
    except Exception:  # the server's body reader: a broken chunk, a body cut short
        raise Refused(400, "bad_request") from None
    try:
        data = request.get_json(silent=True)
    except RecursionError:   # [[[[...]]]] deeper than the parser goes
        data = None
    if not isinstance(data, dict):
        raise Refused(400, "bad_json")
    for name in data:
        if name not in fields:
            raise Refused(400, "unknown_field", field=name)
    for name, ((kind, ok), required) in fields.items():
        if name not in data:
            if required:
                raise Refused(400, "missing_field", field=name)
        elif not ok(data[name]):
            raise Refused(400, "bad_type", field=name, kind=kind)
    return data


@bp.errorhandler(Refused)
def on_refused(e: Refused):
    if e.key == "stale":
        response = jsonify({"error": i18n.t(lang(), "stale"), "code": "stale",
                            "view": table().view(request.view_args.get("gid", ""), g.device)})
        response.status_code = 409
        return response
    return refuse(e.status, e.key, **e.params)


@bp.errorhandler(StoreError)
def on_store_error(e: StoreError):
    """Nothing was recorded: the device is told why, in its language (a full disk is said as such)."""
    key = e.key
    if isinstance(e, StoreFull):
        key = "disk_full" if request.endpoint == "api.act" else "disk_full_change"
        current_app.logger.error("The disk is full: %s %s was not recorded.", request.method, request.path)
    else:
        current_app.logger.error("The database did not take %s %s: %s", request.method, request.path, e)
    return refuse(507 if isinstance(e, StoreFull) else 503, key)


@bp.errorhandler(RuleError)
def on_rule_error(e: RuleError):
    response = jsonify({"error": i18n.error_sentence(lang(), e, you=_about_you(e)), "code": e.code})
    response.status_code = 422
    return response


def _about_you(e: RuleError) -> bool:
    """The refused player is this device's own seat: the sentence says "you", not the player's name."""
    gid, player = (request.view_args or {}).get("gid"), e.params.get("player")
    if not gid or not player:
        return False
    try:
        return table().get(gid).seat_of(g.device) == player
    except Refused:
        return False


class RateLimit:
    """A token bucket per device: a phone gone mad cannot flood the log."""

    def __init__(self, per_second: float, burst: int):
        self.rate, self.burst = per_second, burst
        self.buckets: dict[str, tuple[float, float]] = {}
        self.lock = threading.Lock()

    def allow(self, device: str) -> bool:
        now = time.monotonic()
        with self.lock:
            if len(self.buckets) > 4096:
                # Cookieless requests make a new device each time: forget buckets that are full again.
                self.buckets = {d: (t, w) for d, (t, w) in self.buckets.items()
                                if t + (now - w) * self.rate < self.burst}
            tokens, then = self.buckets.get(device, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens < 1:
                self.buckets[device] = (tokens, now)
                return False
            self.buckets[device] = (tokens - 1, now)
            return True


# -- what one device may add to the log and the Pi's memory --

CHANGES_PER_GAME = 100     # seat claims, renames, releases, cards and setups one device logs in one game
_lobbies_lock = threading.Lock()


def limit_writes() -> None:
    """Every write that grows a store: a token bucket per device and a wider one per address."""
    limits = current_app.extensions["write_limit"]
    if not (limits[0].allow(g.device) and limits[1].allow(request.remote_addr or "")):
        raise Refused(429, "rate_limited")


def limit_changes(game) -> None:
    if game.changes.get(g.device, 0) >= CHANGES_PER_GAME:
        raise Refused(429, "names_full", limit=CHANGES_PER_GAME)


def _open_lobbies(gids) -> list[str]:
    games = table().games
    return [gid for gid in gids if gid in games and games[gid].phase == "lobby"]


# -- games --

@bp.post("/games")
def create_game():
    options = payload(GAME_FIELDS)
    limit_writes()
    t = table()
    # Games a device hosts that have not started yet; twice that per address, for devices that drop their cookie.
    per_device = current_app.config["LOBBY_LIMIT"]
    if sum(1 for game in list(t.games.values()) if game.host == g.device and game.phase == "lobby") >= per_device:
        raise Refused(429, "games_full", limit=per_device)
    address = request.remote_addr or ""
    by_address = current_app.extensions["lobbies"]
    with _lobbies_lock:
        mine = by_address[address] = _open_lobbies(by_address.get(address, []))
        if len(mine) >= 2 * per_device:
            raise Refused(429, "games_full", limit=2 * per_device)
        for other in [a for a, gids in by_address.items() if not _open_lobbies(gids)]:
            del by_address[other]
        game = t.create(options, g.device)
        by_address.setdefault(address, []).append(game.id)
    return jsonify({"id": game.id, "join_url": join_url(request.host_url, current_app.config, game.id),
                    "shown": game.shown}), 201


@bp.get("/games/current")
def current_game():
    """The game the table shows (the host chose it): the front door offers it first."""
    t = table()
    game = t.games.get(t.current) if t.current else None
    if game is None:
        return jsonify({"id": None, "join_url": None, "phase": None,
                        "start_url": start_url(request.host_url, current_app.config),
                        "no_network": no_network(request.host_url, current_app.config.get("JOIN_URL"),
                                                 current_app.config.get("LISTEN"))})
    return jsonify({"id": game.id, "join_url": join_url(request.host_url, current_app.config, game.id),
                    "phase": game.phase,
                    "players": [{"color": c, "name": game.names.get(c), "seated": c in game.devices}
                                for c in game.colors],
                    "host": game.can_host(g.device), "seated": game.seat_of(g.device),
                    "setup": {"mode": game.mode, "players": list(game.colors),
                              "removed_districts": sorted(game.removed), "deal": game.deal,
                              "layout": game.layout}})


@bp.get("/table")
def table_display():
    """Whether this device is a table display, and whether it is the Pi's own screen (the kiosk)."""
    t = table()
    return jsonify({"display": g.device in t.displays, "kiosk": g.device in t.kiosks})


@bp.post("/table/code")
def display_code():
    """Asked for on the Pi's own screen only: the code that makes another device a table display."""
    payload({})
    return jsonify({"code": table().show_display_code(g.device)})


@bp.post("/table/claim")
def claim_display():
    data = payload({"code": (_STR, True)})
    table().become_display(data["code"], g.device, address())
    return jsonify({"display": True})


@bp.get("/games/<gid>")
def get_game(gid: str):
    return view_response(table().view_json(gid, g.device))


@bp.post("/games/<gid>/setup")
def change_setup(gid: str):
    options = payload(GAME_FIELDS)
    limit_writes()
    limit_changes(table().get(gid))
    return view_response(table().change_setup(gid, options, g.device))


@bp.post("/games/<gid>/seats/<color>")
def claim_seat(gid: str, color: str):
    data = payload({"name": (_NAME, True)})
    name = names.clean(data["name"])
    if name is None:
        raise Refused(400, "bad_name")
    limit_writes()
    limit_changes(table().get(gid))
    return view_response(table().claim_seat(gid, color, name, g.device, address()))


@bp.post("/games/<gid>/seats/<color>/release")
def release_seat(gid: str, color: str):
    payload({})
    limit_writes()
    limit_changes(table().get(gid))
    return view_response(table().release_seat(gid, color, g.device, address()))


@bp.post("/games/<gid>/seats/<color>/code")
def seat_code(gid: str, color: str):
    payload({})
    return view_response(table().seat_code(gid, color, g.device))


@bp.post("/games/<gid>/seats/<color>/move")
def move_seat(gid: str, color: str):
    data = payload({"code": (_STR, True), "name": (_NAME, False)})
    if not current_app.extensions["rate_limit"].allow(g.device):
        raise Refused(429, "rate_limited")
    name = data["name"].strip() if "name" in data else None
    return view_response(table().move_seat(gid, color, data["code"], name, g.device, address()))


@bp.post("/games/<gid>/seats/<color>/rescue")
def rescue_seat(gid: str, color: str):
    """A seat whose phone is gone: without a code, the Pi's screen shows one; with it, the move is announced."""
    data = payload({"code": (_STR, False)})
    if not current_app.extensions["rate_limit"].allow(g.device):
        raise Refused(429, "rate_limited")
    return view_response(table().rescue_seat(gid, color, data.get("code"), g.device, address()))


@bp.post("/games/<gid>/seats/<color>/rescue/cancel")
def cancel_rescue(gid: str, color: str):
    payload({})
    return view_response(table().cancel_rescue(gid, color, g.device))


@bp.post("/games/<gid>/seats/<color>/remove")
def remove_seat(gid: str, color: str):
    payload({})
    return view_response(table().remove_seat(gid, color, g.device))


@bp.post("/games/<gid>/host")
def hand_host(gid: str):
    data = payload({"color": (_STR, False), "table": (_TRUE, False)})
    if ("color" in data) == ("table" in data):
        raise Refused(400, "missing_field", field="color")
    if "table" in data:
        return view_response(table().table_host(gid, g.device))
    return view_response(table().hand_host(gid, data["color"], g.device))


@bp.post("/games/<gid>/host/claim")
def claim_host(gid: str):
    data = payload({"code": (_STR, False)})
    if not current_app.extensions["rate_limit"].allow(g.device):
        raise Refused(429, "rate_limited")
    return view_response(table().claim_host(gid, data.get("code"), g.device, address()))


@bp.post("/games/<gid>/host/approve")
def approve_host(gid: str):
    data = payload({"color": (_STR, True)})
    return view_response(table().approve_host(gid, data["color"], g.device))


@bp.post("/games/<gid>/pass-for")
def pass_for(gid: str):
    data = payload({"expect_seq": (_INT, False)})
    return view_response(table().pass_for(gid, g.device, data.get("expect_seq")))


@bp.post("/games/<gid>/abandon")
def abandon(gid: str):
    data = payload({"confirm": (_STR, True)})
    return view_response(table().abandon(gid, data["confirm"], g.device))


@bp.post("/games/<gid>/rematch")
def rematch(gid: str):
    data = payload({"rotate": (("true or false", lambda v: isinstance(v, bool)), False)})
    _game, text = table().rematch(gid, data.get("rotate", True), g.device)
    return view_response(text)


@bp.post("/games/<gid>/seats/<color>/cards")
def enter_cards(gid: str, color: str):
    data = payload({"area": (_STR, True), "neighborhood": (_OPT_STR, False)})
    limit_writes()
    limit_changes(table().get(gid))
    return view_response(table().enter_cards(gid, color, data["area"], data.get("neighborhood"), g.device))


@bp.post("/games/<gid>/start")
def start_game(gid: str):
    payload({})
    return view_response(table().start(gid, g.device))


@bp.post("/games/<gid>/actions")
def act(gid: str):
    data = payload({"bid": (_STR, False), "value": (_INT, False), "pass": (_TRUE, False),
                    "expect_seq": (_INT, False)})
    if ("pass" in data) == ("bid" in data) or ("bid" in data) != ("value" in data):
        raise Refused(400, "bad_action")
    if not current_app.extensions["rate_limit"].allow(g.device):
        raise Refused(429, "rate_limited")
    return view_response(table().act(gid, g.device, data, data.get("expect_seq")))


@bp.post("/games/<gid>/undo")
def undo(gid: str):
    data = payload({"expect_seq": (_INT, False)})
    if not current_app.extensions["rate_limit"].allow(g.device):
        raise Refused(429, "rate_limited")
    return view_response(table().undo(gid, g.device, data.get("expect_seq")))


@bp.get("/games/<gid>/record")
def record(gid: str):
    response = jsonify(table().record(gid))
    response.headers["Content-Disposition"] = f'attachment; filename="metropolys-{gid}.json"'
    return response


# -- board, layouts, hardware --

@bp.get("/board")
def board():
    response = jsonify(board_data())
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


LAYOUTS_PER_DEVICE = 20   # a Pi's table reuses a handful; a device saving more is not a host
LAYOUTS_IN_ALL = 200      # cookies can be thrown away: the whole Pi has a ceiling too


@bp.get("/layouts")
def layouts():
    """Names (and player counts) only; `?name=` gives that one layout with its tokens."""
    name = request.args.get("name")
    if name is None:
        return jsonify(table().store.layouts())
    layout = table().store.layout(name)
    if layout is None:
        raise Refused(404, "no_layout")
    # Saved before layouts were checked on save: checked again before any page gets it.
    players, removed = check_saved_layout(layout["tokens"])
    return jsonify({"name": name, "players": players, "removed_districts": sorted(removed),
                    "tokens": layout["tokens"]})


@bp.post("/layouts")
def save_layout():
    """A layout is checked as strictly as a game's; only the device that saved a name may overwrite it."""
    data = payload({"name": (_NAME, True), "tokens": (_OBJ, True)})
    name = names.clean(data["name"])
    if name is None:
        raise Refused(400, "bad_name")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in data["tokens"].items()):
        raise Refused(400, "bad_type", field="tokens", kind="an object from neighborhood to token kind")
    players, removed = check_saved_layout(data["tokens"])
    limit_writes()
    store = table().store
    old = store.layout(name)
    if old is not None and old["device"] != g.device:
        raise Refused(409, "layout_taken")
    if old is None:
        if store.layout_count(g.device) >= LAYOUTS_PER_DEVICE:
            raise Refused(429, "layouts_full", limit=LAYOUTS_PER_DEVICE)
        if store.layout_count() >= LAYOUTS_IN_ALL:
            raise Refused(429, "layouts_full", limit=LAYOUTS_IN_ALL)
    store.save_layout(name, dict(data["tokens"]), g.device, players)
    return jsonify({"name": name, "players": players, "removed_districts": sorted(removed)}), 201


@bp.get("/hardware")
def hardware():
    leds = current_app.extensions.get("leds")
    return jsonify(leds.status() if leds else {"gpio": "none", "lit": [], "pins": {}})


@bp.post("/hardware/test")
def hardware_test():
    payload({})
    t = table()
    game = t.games.get(t.current) if t.current else None
    if game is not None and game.phase == "playing" and not game.can_host(g.device):
        raise Refused(403, "not_host")  # mid-game, only the host may take the LEDs away from the bidder
    leds = current_app.extensions.get("leds")
    if leds:
        leds.test_sequence()
    return jsonify(leds.status() if leds else {"gpio": "none", "lit": [], "pins": {}})


class _Upgraded(Response):
    """The socket has left HTTP: nothing more may be written on it as a response."""

    def __call__(self, environ, start_response):
        if "companion.detach" in environ:
            return []   # companion/httploop.py: no start_response, so nothing is written
        return super().__call__(environ, start_response)


def live(gid: str) -> Response:
    """WebSocket: this device's whole view on connect, then after every change. The socket is handed
    to the live loop (companion.wsloop): under `companion serve` it holds no server thread."""
    if not _same_origin(request.headers.get("Origin")):
        return refuse(403, "bad_origin")
    environ = request.environ
    sock = environ.get("companion.socket") or environ.get("werkzeug.socket")
    try:
        head = accept_headers(environ)
    except HandshakeError:
        return refuse(400, "bad_request")
    if sock is None:
        return refuse(400, "bad_request")
    t = table()
    try:
        game = t.get(gid)   # any case; old codes as they were
    except Refused:
        game = None
    sub = t.hub.join(game.id, g.device, request.remote_addr or "") if game is not None else None
    if game is not None and sub is None:
        return refuse(429, "too_many_sockets")
    if sub is not None:
        t.presence(game.id)   # this seat is online again, in its own first view too
    try:
        sock.sendall(head)
    except OSError:   # the phone is gone already
        if sub is not None:
            t.hub.leave(sub)
        return _Upgraded()
    detach = environ.get("companion.detach")
    if detach is not None:
        detach()   # from here on the connection is the live loop's, not the HTTP loop's
    if game is None:
        live = LiveSocket(sock, t.hub.loop)
        live.close(1008, "no such game")
    else:
        with game.lock:   # no change slips between this first view and the next publish
            live = t.hub.attach(sub, sock, t.view_json(game.id, g.device))
    if detach is None:
        live.closed.wait()   # werkzeug's server: this thread waits it out
    return _Upgraded()


def _json_errors(app) -> None:
    """404, 405 and 413 under /api answer in JSON, in the device's language."""

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        if not request.path.startswith("/api/"):
            return e
        key = {404: "not_found", 405: "bad_method", 413: "too_large"}.get(e.code, "bad_request")
        return refuse(e.code or 400, key)
