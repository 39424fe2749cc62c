"""A finished game watched again, decision by decision: each recorded action with the board's scoring right after it.

Pure: a record (RECORD.md) in, a small dict out. `steps` has one entry for each action of the record, in order:
{"seq": n (1-based, as `companion score` numbers actions), "color", "action": {"bid", "value"} | {"pass": true},
"scores": {colour: points}, "call": the call's number, and when it ended the call, "ended"}. `scores` is the final
scoring (RECORD.md) applied to the board right after the action: buildings standing, tokens, special cards and every
seat's card, all revealed (only ever sent once the game is over); the last step's scores are the tally.
"""
from __future__ import annotations

from typing import Any, Optional

from .awards import awards
from .board import Board, load_board
from .record import walk
from .scoring import score
from .state import Bid, State


def _ended(before: State, after: State) -> Optional[dict]:
    """How the call ended, when this action ended it: who built what where, the token and the cards that moved."""
    if after.call or after.last_call is None or after.last_call is before.last_call:
        return None
    lc = after.last_call
    return {"color": lc.player, "neighborhood": lc.neighborhood, "value": lc.value, "token": lc.token,
            "subway_card": lc.subway_card, "archaeological_card": lc.archaeological_card}


def steps(doc: Any, board: Optional[Board] = None) -> dict:
    """The replay of a record: its setup (every card shown), one step per action, and the awards."""
    board = board or load_board()
    out, call, scores = [], 0, None
    for seq, (action, before, after, written) in enumerate(walk(doc, board), 1):
        if not before.call and not written:
            call += 1   # a call opens with its start player's bid (a start player cannot pass)
        ended = None if written else _ended(before, after)
        if scores is None or ended:
            # Only a call's end changes what scores (buildings, tokens, the cards' holders): scored then, a third
            # of the actions (tests/test_replay.py checks every step against the scoring of its own state).
            scores = {c: p["total"] for c, p in score(after, board)["players"].items()}
        step: dict = {"seq": seq, "color": action.player,
                      "action": ({"bid": action.neighborhood, "value": action.value} if isinstance(action, Bid)
                                 else {"pass": True}),
                      "scores": scores, "call": call}
        if written:
            step["written"] = True
        if after.auto_passed and not written:
            step["auto"] = [after.colors[s] for s in after.auto_passed]
        if ended:
            step["ended"] = ended
        out.append(step)
    return {"mode": doc["mode"],
            "players": [{k: p.get(k) for k in ("color", "name", "area", "neighborhood")} for p in doc["players"]],
            "removed_districts": list(doc.get("removed_districts") or []),
            "tokens": dict(doc["tokens"]),
            "steps": out,
            "awards": awards(doc, board)}
