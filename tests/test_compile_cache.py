"""numba's disk cache under concurrent first runs: processes that compile different
specialisations of one function at once (workers of `dtree compare --jobs N`,
`pytest -n`) must all find their code in the cache afterwards, each its own
(dtcli.jit.flags._lock_cache_writes)."""
from __future__ import annotations

import os
import subprocess
import sys

KERNEL = """
import numba

@numba.njit(cache=True)
def scale(x):
    return x * 2 + 1
"""
# Compile one specialisation and save it, with a pause after reading numba's index
# so that both processes read it before either writes it (the race, made certain).
COMPILE = """
import sys, time
sys.path.insert(0, sys.argv[1])
import dtcli.jit.flags  # noqa: F401  (what every dtree process imports first)
from numba.core import caching
read = caching.IndexDataCacheFile._load_index
def slow_read(self):
    overloads = read(self)
    time.sleep(2.0)
    return overloads
caching.IndexDataCacheFile._load_index = slow_read
import racy_kernel
racy_kernel.scale(3 if sys.argv[2] == "int" else 3.0)
"""
LOAD = """
import sys
sys.path.insert(0, sys.argv[1])
import racy_kernel
assert racy_kernel.scale(3) == 7 and racy_kernel.scale(3.0) == 7.0
print(sum(racy_kernel.scale.stats.cache_hits.values()),
      sum(racy_kernel.scale.stats.cache_misses.values()))
"""


def test_concurrent_compilations_keep_every_cache_entry(tmp_path):
    (tmp_path / "racy_kernel.py").write_text(KERNEL)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    compiling = [subprocess.Popen([sys.executable, "-c", COMPILE, str(tmp_path), kind], env=env)
                 for kind in ("int", "float")]
    assert all(process.wait(timeout=120) == 0 for process in compiling)
    done = subprocess.run([sys.executable, "-c", LOAD, str(tmp_path)], env=env,
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["2", "0"]  # both specialisations from the cache
