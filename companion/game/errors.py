"""One exception for every broken rule, carrying a sentence a player can read in any language."""
from __future__ import annotations

# English sentences; a (singular, plural, count) tuple is counted by its `count` parameter. They are the
# msgids of the gettext catalogs in companion/lang/translations (msgctxt "rule:<code>"), which hold the other languages.
MESSAGES = {
    # play
    "game_over": "the game is over: {player} cannot act any more",
    "unknown_player": "{player} is not playing in this game",
    "not_your_turn": "{player} cannot act now: it is {to_act}'s turn",
    "already_passed": "{player} passed and cannot act again in this call",
    "start_cannot_pass": "{player} cannot pass: the start player must open the call with a bid",
    "unknown_neighborhood": "{player} cannot bid in {neighborhood}: there is no such neighborhood",
    "district_removed": "{player} cannot bid in {neighborhood}: the {district} district is not in play",
    "already_built": "{player} cannot bid in {neighborhood}: {owner} has already built there",
    "already_bid": "{player} cannot bid in {neighborhood}: {owner} already bid there in this call",
    "bad_value": "{player} cannot bid {value}: buildings are numbered 1 to 13",
    "value_built": "{player} cannot bid {value}: that building is already built",
    "value_on_board": "{player} cannot bid {value}: that building is already on the board in this call",
    "too_low": "{player} cannot bid {value}: it must be higher than {last_value}, the last bid",
    "not_adjacent": "{player} cannot bid in {neighborhood}: it is not adjacent to {last}, the last bid",
    "across_water": "{player} cannot bid in {neighborhood}: a lake lies between it and {last}, the last bid, and lakes cannot be crossed",
    "bad_action": "{detail}",
    # setup
    "player_count": "a game needs 2 to 4 players, not {count}",
    "bad_color": "{color} is not a player colour (blue, red, white, gray)",
    "duplicate_color": "{color} is taken by two players",
    "bad_mode": "the mode must be family or expert, not {mode}",
    "bad_area": "{color} holds {card}, which is not one of the {mode} area cards ({cards})",
    "no_borders_2p": "{color} holds the borders card, which is left out of 2-player games",
    "bad_neighborhood_card": "{color} holds {card}, which is not a neighborhood card ({cards})",
    "family_neighborhood_card": "{color} holds a neighborhood card, which only the expert game uses",
    "missing_area": "{color} has no area card",
    "missing_neighborhood_card": "{color} has no neighborhood card, which the expert game deals to everyone",
    "duplicate_card": "{card} is dealt to two players, but the deck holds it once",
    "bad_district": "{district} is not a peripheral district (north, east, south, west)",
    "removed_count": ("{count} players must remove {need} peripheral district, not {got}",
                      "{count} players must remove {need} peripheral districts, not {got}", "need"),
    "removed_twice": "the {district} district is listed twice among the removed districts",
    "removed_not_adjacent": "2 players must remove two adjacent districts, not {a} and {b}",
    "token_unknown_neighborhood": "a token lies on {neighborhood}, which is not a neighborhood",
    "token_bad_kind": "the token on {neighborhood} is {kind}, not trendy, subway or archaeological",
    "token_blind_alley": "a token lies on {neighborhood}, a blind alley, where tokens never go",
    "token_removed_district": "a token lies on {neighborhood}, in the {district} district, which is not in play",
    "token_kind_count": ("{count} players use {need} {kind} token, not {got}",
                         "{count} players use {need} {kind} tokens, not {got}", "need"),
    "token_district_count": ("the {district} district takes {need} token, not {got}",
                             "the {district} district takes {need} tokens, not {got}", "need"),
    "bad_record": "{detail}",
    # a finished board typed in (board_entry)
    "board_unknown_neighborhood": "there is no neighborhood {neighborhood} on the board",
    "board_district_removed": "no building can stand on {neighborhood}: the {district} district is not in play",
    "board_height_missing": "say how tall the building on {neighborhood} is: small (1-5), medium (6-9) or tall (10-13)",
    "board_too_many": "{color} has only 13 buildings, not {count}",
    "board_too_many_height": ("{color} has only {have} {height} building, not {count}",
                              "{color} has only {have} {height} buildings, not {count}", "have"),
    "board_bad_tokens": "{color}'s tokens must be whole numbers, none below 0",
    "board_bad_card": "{card} is not one of the two special cards (subway, archaeological)",
    "board_card_no_token": "{color} cannot hold the {card} card without a single {card} token",
    "board_subway_fewer": "{color} cannot hold the subway card: {other} has more subway tokens ({other_got} to {got}), and it goes to the player with the most",
    "board_not_finished": "nobody has built all 13 buildings yet: the game ends when a player builds the last one",
    "board_two_finished": "{color} and {other} cannot both have built 13 buildings: the game ends at the first",
    "board_tokens_buildings": ("{color} has {count} tokens but only {room} building where a token can lie (not a blind alley)",
                               "{color} has {count} tokens but only {room} buildings where a token can lie (not a blind alley)", "room"),
    "board_card_nobody": "someone must hold the {card} card: {color} has {card} tokens",
    "board_cards_missing": "{color}'s secret cards are not entered yet",
    "board_area_twice": "{color} cannot enter {card}: it is entered for {other} already, and the game has one of each card. Check {color}'s area card; if it really is {card}, {other}'s entry is the one to change",
    "board_neighborhood_twice": "{color} cannot enter the {card} card: it is entered for {other} already, and the game has one of each card. Check {color}'s neighborhood card; if it really is {card}, {other}'s entry is the one to change",
}


def english(code: str, params: dict) -> str:
    """The English sentence for `code`, its plural form picked as English counts (one, else many)."""
    text = MESSAGES[code]
    if isinstance(text, tuple):
        singular, plural, count = text
        text = singular if params.get(count) == 1 else plural
    return text.format(**params)


class RuleError(ValueError):
    """A move or setup the rulebook forbids; `code` and `params` let the pages say it in any language."""

    def __init__(self, code: str, **params):
        self.code = code
        self.params = params
        super().__init__(english(code, params))

    @property
    def sentence(self) -> str:
        return self.args[0]
