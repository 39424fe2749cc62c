"""The wheel install.sh puts on the Pi (not an editable checkout) must still serve every page."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SERVE = """
import companion, sys
from companion import create_app
assert companion.__file__.startswith(sys.argv[1]), companion.__file__
client = create_app({"DB": sys.argv[2], "LEDS": None, "JOIN_URL": "http://192.0.2.1:8000"}).test_client()
for path in ("/", "/table", "/static/app.js", "/static/app.css", "/api/board"):
    r = client.get(path)
    assert r.status_code == 200, (path, r.status_code)
# the gettext catalogs travel in the wheel: a German phone reads German
page = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
assert "Neue Partie" in page, "no German from the unpacked wheel"
# every module came from the wheel: the checkout's editable install would otherwise lend the wheel what it lacks
strays = sorted(n for n, m in sys.modules.items()
                if n.startswith("companion") and not (getattr(m, "__file__", None) or sys.argv[1]).startswith(sys.argv[1]))
assert not strays, f"imported from outside the wheel: {strays}"
print("ok")
"""


def test_the_wheel_carries_templates_static_and_board_and_serves_pages(tmp_path):
    # Built from a copy: setuptools packs whatever an earlier build left in the tree's build/ folder, which once
    # hid a package missing from pyproject's list. The copy is the checkout as git sees it (tracked files and new
    # ones .gitignore keeps): not the tree itself, where a server the LED tests run beside this one holds lgpio's
    # notification pipe (.lgd-nfy0, a FIFO copytree refuses) for as long as it lives.
    src = tmp_path / "src"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        if name.split("/")[0] in ("docs", "tests", "benchmarks") or not (ROOT / name).is_file():
            continue   # (a file deleted but not yet committed is still listed)
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    # Built as deploy/install.sh builds it on the Pi: with the locked setuptools of requirements/ (--no-build-isolation),
    # not with whatever setuptools an isolated build would fetch (three times the time, and a download).
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(src)], check=True, capture_output=True, timeout=300)
    wheel = next(tmp_path.glob("metropolys_companion-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for need in ("companion/templates/phone.html", "companion/templates/table.html", "companion/static/app.js",
                 "companion/static/icon.svg", "companion/game/data/metropolys-board.json",
                 "companion/game/data/board-map-drawn.json", "companion/lang/translations/messages.pot",
                 "companion/lang/translations/de/LC_MESSAGES/messages.po",
                 "companion/lang/translations/fr/LC_MESSAGES/messages.po"):
        assert need in names, need
    # Every package of the checkout is in the wheel (pyproject lists them by name: a new folder is easily left out).
    for init in (ROOT / "companion").rglob("__init__.py"):
        assert str(init.relative_to(ROOT)) in names, f"{init.parent.relative_to(ROOT)} is missing from pyproject's packages"
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    # Run from the unpacked wheel, away from this checkout.
    done = subprocess.run([sys.executable, "-c", SERVE, str(site), str(tmp_path / "db.sqlite3")],
                          cwd=tmp_path, env={"PYTHONPATH": str(site), "COMPANION_LEDS": "off"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
