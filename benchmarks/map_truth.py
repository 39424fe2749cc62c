"""How many neighbor pairs the served map draws wrongly, for this tree and any earlier commit.

    .venv/bin/python benchmarks/map_truth.py            # this working tree
    .venv/bin/python benchmarks/map_truth.py d3334ec    # the map as it was at a commit (rendered from a git archive)

For the table display (landscape) and the host/phone map (portrait): each pair of neighborhoods whose drawn relation
(shared street border, bridge across water, water only) differs from the board data, with what is wrong."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from map_geometry import read, wrong_pairs  # noqa: E402


def pages(tree: Path) -> dict[str, str]:
    """The table and host pages as that tree serves them, rendered in a child process (a clean import)."""
    code = ("import json,sys,tempfile;from companion import create_app;"
            "app=create_app({'DB':tempfile.mktemp(suffix='.sqlite3'),'TESTING':True,'LEDS':False});c=app.test_client();"
            "print(json.dumps({p:c.get(p).get_data(as_text=True) for p in ('/table','/')}))")
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def tree_at(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", rev, "companion", "templates", "static", "pyproject.toml"], cwd=ROOT,
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def main(argv: list[str]) -> int:
    board = json.loads((ROOT / "companion/game/data/metropolys-board.json").read_text("utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        tree = tree_at(argv[0], Path(tmp)) if argv else ROOT
        if argv:   # an archived tree serves templates/static from the package folders pyproject maps them to
            for name in ("templates", "static"):
                if not (tree / "companion" / name).exists():
                    (tree / "companion" / name).symlink_to(tree / name)
        served = pages(tree)
    label = argv[0] if argv else "working tree"
    for page, name in (("/table", "table display (landscape)"), ("/", "host and phone (portrait)")):
        drawn = read(served[page])
        wrong = wrong_pairs(drawn, board)
        pairs = {frozenset(w[:2]) for w in wrong}
        print(f"{label}, {name}: {len(drawn.shapes)} shapes, {len(pairs)} neighbor pairs drawn wrongly")
        for a, b, why in wrong:
            print(f"  {a}-{b}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
