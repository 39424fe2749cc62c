"""Every refusal, in one place: a sentence in the device's language and a JSON code, whichever blueprint refused."""
from __future__ import annotations

from typing import Optional

from flask import Flask, Response, current_app, g, jsonify, request
from werkzeug.exceptions import HTTPException

from companion import views
from companion.errors import Refused
from companion.game.errors import RuleError
from companion.lang import i18n, strings
from companion.store.db import StoreError, StoreFull
from companion.web.device import current_table, lang


# Codes whose sentence has a key of its own (the code's name was already a page's string).
SAID_AS = {"hints_off": "hints_not_allowed"}


def refuse(status: int, key: str, said: str = "", **params) -> Response:
    """The refusal `key` as a JSON code and a sentence (`said`: the key of another wording of it, as "you")."""
    response = jsonify(sentence(lang(), key, said, **params))
    response.status_code = status
    return response


def sentence(language: str, key: str, said: str = "", **params) -> dict:
    """A refusal's body: its code and its sentence in `language` (the socket's answers say the same, live_acts.py)."""
    text = i18n.t(language, said or SAID_AS.get(key, key), **params)
    return {"error": text[:1].upper() + text[1:], "code": key}


def refused_body(e: Refused, language: str, game, seat: Optional[str]) -> dict:
    """What a refusal says to a device holding `seat` in `game` (None: no game named); "stale" is said by the caller."""
    params, said = dict(e.params), ""
    if game is not None and params.get("player") in game.colors:
        # A person named as every screen names them ("Ann (Red)"); on their own phone the sentence says "you".
        if params["player"] == seat and e.key + "_you" in strings.UI:
            said = e.key + "_you"
        params["player"] = views.said_name(game, params["player"], language)
    return sentence(language, e.key, said, **params)


def rule_body(e: RuleError, language: str, game, seat: Optional[str]) -> dict:
    """What the rules' refusal says to a device holding `seat` in `game`."""
    named = (lambda c: views.said_name(game, c, language) if c in game.colors else c) if game is not None else None
    player = e.params.get("player")
    if player is None and str(e.code).startswith("board_"):   # a board typed in names the colour entered for
        player = e.params.get("color")
    you = bool(player) and seat == player
    return {"error": i18n.error_sentence(language, e, you=you, named=named), "code": e.code}


def on_refused(e: Refused):
    if e.key == "stale":
        response = jsonify({"error": i18n.t(lang(), "stale"), "code": "stale",
                            "view": current_table().view(request.view_args.get("gid", ""), g.device)})
        response.status_code = 409
        return response
    game, seat = _game_and_seat()
    response = jsonify(refused_body(e, lang(), game, seat))
    response.status_code = e.status
    return response


def _game_and_seat():
    """The game the request names (None: none) and this device's seat in it."""
    gid = (request.view_args or {}).get("gid")
    if not gid:
        return None, None
    try:
        game = current_table().get(gid)
    except Refused:
        return None, None
    return game, game.seat_of(g.device)


def on_store_error(e: StoreError):
    """Nothing was recorded: the device is told why, in its language (a full disk is said as such)."""
    key = e.key
    if isinstance(e, StoreFull):
        key = "disk_full" if request.endpoint == "api.act" else "disk_full_change"
        current_app.logger.error("The disk is full: %s %s was not recorded.", request.method, request.path)
    else:
        current_app.logger.error("The database did not take %s %s: %s", request.method, request.path, e)
    return refuse(507 if isinstance(e, StoreFull) else 503, key)


def on_rule_error(e: RuleError):
    game, seat = _game_and_seat()
    response = jsonify(rule_body(e, lang(), game, seat))
    response.status_code = 422
    return response


def http_error(e: HTTPException):
    """404, 405 and 413 under /api answer in JSON, in the device's language; pages keep Flask's own."""
    if not request.path.startswith("/api/"):
        return e
    key = {404: "not_found", 405: "bad_method", 413: "too_large"}.get(e.code, "bad_request")
    return refuse(e.code or 400, key)


def init_app(app: Flask) -> None:
    app.register_error_handler(Refused, on_refused)
    app.register_error_handler(StoreError, on_store_error)
    app.register_error_handler(RuleError, on_rule_error)
    app.register_error_handler(HTTPException, http_error)
