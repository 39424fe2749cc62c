"""The served map against the board data: streets where the board has streets, bridges where it has bridges, water
everywhere else; lakes between their neighborhoods, statues where their three meet, labels inside their shapes."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from companion import create_app

from companion.web import boardmap as loader
from tools import boardmap
from companion.game.board import board_data
from map_geometry import (STREET_GAP, bbox, closest, contains, dist_point, read, relations, shared, water_between,
                          wrong_pairs)

BOARD = board_data()
REL = relations(BOARD)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The table display (board north up) and the host page (the portrait map phones show), as the server sends them."""
    app = create_app({"DB": str(tmp_path_factory.mktemp("map") / "db.sqlite3"), "TESTING": True, "LEDS": False})
    client = app.test_client()
    return {page: read(client.get(page).get_data(as_text=True)) for page in ("/table", "/")}


PAGES = ["/table", "/"]


@pytest.mark.parametrize("page", PAGES)
def test_every_neighborhood_is_drawn_once(served, page):
    drawn = served[page]
    assert sorted(drawn.shapes) == sorted(n["id"] for n in BOARD["neighborhoods"])
    assert all(len(p) >= 3 for p in drawn.shapes.values())


@pytest.mark.parametrize("page", PAGES)
def test_no_neighbor_pair_is_drawn_wrongly(served, page):
    """Street neighbors share a border, bridge neighbors have a bridge over water, and no other pair touches."""
    assert wrong_pairs(served[page], BOARD) == []


@pytest.mark.parametrize("page", PAGES)
def test_shapes_closer_than_a_street_are_street_neighbors_and_others_have_water_between(served, page):
    drawn = served[page]
    ids = sorted(drawn.shapes)
    checked = 0
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            pa, pb = drawn.shapes[a], drawn.shapes[b]
            ba, bb = bbox(pa), bbox(pb)
            if ba[0] > bb[2] + 40 or bb[0] > ba[2] + 40 or ba[1] > bb[3] + 40 or bb[1] > ba[3] + 40:
                continue
            close = max(shared(pa, pb), shared(pb, pa))
            if close > 0:
                assert REL.get(frozenset((a, b))) == "street", f"{a} and {b} come within a street's width"
            elif closest(pa, pb)[0] < 2 * boardmap.WATER + 6:
                checked += 1
                assert water_between(drawn, pa, pb, a, b), f"{a} and {b}: no water between them"
    assert checked > 20


@pytest.mark.parametrize("page", PAGES)
def test_every_street_adjacency_is_a_shared_border(served, page):
    drawn = served[page]
    for pair, kind in REL.items():
        if kind == "street":
            a, b = sorted(pair)
            assert shared(drawn.shapes[a], drawn.shapes[b]) >= boardmap.MIN_BORDER - 4, (a, b)


@pytest.mark.parametrize("page", PAGES)
def test_every_bridge_crosses_water_from_one_neighborhood_to_the_other(served, page):
    drawn = served[page]
    assert sorted(tuple(sorted((a, b))) for a, b, _, _ in drawn.bridges) == \
        sorted(tuple(sorted(p)) for p, k in REL.items() if k == "bridge"), "one bridge per bridge adjacency, and no other"
    for a, b, p, q in drawn.bridges:
        assert contains(drawn.shapes[a], p) and contains(drawn.shapes[b], q), (a, b)
        mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
        assert all(dist_point(s, mid) > 0 for s in drawn.shapes.values()), f"{a}-{b}: the bridge's middle is on land"
        assert not any(contains(land, mid) for land in drawn.lands), f"{a}-{b}: the bridge crosses a street, not water"


@pytest.mark.parametrize("page", PAGES)
def test_lakes_lie_between_exactly_their_neighborhoods(served, page):
    drawn = served[page]
    assert sorted(drawn.lakes) == sorted(lake["id"] for lake in BOARD["lakes"])
    for lake in BOARD["lakes"]:
        parts = drawn.lakes[lake["id"]]
        touching = {nb for nb, s in drawn.shapes.items() for poly in parts if shared(s, poly, 1.0) >= 8}
        assert touching == set(lake["neighborhoods"]), lake["id"]
        # water, not a dot: each part of the lake has room for a circle of 20 units across
        assert all(boardmap.pole(poly)[1] >= 10 for poly in parts), lake["id"]


@pytest.mark.parametrize("page", PAGES)
def test_statues_stand_where_their_three_neighborhoods_meet(served, page):
    drawn = served[page]
    assert len(drawn.statues) == len(BOARD["statues"])
    for of, at in drawn.statues:
        nearest = sorted(drawn.shapes, key=lambda nb: dist_point(drawn.shapes[nb], at))[:3]
        assert sorted(nearest) == sorted(of), (of, nearest)
        assert all(dist_point(drawn.shapes[nb], at) <= 2 * STREET_GAP for nb in of), of
    assert sorted(sorted(of) for of, _ in drawn.statues) == sorted(sorted(s["neighborhoods"]) for s in BOARD["statues"])


@pytest.mark.parametrize("page", PAGES)
def test_blind_alleys_are_enclosed_by_water_but_for_their_one_way_out(served, page):
    drawn = served[page]
    for nb in BOARD["blind_alleys"]:
        (way_out,) = next(n["neighbors"] for n in BOARD["neighborhoods"] if n["id"] == nb)
        near = {o for o, s in drawn.shapes.items() if o != nb and shared(drawn.shapes[nb], s) > 0}
        assert near == {way_out}, nb


