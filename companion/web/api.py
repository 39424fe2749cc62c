"""Blueprint: the JSON API and the live socket. Requests are checked here; `table` does the rest."""
from __future__ import annotations

import json

from flask import Blueprint, Response, current_app, g, jsonify, request

from companion import views
from companion.errors import Refused
from companion.lang import i18n
from companion.game.board import board_data
from companion.game.setup import check_saved_layout
from companion.live.wsloop import HandshakeError, accept_headers
from companion.pi.netaddr import join_url, no_network, start_url
from companion.web import hint_text
from companion.web.compress import gzipped
from companion.web.device import address, current_table, lang
from companion.web.errors import refuse
from companion.web.fields import (ACTION_FIELDS, GAME_FIELDS, INT, NAME, OBJ, OPT_STR, STR, TRUE, action_fields, payload,
                                  player_name)
from companion.web.guard import same_origin
from companion.web.live_acts import SocketActs
from companion.web.render import view_response
from companion.web.throttle import limit_actions, limit_changes, limit_writes

bp = Blueprint("api", __name__, url_prefix="/api")


# -- games --

@bp.post("/games")
def create_game():
    options = payload(GAME_FIELDS)
    limit_writes()
    game = current_table().create_capped(options, g.device, request.remote_addr or "")
    return jsonify({"id": game.id, "join_url": join_url(request.host_url, current_app.config, game.id),
                    "shown": game.shown}), 201


@bp.get("/games/current")
def current_game():
    """The game the table shows (the host chose it): the front door offers it first."""
    game = current_table().shown_game()
    if game is None:
        return jsonify({"id": None, "join_url": None, "phase": None,
                        "start_url": start_url(request.host_url, current_app.config),
                        "no_network": no_network(request.host_url, current_app.config.get("JOIN_URL"),
                                                 current_app.config.get("LISTEN"))})
    return jsonify(dict(views.front_door(game, g.device),
                        join_url=join_url(request.host_url, current_app.config, game.id)))


@bp.get("/table")
def table_display():
    """Whether this device is a table display, and whether it is the Pi's own screen (the kiosk)."""
    return jsonify(current_table().screen_of(g.device))


@bp.post("/table/code")
def display_code():
    """Asked for on the Pi's own screen only: the code that makes another device a table display."""
    payload({})
    return jsonify({"code": current_table().show_display_code(g.device)})


@bp.post("/table/claim")
def claim_display():
    data = payload({"code": (STR, True)})
    current_table().become_display(data["code"], g.device, address())
    return jsonify({"display": True})


@bp.get("/games/<gid>")
def get_game(gid: str):
    return view_response(current_table().view_json(gid, g.device))


@bp.post("/games/<gid>/setup")
def change_setup(gid: str):
    options = payload(GAME_FIELDS)
    limit_writes()
    limit_changes(current_table().get(gid))
    return view_response(current_table().change_setup(gid, options, g.device))


@bp.post("/games/<gid>/seats/<color>")
def claim_seat(gid: str, color: str):
    data = payload({"name": (NAME, True)})
    name = player_name(data["name"])
    limit_writes()
    limit_changes(current_table().get(gid))
    return view_response(current_table().claim_seat(gid, color, name, g.device, address()))


@bp.post("/games/<gid>/seats/<color>/release")
def release_seat(gid: str, color: str):
    payload({})
    limit_writes()
    limit_changes(current_table().get(gid))
    return view_response(current_table().release_seat(gid, color, g.device, address()))


@bp.post("/games/<gid>/seats/<color>/pi")
def seat_pi(gid: str, color: str):
    """The host gives a free colour to the Pi (docs/API.md, "A seat the Pi plays")."""
    data = payload({"level": (STR, True)})
    limit_writes()
    limit_changes(current_table().get(gid))
    return view_response(current_table().seat_pi(gid, color, data["level"], g.device))


@bp.delete("/games/<gid>/seats/<color>/pi")
def free_pi(gid: str, color: str):
    payload({})
    limit_writes()
    limit_changes(current_table().get(gid))
    return view_response(current_table().free_pi(gid, color, g.device))


@bp.post("/games/<gid>/seats/<color>/code")
def seat_code(gid: str, color: str):
    payload({})
    return view_response(current_table().seat_code(gid, color, g.device))


@bp.post("/games/<gid>/seats/<color>/move")
def move_seat(gid: str, color: str):
    data = payload({"code": (STR, True), "name": (NAME, False)})
    limit_actions()
    name = player_name(data["name"]) if data.get("name", "").strip() else None   # a seat taken's name rules
    return view_response(current_table().move_seat(gid, color, data["code"], name, g.device, address()))


