"""A newcomer's first hour with a real `companion serve` (and scripts/bootstrap): a second server on the same
database is refused naming the first, a port in use names --port, Ctrl-C says the game is saved, a restart says
which game it resumed, a .venv made by another Python is made again, and --help explains every option."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

from server_helpers import COMPANION, ROOT, LiveServer, Phone, create_game, free_port, seat_and_start


def _serve(db: Path, port: int, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([str(COMPANION), "serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(db)],
                          capture_output=True, text=True, timeout=timeout, cwd=str(ROOT),
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))


def _started_game(server: LiveServer) -> str:
    host, other = Phone(server), Phone(server)
    gid = create_game(host, ["red", "blue"], seed=3)
    seat_and_start(gid, host, {"red": host, "blue": other})
    return gid


def test_a_second_server_on_the_same_database_is_refused_naming_the_first(tmp_path):
    db = tmp_path / "companion.sqlite3"
    first = LiveServer(db)
    first.start()
    try:
        gid = _started_game(first)
        last = Path(str(db) + ".last")
        before = last.stat().st_mtime_ns if last.exists() else None
        second = _serve(db, free_port())
        assert second.returncode == 1, second.stdout + second.stderr
        said = second.stderr
        assert "already running" in said and str(db) in said
        assert f"process {first.proc.pid}" in said and f"port {first.port}" in said   # names the first
        assert "--db" in said
        # It never opened the database: no clean-stop mark written beside the running one, the first still serves.
        assert (last.stat().st_mtime_ns if last.exists() else None) == before
        assert Phone(first).view(gid)["phase"] == "playing"
    finally:
        first.stop()
    # Once the first has stopped, a server starts on that database again.
    again = LiveServer(db)
    again.start()
    again.stop()


def test_a_port_in_use_suggests_another_port(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = _serve(tmp_path / "c.sqlite3", port)
    assert done.returncode == 1
    assert f"port {port}" in done.stderr and f"--port {port + 1}" in done.stderr, done.stderr


def test_ctrl_c_says_stopped_and_the_game_is_saved(tmp_path):
    server = LiveServer(tmp_path / "c.sqlite3")
    server.start()
    gid = _started_game(server)
    proc = server.proc
    os.kill(proc.pid, signal.SIGINT)   # what Ctrl-C in the terminal sends
    assert proc.wait(timeout=20) == 0
    server.proc = None
    said = server.log.read_text()
    assert "Metropolys companion stopped; the game is saved" in said and gid in said, said[-2000:]


def test_a_restart_says_which_game_it_resumed(tmp_path):
    server = LiveServer(tmp_path / "c.sqlite3")
    server.start()
    gid = _started_game(server)
    server.stop()
    start = len(server.log.read_text())
    server.start()
    try:
        said = server.log.read_text()[start:]
    finally:
        server.stop()
    assert f"Resumed game {gid} (being played; P-red, P-blue)" in said, said[-2000:]


def test_serve_help_explains_every_option():
    done = subprocess.run([str(COMPANION), "serve", "--help"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for option, words in (("--host", "every network"), ("--port", "in use"), ("--db", "resume"),
                          ("--url", "QR"), ("--threads", "default")):
        assert option in text and words in text, (option, done.stdout)
    assert "docs/DEPLOY.md" in text


def test_a_venv_made_by_another_python_is_made_again(tmp_path):
    """scripts/bootstrap in a copy with nothing to install: a .venv whose pyvenv.cfg names Python 3.10 (a
    python3 changed since) is removed and made with this python3, saying so, instead of failing for ever."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "bootstrap", tmp_path / "scripts" / "bootstrap")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "run.txt").write_text("")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "probe"\nversion = "0"\n\n'
                                             '[tool.setuptools]\npy-modules = []\n')
    old = tmp_path / ".venv"
    (old / "bin").mkdir(parents=True)
    (old / "bin" / "python").symlink_to("/nonexistent/python3.10")
    (old / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.10.12\n")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    python3 = shutil.which("python3", path=_path_without_venv())
    # The new .venv is made without pip: installing pip into it (ensurepip) was four fifths of this test's time,
    # and what follows in bootstrap (pip installing the probe) is not what this test is about. python3 is still
    # the first python3 on PATH, running the real `python3 -m venv` that bootstrap asks for.
    shim = tmp_path / "bin" / "python3"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nif [ "$1 $2" = "-m venv" ]; then shift 2; exec {python3} -m venv --without-pip "$@"; fi\n'
                    f'exec {python3} "$@"\n')
    shim.chmod(0o755)
    env["PATH"] = str(shim.parent) + os.pathsep + os.path.dirname(python3) + os.pathsep + env["PATH"]
    done = subprocess.run(["bash", "scripts/bootstrap"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    assert "made by Python 3.10" in done.stderr and "making .venv again" in done.stderr, done.stderr
    now = (old / "pyvenv.cfg").read_text()
    assert f"version = {sys.version_info[0]}.{sys.version_info[1]}." in now, now
    assert (old / "bin" / "python").resolve().exists()


def _path_without_venv() -> str:
    venv_bin = str(ROOT / ".venv" / "bin")
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != venv_bin)


def test_every_setting_is_in_deploy_md_s_one_table_and_the_docs_name_real_things():
    """Every COMPANION_* variable the code or the deploy scripts read has a row in DEPLOY.md's Settings table;
    API.md sends readers there; RECORD.md's board path exists; removing the companion removes its settings and
    its udev rule; the newcomer's README names --port."""
    import re

    read = set()
    for path in [*(ROOT / "companion").rglob("*.py"), *(ROOT / "deploy").glob("*.sh"), ROOT / "scripts" / "serve"]:
        read |= set(re.findall(r"COMPANION_[A-Z_]+[A-Z]", path.read_text()))
    deploy = (ROOT / "docs" / "DEPLOY.md").read_text()
    table = deploy[deploy.index("## Settings"):deploy.index("## The Wi-Fi hotspot")]
    rows = set(re.findall(r"^\| `(COMPANION_[A-Z_]+)` \|", table, re.M))
    assert read - rows == set(), "settings missing from DEPLOY.md's table"
    for var in ("COMPANION_RATE_LIMIT", "COMPANION_WRITE_RATE_LIMIT", "COMPANION_LOBBY_LIMIT", "COMPANION_DB",
                "COMPANION_MAX_CONNECTIONS", "COMPANION_SEAT_MOVE_WAIT", "COMPANION_KIOSK_WAIT", "COMPANION_TABLE_URL"):
        assert var in rows, var
    assert "table of docs/DEPLOY.md" in " ".join((ROOT / "docs" / "API.md").read_text().split())
    for path in re.findall(r"`([\w/.-]+\.json)`", (ROOT / "docs" / "RECORD.md").read_text()):
        if "/" in path:
            assert (ROOT / path).exists(), path
    removal = deploy[deploy.index("## Removing it"):]
    assert "/etc/default/metropolys-companion" in removal and "/etc/udev/rules.d/60-metropolys-gpio.rules" in removal
    quick = (ROOT / "README.md").read_text().split("## Quick start")[1].split("\n## ")[0]
    assert "--port" in quick
    # Figures speak of facts, not of the project's history (PLAYERS.md's own Figures section aside).
    history = re.compile(r"issue \d+|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b|this machine|gunicorn", re.I)
    players = (ROOT / "docs" / "PLAYERS.md").read_text().split("## Figures")[0]
    for name, text in (("BENCHMARKS.md", (ROOT / "docs" / "BENCHMARKS.md").read_text()), ("PLAYERS.md", players)):
        assert not history.findall(text), (name, history.findall(text))
