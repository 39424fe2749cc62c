"""The English of the "How to play" card (/learn), kept apart from strings.UI so no page's first load carries it."""
# Each key is its message's msgctxt with the prefix "learn:" (companion/catalogs.py, SECTIONS); German and French
# are in the same catalogs as every other string, in the rulebooks' own terms. The examples' {placeholders} are
# filled from the printed board (companion/learn.py), so a caption always says what its picture shows.

LEARN = {
    "title": "How to play",
    "back": "Back",
    "intro": "Metropolys in two minutes, with the board's own neighborhoods.",
    "goal_title": "The goal",
    "goal": "You are urban planners in quest of prestige: build your buildings in the best places. As soon as a "
            "player has built their last building, the game ends and the player with the most prestige wins.",
    "call_title": "A call for proposal",
    "call": "The game is played in calls for proposal; each one ends with exactly one building built. The start "
            "player places one of their buildings, of any value, number up, in any neighborhood not occupied by "
            "another building. Then, clockwise, each player outbids or passes.",
    "call_example": "{player} opens the call with a {value} on {nb}.",
    "outbid_title": "Outbidding",
    "outbid": "To outbid, place a building of a higher value than the one just placed, in an unoccupied neighborhood "
              "adjacent to it. Crossing bridges is allowed; lakes and the river cannot be crossed. On your phone, "
              "the neighborhoods you may choose are lit.",
    "outbid_example": "{player}'s {value} on {nb}: the next bid goes on a lit neighborhood ({lit}) with {higher} or "
                      "more. Not on {water}: a lake lies between {nb} and {water}.",
    "bridge_example": "{player}'s {value} on {nb}: the bridges lead on to {bridged}.",
    "pass_title": "Passing",
    "pass": "A player who passes places no other building in this call; the buildings they already placed stay on "
            "the board until the call ends. A player with no building of a high enough value must pass: the app "
            "passes for them.",
    "end_call_title": "What ends a call",
    "end_call": "A call ends when all players but one have passed, when the last building placed has no free "
                "neighborhood next to it, or when nobody can outbid it. The player who placed the last building wins "
                "the call: they turn it over (it is built and stays until the end of the game) and take the token "
                "on its neighborhood. Everyone takes their other buildings back, and the winner opens the next call.",
    "end_example": "{built} is built, so a building on {nb} has no free neighborhood next to it: {player}'s {value} "
                   "there wins the call at once.",
    "tokens_title": "The tokens",
    "tokens": "Whoever builds on a neighborhood with a token takes it. Tokens count at the end of the game:",
    "token_trendy": "3 prestige points each.",
    "token_subway": "1 prestige point each. The player with the most subway tokens holds the subway card: "
                    "3 prestige points (a tie does not move it).",
    "token_archaeological": "minus 1 prestige point each. The last player who took one holds the archaeological "
                            "site card: minus 2 prestige points.",
    "cards_title": "The secret cards",
    "cards": "Each player has a secret area card (in the Expert game also a neighborhood card). Only your own phone "
             "shows yours: tap “My cards”. Build next to what your card names: it scores at the end. Try to guess "
             "the others' cards from their bids.",
    "end_title": "The end",
    "end": "The game ends as soon as a player has built their last building. Everyone reveals their secret cards "
           "and the app counts the prestige points line by line. The most prestige wins; in a tie, the tied player "
           "with the most buildings; after that the tied players share the victory.",
    "end_expert": "Expert game: in each district the highest building (by height, not value: small 1-5, medium 6-9, "
                  "tall 10-13) also earns its owner 5 prestige points.",
    "phone_title": "On your phone",
    "phone": "When it is your turn your phone vibrates and lights the neighborhoods you may choose: tap one, then a "
             "value, then Bid; or Pass. Put the same building on the real board.",
}