@bp.post("/games/<gid>/seats/<color>/rescue")
def rescue_seat(gid: str, color: str):
    """A seat whose phone is gone: without a code, the Pi's screen shows one; with it, the move is announced."""
    data = payload({"code": (STR, False)})
    limit_actions()
    return view_response(current_table().rescue_seat(gid, color, data.get("code"), g.device, address()))


@bp.post("/games/<gid>/seats/<color>/rescue/cancel")
def cancel_rescue(gid: str, color: str):
    data = payload({"ask": (INT, False)})
    return view_response(current_table().cancel_rescue(gid, color, g.device, data.get("ask")))


@bp.post("/games/<gid>/seats/<color>/remove")
def remove_seat(gid: str, color: str):
    payload({})
    return view_response(current_table().remove_seat(gid, color, g.device))


@bp.post("/games/<gid>/host")
def hand_host(gid: str):
    data = payload({"color": (STR, False), "table": (TRUE, False)})
    if ("color" in data) == ("table" in data):
        raise Refused(400, "missing_field", field="color")
    if "table" in data:
        return view_response(current_table().table_host(gid, g.device))
    return view_response(current_table().hand_host(gid, data["color"], g.device))


@bp.post("/games/<gid>/host/claim")
def claim_host(gid: str):
    data = payload({"code": (STR, False)})
    limit_actions()
    return view_response(current_table().claim_host(gid, data.get("code"), g.device, address()))


@bp.post("/games/<gid>/host/approve")
def approve_host(gid: str):
    data = payload({"color": (STR, True)})
    return view_response(current_table().approve_host(gid, data["color"], g.device))


@bp.post("/games/<gid>/pass-for")
def pass_for(gid: str):
    data = payload({"expect_seq": (INT, False)})
    return view_response(current_table().pass_for(gid, g.device, data.get("expect_seq")))


@bp.post("/games/<gid>/abandon")
def abandon(gid: str):
    data = payload({"confirm": (STR, True)})
    return view_response(current_table().abandon(gid, data["confirm"], g.device))


@bp.post("/games/<gid>/show/skip")
def skip_show(gid: str):
    payload({})
    return view_response(current_table().skip_show(gid, g.device))


@bp.post("/games/<gid>/rematch")
def rematch(gid: str):
    data = payload({"rotate": (("true or false", lambda v: isinstance(v, bool)), False)})
    _game, text = current_table().rematch(gid, data.get("rotate", True), g.device)
    return view_response(text)


@bp.post("/games/<gid>/seats/<color>/cards")
def enter_cards(gid: str, color: str):
    data = payload({"area": (STR, True), "neighborhood": (OPT_STR, False)})
    limit_writes()
    limit_changes(current_table().get(gid))
    return view_response(current_table().enter_cards(gid, color, data["area"], data.get("neighborhood"), g.device))


@bp.post("/games/<gid>/start")
def start_game(gid: str):
    """Games being played are capped per device and per address like lobbies: strangers' games must not fill
    the Pi's thinking queue (each Pi seat thinks in them) ahead of the table's own."""
    payload({})
    return view_response(current_table().start_capped(gid, g.device, request.remote_addr or ""))


@bp.post("/games/<gid>/actions")
def act(gid: str):
    data = action_fields(payload(ACTION_FIELDS))
    limit_actions()
    return view_response(current_table().act(gid, g.device, data, data.get("expect_seq")))


@bp.post("/games/<gid>/undo")
def undo(gid: str):
    data = payload({"expect_seq": (INT, False)})
    limit_actions()
    return view_response(current_table().undo(gid, g.device, data.get("expect_seq")))


@bp.get("/games/<gid>/review")
def review(gid: str):
    """The Pi's review of every person's decisions (table/reviews.py): refused until the game is over."""
    found = current_table().review(gid)
    return jsonify(found), 202 if found.get("pending") else 200


@bp.post("/games/<gid>/review/show")
def show_review(gid: str):
    """The host's phone shows the Pi's review on the table screen ({"on": false} hides it)."""
    data = payload({"on": (("true or false", lambda v: isinstance(v, bool)), True)})
    return view_response(current_table().show_review(gid, data["on"], g.device))


@bp.post("/games/<gid>/hint")
def hint(gid: str):
    """"What would the Pi do?": for the seat to act, from its own view, when the host allowed hints."""
    payload({})
    limit_actions()
    action, gap, second, seen, text = current_table().hint(gid, g.device)
    # With this device's new view (the hint is counted: seq moved), so its next move's expect_seq is current.
    game = current_table().get(gid)
    named = lambda c: views.said_name(game, c, lang())   # noqa: E731  ("Ann (Red)", as every screen says)
    return jsonify({"action": hint_text.action_json(action),
                    "because": hint_text.because(lang(), seen, action, gap, second, named),
                    "view": json.loads(text)})


@bp.get("/games/<gid>/undo")
def undo_preview(gid: str):
    return jsonify(current_table().undo_preview(gid, g.device))


