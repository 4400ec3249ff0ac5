"""The one timing helper the benchmark scripts share (run them from the project root:
`python benchmarks/bench_x.py` puts this folder on the import path)."""
from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from typing import NamedTuple


class Timing(NamedTuple):
    wall: float  # seconds of the fastest call
    cpu: float  # CPU seconds of this process (all its threads) in that call
    result: object  # the last call's result


def best_of(run: Callable[[], object], repeats: int) -> Timing:
    """The fastest of `repeats` calls of `run`. On a shared machine the CPU seconds are
    the steadier figure: waiting for a core is not counted."""
    best, result = Timing(math.inf, math.inf, None), None
    for _ in range(repeats):
        result = None  # let the previous result go before timing the next call
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = run()
        wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        if wall < best.wall:
            best = Timing(wall, cpu, None)
    return best._replace(result=result)
