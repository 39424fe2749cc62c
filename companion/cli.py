"""The `companion` command: `serve` runs the table server, `score` re-plays and scores a record, `tournament` pits levels."""
from __future__ import annotations

import argparse
import json
import sys

from companion.game.record import RecordError, replay
from companion.game.scoring import score
from companion.limits import HTTP_THREADS


def cmd_score(args) -> int:
    """Print a record's scores as RECORD.md specifies; exit 2 with one line on a bad record."""
    try:
        if args.record == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(args.record, "rb") as f:
                raw = f.read()
        # UTF-8 whatever the terminal's locale; a byte-order mark (some editors write one) is allowed.
        doc = json.loads(raw.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError) as e:
        print(f"setup: cannot read {args.record}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as e:
        print(f"setup: {args.record} is not JSON: {e}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"setup: {args.record} is not a record: its JSON nests too deeply", file=sys.stderr)
        return 2
    try:
        state = replay(doc)
    except RecordError as e:
        print(str(e).replace("\n", " "), file=sys.stderr)
        return 2
    json.dump(score(state), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def cmd_tournament(args) -> int:
    """Play seeded games between levels, seats rotated; print one JSON object (issue 32's shape)."""
    import time

    from companion.players import LEVELS, budgeted, play
    from companion.players.match import play_game

    levels = [s.strip() for s in args.seats.split(",")]
    for what, bad in (("level", [l for l in levels if l not in LEVELS and not budgeted(l)]),):
        if bad:
            print(f"tournament: {bad[0]!r} is not a {what}; levels: {', '.join(LEVELS)}", file=sys.stderr)
            return 2
    if len(levels) != args.players:
        print(f"tournament: --seats names {len(levels)} levels for --players {args.players}", file=sys.stderr)
        return 2
    if not 2 <= args.players <= 4 or args.games < 1 or args.first < 0:
        print("tournament: --players is 2 to 4, --games at least 1 and --first at least 0", file=sys.stderr)
        return 2
    n = args.players
    times: list[list[float]] = [[] for _ in range(n)]   # by entry in --seats, CPU seconds per decision
    wins, totals, illegal = [0] * n, [0] * n, [0] * n
    for g in range(args.first, args.first + args.games):   # game g is the same game in any slice that holds it
        mark = [len(t) for t in times]
        shift = g % n                                     # entry k sits at seat (k + shift) % n
        at_seat = [(s - shift) % n for s in range(n)]     # seat -> entry

        def decide(seen, color, level, rng, _at=at_seat):
            t0 = time.process_time()
            try:
                return play(seen, color, level, rng)
            finally:
                times[_at[seen.seat(color)]].append(time.process_time() - t0)

        result = play_game([levels[e] for e in at_seat], args.mode, args.seed * 100003 + g, decide)
        players = result.scores["players"]
        for seat, color in enumerate(players):
            e = at_seat[seat]
            totals[e] += players[color]["total"]
            wins[e] += color in result.scores["winners"]
            illegal[e] += result.illegal[seat]
        if args.progress:          # the summary so far after each game, for a long run watched as it goes
            with open(args.progress, "a", encoding="utf-8") as f:
                line = _summary(levels, g + 1 - args.first, wins, totals, illegal, times)
                line["game"] = g                   # and this game's decisions, so slices run side by side can merge
                line["decision_ms_game"] = [[round(t * 1000, 2) for t in times[e][mark[e]:]] for e in range(n)]
                f.write(json.dumps(line) + "\n")
    seats = _summary(levels, args.games, wins, totals, illegal, times)["seats"]
    json.dump({"games": args.games, "seats": seats}, sys.stdout)
    sys.stdout.write("\n")
    return 0


def _summary(levels, games, wins, totals, illegal, times) -> dict:
    """The tournament's JSON after `games` games: per entry of --seats, wins, mean score, illegal, decision CPU."""
    import statistics

    seats = []
    for e in range(len(levels)):
        ms = sorted(t * 1000 for t in times[e]) or [0.0]
        seats.append({
            "level": levels[e], "wins": wins[e], "win_rate": round(wins[e] / games, 4),
            "mean_score": round(totals[e] / games, 3), "illegal": illegal[e],
            "decision_ms": {"median": round(statistics.median(ms), 3),
                            "p99": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 3)},
        })
    return {"games": games, "seats": seats}


def cmd_serve(args) -> int:
    from companion.serve import serve

    return serve(args)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="companion", description="Metropolys table companion")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("score", help="re-play a game record and print its scores as JSON")
    s.add_argument("record", help="a record file (RECORD.md format 1), or - for standard input")
    s.set_defaults(func=cmd_score)
    t = sub.add_parser("tournament", help="play seeded games between the players' levels and print the results as JSON")
    t.add_argument("--players", type=int, required=True, help="2 to 4")
    t.add_argument("--mode", choices=("family", "expert"), required=True)
    t.add_argument("--seats", required=True, help="levels, comma-separated, one per player: random,greedy,easy,normal,strong,mc,strong0; "
                   "mc@N or strong@N with N playouts a decision")
    t.add_argument("--games", type=int, required=True)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--first", type=int, default=0,
                   help="the first game's number (0): --first 200 --games 200 plays the second half of --games 400")
    t.add_argument("--progress", default=None, help="a file to append one JSON line to after each game")
    t.set_defaults(func=cmd_tournament)
    v = sub.add_parser(
        "serve", help="run the table server",
        description="Run the table server: phones join at the URL it prints (and its QR code); the Pi's own screen "
                    "shows /table. One server per database: a second one on the same file is refused. Every "
                    "setting of the environment (COMPANION_*) is listed in docs/DEPLOY.md.")
    v.add_argument("--host", default="0.0.0.0", metavar="ADDRESS",
                   help="the address to listen on (default 0.0.0.0: every network of this machine; 127.0.0.1: "
                        "this machine only, no phone can join)")
    v.add_argument("--port", type=int, default=8000,
                   help="the TCP port (default 8000); pick another when 8000 is in use, e.g. --port 8001")
    v.add_argument("--db", default=None, metavar="FILE",
                   help="the SQLite file holding every game (default: COMPANION_DB, else companion.sqlite3 in "
                        "the working directory); games resume from it after a restart")
    v.add_argument("--url", default=None,
                   help="the join URL to print and put in the QR codes, e.g. http://192.168.4.1:8000 (default: "
                        "COMPANION_JOIN_URL, else worked out from this machine's network address)")
    v.add_argument("--threads", type=int, default=HTTP_THREADS,
                   help=f"threads that run the answers to requests (default {HTTP_THREADS}); the default suits a Pi")
    v.set_defaults(func=cmd_serve)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)
