"""Scripts and styles are named by their content's hash and kept a year (companion/web/static_cache.py); any other
name for them (no hash, an old or made-up one) is served as before, revalidated at each use."""
from __future__ import annotations

import hashlib
import re

from server_helpers import ROOT, Phone, create_game
from test_compress import fetch


def test_every_page_names_its_scripts_and_styles_by_their_content(server):
    gid = create_game(Phone(server), ("blue", "red"), seed=2)
    for path in ("/", "/table", f"/g/{gid}", "/history"):
        page = fetch(server, path, {}).body.decode()
        # Every mention counts, an attribute's list included (the table names the replay's files for later).
        named = re.findall(r'/static/([^"?\s]+)\?v=([0-9a-f]+)', page)
        assert named and len(named) == page.count('/static/'), (path, named)
        for filename, v in named:
            assert v == hashlib.sha256((ROOT / "static" / filename).read_bytes()).hexdigest()[:12]


def test_a_file_under_its_hash_is_kept_a_year_and_any_other_name_is_revalidated(server):
    page = fetch(server, "/", {}).body.decode()
    v = re.search(r'/static/app\.js\?v=([0-9a-f]+)', page).group(1)
    kept = fetch(server, f"/static/app.js?v={v}", {"Accept-Encoding": "gzip"})
    assert kept.status == 200 and kept.getheader("Content-Encoding") == "gzip"
    assert kept.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    for other in ("/static/app.js", "/static/app.js?v=0123456789ab", f"/static/map.js?v={v}"):
        r = fetch(server, other, {})
        assert r.status == 200 and r.getheader("Cache-Control") == "no-cache", (other, r.getheader("Cache-Control"))
    odd = fetch(server, f"/static/7/..%2Fapp.js?v={v}", {})
    assert "max-age" not in (odd.getheader("Cache-Control") or ""), odd.getheader("Cache-Control")
