"""Shared fixtures: a real server on 127.0.0.1 (subprocess or in-process), and phones to talk to it."""
from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server_helpers import LiveServer, Phone, free_port  # noqa: E402


FAST = {"COMPANION_RATE_LIMIT": "1000", "COMPANION_WRITE_RATE_LIMIT": "1000",
        "COMPANION_LOBBY_LIMIT": "100000", "COMPANION_STARTED_LIMIT": "100000"}
CONTAINERS = "test_deploy_containers.py"
PI_VM = "test_pi_vm.py"
HOTSPOT_VM = "test_hotspot_vm.py"
KIOSK = "test_kiosk_labwc.py"


@pytest.hookimpl(trylast=True)  # after pytest has grouped the items by their fixtures' parameters
def pytest_collection_modifyitems(session, config, items):
    """The containers' tests first, then the rest, then the two VMs' results (the VMs run in the background from
    the start), the emulated (arm64) container check at the very end (it too runs in the background from the
    start). The Debian roots are built in the background from the start, so that on a cold cache the builds
    overlap the suite; a warm run with the containers' tests after the VMs' results spent its last 3.5 minutes
    on them alone at load 1, and one with them after the long self-contained tests started them at 14 minutes."""
    # A WebKit browser process that crashed or stopped answering under load (twice in full runs at load 13-19, once
    # mid-test) is WebKitGTK's failure, not the page's: that test runs once more from its start. Any other failure,
    # in WebKit too, fails at once (pytest-rerunfailures' only_rerun: the patterns must be in the error).
    from engines import ENGINE_CRASHED
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and any(v == "webkit" for v in callspec.params.values()):
            item.add_marker(pytest.mark.flaky(reruns=1, only_rerun=list(ENGINE_CRASHED)))
    pi = [i for i in items if i.path.name == PI_VM]
    if pi:
        # the emulated Pi 3 runs from the start in the background (mostly emulated CPU work); its tests come last
        items[:] = [i for i in items if i.path.name != PI_VM] + pi
        import pi_vm
        if pi_vm.can_run() is None and not config.option.collectonly:
            pi_vm.start()
    wifi = [i for i in items if i.path.name == HOTSPOT_VM]
    if wifi:
        # the Wi-Fi VM (KVM: mostly waiting on its radios and NetworkManager) runs from the start in the background too
        items[:] = [i for i in items if i.path.name != HOTSPOT_VM] + wifi
        import hotspot_vm
        if hotspot_vm.can_run() is None and not config.option.collectonly:
            hotspot_vm.start()
    if any(i.path.name == KIOSK for i in items) and not config.option.collectonly:
        import container_helpers
        if container_helpers.can_run() is None:
            container_helpers.prebuild_roots(["trixie-kiosk"])  # labwc and Chromium: minutes on a cold cache
    ours = [i for i in items if i.path.name == CONTAINERS]
    if not ours:
        return
    arm64 = [i for i in ours if "aarch64" in i.name]
    vms = [i for i in items if i.path.name in (PI_VM, HOTSPOT_VM)]
    others = [i for i in items if i.path.name != CONTAINERS and i not in vms]
    items[:] = [i for i in ours if i not in arm64] + others + vms + arm64
    import container_helpers
    if container_helpers.can_run() is None and not config.option.collectonly:
        container_helpers.prebuild([n for n in ("bookworm", "trixie") if any(f"[{n}]" in i.name for i in ours)])
        if arm64:
            container_helpers.aarch64_start()  # builds its root first when it is not cached yet


def pytest_sessionfinish(session):
    for vm in ("pi_vm", "hotspot_vm"):
        if vm in sys.modules:
            sys.modules[vm].stop_all()
    if "container_helpers" in sys.modules:
        sys.modules["container_helpers"].stop_all()
    if "pages_helpers" in sys.modules:
        sys.modules["pages_helpers"].stop_driver()   # the process's one browser and Playwright driver
        import shots
        shots.publish()   # PAGES_SCREENSHOTS=docs/screenshots: the pictures the docs link, copied there


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One `companion serve` subprocess per test module, on a fresh SQLite file; SIGKILLed at the end.

    Robots play far faster than a table, so its rate limit is raised (test_server_bad_input checks the real one)."""
    s = LiveServer(tmp_path_factory.mktemp("server") / "companion.sqlite3", env=FAST)
    s.start()
    yield s
    s.kill()


@pytest.fixture
def start_server(tmp_path):
    """Factory: `start_server(env=..., db=...)` launches a subprocess server; every one is killed afterwards."""
    started: list[LiveServer] = []

    def start(env=FAST, db=None, port=None) -> LiveServer:
        s = LiveServer(Path(db) if db else tmp_path / f"companion-{len(started)}.sqlite3", port=port, env=env)
        s.start()
        started.append(s)
        return s

    yield start
    for s in started:
        s.kill()


@pytest.fixture
def at():
    """Factory: `at(server, "127.0.0.12")` is a browser with its own cookies leaving from that address."""
    made: list[Phone] = []

    def make(server, source: str, name: str = "") -> Phone:
        p = Phone(server, name=name, source=source)
        p.capture = True
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


@pytest.fixture
def phone():
    """Factory: `phone(server, lang=None)` is a new browser with its own cookie jar; its sockets close afterwards."""
    made: list[Phone] = []

    def make(server, lang=None, name="") -> Phone:
        p = Phone(server, lang=lang, name=name)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


class InProcessServer:
    """create_app(config) served by werkzeug's threaded server in this process (the live socket then holds one of its threads)."""

    def __init__(self, config: dict):
        from werkzeug.serving import make_server

        from companion import create_app

        self.port = free_port()
        self.app = create_app(config)
        self.httpd = make_server("127.0.0.1", self.port, self.app, threaded=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.db = Path(config["DB"])

    origin = LiveServer.origin
    ws_base = LiveServer.ws_base
    events = LiveServer.events
    event_count = LiveServer.event_count

    @property
    def table(self):
        return self.app.extensions["table"]

    def stop(self) -> None:
        self.httpd.shutdown()
        self.thread.join(timeout=5)
        self.table.store.close()


@pytest.fixture
def inprocess_server(tmp_path):
    """Factory: `inprocess_server(LEDS=..., ...)` runs the app in this process (e.g. with MockFactory LEDs)."""
    made: list[InProcessServer] = []

    def make(**config) -> InProcessServer:
        config.setdefault("DB", str(tmp_path / f"inproc-{len(made)}.sqlite3"))
        s = InProcessServer(config)
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()
