"""The "How to play" card: its own small page, fetched only when a phone opens it (never in a first load).

Its pictures are the real board: excerpts of the phone's own map drawing around a few neighborhoods, with the
pieces painted by static/map.js as in a game; each caption is filled from the printed board's data, so the
neighborhoods it names are those its picture lights.
"""
from __future__ import annotations

import re
from functools import lru_cache

from flask import Blueprint, Response, render_template, request

from companion.game.board import TOKEN_KINDS, load_board
from companion.lang import catalogs, i18n
from companion.lang.learn_text import LEARN
from companion.web.boardmap import shipped

bp = Blueprint("learn", __name__)

PREFIX = "learn:"
PAD = 22   # map units around an excerpt's neighborhoods

# The anchors of the examples, on the printed board: an opening bid in the center with a lake beside it, the next
# bid beside it with bridges over the river, and a blind alley (one way out) beside a built neighborhood.
OPEN, OUTBID, BLIND = "C04", "C01", "C12"


@lru_cache(maxsize=None)
def texts(lang: str) -> dict:
    """The card's strings in `lang`: the catalog's translation where there is one, else the English."""
    found = catalogs.load(lang)[0] if lang != i18n.DEFAULT else {}
    return {key: found.get((PREFIX + key, text), text) for key, text in LEARN.items()}


def say(lang: str, key: str, **params) -> str:
    return texts(lang)[key].format(**params)


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _box(path: str) -> tuple[float, float, float, float]:
    """The bounding box (x0, y0, x1, y1) of an SVG path made of absolute coordinate pairs, as boardmap writes them."""
    nums = [float(n) for n in _NUMBER.findall(path)]
    xs, ys = nums[0::2], nums[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def _meets(a, b) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def excerpt(focus: list[str]) -> dict:
    """The phone's map drawing cut down to the box around `focus` (and what shows inside it): a small picture."""
    whole = shipped(True)
    boxes = {n["id"]: _box(n["path"]) for n in whole["hoods"]}
    x0 = min(boxes[nb][0] for nb in focus) - PAD
    y0 = min(boxes[nb][1] for nb in focus) - PAD
    x1 = max(boxes[nb][2] for nb in focus) + PAD
    y1 = max(boxes[nb][3] for nb in focus) + PAD
    crop = (x0, y0, x1, y1)
    return {
        "w": whole["w"], "h": whole["h"], "top": whole["top"], "portrait": False,
        "hoods": [n for n in whole["hoods"] if _meets(boxes[n["id"]], crop)],
        "lakes": [lake for lake in whole["lakes"] if _meets(_box(lake["path"]), crop)],
        "bridges": [b for b in whole["bridges"] if _meets((min(b["x1"], b["x2"]), min(b["y1"], b["y2"]),
                                                           max(b["x1"], b["x2"]), max(b["y1"], b["y2"])), crop)],
        "statues": [s for s in whole["statues"] if _meets((s["left"], s["top"], s["left"] + 24, s["top"] + 24), crop)],
        "view": f"{x0:.0f} {y0:.0f} {x1 - x0:.0f} {y1 - y0:.0f}",
    }


def _free_neighbors(nb: str, taken: set) -> list[str]:
    return sorted(set(load_board().neighborhoods[nb].neighbors) - taken)


@lru_cache(maxsize=1)
def scenes() -> dict:
    """The examples as game positions on the printed board: the pieces, the lit neighborhoods, what the caption names."""
    board = load_board()
    hoods = board.neighborhoods
    here = hoods[OPEN]
    # Across a lake from the opening bid (both on its shore, no street between): the nearest such shape.
    water = sorted((other for pair in board.across_water if OPEN in pair for other in pair if other != OPEN),
                   key=lambda nb: (hoods[nb].x - here.x) ** 2 + (hoods[nb].y - here.y) ** 2)
    outbid_lit = _free_neighbors(OPEN, {OPEN})
    bridge_lit = _free_neighbors(OUTBID, {OPEN, OUTBID})
    (built,) = hoods[BLIND].neighbors    # a blind alley: one way out
    return {
        "call": {"focus": [OPEN] + outbid_lit, "call": [{"neighborhood": OPEN, "color": "blue", "value": 3}],
                 "built": {}, "lit": [], "say": {"player": "blue", "value": 3, "nb": OPEN}},
        "outbid": {"focus": [OPEN] + outbid_lit + water[:1], "call": [{"neighborhood": OPEN, "color": "blue", "value": 3}],
                   "built": {}, "lit": outbid_lit,
                   "say": {"player": "blue", "value": 3, "nb": OPEN, "lit": ", ".join(outbid_lit), "higher": 4,
                           "water": water[0]}},
        "bridge": {"focus": [OUTBID] + bridge_lit, "call": [{"neighborhood": OPEN, "color": "blue", "value": 3},
                                                            {"neighborhood": OUTBID, "color": "red", "value": 7}],
                   "built": {}, "lit": bridge_lit,
                   "say": {"player": "red", "value": 7, "nb": OUTBID,
                           "bridged": ", ".join(sorted(hoods[OUTBID].bridges))}},
        "end": {"focus": [BLIND, built], "call": [{"neighborhood": BLIND, "color": "gray", "value": 1}],
                "built": {built: {"color": "white", "value": 9}}, "lit": [],
                "say": {"player": "gray", "value": 1, "nb": BLIND, "built": built}},
    }


def _lang() -> str:
    asked = request.args.get("lang")
    return asked if asked in i18n.LANGS else i18n.pick_lang(request)


def examples(lang: str) -> dict:
    """Each example's picture (a map excerpt and its pieces) and its caption in `lang`."""
    out = {}
    for key, s in scenes().items():
        params = dict(s["say"])
        name = i18n.term(lang, params["player"])
        params["player"] = name[:1].upper() + name[1:]
        out[key] = {"map": excerpt(s["focus"]), "caption": say(lang, key + "_example", **params),
                    "scene": {"call": s["call"], "built": s["built"], "tokens": {}, "lit": s["lit"]}}
    return out


@bp.get("/learn")
def learn():
    """How to play, in the device's language (or ?lang=); ?embed=1 is the card opened over a page, without its frame."""
    lang = _lang()
    embed = request.args.get("embed") == "1"
    html = render_template(
        "learn.html", lang=lang, embed=embed, t=lambda key, **p: say(lang, key, **p),
        _=lambda key, **p: i18n.t(lang, key, **p), term=lambda w: i18n.term(lang, w), examples=examples(lang),
        token_kinds=TOKEN_KINDS, langs=[(code, i18n.t(code, "lang_name")) for code in i18n.LANGS],
        letters={c: i18n.t(lang, "letter_" + c) for c in ("blue", "red", "white", "gray")})
    resp = Response(html, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Vary"] = "Cookie, Accept-Language"
    return resp
