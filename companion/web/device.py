"""Who is asking: each device's cookie, its language, its address, and whether it is the Pi's own screen."""
from __future__ import annotations

import secrets

from flask import Flask, Response, current_app, g, request

from companion.lang import i18n
from companion.limits import ID_LENGTH, OWN
from companion.table import Table, device_id

KIOSK = "table:"   # never in a cookie the server accepts (letters, digits, - and _ only)


def current_table() -> Table:
    """The one table this server keeps (made by create_app)."""
    return current_app.extensions["table"]


def lang() -> str:
    return i18n.pick_lang(request)


def identify_device() -> None:
    """Every device carries an unguessable cookie; the log knows it only by its hash."""
    cookie = request.cookies.get("device", "")
    g.new_cookie = None
    if not (20 <= len(cookie) <= ID_LENGTH and cookie.replace("-", "").replace("_", "").isalnum()):
        cookie = secrets.token_urlsafe(32)
        g.new_cookie = cookie
    g.cookie = cookie
    g.device = device_id(cookie)


def notice_table_display() -> None:
    """The Pi's own screen (its kiosk opens http://localhost/... on the Pi, from 127.0.0.1 or ::1) keeps the
    table's powers (start, undo, pass for the absent, abandon, rematch); no other address ever gets them.

    Decided by each request's address and Host, never by a cookie: there the device is the cookie's table
    twin (`device_id("table:" + cookie)`), an id no request from another address can be given."""
    addr = request.remote_addr or ""
    host = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
    if host.lower() == "localhost" and addr in OWN:
        g.device = device_id(KIOSK + g.cookie)
        current_table().notice_kiosk(g.device)


def address() -> str:
    return request.remote_addr or ""


def set_device_cookie(response: Response) -> Response:
    if getattr(g, "new_cookie", None):
        response.set_cookie("device", g.new_cookie, max_age=400 * 86400, httponly=True, samesite="Strict")
    return response


def init_app(app: Flask) -> None:
    app.before_request(identify_device)
    app.before_request(notice_table_display)
    app.after_request(set_device_cookie)
