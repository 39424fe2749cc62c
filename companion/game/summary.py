"""What one decision did, in public facts: the log line, and when it ended a call, how and why.

Pure: two states and the action between them in, a small dict out (the pages say it in any language).
"""
from __future__ import annotations

from .state import Action, Bid, State

# Why a call for proposal ended (rulebook, "End of a call for proposal": once every other player has
# passed, the last bidder builds).
THIRTEEN = "thirteen"          # a 13 cannot be outbid
NOBODY_COULD = "nobody_could"  # the others left could not outbid (no higher value, or no free neighbor)
ALL_PASSED = "all_passed"      # every other player passed of their own accord


def decision(before: State, action: Action, after: State) -> dict:
    """One log line: who did what, who was passed automatically, and the call's end if it ended."""
    colors = before.colors
    line: dict = {"color": action.player}
    if isinstance(action, Bid):
        line.update(kind="bid", neighborhood=action.neighborhood, value=action.value)
    else:
        line["kind"] = "pass"
    line["auto"] = [colors[s] for s in after.auto_passed]
    if after.call:
        return line   # the call goes on
    bids = list(before.call) + ([action] if isinstance(action, Bid) else [])
    win = after.last_call
    built = set(after.built) - set(before.built)
    if win.value == 13:
        reason = THIRTEEN
    elif after.auto_passed:
        reason = NOBODY_COULD
    else:
        reason = ALL_PASSED
    passed = sorted(set(before.passed) | set(after.auto_passed)
                    | ({before.seat(action.player)} if not isinstance(action, Bid) else set()))
    line["ended"] = {
        "color": win.player, "neighborhood": win.neighborhood, "value": win.value,
        "token": win.token, "subway_card": win.subway_card, "archaeological_card": win.archaeological_card,
        "subway_from": None if before.subway_card is None else colors[before.subway_card],
        "archaeological_from": None if before.archaeological_card is None else colors[before.archaeological_card],
        "reason": reason,
        "bids": [{"color": b.player, "neighborhood": b.neighborhood, "value": b.value} for b in bids],
        "back": back(bids, built),
        "passed": [colors[s] for s in passed],
        "finished": after.finished,
    }
    return line


def back(bids: list, built: set) -> list[dict]:
    """Every building placed in the call that was not built, the winner's own included, in the order placed.

    Rulebook, End of the call for proposal: "All the players take their unbuilt buildings (that is, those with a
    visible number) back." and "Remove all the other buildings used in the course of this call for proposal from
    the board." (the winner's earlier bids too: only the last bid is turned over)."""
    return [{"color": b.player, "neighborhood": b.neighborhood, "value": b.value} for b in bids
            if b.neighborhood not in built]
