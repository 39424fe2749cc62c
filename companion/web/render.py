"""How a page or a view leaves the server, shared by every blueprint (so no blueprint imports another)."""
from __future__ import annotations

from typing import Optional

from flask import Response, render_template, request

from companion import views
from companion.game.board import KINDS, TOKEN_KINDS
from companion.game.state import COLORS
from companion.lang import i18n
from companion.web.boardmap import shipped
from companion.web.device import current_table


def view_response(text: str) -> Response:
    """A view already encoded once for this device (the same text its socket gets)."""
    return Response(text, mimetype="application/json")


# The phone's page scripts, in the order its template names them (phone.html loops over this list): each module
# after those it imports, phone.js (which draws the first live view) last, so no script is left to run between that
# view and the first paint. Its strings are theirs alone (socket.js is written into the page). The other pages carry
# every script's strings.
SCRIPTS = {"phone": ("map.js", "map-fit.js", "app.js", "glance.js", "board-steps.js", "evening.js", "review.js",
                     "phone.js")}


def page_context(page: str, **extra) -> dict:
    """What every page's template is given: its language, its strings, the map, and the storage notice."""
    lang = i18n.pick_lang(request)
    scripts = SCRIPTS.get(page, ())
    # The Pi's levels a host may choose go with the strings: the pages offer what the table accepts, never a list
    # of their own.
    strings = dict(i18n.js_strings(lang, scripts + ("socket.js",) if scripts else ()),
                   levels=list(current_table().pi_levels))
    return {"page": page, "lang": lang, "langs": [(code, i18n.t(code, "lang_name")) for code in i18n.LANGS],
            "_": lambda key, **p: i18n.t(lang, key, **p), "term": lambda w: i18n.term(lang, w),
            "strings": strings, "map": shipped(page != "table"), "kinds": KINDS, "token_kinds": TOKEN_KINDS,
            "colors": COLORS, "pi_levels": strings["levels"], "storage": storage_notice(lang), "scripts": scripts,
            **extra}


def storage_notice(lang: str) -> Optional[str]:
    """One sentence on every page while the storage has failed: a read-only database, a full disk, or the last
    acknowledged action missing from the log (until the game has been played past it again); the views carry
    the same notice (`storage`), so a phone that only reconnects is told too."""
    table = current_table()
    notice = table.storage_notice()
    if notice is None:
        return None
    params = dict(notice)
    key = params.pop("key")
    if "player" in params:   # named as the pages' live notice names them ("Ann (Red)'s 5 on C03"), app.js who()
        game = table.lost_game()
        player = i18n.term(lang, params["player"])
        params["player"] = views.said_name(game, params["player"], lang) if game else player[:1].upper() + player[1:]
    return i18n.t(lang, key, **params)


def render_page(template: str, **context) -> Response:
    """A page is never cached: it carries the device's language and the storage notice of this moment."""
    resp = Response(render_template(template, **context), mimetype="text/html")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Vary"] = "Cookie, Accept-Language"
    return resp
