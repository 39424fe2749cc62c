"""The install that was tested is the install a fresh clone and a Pi get: requirements/ pins every package,
within pyproject.toml's ranges, with hashes, and this very test run uses exactly those versions."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from lockfile import entries, hashes, installed_matches_lock, pinned
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
LOCKS = {  # lock: the pyproject requirements it must satisfy
    "run.txt": PROJECT["dependencies"],
    "test.txt": PROJECT["dependencies"] + PROJECT["optional-dependencies"]["test"],
    "pi.txt": PROJECT["optional-dependencies"]["pi"],
}


@pytest.mark.parametrize("lock", LOCKS)
def test_every_dependency_is_pinned_within_its_range(lock):
    locked = entries(REPO / "requirements" / lock)
    for wanted in map(Requirement, LOCKS[lock]):
        name = canonicalize_name(wanted.name)
        assert name in locked, f"{wanted} is not in requirements/{lock}: run scripts/lock"
        assert wanted.specifier.contains(pinned(locked[name]), prereleases=True), \
            f"requirements/{lock} pins {name} {pinned(locked[name])}, outside pyproject's {wanted}: run scripts/lock"


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_is_exact_and_hashed(lock):
    path = REPO / "requirements" / lock
    allowed = hashes(path)
    for name, req in entries(path).items():
        pinned(req)
        assert allowed.get(name), f"{name} has no hash in requirements/{lock}"


def test_the_test_tools_do_not_move_what_the_pi_runs():
    run, test = entries(REPO / "requirements/run.txt"), entries(REPO / "requirements/test.txt")
    moved = {n: (pinned(run[n]), pinned(test[n])) for n in run if pinned(run[n]) != pinned(test[n])}
    assert moved == {}


def test_this_test_run_uses_exactly_the_locked_versions():
    """scripts/test installs requirements/test.txt: what passes here is what the lock pins."""
    freeze = subprocess.run([sys.executable, "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, check=True).stdout
    assert installed_matches_lock(freeze, REPO / "requirements/test.txt") == []


def test_a_version_other_than_the_lock_is_caught(tmp_path):
    """The check above can fail: one package a release apart is named."""
    lock = REPO / "requirements/run.txt"
    freeze = "\n".join(f"{n}=={pinned(r)}" for n, r in entries(lock).items() if r.marker is None)
    assert installed_matches_lock(freeze, lock) == []
    assert installed_matches_lock(freeze.replace("babel==", "babel==0."), lock) == \
        [f"babel: 0.{pinned(entries(lock)['babel'])} installed, lock says {pinned(entries(lock)['babel'])}"]
