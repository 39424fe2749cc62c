"""The Pi's Wi-Fi for real, in a Debian trixie VM with two emulated radios (mac80211_hwsim): deploy/hotspot.sh's
access point joined by a phone that loads the front door, and NetworkManager's choice at boot with --fallback,
home network out of reach (the hotspot comes up by itself) and in reach (home, no hotspot).

The run starts in the background at the start of the session (conftest.py; see tests/hotspot_vm.py for what it
builds and caches) and these tests look at what it saw."""
from __future__ import annotations

import re

import pytest

import hotspot_vm
from test_deploy_containers import figure

pytestmark = pytest.mark.skipif(hotspot_vm.can_run() is not None, reason=str(hotspot_vm.can_run()))
HOTSPOT = "http://10.42.0.1:8000/"


@pytest.fixture(scope="module")
def vm():
    run = hotspot_vm.start().result()
    if run.built > 5:
        figure(f"hotspot vm: root, wheelhouse and installed image built in {run.built:.0f} s (first run only)")
    figure(f"hotspot vm ({run.vm.accel}): boots to the agent's answer {', '.join(f'{b:.1f}' for b in run.boots)} s; "
           f"install.sh from this checkout over the installed layer (systemd-nspawn, when its image was made) "
           f"{run.update:.0f} s")
    return run


def test_the_phone_radio_is_in_its_namespace_and_only_wlan0_is_networkmanagers(vm):
    f = vm.facts
    assert re.search(r"^wlan0:wifi$", f["devices"], re.M), f["devices"]
    assert "wlan1" not in f["devices"], "NetworkManager must never manage the phone's radio"
    assert ": wlan1:" in f["phone_links"], f["phone_links"]


def test_install_from_this_checkout_says_it_runs(vm):
    assert "Metropolys companion is running" in vm.facts["install"]["out"], vm.facts["install"]


def test_hotspot_sh_raises_a_wpa2_ccmp_access_point_on_channel_6_at_10_42_0_1(vm):
    f = vm.facts
    assert f["said"]["ssid"] == "Metropolys" and re.fullmatch(r"[a-kmnp-zAC-HJ-NP-Z2-9]{12}", f["said"]["password"])
    assert f["said"]["url"] == HOTSPOT
    assert "The hotspot \"Metropolys\" is up on wlan0." in f["hotspot_sh"]["out"], f["hotspot_sh"]
    assert " inet 10.42.0.1/24 " in f["pi_addresses"], f["pi_addresses"]
    assert f["profile"].splitlines() == ["802-11-wireless.mode:ap", "802-11-wireless.channel:6",
                                         "802-11-wireless-security.proto:rsn", "802-11-wireless-security.pairwise:ccmp",
                                         "802-11-wireless-security.pmf:1", "ipv4.addresses:10.42.0.1/24"], f["profile"]


def test_a_phone_joins_with_the_printed_password_gets_a_lease_and_loads_the_front_door(vm):
    f = vm.facts
    joined = dict(line.split("=", 1) for line in f["joined"].splitlines() if "=" in line)
    assert (joined["ssid"], joined["key_mgmt"], joined["pairwise_cipher"], joined["group_cipher"]) == \
        ("Metropolys", "WPA2-PSK", "CCMP", "CCMP"), joined
    lease = re.search(r"lease ip=(10\.42\.0\.\d+) router=(\S*)", f["lease"])
    assert lease and lease.group(2) == "10.42.0.1", f["lease"]
    assert f" inet {lease.group(1)}/24 " in f["phone_addresses"], f["phone_addresses"]
    # the address hotspot.sh printed opens the front door on the phone, and the companion hands out the same
    assert f["status"] == "200", f["status"]
    assert "<h1>Metropolys companion</h1>" in f["page"] and '<form id="setup"' in f["page"], f["page"][:2000]
    assert f["current"]["start_url"] == HOTSPOT, f["current"]
    figure(f"hotspot vm: phone joined in {f['join_seconds']:.1f} s, lease {lease.group(1)} in "
           f"{f['lease_seconds']:.1f} s")


def test_fallback_keeps_the_hotspot_below_home_and_no_fixed_join_address(vm):
    f = vm.facts
    assert "Fallback mode: wlan0 is connected now" in f["fallback_sh"]["out"], f["fallback_sh"]
    assert "home:yes:0" in f["priorities"].splitlines(), f["priorities"]
    # NetworkManager never raises it itself (it did so at boot before a scan had seen home): the boot unit does
    assert "metropolys-hotspot:no:-10" in f["priorities"].splitlines(), f["priorities"]
    assert f["fallback_unit"].strip() == "enabled", f["fallback_unit"]
    assert not re.search(r"^COMPANION_JOIN_URL=", f["defaults"], re.M), f["defaults"]


def test_with_home_out_of_reach_the_hotspot_comes_up_by_itself_at_boot(vm):
    f = vm.facts
    assert " inet 10.42.0.1/24 " in f["fallback_addresses"], f["fallback_addresses"]
    assert f["fallback_seconds"], f["fallback_journal"][-3000:]
    active, began = f["fallback_seconds"]
    # raised by the boot unit once wlan0 had joined nothing for its wait (30 s on a Pi, EMULATED_WAIT here, counted
    # from the unit's start, which follows NetworkManager's), never before. How soon after is the emulation's speed,
    # not the script's (at load 13 activation began 155 s after NetworkManager's start): the unit's bound (the
    # wait, 30 s more for a join under way) is checked on its own clock in tests/test_deploy.py
    assert "joined no known network within" in f["fallback_unit_log"], f["fallback_unit_log"]
    wait = hotspot_vm.EMULATED_WAIT
    assert wait - 1 <= began <= active, (f["fallback_seconds"], f["fallback_journal"][-3000:])
    figure(f"hotspot vm: with home out of reach, NetworkManager's start to the hotspot active {active:.1f} s "
           f"(activation began after {began:.1f} s, when the fallback unit's wait ended)")


def test_with_home_in_reach_networkmanager_joins_home_and_no_hotspot(vm):
    f = vm.facts
    assert f["home_ap"] == "active"
    assert "home:wlan0" in f["home_active_all"].splitlines(), f["home_active_all"]
    assert "metropolys-hotspot" not in f["home_active_all"], f["home_active_all"]
    assert "starting connection 'metropolys-hotspot'" not in f["home_journal"], f["home_journal"][-3000:]
    assert 'wlan0 joined "home" after' in f["home_unit_log"] and "raising" not in f["home_unit_log"], \
        f["home_unit_log"]
    # this boot's longer wait was in force (a home join slowed by emulation must not end in the hotspot)
    assert f"WAIT={hotspot_vm.HOME_WAIT}" in f["home_unit_env"].split(), f["home_unit_env"]
    # the join address follows the network the Pi is on: the home one, not the hotspot's
    assert f["home_current"]["start_url"] == f"http://{f['home_address']}:8000/", f["home_current"]
    if f["home_seconds"]:
        figure(f"hotspot vm: with home in reach, NetworkManager's start to home joined {f['home_seconds'][0]:.1f} s")
