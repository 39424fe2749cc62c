"""Scripts and styles are named by their content's hash and kept a year (companion/web/static_cache.py); any other
name for them (no hash, an old or made-up one) is served as before, revalidated at each use."""
from __future__ import annotations

import gzip
import hashlib
import re

from server_helpers import ROOT, Phone, create_game
from test_compress import fetch


def build_of_scripts() -> str:
    """What companion/web/static_cache.py's build must be: every script's own hash, together."""
    files = sorted((ROOT / "static").glob("*.js"))
    parts = " ".join(f"{f.name}:{hashlib.sha256(f.read_bytes()).hexdigest()[:12]}" for f in files)
    return hashlib.sha256(parts.encode()).hexdigest()[:12]


def test_every_page_names_its_scripts_and_styles_by_their_content(server):
    gid = create_game(Phone(server), ("blue", "red"), seed=2)
    build = build_of_scripts()
    for path in ("/", "/table", f"/g/{gid}", "/history", "/learn"):
        page = fetch(server, path, {}).body.decode()
        # Every mention counts, an attribute's list included (the table names the replay's style for later).
        styles = re.findall(r'/static/([^"?\s/]+)\?v=([0-9a-f]+)', page)
        scripts = re.findall(r'/static/js/([0-9a-f]+)/([^"?\s/]+\.js)"', page)
        assert scripts and len(styles) + len(scripts) == page.count('/static/'), (path, styles, scripts)
        for filename, v in styles:
            assert v == hashlib.sha256((ROOT / "static" / filename).read_bytes()).hexdigest()[:12]
        # The scripts import each other by relative names: all of a page's under one folder, today's build.
        assert {b for b, _ in scripts} == {build}, path
        assert all((ROOT / "static" / name).is_file() for _, name in scripts)


def test_a_file_under_its_hash_is_kept_a_year_and_any_other_name_is_revalidated(server):
    page = fetch(server, "/", {}).body.decode()
    v = re.search(r'/static/app\.css\?v=([0-9a-f]+)', page).group(1)
    kept = fetch(server, f"/static/app.css?v={v}", {"Accept-Encoding": "gzip"})
    assert kept.status == 200 and kept.getheader("Content-Encoding") == "gzip"
    assert kept.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    for other in ("/static/app.css", "/static/app.css?v=0123456789ab", f"/static/map.css?v={v}"):
        r = fetch(server, other, {})
        assert r.status == 200 and r.getheader("Cache-Control") == "no-cache", (other, r.getheader("Cache-Control"))
    odd = fetch(server, f"/static/7/..%2Fapp.css?v={v}", {})
    assert "max-age" not in (odd.getheader("Cache-Control") or ""), odd.getheader("Cache-Control")


def test_a_script_under_todays_build_is_kept_a_year_and_under_any_other_revalidated(server):
    build = re.search(r'/static/js/([0-9a-f]+)/app\.js', fetch(server, "/", {}).body.decode()).group(1)
    kept = fetch(server, f"/static/js/{build}/app.js", {"Accept-Encoding": "gzip"})
    assert kept.status == 200 and kept.getheader("Content-Encoding") == "gzip"
    assert kept.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    assert b"export { M };" in gzip.decompress(kept.body)
    assert kept.getheader("Content-Type").startswith("text/javascript")   # a module must be served as script
    assert kept.getheader("Content-Disposition") is None   # 40 bytes said for nothing
    assert kept.getheader("Last-Modified") is None         # never revalidated under this name: no date to do it by
    old = fetch(server, "/static/js/0123456789ab/app.js", {})
    assert old.status == 200 and old.getheader("Cache-Control") == "no-cache", old.getheader("Cache-Control")
    for wrong in (f"/static/js/{build}/app.css", f"/static/js/{build}/nothing.js", f"/static/js/{build}/..%2Fapp.js",
                  f"/static/js/{build}/%2E%2E%2Fcompanion%2Fapp.py"):
        assert fetch(server, wrong, {}).status == 404, wrong
