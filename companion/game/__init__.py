"""The rules of Metropolys: pure, stdlib only, state in and state out."""
from .board import Board, load_board
from .errors import RuleError
from .state import Bid, Pass, Seat, Setup, State
from .rules import LegalActions, apply, could_outbid, legal_actions, new_game
from .scoring import score

__all__ = [
    "Board", "load_board", "RuleError", "Bid", "Pass", "Seat", "Setup", "State",
    "LegalActions", "apply", "could_outbid", "legal_actions", "new_game", "score",
]
