"""Issue 37 item 3 in real Chromium: the table screen at 1920x1080, 1280x720 and 1024x600 with what a lost phone brings
to it: a claim for the host role and an ask for a gone seat, each with its code. No column overflows or clips (every
player's hand whole in the side column), and every code is as large as the seat's code (computed font sizes of the
real elements). One server (its waits shortened to a second), four players under 24-character names."""
from __future__ import annotations

import time

from conftest import FAST
from pages_helpers import SHOTS, browser  # noqa: F401  (the module's browser fixture)
from server_helpers import Phone
from table_scenes import LONG, late_game, seated
from test_pages_glance import LAYOUT_JS

SIZES = [(1920, 1080), (1280, 720), (1024, 600)]
MEASURE_JS = """() => {
  const side = document.querySelector('.side'), s = side.getBoundingClientRect(), px = e => parseFloat(getComputedStyle(e).fontSize);
  const hands = [...document.querySelectorAll('#players .hand')].map(h => { const r = h.getBoundingClientRect();
    return [h.querySelector('.nm').textContent, r.height > 0 && r.top >= s.top - 1 && r.bottom <= s.bottom + 1]; });
  return {over: side.scrollHeight - side.clientHeight, hands,
          claim: [...document.querySelectorAll('#claim-code .code')].map(e => [e.textContent, px(e)]),
          seat: [...document.querySelectorAll('#seat-asks .code')].map(e => [e.textContent, px(e)]),
          claimShown: !document.getElementById('claim-code').hidden};
}"""


def test_a_lost_phone_s_codes_fit_the_side_column_as_large_as_a_seat_code(start_server, browser):  # noqa: F811
    server = start_server(env=dict(FAST, COMPANION_HOST_AWAY="1"))
    gid, phones = seated(server)
    late_game(phones, gid, calls=3)
    # The host's phone (blue) and white's go; red asks for the host role, a new phone for white's seat.
    for c in ("blue", "white"):
        phones[c].close()
    time.sleep(1.5)
    assert phones["red"].post(f"/api/games/{gid}/host/claim", {}).status == 200
    newcomer = Phone(server)
    r = newcomer.post(f"/api/games/{gid}/seats/white/rescue", {})
    assert r.status == 200, r
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    ctx.add_cookies([{"name": "lang", "value": "en", "url": server.origin}])
    page = ctx.new_page()
    figures = []
    try:
        page.goto(f"http://localhost:{server.port}/table")   # the Pi's own screen: the codes are shown there only
        page.wait_for_selector("#claim-code:not([hidden]) .code")
        page.wait_for_selector("#seat-asks .code")
        for w, h in SIZES:
            page.set_viewport_size({"width": w, "height": h})
            page.wait_for_timeout(300)
            got = page.evaluate(MEASURE_JS)
            if SHOTS:
                page.screenshot(path=f"{SHOTS}/table-lost-phone-{w}x{h}.png")
            assert got["claimShown"] and got["claim"] and got["seat"], got
            assert sorted(n for n, _ in got["hands"]) == sorted(LONG.values()), got["hands"]
            cut = [n for n, whole in got["hands"] if not whole]
            assert cut == [] and got["over"] <= 1, (w, h, "hands cut or the column overflows", cut, got["over"])
            seat = min(f for _, f in got["seat"])
            claim = min(f for _, f in got["claim"])
            assert claim >= seat - 0.5, (w, h, "the host-claim code is smaller than the seat code", claim, seat)
            problems = page.evaluate(LAYOUT_JS, {"noScroll": True})
            assert not problems, (w, h, problems)
            figures.append(f"{w}x{h}: seat code {seat:.1f} px, claim code {claim:.1f} px, side column over by {got['over']} px")
            if SHOTS:
                page.screenshot(path=f"{SHOTS}/table-lost-phone-{w}x{h}.png")
    finally:
        ctx.close()
        newcomer.close()
        for p in phones.values():
            p.close()
    print("\n" + "\n".join(figures))
