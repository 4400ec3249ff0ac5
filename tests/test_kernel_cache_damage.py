"""A damaged kernel cache file is a cache miss (dtcli/jit/repair.py, issue 47 section 2):
recompiled on the first run after the damage with one line naming the file, no
traceback and no bare `Aborted.`; `dtree warm --check` finds and repairs damage."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dtcli.jit.cache import FALLBACK_VARIABLE, sources_hash

RUN_A_KERNEL = """
import numpy as np
from dtcli.engine.rng import draw_features
mask = np.zeros((4, 1), np.uint8)
draw_features(np.array([1, 2], np.uint64), np.array([0], np.int64), 2, mask)
print(int(mask.sum()), draw_features.stats.cache_hits.get(draw_features.signatures[0], 0))
"""

DAMAGE = {
    "empty": lambda data: b"",
    "truncated": lambda data: data[: len(data) // 2],
    "garbage": lambda data: b"\x00 not a pickle " * 8,
}


def _env(cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", FALLBACK_VARIABLE)}
    return {**env, "DTREE_CACHE_DIR": str(cache)}


def _run(cache: Path, script=RUN_A_KERNEL):
    done = subprocess.run([sys.executable, "-c", script], env=_env(cache), capture_output=True,
                          text=True, timeout=300)
    return done.returncode, done.stdout.split(), done.stderr


@pytest.mark.parametrize("kind", sorted(DAMAGE))
@pytest.mark.parametrize("suffix", [".nbi", ".nbc"])
def test_a_damaged_cache_file_is_recompiled_with_one_line(tmp_path, kind, suffix):
    code, out, err = _run(tmp_path)
    assert code == 0 and out == ["2", "0"], err  # compiled, cached
    assert _run(tmp_path)[1] == ["2", "1"]  # loaded from the cache
    [damaged] = (tmp_path / sources_hash()[:20]).rglob(f"rng.draw_features-*{suffix}")
    damaged.write_bytes(DAMAGE[kind](damaged.read_bytes()))
    code, out, err = _run(tmp_path)
    assert code == 0 and out == ["2", "0"], err  # compiled again: a miss, not a failure
    assert "Traceback" not in err and "Aborted" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(damaged) in lines[0] and "damaged" in lines[0]
    code, out, err = _run(tmp_path)  # repaired by the run that recompiled it
    assert code == 0 and out == ["2", "1"] and not err.strip(), err


@pytest.fixture(scope="module")
def warm_copy(tmp_path_factory, load_example):
    """A copy of this machine's kernel cache after an iris fit (so the engine is in it)."""
    from dtcli.estimator import DecisionTreeClassifier
    from dtcli.jit.cache import cache_root

    iris = load_example("iris.csv")
    DecisionTreeClassifier().fit(iris.X, iris.y)
    copy = tmp_path_factory.mktemp("cache") / "kernels"
    shutil.copytree(cache_root(), copy / sources_hash()[:20])
    return copy


def _damage_grow_step(cache: Path, kind: str) -> Path:
    [index] = (cache / sources_hash()[:20] / "engine").glob("level.grow_step-*.nbi")
    index.write_bytes(DAMAGE[kind](index.read_bytes()))
    return index


@pytest.mark.parametrize("kind", ["empty", "garbage"])
def test_the_command_line_runs_on_after_a_damaged_index(warm_copy, tmp_path, dtree_exe,
                                                         examples, kind):
    """The reproduction: an empty index gave exit 1 and a bare `Aborted.`, a garbage one
    a 78-line UnpicklingError traceback, in every run."""
    cache = tmp_path / "kernels"
    shutil.copytree(warm_copy, cache)
    index = _damage_grow_step(cache, kind)
    runs = [subprocess.run([str(dtree_exe), "train", str(examples / "iris.csv"), "-o",
                            str(tmp_path / "m.json")], env=_env(cache), capture_output=True,
                           text=True, timeout=600) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr and "Aborted" not in run.stderr
    assert [line for line in runs[0].stderr.splitlines() if "kernel cache" in line] == [
        f"dtree: the kernel cache file {index} is damaged "
        f"({'EOFError' if kind == 'empty' else 'UnpicklingError'}); compiling it again"]
    assert "kernel cache" not in runs[1].stderr  # the first run repaired it


def test_warm_check_removes_damaged_files_and_recompiles_them(warm_copy, tmp_path, dtree_exe):
    from dtcli.jit.repair import check_and_repair

    cache = tmp_path / "kernels"
    shutil.copytree(warm_copy, cache)
    index = _damage_grow_step(cache, "truncated")
    run = subprocess.run([str(dtree_exe), "warm", "--check", "--criteria", "gini",
                          "--two-class", "--numeric", "--jobs", "1"], env=_env(cache),
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    assert f"warm: removed the damaged cache file {index}" in run.stderr.splitlines()
    assert index.exists()  # compiled again by warm
    assert check_and_repair(cache / sources_hash()[:20]) == []
