"""Refusals come back in the phone's language: German and French from companion/lang/i18n.py."""
from __future__ import annotations

import pytest

from companion.lang import i18n
from server_helpers import create_game, seat_and_start


@pytest.fixture
def game(server, phone):
    blue, red = phone(server), phone(server)
    gid = create_game(blue, ["blue", "red"], seed=9)
    seat_and_start(gid, blue, {"blue": blue, "red": red})
    return gid, blue, red


@pytest.mark.parametrize("lang", ["de", "fr", "de-CH,de;q=0.9,en;q=0.5", "fr-FR"])
def test_a_server_refusal_speaks_the_phones_language(server, phone, game, lang):
    gid, blue, red = game
    short = lang[:2]
    stranger = phone(server, lang=lang)
    r = stranger.post(f"/api/games/{gid}/actions", {"pass": True})
    assert r.status == 403 and r.json["code"] == "not_seated"
    assert r.json["error"] == i18n.UI[short]["not_seated"]
    assert r.json["error"] != i18n.UI["en"]["not_seated"]
    r = stranger.post(f"/api/games/{gid}/actions", raw=b'{"pass": tru')
    assert r.json["error"] == i18n.UI[short]["bad_json"]


# On its own phone a refusal speaks to the player ("you"), in the phone's language, and names who is to act.
@pytest.mark.parametrize("lang,words", [("de", ("Du ", "Blau", "am Zug")), ("fr", ("Vous ", "Bleu", "tour"))])
def test_a_rule_refusal_speaks_the_phones_language(server, phone, game, lang, words):
    gid, blue, red = game
    red.lang = lang
    r = red.post(f"/api/games/{gid}/actions", {"pass": True})   # out of turn: blue starts
    assert r.status == 422 and r.json["code"] == "not_your_turn"
    sentence = r.json["error"]
    for w in words:
        assert w in sentence, sentence
    bare = sentence.replace("P-blue", "").replace("P-red", "")   # the players' names ("P-blue (Blau)", issue 37)
    assert "red" not in bare and "blue" not in bare


def test_english_when_the_phone_asks_for_a_language_we_lack(server, phone, game):
    gid, blue, red = game
    red.lang = "ja,it;q=0.8"
    r = red.post(f"/api/games/{gid}/actions", {"pass": True})
    assert r.json["error"].startswith("You ") and "Blue" in r.json["error"], r


def test_the_lang_cookie_wins_over_accept_language(server, phone, game):
    gid, blue, red = game
    red.lang = "de"
    r = red.post(f"/api/games/{gid}/actions", {"pass": True}, headers={"Cookie": f"{red.cookie_header()}; lang=fr"})
    assert r.json["error"].startswith("Vous "), r


def test_413_and_404_speak_german_too(server, phone):
    p = phone(server, lang="de")
    r = p.post("/api/games", raw=b"{" + b" " * (70 * 1024) + b"}")
    assert r.status == 413 and r.json["error"] == i18n.UI["de"]["too_large"]
    r = p.get("/api/games/nope")
    assert r.status == 404 and r.json["error"] == i18n.UI["de"]["no_game"]
