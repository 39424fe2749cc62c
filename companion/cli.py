"""The `companion` command: `serve` runs the table server, `score` re-plays and scores a record."""
from __future__ import annotations

import argparse
import json
import sys

from companion.game.record import RecordError, replay
from companion.game.scoring import score


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


def cmd_serve(args) -> int:
    from companion.serve import serve

    return serve(args)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="companion", description="Metropolys table companion")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("score", help="re-play a game record and print its scores as JSON")
    s.add_argument("record", help="a record file (RECORD.md format 1), or - for standard input")
    s.set_defaults(func=cmd_score)
    v = sub.add_parser("serve", help="run the table server")
    v.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    v.add_argument("--port", type=int, default=8000)
    v.add_argument("--db", default=None, help="SQLite file (default: companion.sqlite3 in the working directory)")
    v.add_argument("--url", default=None, help="the join URL to print and encode, overriding the LAN address")
    v.add_argument("--threads", type=int, default=32)
    v.set_defaults(func=cmd_serve)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)