@pytest.mark.parametrize("page", PAGES)
def test_each_label_sits_inside_its_own_shape(served, page):
    drawn = served[page]
    spill = []
    for nb, (x, y, size) in drawn.labels.items():
        if nb in drawn.callouts:
            continue       # beside its shape: checked below
        assert contains(drawn.shapes[nb], (x, y)), nb
        assert not any(contains(s, (x, y)) for o, s in drawn.shapes.items() if o != nb), nb
        w, h = 0.64 * size * len(nb), 0.75 * size
        corners = [(x - w / 2, y - h / 2), (x + w / 2, y - h / 2), (x + w / 2, y + h / 2), (x - w / 2, y + h / 2)]
        if not all(contains(drawn.shapes[nb], c) for c in corners):
            spill.append(nb)
    # The two smallest blind alleys (N07 and E04, squeezed between a lake and their neighbors) are the only
    # shapes whose number may run over their edge; every other number sits wholly inside its own shape.
    assert set(spill) <= {"N07", "E04"}, spill


def test_portrait_is_the_board_turned_a_quarter_clockwise_everywhere():
    """Phones and the host page share one map: north to the right, as the compass says; the table is north up."""
    flat, turned = boardmap.board_map(False), boardmap.board_map(True)
    assert (flat["w"], flat["h"]) == (1000, 696) and turned["w"] == 696 and not flat["portrait"] and turned["portrait"]
    n01 = next(h for h in turned["hoods"] if h["id"] == "N01")["spots"]["label"]
    s07 = next(h for h in turned["hoods"] if h["id"] == "S07")["spots"]["label"]
    assert n01[0] > s07[0], "north lies to the right of south on the turned map"
    w = next(h for h in turned["hoods"] if h["id"] == "W01")["spots"]["label"]
    e = next(h for h in turned["hoods"] if h["id"] == "E07")["spots"]["label"]
    assert w[1] < e[1], "west lies above east on the turned map"
    assert math.isclose(turned["top"], boardmap.COMPASS)


def test_the_pair_check_sees_a_board_that_differs_from_the_drawing(served):
    """The same check against altered board data: a street the drawing lacks, and one it draws that is not there."""
    import copy

    board = copy.deepcopy(BOARD)
    board["adjacencies"] = [e for e in board["adjacencies"] if {e["a"], e["b"]} != {"C03", "C04"}]
    board["adjacencies"].append({"a": "C06", "b": "C12", "bridge": False})
    board["adjacencies"].append({"a": "C01", "b": "N06", "bridge": True})
    wrong = {frozenset(w[:2]) for w in wrong_pairs(served["/table"], board)}
    assert wrong == {frozenset(("C03", "C04")), frozenset(("C06", "C12")), frozenset(("C01", "N06"))}


def test_the_shipped_drawing_is_exactly_what_the_code_computes():
    """The server serves game/data/board-map-drawn.json; it may never drift from the sites, the board data or this code."""
    shipped = Path(loader.__file__).parent.parent / "game" / loader.DRAWN
    assert shipped.read_text("utf-8") == boardmap.render(), \
        f"{shipped.name} is out of date with the map's code or data: regenerate it with `{boardmap.WRITE}`"


def test_serving_the_map_pages_computes_no_geometry(tmp_path):
    """The first page after a boot reads the shipped drawing; on a Pi Zero the computation takes seconds."""
    for cached in (boardmap.board_map, boardmap._geometry, loader.drawn_file):
        cached.cache_clear()
    client = create_app({"DB": str(tmp_path / "db.sqlite3"), "TESTING": True, "LEDS": False}).test_client()
    for page in ("/table", "/", "/g/any"):
        body = client.get(page).get_data(as_text=True)
        assert 'data-nb="C01"' in body, page
    assert loader.drawn_file.cache_info().misses == 1
    assert boardmap.board_map.cache_info().misses == 0 and boardmap._geometry.cache_info().misses == 0


@pytest.mark.parametrize("page", PAGES)
def test_the_five_smallest_numbers_stand_beside_their_shapes_on_a_tag_with_a_line_to_them(served, page):
    """Issue 20: read from a metre or two, the numbers of C01, C09, N07, E04 and S01 are too small inside their shapes;
    on the table map each stands on a tag beside its shape, its line ending inside its own shape, the tag covering
    no other number. Issue 30: on the phone's map (turned a quarter) these five and C04 and C10 are too small for a
    thumb (no room for a 72-unit circle; N06 too, but its tag finds no room clear of other numbers and pieces); each
    has a square tag that takes the tap, holding a 26 px square on the whole board 320 px wide (0.46 px a unit)."""
    drawn = served[page]
    phone = page != "/table"
    assert sorted(drawn.callouts) == (["C01", "C04", "C09", "C10", "E04", "N07", "S01"] if phone else
                                      ["C01", "C09", "E04", "N07", "S01"])
    for nb, ((x, y, w, h), end) in drawn.callouts.items():
        assert contains(drawn.shapes[nb], end), nb
        assert not any(contains(s, end) for o, s in drawn.shapes.items() if o != nb), nb
        lx, ly, size = drawn.labels[nb]
        assert (x < lx < x + w and y < ly < y + h) and size >= (boardmap.THUMB_FONT if phone else boardmap.CALLOUT_FONT), nb
        if phone:
            assert min(w, h) * 320 / 696 >= 26, (nb, w, h)
        for other, (ox, oy, osize) in drawn.labels.items():
            if other != nb:
                ow, oh = 0.64 * osize * len(other), 0.75 * osize
                assert ox + ow / 2 < x or ox - ow / 2 > x + w or oy + oh / 2 < y or oy - oh / 2 > y + h, (nb, other)
    if not phone:
        assert min(size for _, _, size in drawn.labels.values()) >= 16
