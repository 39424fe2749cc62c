"""docs/screenshots holds the pictures the docs link and nothing else (at most 40), and the page tests write every
other screenshot outside docs/ (tests/shots.py): a clone carries what a reader sees, not every test's pictures."""
from __future__ import annotations

import subprocess

import shots


def tracked() -> set[str]:
    out = subprocess.run(["git", "ls-files", "docs/screenshots"], cwd=shots.ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    return {p.split("/", 2)[2] for p in out}


def test_docs_screenshots_hold_exactly_the_linked_pictures():
    linked = shots.linked()
    assert 0 < len(linked) <= shots.MOST, sorted(linked)
    missing = sorted(n for n in linked if not (shots.DOCS / n).is_file())
    assert missing == [], f"linked by the docs but not in docs/screenshots: {missing}"
    extra = sorted(tracked() - linked)
    assert extra == [], f"in docs/screenshots but linked by no doc (PAGES_SCREENSHOTS writes them elsewhere): {extra}"


def test_asked_for_docs_the_tests_write_to_an_ignored_folder_and_copy_only_the_linked(tmp_path):
    assert shots.folder("") is None                        # not asked: no screenshot at all
    assert shots.folder(str(tmp_path)) == str(tmp_path)    # a folder of one's own: as asked
    assert shots.folder("docs/screenshots") == str(shots.ASIDE) == shots.folder(str(shots.DOCS) + "/")
    ignored = subprocess.run(["git", "check-ignore", "-q", "screenshots/any.png"], cwd=shots.ROOT)
    assert ignored.returncode == 0, "screenshots/ is not in .gitignore"
    assert shots.publish(str(tmp_path)) == []              # a folder of one's own: nothing copied into docs/
