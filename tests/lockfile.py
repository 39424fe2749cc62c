"""Reading requirements/*.txt: the exact versions every install takes (scripts/lock writes them)."""
from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def entries(lock: Path) -> dict[str, Requirement]:
    """Each pinned package of a lock, by canonical name (continuation lines joined, hashes and comments dropped)."""
    text = re.sub(r"\\\n", " ", lock.read_text())
    out = {}
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        req = Requirement(re.sub(r"\s--hash=\S+", "", line))
        out[canonicalize_name(req.name)] = req
    return out


def hashes(lock: Path) -> dict[str, list[str]]:
    """The sha256 hashes a lock allows for each package."""
    text = re.sub(r"\\\n", " ", lock.read_text())
    return {canonicalize_name(m.group(1)): re.findall(r"--hash=sha256:([0-9a-f]{64})", m.group(0))
            for m in re.finditer(r"^([A-Za-z0-9_.-]+)==.*$", text, re.M)}


def pinned(req: Requirement) -> str:
    """The one version `name==V` pins."""
    (spec,) = req.specifier
    assert spec.operator == "==", req
    return spec.version


def installed_matches_lock(freeze: str, lock: Path) -> list[str]:
    """Packages whose installed version (`pip list --format=freeze` output) is not the lock's; a locked
    package with a marker may be absent (the marker is for another platform)."""
    have = {canonicalize_name(n): v for n, v in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", freeze, re.M)}
    wrong = []
    for name, req in entries(lock).items():
        if name not in have:
            if req.marker is None:
                wrong.append(f"{name}: not installed (lock: {pinned(req)})")
        elif have[name] != pinned(req):
            wrong.append(f"{name}: {have[name]} installed, lock says {pinned(req)}")
    return wrong


def moved(freeze: str, lock: Path) -> list[str]:
    """Each locked package whose installed version differs, as `name locked -> installed`."""
    have = {canonicalize_name(n): v for n, v in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", freeze, re.M)}
    return [f"{name} {pinned(req)} -> {have[name]}" for name, req in entries(lock).items()
            if name in have and have[name] != pinned(req)]


if __name__ == "__main__":  # pip list --format=freeze | python tests/lockfile.py LOCK: what moved past the lock
    import sys
    lines = moved(sys.stdin.read(), Path(sys.argv[1]))
    print("\n".join(lines) if lines else "no package has a newer release than the lock")
