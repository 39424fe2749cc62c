"""The HTML pages (host setup, phone, table display) and the QR codes that lead phones to them."""
from __future__ import annotations

import math
from functools import lru_cache
from io import BytesIO

from flask import Blueprint, Response, abort, current_app, render_template, request

from . import i18n
from .game.board import CENTER, KINDS, PERIPHERAL, TOKEN_KINDS, board_data, load_board
from .game.state import COLORS
from .netaddr import join_url

bp = Blueprint("pages", __name__)

# The map is drawn in a 1000 x 696 box: the board artwork's 795 x 553 proportions.
W, H = 1000.0, 696.0
STREET, RIVER, EDGE = 3.0, 11.0, 8.0   # half-gaps between neighborhoods, districts, and the board's edge


def _clip(poly, nx, ny, c):
    """Keeps the part of a convex polygon where nx*x + ny*y <= c."""
    out = []
    for i, p in enumerate(poly):
        q = poly[(i + 1) % len(poly)]
        dp, dq = nx * p[0] + ny * p[1] - c, nx * q[0] + ny * q[1] - c
        if dp <= 0:
            out.append(p)
        if (dp < 0) != (dq < 0) and dp != dq:
            s = dp / (dp - dq)
            out.append((p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])))
    return out


def _cell(site, others, district, w, h, street):
    """A Voronoi cell around one label point, pulled back from streets and (wider) from the river."""
    poly = [(EDGE, EDGE), (w - EDGE, EDGE), (w - EDGE, h - EDGE), (EDGE, h - EDGE)]
    x, y = site
    for (ox, oy), odistrict in others:
        nx, ny = ox - x, oy - y
        length = math.hypot(nx, ny)
        nx, ny = nx / length, ny / length
        gap = street if odistrict == district else RIVER
        c = nx * (x + ox) / 2 + ny * (y + oy) / 2 - gap
        poly = _clip(poly, nx, ny, c)
    return poly


def _path(poly) -> str:
    return "M" + "L".join(f"{px:.0f},{py:.0f}" for px, py in poly) + "Z"


def _place(x: float, y: float, portrait: bool) -> tuple[float, float]:
    """Board percentages to map units; a portrait map is the board turned a quarter clockwise (west on top)."""
    bx, by = x * W / 100, y * H / 100
    return (H - by, bx) if portrait else (bx, by)


@lru_cache(maxsize=2)
def board_map(portrait: bool = False) -> dict:
    """Everything the SVG map needs, computed once from the shipped board data."""
    raw = board_data()
    board = load_board()
    w, h = (H, W) if portrait else (W, H)
    sites = {n["id"]: (*_place(n["x"], n["y"], portrait), n["district"]) for n in raw["neighborhoods"]}
    hoods = []
    for n in raw["neighborhoods"]:
        x, y, d = sites[n["id"]]
        others = [((ox, oy), od) for k, (ox, oy, od) in sites.items() if k != n["id"]]
        cell = _cell((x, y), others, d, w, h, STREET)
        land = _cell((x, y), others, d, w, h, 0.0)
        hoods.append({"id": n["id"], "district": d, "kind": n["kind"], "x": round(x), "y": round(y),
                      "path": _path(cell), "land": _path(land), "blind": n["blind_alley"]})
    bridges = []
    for a, b in board.bridges:
        (ax, ay, _), (bx, by, _) = sites[a], sites[b]
        mx, my = (ax + bx) / 2, (ay + by) / 2
        dx, dy = bx - ax, by - ay
        length = math.hypot(dx, dy)
        dx, dy = dx / length * (RIVER + 9), dy / length * (RIVER + 9)
        bridges.append({"x1": round(mx - dx), "y1": round(my - dy), "x2": round(mx + dx), "y2": round(my + dy)})
    lakes = [dict(zip("xy", map(round, _place(f["x"], f["y"], portrait)))) for f in raw["lakes"]]
    statues = [dict(zip("xy", map(round, _place(f["x"], f["y"], portrait)))) for f in raw["statues"]]
    return {"w": int(w), "h": int(h), "hoods": hoods, "bridges": bridges, "lakes": lakes, "statues": statues}


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


def _context(page: str, **extra) -> dict:
    lang = i18n.pick_lang(request)
    strings = i18n.js_strings(lang)
    return {"page": page, "lang": lang, "langs": [(code, i18n.t(code, "lang_name")) for code in i18n.LANGS],
            "_": lambda key, **p: i18n.t(lang, key, **p), "term": lambda w: i18n.term(lang, w),
            "strings": strings, "map": board_map(page != "table"), "kinds": KINDS, "token_kinds": TOKEN_KINDS,
            "colors": COLORS, **extra}


def _page(template: str, **context) -> Response:
    resp = Response(render_template(template, **context), mimetype="text/html")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Vary"] = "Cookie, Accept-Language"
    return resp


@bp.get("/")
def host():
    """The host's setup page: mode, seats, districts out, token layout, dealing (and what became of a damaged database)."""
    moved = current_app.extensions["table"].store.moved
    return _page("host.html", **_context("host", rules=setup_rules(), moved=moved))


@bp.get("/g/<game_id>")
def phone(game_id: str):
    """One page for the whole game on a phone: lobby, turns, secret cards, the end."""
    return _page("phone.html", **_context("phone", game_id=game_id,
                                          join_url=join_url(request.host_url, current_app.config, game_id)))


@bp.get("/table")
def table():
    """The big screen: public information only, following the most recent game."""
    wifi = bool(current_app.config.get("WIFI_SSID"))
    return _page("table.html", **_context("table", wifi=wifi))


def _qr_svg(data: str) -> Response:
    import qrcode
    from qrcode.image.svg import SvgPathImage

    qr = qrcode.QRCode(border=2, image_factory=SvgPathImage, box_size=10)
    qr.add_data(data)
    qr.make(fit=True)
    out = BytesIO()
    qr.make_image().save(out)
    resp = Response(out.getvalue(), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/qr/join/<game_id>.svg")
def qr_join(game_id: str):
    if not game_id.replace("-", "").replace("_", "").isalnum() or len(game_id) > 64:
        abort(404)
    return _qr_svg(join_url(request.host_url, current_app.config, game_id))


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
