"""Where the kernels are cached (dtcli.jit.cache): keyed on the sources compiled
into them, shared by checkouts, and a fallback when the home cannot be written."""
from __future__ import annotations

import os
import subprocess
import sys

from dtcli.jit.cache import _keyed_files

WHERE = """
from dtcli.jit import flags as jit
from dtcli.jit.cache import cache_root
print(jit.CACHE, cache_root())
"""


def test_the_key_covers_the_kernels_sources_and_not_the_drivers():
    names = {path.name for path in _keyed_files()}
    # registry.py: its entries choose the kernel each criterion's code compiles
    assert {"flags.py", "indirect.py", "splitter.py", "subtree.py", "level.py", "kernels.py",
            "elementary.py", "impurity.py", "registry.py", "permutation.py", "nodes.py"} <= names
    assert not names & {"builder.py", "warm.py", "cache.py", "tree.py"}


def test_an_unwritable_cache_home_falls_back_to_the_temporary_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DTREE_CACHE_DIR", "NUMBA_CACHE_DIR")}
    env.update(XDG_CACHE_HOME="/dev/null/cache", TMPDIR=str(tmp_path))  # a file's child
    done = subprocess.run([sys.executable, "-c", WHERE], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    caching, root = done.stdout.split()
    assert caching == "True" and root.startswith(str(tmp_path))
    lines = [line for line in done.stderr.splitlines() if "kernel cache" in line]
    assert len(lines) == 1 and "/dev/null" in lines[0] and str(tmp_path) in lines[0]


def test_tasks_that_differ_only_in_parameter_values_share_a_warm_marker():
    """Parameters are runtime values: a grid of q compiles (and warms) one kernel, while
    a special case that runs another kernel (Tsallis at q = 1 is entropy) has its own."""
    from dtcli.engine.warm import Form, WarmTask

    form = Form(two_classes=True, nominal=False, levels=False)
    grid = {WarmTask("tsallis", (("q", q),), form).marker for q in (0.5, 2.5, 7.0)}
    assert len(grid) == 1
    assert WarmTask("tsallis", (("q", 1.0),), form).marker not in grid
    assert (WarmTask("tsallis", (("q", 1.0),), form).marker
            == WarmTask("entropy", (), form).marker)
    assert WarmTask("tsallis", (("q", 0.5),), form._replace(nominal=True)).marker not in grid
