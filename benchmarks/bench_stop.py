"""How long a forest takes to stop when asked (issue 37): Ctrl-C at a few moments of a fit.

Run from the project root:

    python benchmarks/bench_stop.py                      # 100k x 20, 100 gini trees, 2 threads
    python benchmarks/bench_stop.py --rows 20000 --at 1,2

For each moment (`--at`, seconds into the fit) it sends this process a SIGINT and
reports how long after it the KeyboardInterrupt came and when the pool's threads were
idle: what dtree's exit waits for (Python joins the threads). Before issue 37 the
threads grew the rest of the forest; now each ends with the tree in hand
(docs/stopping.md). The data are bench_forest.py's.
"""
from __future__ import annotations

import argparse
import os
import signal
import threading
import time

from bench_forest import synthetic


def stop_at(fit, delay: float) -> str:
    sent = {}

    def interrupt():
        time.sleep(delay)
        sent["at"] = time.monotonic()
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt).start()
    try:
        fit()
    except KeyboardInterrupt:
        from dtcli.engine import threads

        caught = time.monotonic() - sent["at"]
        for pool in list(threads._pools.values()):  # wait for the threads, as exit does
            pool.shutdown(wait=True)
        threads._pools.clear()
        return (f"SIGINT {delay:g} s into the fit: KeyboardInterrupt after {caught:.3f} s, "
                f"threads idle after {time.monotonic() - sent['at']:.3f} s")
    time.sleep(delay)  # let the signal come before the next fit
    return f"SIGINT {delay:g} s into the fit: the fit had finished"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--at", default="2,4,6", help="seconds into the fit, comma-separated")
    args = parser.parse_args()
    from dtcli import RandomForestClassifier

    X, y = synthetic(args.rows, args.features)
    RandomForestClassifier(n_estimators=2).fit(X[:2000], y[:2000])  # load the kernels
    print(f"{args.rows} x {args.features}, {args.trees} trees, {args.jobs} threads; load "
          f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for delay in map(float, args.at.split(",")):
        print(stop_at(lambda: RandomForestClassifier(n_estimators=args.trees, n_jobs=args.jobs,
                                                     random_state=0).fit(X, y), delay))


if __name__ == "__main__":
    main()
