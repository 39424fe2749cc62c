"""Blueprint: the history page, standings, BG Stats links and the CSV export, all read from SQLite on request."""
from __future__ import annotations

from flask import Blueprint, Response, g, jsonify, request

from companion import views
from companion.errors import Refused
from companion.limits import ID_LENGTH
from companion.store import history
from companion.web.compress import gzipped
from companion.web.device import current_table
from companion.web.fields import NAME, payload
from companion.web.render import page_context, render_page

bp = Blueprint("history", __name__)


def _int(name: str, default: int, top: int) -> int:
    raw = request.args.get(name, "")
    if not raw:
        return default
    if not raw.isdigit():
        raise Refused(400, "bad_type", field=name, kind="a whole number")
    return min(int(raw), top)


@bp.get("/history")
def page():
    """Every finished and abandoned game, newest first, and the standings at this table."""
    return render_page("history.html", **page_context("history"))


@bp.get("/api/history")
def games():
    player = request.args.get("player", "")[:ID_LENGTH]
    found = history.history(current_table().store, player or None, _int("offset", 0, 10**9), _int("limit", 50, 500))
    found["games"] = [views.history_row(e) for e in found["games"]]
    return jsonify(found)


@bp.get("/api/standings")
def standings():
    t = current_table()
    return jsonify(views.standings(history.tonight(t.store) if request.args.get("tonight") else history.standings(t.store)))


@bp.post("/api/names/merge")
def merge():
    """The host of the game on the table counts one spelling of a name as another (an appended row)."""
    data = payload({"alias": (NAME, True), "into": (NAME, True)})
    t = current_table()
    alias, into = t.merge_names(data["alias"], data["into"], g.device)
    return jsonify({"alias": alias, "into": into, "standings": views.standings(history.standings(t.store))}), 201


@bp.get("/api/history.csv")
def export():
    resp = Response(history.csv_text(current_table().store), mimetype="text/csv")
    resp.headers["Content-Disposition"] = 'attachment; filename="metropolys-history.csv"'
    return resp


@bp.get("/api/games/<gid>/bgstats")
def bgstats(gid: str):
    """The play for BG Stats' 'createPlay' link: the same on every phone and every tap."""
    links = history.bgstats(current_table().store, gid[:ID_LENGTH], views.pi_named)
    if links is None:
        entry = history.play(current_table().store, gid[:ID_LENGTH])
        if entry is not None and entry["status"] == "abandoned":
            raise Refused(409, "bgstats_abandoned")   # not "once the game is over": it is over, and never will be
        raise Refused(409 if current_table().find(gid[:ID_LENGTH]) else 404, "not_finished")
    return gzipped(request, jsonify(links))   # 3.5 KB of links, about 1 KB so: asked once, at the end
