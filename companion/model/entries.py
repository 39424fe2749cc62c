"""A game played on the board alone, being typed in to be scored: its events as the log makes them (the requests
that log them are the table's, companion/table/scoreboard.py)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Optional

from companion.game.board_entry import hold, place, reveal, set_tokens, to_state
from companion.game.state import Seat, State
from companion.store import events

if TYPE_CHECKING:
    from companion.model.game import Game


# The Game's events for a board being scored (game.EVENTS; the same for replay).
def on_building(game: Game, event: events.Building, device: Optional[str], after: Optional[State]) -> None:
    """A building entered, changed or taken off (color null) in one neighborhood."""
    game.board = place(game.board, event.neighborhood, event.color, event.height)


def on_tokens(game: Game, event: events.Tokens, device: Optional[str], after: Optional[State]) -> None:
    """One player's trendy, subway and archaeological tokens."""
    game.board = set_tokens(game.board, event.color, event.tokens)


def on_holder(game: Game, event: events.Holder, device: Optional[str], after: Optional[State]) -> None:
    """Who holds the subway or the archaeological site card (null: nobody)."""
    game.board = hold(game.board, event.card, event.color)


def on_secret(game: Game, event: events.Secret, device: Optional[str], after: Optional[State]) -> None:
    """One player's secret cards, seen by nobody else until the tally (views.private shows its own seat's)."""
    game.board = reveal(game.board, event.color, event.area, event.neighborhood)
    game.cards[event.color] = (event.area, event.neighborhood)


def on_name(game: Game, event: events.Name, device: Optional[str], after: Optional[State]) -> None:
    """The host names a colour nobody sat down on (the history and the standings count players by name)."""
    game.names[event.color] = event.name


def on_tally(game: Game, event: events.Tally, device: Optional[str], after: Optional[State]) -> None:
    """The board is complete: the game is over with the rules core's tally (the cards are revealed)."""
    game.state = after if after is not None else to_state(named_board(game))


def named_board(game: Game):
    """The board with the names the players sat down with (the history and BG Stats show them)."""
    seats = tuple(Seat(s.color, game.names.get(s.color, ""), s.area, s.neighborhood) for s in game.board.seats)
    return replace(game.board, seats=seats)
