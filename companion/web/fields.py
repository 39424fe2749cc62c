"""What a request's JSON may hold: each field's kind, checked before the table sees it."""
from __future__ import annotations

from flask import request
from werkzeug.exceptions import HTTPException

from companion import names
from companion.errors import Refused

# Field -> (what a player is told it must be, check). Unknown fields are refused.
STR = ("text", lambda v: isinstance(v, str))
INT = ("a whole number", lambda v: type(v) is int)
STRS = ("a list of text", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
TRUE = ("true", lambda v: v is True)
BOOL = ("true or false", lambda v: isinstance(v, bool))
OBJ = ("an object", lambda v: isinstance(v, dict))
LAYOUT = ('"random" or {"tokens": {...}}', lambda v: v == "random" or (
    isinstance(v, dict) and set(v) == {"tokens"} and isinstance(v["tokens"], dict)
    and all(isinstance(k, str) and isinstance(x, str) for k, x in v["tokens"].items())))
DEAL = ('"app" or "physical"', lambda v: v in ("app", "physical"))
OPT_STR = ("text or null", lambda v: v is None or isinstance(v, str))
NAME = ("a name of 1 to 24 characters", lambda v: isinstance(v, str) and 0 < len(v.strip()) <= 24)

GAME_FIELDS = {"mode": (STR, True), "players": (STRS, True), "removed_districts": (STRS, False),
               "layout": (LAYOUT, False), "seed": (INT, False), "deal": (DEAL, False), "hints": (BOOL, False),
               "pace": (STR, False)}

# A bid or a pass, posted (web/api.py) or sent over the live socket (web/live_acts.py): the same fields, the same checks.
ACTION_FIELDS = {"bid": (STR, False), "value": (INT, False), "pass": (TRUE, False), "expect_seq": (INT, False)}


def action_fields(data: dict) -> dict:
    """A checked action: a pass, or a bid with its value."""
    if ("pass" in data) == ("bid" in data) or ("bid" in data) != ("value" in data):
        raise Refused(400, "bad_action")
    return data


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
    return checked(data, fields)


def checked(data, fields: dict) -> dict:
    """`data` when it is an object with every field known and of the right type (a socket's action too)."""
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


def player_name(value: str) -> str:
    """A typed name as the table will show it, or the refusal that says why it cannot be one."""
    name = names.clean(value)
    if name is None:
        raise Refused(400, "bad_name")
    return name
