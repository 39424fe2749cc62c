"""The LEDs on an emulated Raspberry Pi 3 through the Pi's own GPIO driver (pinctrl-bcm2835) under the real unit:
a game played over HTTP inside, the host reading the BCM2837's GPIO level register after each move.

The run starts in the background at the start of the session (conftest.py; see tests/pi_vm.py for what it
builds and caches) and these tests look at what it saw. Debian trixie arm64 as it is, not Raspberry Pi OS: no
python3-lgpio (lgpio is built from PyPI's source package) and Debian's older python3-gpiozero beside the venv's."""
from __future__ import annotations

import re

import pytest

import cross_build
import pi_check
import pi_vm
from test_deploy_containers import figure

pytestmark = pytest.mark.skipif(pi_vm.can_run() is not None, reason=str(pi_vm.can_run()))


@pytest.fixture(scope="module")
def pi():
    run = pi_vm.start().result()
    if run.built > 5:
        figure(f"pi3: root, venv and boot files built in {run.built:.0f} s (first run only)")
    return run


def test_the_service_answers_after_boot_with_the_join_qr(pi):
    """Boot to QR: from power-on (QEMU started) to the table screen's first answer, with its QR code."""
    assert pi.answered["qr"], pi.answered
    figure(f"pi3 (emulated, one core's worth of TCG): power-on to /table answered with its QR in "
           f"{pi.boot_to_answer:.0f} s (kernel's own clock: {pi.answered['boot']:.0f} s)")
    # where the rest of the run went: seconds from power-on to each of pi_check.py's lines
    steps = dict(pi.timeline)  # the last of each word
    figure("pi3: at " + ", ".join(f"{steps[w]:.0f} s {w}" for w in ("booted", "answered", "facts", "end", "stopped",
                                                                       "done") if w in steps))


def test_lgpio_and_gpiozero_2_from_the_venv_drive_the_pis_own_gpio_chip(pi):
    facts = pi.facts
    # the venv's gpiozero 2 is the one imported, though Debian's python3-gpiozero 1.6 is installed too
    assert re.search(r"^2\.\S+ /opt/metropolys-companion/\.venv/\S+/gpiozero/__init__\.py "
                     r"/opt/metropolys-companion/\.venv/\S+lgpio\.py$", facts, re.M), facts
    assert re.search(r"^1\.6", facts, re.M), "Debian's python3-gpiozero is installed beside it"
    assert re.search(r"^crw-rw---- 1 root gpio .* /dev/gpiochip0$", facts, re.M), facts
    assert "brcm,bcm2835-gpio" in facts, facts


def test_the_bidders_led_and_only_it_is_lit_after_every_move(pi):
    """"lights the GPIO LED of the player whose turn it is" (README), read from the Pi's GPIO level register."""
    assert len(pi.turns) == 1 + pi_check.WATCHED, pi.turns  # the start and each watched move
    assert pi.moves > pi_check.WATCHED, "the game went on to its end"
    wrong = [(seq, to_act, sorted(seen)) for seq, to_act, seen in pi.turns if seen != {to_act}]
    assert not wrong, wrong
    assert {to_act for _, to_act, _ in pi.turns} == {"blue", "red"}


def test_a_call_winners_led_blinks_then_the_next_bidders_is_lit(pi):
    assert pi.calls, "no call ended"
    for seq, winner, seen, after in pi.calls:
        assert seen == {frozenset({winner}), frozenset()}, (seq, winner, seen)


def test_the_winners_led_stays_lit_at_the_end_and_all_go_dark_when_stopped(pi):
    winners, seen = pi.end
    assert seen == winners, (winners, seen)
    assert pi.stopped == frozenset(), pi.stopped


# The wiring check run as the unit ([Service] as written, ExecStart swapped), then with one line changed each time.
# Inside systemd-nspawn DevicePolicy=closed blocked nothing: only a real kernel and GPIO chip show these.
@pytest.mark.parametrize("name, works", [
    ("as-written", True),
    ("without-DeviceAllow", True),      # the unit before DeviceAllow=char-gpiochip rw narrowed the devices
    ("DeviceAllow-rtc-only", False),    # the device list is enforced: a list without the GPIO chips shuts them out
    ("DevicePolicy-closed", False),
    ("PrivateDevices", False),
    ("PrivateUsers", True),             # the gpio group still opens /dev/gpiochip0 (systemd 257)
    ("ProcSubset-pid", False)])         # gpiozero reads /proc/cpuinfo and the device tree to know the Pi
def test_the_units_hardening_against_a_real_gpio_chip(pi, name, works):
    found = pi.policies[name]
    assert found["ok"] is works, found
    if works:
        assert "blue: GPIO 17 (header pin 11) is lit" in found["log"], found


def test_the_roots_python_modules_are_byte_compiled_for_its_own_python():
    """What cross_build compiled natively is what the Pi's Python 3.13 loads as it is: a .pyc beside every module
    Debian's packages compile and every module of the venv, with the root's magic number and its source's mtime
    and size (otherwise Python compiles it again at each import, in the Pi's one emulated CPU)."""
    venv, _ = pi_vm.prepare()  # built already by the run in the background, or built now
    root = pi_vm.root_path()
    assert len(cross_build.packaged_modules(root)) > 700   # the standard library, gpiozero 1.6 and its kin
    assert not cross_build.stale(root, cross_build.packaged_modules(root))
    site = next(venv.glob("opt/metropolys-companion/.venv/lib/python3*/site-packages"))
    modules = ["/" + str(f.relative_to(venv)) for f in site.rglob("*.py")]
    assert len(modules) > 800, modules[:5]   # pip, setuptools, Flask and the rest of the locks
    assert not cross_build.stale(venv, modules, python=root)
