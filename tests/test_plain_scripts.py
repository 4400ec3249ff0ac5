"""A user's first script, written as scikit-learn's examples are (no
`if __name__ == "__main__":` guard), run as a real script in a fresh interpreter.

The processes dtree starts (compiling ahead, the workers of jobs=2) must run dtree's
code only: a spawned process that imported the script again would run its top level
a second time (printing twice, or starting a pool inside a starting process: a crash
or a hang). Each script prints its marker once and exits 0 within its deadline.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

IRIS = str(Path(__file__).resolve().parent.parent / "examples" / "iris.csv")
DEADLINE = 600  # seconds: a hang fails, a busy CI machine does not

PRELUDE = f"""
import numpy as np, dtcli
X = np.random.default_rng(0).normal(size=(120, 3)); y = (X[:, 0] > 0).astype(int)
IRIS = {IRIS!r}
"""

SCRIPTS = {
    "fit": 'print("MARK", dtcli.DecisionTreeClassifier(criterion="gini").fit(X, y).score(X, y))',
    "forest": 'print("MARK", dtcli.RandomForestClassifier(n_estimators=5, random_state=0, '
              'n_jobs=2).fit(X, y).score(X, y))',
    "evaluate_jobs2": 'print("MARK", dtcli.evaluate(IRIS, "gini", cv=3, jobs=2, quiet=True) '
                      'is not None)',
    "compare_jobs1": 'print("MARK", dtcli.compare([IRIS], ["gini", "entropy"], cv=3, jobs=1, '
                     'quiet=True) is not None)',
    "compare_jobs2": 'print("MARK", dtcli.compare([IRIS], ["gini", "entropy"], cv=3, jobs=2, '
                     'quiet=True) is not None)',
    "tune_jobs2": 'print("MARK", dtcli.tune(IRIS, "tsallis", {"q": [1.5, 2.0]}, cv=3, jobs=2, '
                  'quiet=True) is not None)',
}


# These runs are far too small to pay for workers: a start cost of 0 makes jobs=2 start
# them all the same (crossval/runner.py), which is what these scripts test.
POOLS = {"DTREE_WORKER_START_SECONDS": "0"}


def run_script(tmp_path, body: str, env: dict | None = None) -> subprocess.CompletedProcess:
    script = tmp_path / "first_script.py"
    script.write_text(PRELUDE + body + "\n")
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=DEADLINE, env={**os.environ, **POOLS, **(env or {})})


def assert_ran_once(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("MARK") == 1, done.stdout
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_an_unguarded_script_runs_once_with_a_warm_cache(tmp_path, name):
    assert_ran_once(run_script(tmp_path, SCRIPTS[name]))


def test_an_unguarded_script_runs_once_with_an_empty_cache(tmp_path):
    """Cold, a first fit compiles its criterion's search in a second process, and a
    compare with jobs=2 compiles ahead in processes and then runs workers: three pools,
    none of which may run the script again. Compiling says so before it starts, then
    counts the parts as they are done."""
    body = (SCRIPTS["fit"] + "\n" + 'print("MORE", dtcli.compare([(X, y)], ["gini", "entropy"], '
            'cv=3, jobs=2, quiet=True) is not None)')
    done = run_script(tmp_path, body, {"DTREE_CACHE_DIR": str(tmp_path / "cache"),
                                       "DTREE_COMPILE_NOTICE": "1"})
    assert_ran_once(done)
    assert done.stdout.count("MORE") == 1, done.stdout
    said = done.stderr.splitlines()
    assert said[0].startswith("dtree: compiling the engine") and "2 parts" in said[0], said
    assert said[1].startswith("dtree: compiled 1/2") and said[2].startswith("dtree: compiled 2/2")


def _die(item):
    os._exit(3)


def test_a_process_that_dies_is_one_error_not_a_hang():
    from dtcli.errors import DtreeError
    from dtcli.processes import process_pool

    with pytest.raises(DtreeError, match="ended unexpectedly"):
        with process_pool(_die, [0, 1], 2) as futures:
            for future in futures:
                future.result(timeout=DEADLINE)
