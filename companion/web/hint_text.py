"""The hint's "because": one sentence in the phone's language, in the words of the board (neighborhoods, values,
tokens, colours), from what the Pi weighed for this seat (table/reviews.py)."""
from __future__ import annotations

from typing import Optional

from companion.game.state import Action, Bid, State
from companion.lang import i18n


def action_json(action: Action) -> dict:
    return {"bid": action.neighborhood, "value": action.value} if isinstance(action, Bid) else {"pass": True}


def _alt(lang: str, action: Action) -> str:
    if isinstance(action, Bid):
        return i18n.t(lang, "hint_alt_bid", value=action.value, neighborhood=action.neighborhood)
    return i18n.t(lang, "hint_alt_pass")


def because(lang: str, seen: State, action: Action, gap: float, second: Optional[Action], named=None) -> str:
    """Why: what the move does on the board, then how far the Pi rates it above the next move it weighed;
    `named`: colour -> how the game names that seat ("Ann (Red)", views.said_name)."""
    if isinstance(action, Bid):
        token = seen.tokens.get(action.neighborhood)
        head = (i18n.t(lang, "hint_bid_token", value=action.value, neighborhood=action.neighborhood,
                       token=i18n.term(lang, token)) if token else
                i18n.t(lang, "hint_bid", value=action.value, neighborhood=action.neighborhood))
    else:
        last = seen.call[-1]
        head = i18n.t(lang, "hint_pass", player=named(last.player) if named else last.player, value=last.value, neighborhood=last.neighborhood)
    if second is None:
        tail = i18n.t(lang, "hint_alone")
    elif round(gap) < 1:
        tail = i18n.t(lang, "hint_close", second=_alt(lang, second))
    else:
        tail = i18n.t(lang, "hint_ahead", gap=int(round(gap)), second=_alt(lang, second))
    return head + " " + tail
