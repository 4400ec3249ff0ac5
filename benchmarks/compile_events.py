"""What a first fit compiles, unit by unit: numba's compile events in one process.

Runs one `dtree` command in this process with an empty kernel cache (a fresh
DTREE_CACHE_DIR unless one is given) and prints, for every function numba
compiled, its seconds (nested compilations included, as numba reports them),
then the CPU and wall time of the whole command and the number of compiled
specialisations written to the cache (`.nbc` files):

    python benchmarks/compile_events.py train examples/iris.csv -o /tmp/iris.json
    python benchmarks/compile_events.py train examples/ecoli2.dat --criterion ccpdt -o /tmp/m.json

Top-level units are the ones a user waits for; a nested unit's time is inside its
caller's.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    cache = os.environ.setdefault("DTREE_CACHE_DIR", tempfile.mkdtemp(prefix="dtree-cache-"))
    from numba.core import event

    spans: list[tuple[str, float, int]] = []
    started: list[float] = []  # a stack: compilations nest

    class Listener(event.Listener):
        def on_start(self, ev):
            started.append(time.perf_counter())

        def on_end(self, ev):
            seconds = time.perf_counter() - started.pop()
            spans.append((ev.data["dispatcher"].py_func.__qualname__, seconds, len(started)))

    listener = Listener()
    event.register("numba:compile", listener)
    from dtcli.cli import cli as dtree

    wall, cpu = time.perf_counter(), time.process_time()
    try:
        dtree(argv, standalone_mode=False)
    finally:
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    for name, seconds, level in spans:  # callees end before their callers
        print(f"{'  ' * level}{seconds:7.2f} s  {name}")
    nbc = len(list(Path(cache).rglob("*.nbc")))
    top = sum(seconds for _, seconds, level in spans if level == 0)
    print(f"top-level compilation {top:.2f} s; command {cpu:.2f} s CPU, {wall:.2f} s wall; "
          f"{nbc} compiled specialisations in {cache}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
