"""How much of the rules, the codes and the limits the tests guard: mutmut changes the code one small step at a time
(a < for a <=, a 3 for a 4, a dropped call) and runs the tests that reach it; a mutant no test notices is a
behaviour nobody would be told about if it broke. Prints the share killed of the mutants that change behaviour.

    .venv/bin/python benchmarks/bench_mutations.py [--children N]   # mutmut run (niced), then the figures
    .venv/bin/python benchmarks/bench_mutations.py 'companion.game.rules*'   # only these mutants, run again
    .venv/bin/python benchmarks/bench_mutations.py --report          # the figures of the last run only

A run stopped part way goes on where it stopped when started again (results live in mutants/; delete it for a
fresh run); the report says when some mutants have no result yet. A function added since the last run has "no
tests" until mutmut maps the tests afresh: remove mutants/mutmut-stats.json, then run that function's mutants. mutmut's timeout is wall time, so on shared
cores a low timeout_multiplier counts slow survivors as killed: [tool.mutmut] sets 10 (20x the tests' time).

What is mutated and which tests run: [tool.mutmut] in pyproject.toml. mutmut 3 mutates function bodies only, so
limits.py's numbers and codes.py's constants are not among the mutants: tests/test_codes.py writes those values
out. Long on 2 shared cores (each mutant forks a pytest of the tests that reach it); not part of scripts/test.
EQUIVALENT lists the survivors looked at and found to change no behaviour, each with why."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MUTMUT = REPO / ".venv/bin/mutmut"

# mutant -> why it behaves as the original (looked at with `.venv/bin/mutmut show NAME`)
EQUIVALENT: dict[str, str] = {
    "companion.game.board.x_board_data__mutmut_2": "read_text(None): the board JSON is ASCII, read alike anyhow",
    "companion.game.board.x_board_data__mutmut_8": "'UTF-8' for 'utf-8': the same codec",
    "companion.game.scoring.x_score__mutmut_2": "explain(state, None) loads the same shipped board the caller passed",
    "companion.game.scoring.x_score__mutmut_4": "explain(state) loads the same shipped board the caller passed",
    "companion.game.record.x_parse_setup__mutmut_114": "make_setup(..., None) loads the same shipped board",
    "companion.game.record.x_parse_setup__mutmut_119": "make_setup(...) loads the same shipped board",
    "companion.game.record.x_parse_setup__mutmut_121": "a mode that is no string reads the same unquoted or repr'd",
    "companion.game.record.x_replay__mutmut_1": "board None: parse_setup and apply load the same shipped board",
    "companion.game.record.x_replay__mutmut_2": "board and load_board(): the shipped board, or None which loads it",
    "companion.game.record.x_replay__mutmut_5": "parse_setup(doc, None) loads the same shipped board",
    "companion.game.record.xǁ_WrittenPassesǁfollow__mutmut_15": "the actor is never owed a pass: it is acting",
    **{f"companion.game.setup.x_{name}__mutmut_{n}": "a board of None loads the same shipped board"
       for name, ns in (("check_saved_layout", (34, 37, 41, 45)), ("make_setup", (1, 2, 8, 11, 20, 24)))
       for n in ns},
    "companion.game.setup.x_check_removed__mutmut_33": "a district given twice of two: removed[1] is removed[0]",
    "companion.game.setup.x_check_removed__mutmut_41": "the two non-adjacent pairs (north-south, east-west) sort "
                                                       "alike alphabetically and in PERIPHERAL's order",
    "companion.game.setup.x_check_removed__mutmut_43": "as mutant 41",
    "companion.game.setup.x_check_cards__mutmut_73": "break for continue on the last of (area, neighborhood)",
    "companion.game.setup.x_check_layout__mutmut_69": "None != need as 0 != need: need is 5 or 7",
    "companion.game.setup.x_check_layout__mutmut_71": "as mutant 69",
    "companion.game.setup.x_check_layout__mutmut_72": "1 != need as 0 != need: need is 5 or 7",
    # board_entry: the board a caller passes is the shipped one, and None loads it
    **{f"companion.game.board_entry.x_{name}__mutmut_{n}": "a board of None loads the same shipped board"
       for name, ns in (("new_board", (1, 2, 8, 11)), ("set_tokens", (2,)), ("check_complete", (2,)),
                        ("tally", (1, 2, 4, 6, 8, 10)))
       for n in ns},
    **{f"companion.game.board_entry.x_reveal__mutmut_{n}": "check_cards never reads the name of the seat it checks"
       for n in (26, 33)},
    **{f"companion.game.board_entry.x_to_state__mutmut_{n}": "a finished state's start player is read by nobody "
       "(views.py shows it only while the game runs)" for n in (52, 80)},
    **{f"companion.game.record.x_replay__mutmut_{n}": "a board of None loads the same shipped board"
       for n in (7, 42, 45)},
    # scoring.disjoint_groups: pack() may branch on any element of a fitting group, or try every group first
    "companion.game.scoring.x_disjoint_groups__mutmut_23": "pack branches on the lowest element of the last fitting "
                                                           "group instead of all of them: still one of a group, same count",
    "companion.game.scoring.x_disjoint_groups__mutmut_26": "low = union | -union, every bit from the lowest up: pack "
                                                           "tries every fitting group first, same count, slower",
    "companion.game.scoring.x_disjoint_groups__mutmut_27": "low = the whole union: pack tries every fitting group "
                                                           "first, same count, slower",
    "companion.game.scoring.x_disjoint_groups__mutmut_32": "m | low is always true: pack also tries groups without "
                                                           "the element, each a real packing, same count, slower",
    "companion.game.scoring.x_disjoint_groups__mutmut_46": "free = -1 (1 >> n, less 1): every bit set, and no group "
                                                           "has a bit past the items",
    "companion.game.scoring.x_disjoint_groups__mutmut_47": "free has one bit more than the items, which no group has",
    "companion.game.scoring.x_disjoint_groups__mutmut_58": "where the groups are picked, low = union | -union: any "
                                                           "group of a best packing is picked, none is ever missing",
    "companion.game.scoring.x_disjoint_groups__mutmut_59": "as mutant 58, low = the whole union",
    "companion.game.scoring.x_disjoint_groups__mutmut_65": "as mutant 58, m | low always true",
    "companion.game.rules.x__advance__mutmut_67": "_end_call never reads its board",
    **{f"companion.game.rules.x__advance__mutmut_{n}": "range(n) adds k = 0, the actor, who just bid (the leader) "
       "or passed: skipped either way" for n in (20, 42)},
    "companion.game.rules.x_new_game__mutmut_20": "to_act left out: State's default is 0",
    "companion.game.rules.x__in_play__mutmut_2": "id(None) for id(board): one board per process, the key still "
                                                 "tells the removed districts apart",
    **{f"companion.game.rules.x__in_play__mutmut_{n}": "nothing found in the cache: in_play computed again, the "
       "same set, slower" for n in (3, 4)},
    "companion.game.rules.x__empty__mutmut_4": "the call's bids left out of the difference: _empty is asked only "
                                               "when the call is empty",
    "companion.game.rules.x_legal_actions__mutmut_1": "finished and to_act None for or: a finished state has nobody "
                                                      "to act, and nobody is to act only in a finished one",
    "companion.game.rules.x_apply__mutmut_2": "a board of None loads the same shipped board",
    "companion.game.rules.x_legal_actions__mutmut_4": "a board of None loads the same shipped board",
    "companion.game.scoring.x_explain__mutmut_36": "area counted without an area card too: 0 groups times 0 points",
    **{f"companion.game.scoring.x_explain__mutmut_{n}": "another default for a card missing from the points "
       "table: every expert area card is in it (check_cards allows no other)" for n in (39, 41, 44)},
    "companion.game.scoring.x_disjoint_groups__mutmut_55": "as mutant 23 where the groups are picked: still a "
                                                           "largest packing (where several exist, maybe another: the "
                                                           "rulebook counts groups, it picks none)",
}


def results() -> dict[str, str]:
    """mutant name -> mutmut's status for it, from the last run."""
    done = subprocess.run([str(MUTMUT), "results", "--all", "true"], cwd=REPO, capture_output=True, text=True,
                          check=True)
    found = {}
    for line in done.stdout.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep:
            found[name] = status
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--children", type=int, default=1, help="mutants tested at once (default 1: the cores are shared)")
    ap.add_argument("--report", action="store_true", help="only print the figures of the last run")
    ap.add_argument("mutants", nargs="*", help="only these mutants, re-run even if they have a result (patterns, "
                                               "e.g. 'companion.game.rules*': one module at a time)")
    args = ap.parse_args()
    if not args.report:
        started = time.monotonic()
        subprocess.run(["nice", "-n", "15", str(MUTMUT), "run", "--max-children", str(args.children), *args.mutants],
                       cwd=REPO, stdout=subprocess.DEVNULL, check=False)
        print(f"mutmut run: {time.monotonic() - started:.0f} s on {os.cpu_count()} cores (nice 15)")
    found = results()
    if not found:
        print("no results: run without --report first", file=sys.stderr)
        return 1
    by_file: dict[str, Counter] = {}
    for name, status in found.items():
        by_file.setdefault(name.split(".x")[0], Counter())[status] += 1   # companion.game.rules.x_apply__mutmut_3
    caught = {"killed", "timeout", "caught by type check", "segfault"}
    considered = {n: s for n, s in found.items() if n not in EQUIVALENT and s not in ("skipped", "not checked")}
    killed = sum(s in caught for s in considered.values())
    print(f"mutants: {len(found)}; looked at and equivalent: {len(EQUIVALENT)}; "
          f"by status: {dict(Counter(found.values()))}")
    for module, counts in sorted(by_file.items()):
        mine = {n: s for n, s in considered.items() if n.split(".x")[0] == module}
        share = sum(s in caught for s in mine.values())
        print(f"  {module}: {dict(counts)}; killed {share} of {len(mine)} non-equivalent")
    unrun = sum(s == "not checked" for s in found.values())
    if unrun:
        print(f"NOT A FULL RUN: {unrun} mutants have no result yet (run again: it goes on where it stopped)")
    print(f"killed: {killed} of {len(considered)} non-equivalent mutants = {100 * killed / len(considered):.1f}%")
    tried = [s for s in found.values() if s not in ("skipped", "not checked")]
    raw = sum(s in caught for s in tried)
    print(f"(every mutant, the equivalent ones as survivors: {raw} of {len(tried)} = {100 * raw / len(tried):.1f}%; "
          f"timeouts count as killed: {sum(s == 'timeout' for s in tried)})")
    survivors = sorted(n for n, s in considered.items() if s not in caught)
    print(f"survivors ({len(survivors)}): `.venv/bin/mutmut show NAME` shows each")
    for name in survivors:
        print(f"  {name}: {considered[name]}")
    for name, why in sorted(EQUIVALENT.items()):
        print(f"  equivalent {name} ({found.get(name, 'gone')}): {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
