"""Names a table can read (printable, trimmed, visible, unique per game ignoring case), and an undo that a retry
cannot double."""
from __future__ import annotations

import random
import re

import pytest

from companion.names import LIMIT
from server_helpers import ROOT, create_game, play, seat_and_start


@pytest.mark.parametrize("name", ["", "   ", "\u200b", "\u200b\u200c\u200d", "\u202eevil", "a\u2066b", "a\x00b",
                                  "a\nb", "tab\there", "\ud800", "x" * 25, "\u0301", "\ufeff", "\x7f"])
def test_names_that_are_not_printable_or_visible_are_refused(server, phone, name):
    p = phone(server, lang="de")
    gid = create_game(p, ["blue", "red"])
    before = server.event_count()
    r = p.post(f"/api/games/{gid}/seats/blue", {"name": name})
    assert r.status == 400 and r.json["code"] in ("bad_name", "bad_type")
    assert server.event_count() == before
    if r.json["code"] == "bad_name":
        assert r.json["error"].startswith("Ein Name braucht mindestens ein sichtbares Zeichen")


def test_names_are_trimmed_and_unique_per_game_ignoring_case(server, phone):
    ann, other = phone(server), phone(server, lang="fr")
    gid = create_game(ann, ["blue", "red"])
    r = ann.post(f"/api/games/{gid}/seats/blue", {"name": "  Ann   Lee  "})
    assert r.status == 200 and r.json["you"]["name"] == "Ann Lee"
    r = other.post(f"/api/games/{gid}/seats/red", {"name": "ann LEE"})
    assert r.status == 409 and r.json["code"] == "name_taken"
    assert r.json["error"] == "Un autre joueur de cette partie porte déjà ce nom."
    assert other.post(f"/api/games/{gid}/seats/red", {"name": "Zoë"}).status == 200
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "ANN LEE"}).status == 200   # one's own name, recased
    gid2 = create_game(ann, ["blue", "red"])
    assert other.post(f"/api/games/{gid2}/seats/red", {"name": "Ann Lee"}).status == 200  # another game: fine


def test_a_retried_undo_takes_back_one_action_only(server, phone):
    phones = {c: phone(server) for c in ("blue", "red")}
    gid = create_game(phones["blue"], list(phones))
    seat_and_start(gid, phones["blue"], phones)
    play(gid, phones, random.Random(3), max_actions=3)
    view = phones["blue"].view(gid)
    r = phones["blue"].post(f"/api/games/{gid}/undo", {"expect_seq": view["seq"]})
    assert r.status == 200 and r.json["actions"] == view["actions"] - 1
    again = phones["blue"].post(f"/api/games/{gid}/undo", {"expect_seq": view["seq"]})   # the answer was lost
    assert again.status == 409 and again.json["code"] == "stale" and again.json["view"]["seq"] == view["seq"] + 1
    assert phones["blue"].view(gid)["actions"] == view["actions"] - 1
    r = phones["blue"].post(f"/api/games/{gid}/undo", {"expect_seq": "x"})
    assert r.status == 400 and r.json["code"] == "bad_type"


def test_the_forms_limits_are_the_servers():
    for template in ("host.html", "phone.html"):
        text = (ROOT / "templates" / template).read_text()
        for tag in re.findall(r'<input id="(?:layout-name|join-name)"[^>]*>', text):
            assert f'maxlength="{LIMIT}"' in tag, (template, tag)
    assert len(re.findall(r'id="(?:layout-name|join-name)"', (ROOT / "templates" / "host.html").read_text()
                          + (ROOT / "templates" / "phone.html").read_text())) == 2
