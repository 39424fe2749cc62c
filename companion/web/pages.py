"""The HTML pages (host setup, phone, table display) and the QR codes that lead phones to them."""
from __future__ import annotations

from functools import lru_cache

from flask import Blueprint, Response, abort, current_app, request

from companion.game.board import CENTER, PERIPHERAL, TOKEN_KINDS, load_board
from companion.game.state import COLORS
from companion.limits import ID_LENGTH
from companion.pi.netaddr import join_url, start_url
from companion.web.device import current_table
from companion.web.render import page_context, render_page

bp = Blueprint("pages", __name__)


@lru_cache(maxsize=1)
def setup_rules() -> dict:
    """The setup table the host page checks a hand-laid layout against (the server checks again)."""
    board = load_board()
    return {
        "districts": {d: list(nbs) for d, nbs in board.districts.items()},
        "peripheral": list(PERIPHERAL),
        "center": CENTER,
        "pairs": [sorted(p, key=PERIPHERAL.index) for p in board.district_pairs],
        "blind": sorted(n.id for n in board.neighborhoods.values() if n.blind_alley),
        "token_counts": {str(k): dict(v) for k, v in board.token_counts.items()},
        "district_tokens": dict(board.random_setup_tokens),
        "token_kinds": list(TOKEN_KINDS),
        "colors": list(COLORS),
    }


@lru_cache(maxsize=1)
def water_pairs() -> list[str]:
    """The pairs a lake lies between, as "C04 C09", so the phone refuses such a tap with the server's own reason."""
    return sorted(" ".join(sorted(pair)) for pair in load_board().across_water)


@bp.get("/")
def host():
    """The host's setup page: mode, seats, districts out, token layout, dealing (and what became of a damaged database)."""
    moved = current_table().store.moved
    return render_page("host.html", **page_context("host", rules=setup_rules(), moved=moved))


@bp.get("/g/<game_id>")
def phone(game_id: str):
    """One page for the whole game on a phone: lobby, turns, secret cards, the end."""
    return render_page("phone.html", **page_context("phone", game_id=game_id, water=water_pairs(),
                                          join_url=join_url(request.host_url, current_app.config, game_id)))


@bp.get("/g/<game_id>/replay")
def replay(game_id: str):
    """A finished game watched again on any phone (static/replay.js asks for /api/games/<id>/replay)."""
    return render_page("replay.html", **page_context("replay", game_id=game_id))


@bp.get("/table")
def table_screen():
    """The big screen: public information only, following the most recent game."""
    wifi = bool(current_app.config.get("WIFI_SSID"))
    # Where a phone opens the host page (the kiosk itself may be on localhost: the address phones reach).
    return render_page("table.html", **page_context("table", wifi=wifi, start_url=start_url(request.host_url, current_app.config)))


def _qr_svg(data: str) -> Response:
    """The code as one path of dark runs, row by row: a third of qrcode's own SVG (a square per module) gzipped,
    which kept the table screen over its 60 KB (two codes: 5.4 KB, now about 2); drawn from the documented matrix."""
    import qrcode

    qr = qrcode.QRCode(border=2)
    qr.add_data(data)
    qr.make(fit=True)
    rows = qr.get_matrix()          # the quiet zone included
    n, runs = len(rows), []
    for y, row in enumerate(rows):
        x = 0
        while x < n:
            if row[x]:
                start = x
                while x < n and row[x]:
                    x += 1
                runs.append(f"M{start} {y}h{x - start}v1H{start}z")
            x += 1
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{n}mm" height="{n}mm" viewBox="0 0 {n} {n}" '
           f'shape-rendering="crispEdges"><path d="{"".join(runs)}"/></svg>')
    resp = Response(svg, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/qr/join/<game_id>.svg")
def qr_join(game_id: str):
    if not game_id.replace("-", "").replace("_", "").isalnum() or len(game_id) > ID_LENGTH:
        abort(404)
    return _qr_svg(join_url(request.host_url, current_app.config, game_id))


@bp.get("/qr/start.svg")
def qr_start():
    """The front door, for the table screen before any game: scanned from across the table to start one."""
    return _qr_svg(start_url(request.host_url, current_app.config))


def _wifi_escape(text: str) -> str:
    """Backslash-escapes the characters the WIFI: QR format reserves."""
    return "".join("\\" + ch if ch in '\\;,:"' else ch for ch in text)


@bp.get("/qr/wifi.svg")
def qr_wifi():
    ssid = current_app.config.get("WIFI_SSID")
    password = current_app.config.get("WIFI_PASSWORD")
    if not ssid:
        abort(404)
    if not password:
        return _qr_svg(f"WIFI:T:nopass;S:{_wifi_escape(ssid)};;")
    return _qr_svg(f"WIFI:T:WPA;S:{_wifi_escape(ssid)};P:{_wifi_escape(password)};;")
