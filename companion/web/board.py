"""Blueprint: score a game played on the board alone (the page, and the API its phones write with)."""
from __future__ import annotations

from flask import Blueprint, current_app, g, jsonify, request

from companion.errors import Refused
from companion.limits import BOARD_ENTRIES_PER_GAME
from companion.pi.netaddr import join_url
from companion.web.device import current_table
from companion.web.fields import NAME, OPT_STR, STR, STRS, payload, player_name
from companion.web.render import page_context, render_page, view_response
from companion.web.throttle import limit_actions, limit_writes

bp = Blueprint("board", __name__)

COUNTS = ("three whole numbers", lambda v: isinstance(v, list) and len(v) == 3 and all(type(x) is int for x in v))
NAMES = ("an object", lambda v: isinstance(v, dict) and all(isinstance(n, str) for n in v.values()))


@bp.get("/score")
@bp.get("/score/<game_id>")
def score_page(game_id: str = ""):
    """Its own page and script, so the phone page's first load carries none of it."""
    url = join_url(request.host_url, current_app.config, game_id) if game_id else ""
    return render_page("score.html", **page_context("score", game_id=game_id, join_url=url))


@bp.post("/api/boards")
def create_board():
    options = payload({"mode": (STR, True), "players": (STRS, True), "removed_districts": (STRS, False),
                       "names": (NAMES, False)})
    # Each colour's player named as it sits down (the page asks), not first at the tally.
    options["names"] = {c: player_name(n) for c, n in (options.get("names") or {}).items()}
    limit_writes()
    game = current_table().create_board_capped(options, g.device)
    return jsonify({"id": game.id, "url": f"/score/{game.id}", "shown": game.shown}), 201


def _write(gid: str) -> None:
    """A tap on the map or a stepper is paced like a bid (a table enters a board quickly), and bounded per game."""
    limit_actions()
    if current_table().get(gid).entries.get(g.device, 0) >= BOARD_ENTRIES_PER_GAME:
        raise Refused(429, "board_full", limit=BOARD_ENTRIES_PER_GAME)


@bp.post("/api/games/<gid>/board/buildings")
def building(gid: str):
    data = payload({"neighborhood": (STR, True), "color": (OPT_STR, True), "height": (OPT_STR, False)})
    _write(gid)
    return view_response(current_table().enter_building(gid, data["neighborhood"], data["color"],
                                                        data.get("height"), g.device))


@bp.post("/api/games/<gid>/board/tokens/<color>")
def tokens(gid: str, color: str):
    data = payload({"tokens": (COUNTS, True)})
    _write(gid)
    return view_response(current_table().enter_tokens(gid, color, data["tokens"], g.device))


@bp.post("/api/games/<gid>/board/holders/<card>")
def holder(gid: str, card: str):
    data = payload({"color": (OPT_STR, True)})
    _write(gid)
    return view_response(current_table().enter_holder(gid, card, data["color"], g.device))


@bp.post("/api/games/<gid>/board/secret/<color>")
def secret(gid: str, color: str):
    data = payload({"area": (STR, True), "neighborhood": (OPT_STR, False)})
    _write(gid)
    return view_response(current_table().enter_secret(gid, color, data["area"], data.get("neighborhood"), g.device))


@bp.post("/api/games/<gid>/board/names/<color>")
def name(gid: str, color: str):
    data = payload({"name": (NAME, True)})
    text = player_name(data["name"])
    _write(gid)
    return view_response(current_table().name_colour(gid, color, text, g.device))


@bp.post("/api/games/<gid>/board/tally")
def tally(gid: str):
    payload({})
    return view_response(current_table().tally_board(gid, g.device))
