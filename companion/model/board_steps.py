"""What to move on the real board: the Pi's actions and the calls' ends since a person last confirmed the board
(issue 40), as the log makes them.

A confirmation is a logged event ("board_done"): a power cut between a Pi move and the person's "Done on the board"
must leave the Pi waiting, and one after it must not ask again for what was done. It changes no rule and no game
record (the record is made from the actions alone). The requests are the table's (companion/table/board_steps.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion.model.seats import level_of, pi_seats
from companion.store import events

if TYPE_CHECKING:
    from companion.model.game import Game


def waits(game: Game) -> bool:
    """The Pi holds its act: the board pace and steps not yet done on the board."""
    return game.pace == "board" and any(s["seq"] > game.board_through for s in game.board_steps)


# The Game's events for the steps on the board (game.EVENTS), and what an action or an undo leaves to do there.
def on_board_done(game: Game, event: events.BoardDone, device: Optional[str], after) -> None:
    game.board_through = max(game.board_through, event.through)
    game.board_steps = [s for s in game.board_steps if s["seq"] > game.board_through]


def board_step(game: Game, line: dict, device: Optional[str]) -> None:
    """After an action (game.seq not yet counted): a person who acts has seen the board; a Pi's action and a
    call's end are steps to do on it."""
    seq, index = game.seq + 1, len(game.actions) - 1
    if level_of(device) is None:
        game.board_through = max(game.board_through, seq - 1)
        game.board_steps = [s for s in game.board_steps if s["seq"] > game.board_through]
    else:
        step = {k: line[k] for k in ("color", "kind", "neighborhood", "value") if k in line}
        game.board_steps.append(dict(step, seq=seq, action=index, step=step.pop("kind")))
    # people alone: each moves their own pieces, and the call-over card says the call's end
    if "ended" in line and pi_seats(game):
        game.board_steps.append(dict(line["ended"], seq=seq, action=index, step="call_end"))


def board_undone(game: Game, before, taken: list) -> None:
    """An undo takes the steps of the actions it takes back with them, and asks for the board to be put back as
    the game now stands (whether or not a Pi plays): one step, until a person says it is done on the board."""
    game.board_steps = [s for s in game.board_steps if s["action"] < len(game.actions)]
    moves = undo_moves(before, game.state)
    if moves:   # a pass taken back alone moves nothing
        if game.undone is not None:
            game.undone["board"] = True   # the pages say it in the board's steps, not twice
        game.board_steps.append({"step": "undo", "seq": game.seq + 1, "action": -1, "moves": moves,
                                 "taken": [{k: t[k] for k in ("kind", "color", "neighborhood", "value") if k in t}
                                           for t in taken if t.get("kind")]})


def undo_moves(before, after) -> list[dict]:
    """What to move on the real board to go from the state `before` an undo to the state `after` it, in the order a
    hand does it: buildings turned back number up, pieces taken off, tokens put back, bids put back, cards handed
    back. Each move names the piece's owner ("color"): the pages say it in the board's words."""
    standing = {(b.neighborhood, b.player, b.value) for b in after.call}
    was = {(b.neighborhood, b.player, b.value) for b in before.call}
    moves = []
    for nb, b in before.built.items():
        if nb not in after.built and (nb, b.player, b.value) in standing:
            moves.append({"do": "turn_up", "color": b.player, "nb": nb, "value": b.value})
    gone = [(nb, b.player, b.value) for nb, b in before.built.items()
            if nb not in after.built and (nb, b.player, b.value) not in standing]
    gone += [key for key in reversed([(b.neighborhood, b.player, b.value) for b in before.call]) if key not in standing]
    moves += [{"do": "off", "color": c, "nb": nb, "value": v} for nb, c, v in gone]
    for nb, token in after.tokens.items():
        if nb not in before.tokens and nb in before.built:
            moves.append({"do": "token", "color": before.built[nb].player, "nb": nb, "token": token})
    for b in after.call:
        if (b.neighborhood, b.player, b.value) not in was and b.neighborhood not in before.built:
            moves.append({"do": "put_back", "color": b.player, "nb": b.neighborhood, "value": b.value})
    for card in ("subway", "archaeological"):
        old, new = getattr(before, card + "_card"), getattr(after, card + "_card")
        if old != new:
            moves.append({"do": "card", "card": card, "color": None if new is None else after.colors[new]})
    return moves
