"""`companion serve` under yappi's CPU clock (every thread), for profile_bid.py: from SIGUSR1 to its exit it writes each
function's calls, inclusive and own CPU seconds to $COMPANION_YAPPI_OUT.

    python benchmarks/yappi_serve.py /path/to/companion serve --db ... --port ...
"""
import os
import signal
import sys

import yappi

yappi.set_clock_type("cpu")
yappi.start(builtins=False, profile_threads=True)
signal.signal(signal.SIGUSR1, lambda *_: yappi.clear_stats())   # up and answering: start-up left out
from companion.cli import main  # noqa: E402

try:
    code = main(sys.argv[2:])
finally:
    yappi.stop()
    with open(os.environ["COMPANION_YAPPI_OUT"], "w") as out:
        for f in yappi.get_func_stats():
            out.write(f"{f.name} ({os.path.relpath(f.module, os.getcwd()) if f.module else ''}:{f.lineno})"
                      f"\t{f.ncall}\t{f.ttot}\t{f.tsub}\n")
sys.exit(code)
