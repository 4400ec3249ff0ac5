"""Where the kernels are cached (dtcli.jit.cache): keyed on the sources compiled
into them, shared by checkouts, a fallback when the home cannot be written, and
never a folder another user could have written (numba's index is a pickle: issue 47)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from dtcli.jit.cache import FALLBACK_VARIABLE, _keyed_files, sources_hash

WHERE = """
from dtcli.jit import flags as jit
from dtcli.jit.cache import cache_root
print(jit.CACHE, cache_root())
"""


def test_the_key_covers_the_kernels_sources_and_not_the_drivers():
    names = {path.name for path in _keyed_files()}
    # registry.py and codes.py: they choose the kernel each criterion's code compiles
    assert {"flags.py", "indirect.py", "splitter.py", "subtree.py", "level.py", "kernels.py",
            "elementary.py", "impurity.py", "registry.py", "codes.py", "permutation.py", "nodes.py"} <= names
    assert not names & {"builder.py", "warm.py", "cache.py", "tree.py"}


OTHER_UID = 54321  # no user of this machine
UNWRITABLE_HOME = "/dev/null/cache"  # a file's child


def _where(tmp_path, script=WHERE, **variables):
    """Run `script` with the cache home, the temporary folder and `variables` given;
    (stdout, the lines of stderr about the kernel cache)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DTREE_CACHE_DIR", "NUMBA_CACHE_DIR", FALLBACK_VARIABLE)}
    env.update(XDG_CACHE_HOME=UNWRITABLE_HOME, TMPDIR=str(tmp_path), **variables)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, [line for line in done.stderr.splitlines() if "kernel cache" in line]


def test_an_unwritable_cache_home_falls_back_to_the_temporary_folder(tmp_path):
    out, lines = _where(tmp_path)
    caching, root = out.split()
    assert caching == "True" and root.startswith(str(tmp_path / f"dtree-{os.getuid()}"))
    assert len(lines) == 1 and "/dev/null" in lines[0] and str(tmp_path) in lines[0]
    assert (Path(root).stat().st_mode & 0o777) == 0o700
    assert (tmp_path / f"dtree-{os.getuid()}").stat().st_mode & 0o777 == 0o700


CHILD_TOO = WHERE + """
import subprocess, sys
child = subprocess.run([sys.executable, "-c", {script!r}], capture_output=True, text=True)
print(child.stdout)
print(child.stderr, file=sys.stderr)
"""


def test_the_fallback_is_announced_once_and_shared_with_child_processes(tmp_path):
    """A compile helper or a worker inherits the fallback and says nothing (it used to
    print the line a second time)."""
    out, lines = _where(tmp_path, CHILD_TOO.format(script=WHERE))
    assert len(lines) == 1, lines
    assert out.split()[1] == out.split()[3]  # the child's root is the parent's


def _plant(folder: Path, owner: int, mode: int) -> Path:
    folder.mkdir(mode=mode)
    folder.chmod(mode)
    os.chown(folder, owner, -1)
    return folder


@pytest.mark.skipif(not hasattr(os, "chown") or os.geteuid() != 0,
                    reason="changing a folder's owner needs root")
def test_a_temporary_folder_another_user_created_first_is_not_used(tmp_path):
    planted = _plant(tmp_path / f"dtree-{os.getuid()}", OTHER_UID, 0o700)
    out, lines = _where(tmp_path)
    root = out.split()[1]
    assert not root.startswith(str(planted)) and root.startswith(str(tmp_path / "dtree-cache-"))
    assert len(lines) == 1 and str(planted) in lines[0] and f"uid {OTHER_UID}" in lines[0]
    assert not Path(root).parent.exists() or (Path(root).stat().st_mode & 0o077) == 0


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_temporary_folder_others_may_write_is_not_used(tmp_path, mode):
    planted = _plant(tmp_path / f"dtree-{os.getuid()}", os.geteuid(), mode)
    out, lines = _where(tmp_path)
    assert not out.split()[1].startswith(str(planted))
    assert len(lines) == 1 and str(planted) in lines[0] and "writable by other users" in lines[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a folder's owner needs root")
@pytest.mark.parametrize("variable", ["DTREE_CACHE_DIR", "NUMBA_CACHE_DIR"])
@pytest.mark.parametrize("owner, mode", [(OTHER_UID, 0o700), (0, 0o775), (0, 0o777)])
def test_a_given_cache_folder_is_used_only_if_private(tmp_path, variable, owner, mode):
    given = _plant(tmp_path / "given", owner, mode)
    out, lines = _where(tmp_path, **{variable: str(given)})
    root = out.split()[1]
    assert not root.startswith(str(given))
    assert len(lines) == 1 and str(given) in lines[0]


def test_a_private_given_cache_folder_is_used_silently(tmp_path):
    given = _plant(tmp_path / "given", os.geteuid(), 0o755)
    out, lines = _where(tmp_path, DTREE_CACHE_DIR=str(given))
    assert out.split()[1] == str(given / sources_hash()[:20]) and not lines


class _Payload:
    """What a hostile index holds: unpickling it creates `marker` (a stand-in for any code)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return open, (self.marker, "w")


RUN_A_KERNEL = WHERE + """
import numpy as np
from dtcli.engine.rng import draw_features
mask = np.zeros((4, 1), np.uint8)
draw_features(np.array([1, 2], np.uint64), np.array([0], np.int64), 2, mask)
print(int(mask.sum()))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a folder's owner needs root")
def test_an_index_planted_by_another_user_is_never_unpickled(tmp_path):
    """The reproduction of issue 47: another user creates the victim's fallback folder
    first and plants a cache index there; the victim's dtree must not load it."""
    from dtcli.engine.rng import draw_features

    cache_file = draw_features._cache._cache_file
    planted = _plant(tmp_path / f"dtree-{os.getuid()}", OTHER_UID, 0o777)
    folder = planted / "dtree" / "numba" / sources_hash()[:20] / Path(cache_file._cache_path).name
    folder.mkdir(parents=True)
    marker = tmp_path / "code-ran"
    (folder / cache_file._index_name).write_bytes(pickle.dumps(_Payload(str(marker))))
    out, lines = _where(tmp_path, RUN_A_KERNEL)
    assert out.split()[2] == "2" and not marker.exists()
    assert len(lines) == 1 and str(planted) in lines[0]


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
