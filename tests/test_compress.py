"""Pages, scripts, styles and QR codes travel gzipped to phones that ask; the bytes inside are the same."""
from __future__ import annotations

import gzip
import http.client

import pytest

from server_helpers import Phone, create_game


def fetch(server, path: str, headers: dict) -> http.client.HTTPResponse:
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    r.body = r.read()
    c.close()
    return r


@pytest.fixture(scope="module")
def gid(server):
    return create_game(Phone(server), ("blue", "red"), seed=2)


@pytest.mark.parametrize("path", ["/", "/table", "/g/{gid}", "/static/app.js", "/static/app.css", "/qr/join/{gid}.svg"])
def test_text_answers_are_gzipped_for_browsers_that_ask_and_unchanged_inside(server, gid, path):
    path = path.format(gid=gid)
    plain = fetch(server, path, {})
    packed = fetch(server, path, {"Accept-Encoding": "gzip, deflate"})
    assert plain.status == packed.status == 200
    assert plain.getheader("Content-Encoding") is None
    assert packed.getheader("Content-Encoding") == "gzip"
    assert "Accept-Encoding" in packed.getheader("Vary")
    assert int(packed.getheader("Content-Length")) == len(packed.body) < len(plain.body) / 2
    inside = gzip.decompress(packed.body)
    if path.startswith("/static"):
        assert inside == plain.body
    else:  # pages carry a fresh game id or QR per request; their size and start must match
        assert abs(len(inside) - len(plain.body)) < 64 and inside[:40] == plain.body[:40]


def test_a_phone_revalidates_a_static_file_without_downloading_it_again(server):
    first = fetch(server, "/static/phone.js", {"Accept-Encoding": "gzip"})
    again = fetch(server, "/static/phone.js", {"Accept-Encoding": "gzip",
                                               "If-Modified-Since": first.getheader("Last-Modified")})
    assert again.status == 304 and again.body == b""


def test_game_views_and_small_answers_stay_plain(server, gid):
    view = fetch(server, f"/api/games/{gid}", {"Accept-Encoding": "gzip"})
    assert view.status == 200 and view.getheader("Content-Encoding") is None
    icon = fetch(server, "/static/icon.svg", {"Accept-Encoding": "gzip"})
    assert icon.getheader("Content-Encoding") is None  # under 1 KB: gzip would only add bytes