@bp.post("/games/<gid>/board/done")
def board_done(gid: str):
    data = payload({"through": (INT, True)})
    limit_actions()
    return view_response(current_table().board_done(gid, g.device, data["through"]))


@bp.get("/games/<gid>/record")
def record(gid: str):
    response = jsonify(current_table().record(gid))
    response.headers["Content-Disposition"] = f'attachment; filename="metropolys-{gid}.json"'
    return response


@bp.get("/games/<gid>/replay")
def replay(gid: str):
    """A finished game action by action (docs/API.md, "Replay"); 409 not_finished for every device until the end.
    Sent gzipped to a browser that asks (views are not: they are small and many): 22 KB of JSON, 2 KB so."""
    return gzipped(request, jsonify(current_table().replay(gid)))


@bp.post("/games/<gid>/replay/show")
def show_replay(gid: str):
    """The host's phone tells the table screen which step of the replay to show (null: the end of the game)."""
    data = payload({"step": (("a whole number or null", lambda v: v is None or type(v) is int), True)})
    return view_response(current_table().show_replay(gid, data["step"], g.device))


# -- board, layouts, hardware --

@bp.get("/board")
def board():
    response = jsonify(board_data())
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


@bp.get("/layouts")
def layouts():
    """Names (and player counts) only; `?name=` gives that one layout with its tokens."""
    name = request.args.get("name")
    if name is None:
        return jsonify(current_table().store.layouts())
    layout = current_table().store.layout(name)
    if layout is None:
        raise Refused(404, "no_layout")
    # Saved before layouts were checked on save: checked again before any page gets it.
    players, removed = check_saved_layout(layout["tokens"])
    return jsonify({"name": name, "players": players, "removed_districts": sorted(removed),
                    "tokens": layout["tokens"]})


@bp.post("/layouts")
def save_layout():
    """A layout is checked as strictly as a game's; only the device that saved a name may overwrite it."""
    data = payload({"name": (NAME, True), "tokens": (OBJ, True)})
    name = player_name(data["name"])
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in data["tokens"].items()):
        raise Refused(400, "bad_type", field="tokens", kind="an object from neighborhood to token kind")
    players, removed = check_saved_layout(data["tokens"])
    limit_writes()
    current_table().save_layout(name, data["tokens"], players, g.device)
    return jsonify({"name": name, "players": players, "removed_districts": sorted(removed)}), 201


@bp.get("/hardware")
def hardware():
    leds = current_app.extensions.get("leds")
    return jsonify(leds.status() if leds else {"gpio": "none", "lit": [], "pins": {}})


@bp.post("/hardware/test")
def hardware_test():
    payload({})
    current_table().test_leds(g.device)
    leds = current_app.extensions.get("leds")
    return jsonify(leds.status() if leds else {"gpio": "none", "lit": [], "pins": {}})


class _Upgraded(Response):
    """The socket has left HTTP: nothing more may be written on it as a response."""

    def __call__(self, environ, start_response):
        if "companion.detach" in environ:
            return []   # companion/live/httploop.py: no start_response, so nothing is written
        return super().__call__(environ, start_response)


def live(gid: str) -> Response:
    """WebSocket: this device's whole view on connect, then after every change. The socket is handed
    to the live loop (companion.live.wsloop): under `companion serve` it holds no server thread."""
    if not same_origin(request.headers.get("Origin")):
        return refuse(403, "bad_origin")
    environ = request.environ
    sock = environ.get("companion.socket") or environ.get("werkzeug.socket")
    try:
        head = accept_headers(environ)
    except HandshakeError:
        return refuse(400, "bad_request")
    if sock is None:
        return refuse(400, "bad_request")
    t = current_table()
    try:
        sub = t.join_live(gid, g.device, request.remote_addr or "")
    except Refused as e:
        if e.status == 429:
            return refuse(429, "too_many_sockets")
        sub = None   # no such game: the socket opens and closes at once with the reason
    try:
        sock.sendall(head)
    except OSError:   # the phone is gone already
        if sub is not None:
            t.leave_live(sub)
        return _Upgraded()
    detach = environ.get("companion.detach")
    if detach is not None:
        detach()   # from here on the connection is the live loop's, not the HTTP loop's
    if sub is not None:   # the phone's bids and passes may come over this socket (web/live_acts.py)
        cookie, accept = request.cookies.get("lang"), request.accept_languages
        sub.on_message = SocketActs(current_app._get_current_object(), t, sub.game, g.device,
                                    lambda: i18n.pick(cookie, accept))
    live = t.refuse_live(sock, "no such game") if sub is None else t.attach_live(sub, sock, g.device)
    if detach is None:
        live.closed.wait()   # werkzeug's server: this thread waits it out
    return _Upgraded()


