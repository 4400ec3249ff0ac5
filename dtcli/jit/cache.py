"""Where numba caches dtree's compiled kernels, and what makes an entry fresh.

numba keys a cached kernel on its own source file only, but dtree's kernels
call and inline code from other modules (a split search inlines the criteria;
the drivers call the searches): edit a criterion and the search's cached code
would be stale. dtree's kernels are therefore keyed on one hash of every module
of dtcli that defines jitted code (and the criteria's registry, whose entries
choose the kernel each criterion's code compiles), so no module has to stay
whole for the cache's sake, and cached in a directory named by that hash,
shared by every checkout and install with the same sources: a second clone, a
CI run or a worktree reuses what the first compiled, and any edit of a kernel
gets a fresh directory (an edit of the Python drivers, such as builder.py,
does not).

The directory is `$DTREE_CACHE_DIR` if set, else dtree/numba under
`$NUMBA_CACHE_DIR` if that is set, else under the user's cache directory
(`$XDG_CACHE_HOME`, else ~/.cache). If that cannot be written
(a read-only home, say), a directory under the system's temporary directory
is used and dtree says so once on stderr; if none can be written, numba
compiles in memory (every run compiles again) and dtree says that instead.
"""
from __future__ import annotations

import functools
import hashlib
import os
import sys
import tempfile
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent.parent  # dtcli/
JITTED = (b"from dtcli.jit.flags import", b"from dtcli.jit.indirect import")  # kernel modules


def _keyed_files() -> list[Path]:
    """The jit package (flags, the address calls), every module of dtcli that defines
    kernels, and the criteria's registry, whose entries name the kernel each
    criterion's code compiles (registry._with_code)."""
    own = PACKAGE / "jit"
    files = [path for path in sorted(PACKAGE.rglob("*.py"))
             if path.parent != own and any(mark in path.read_bytes() for mark in JITTED)]
    return [own / "flags.py", own / "indirect.py", *files, PACKAGE / "criteria" / "registry.py"]


@functools.lru_cache(maxsize=None)
def sources_hash() -> str:
    """sha256 (hex) of the sources compiled into the engine's kernels, in a fixed order."""
    digest = hashlib.sha256()
    for path in _keyed_files():
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


@functools.lru_cache(maxsize=None)
def cache_root() -> Path | None:
    """The directory of this source hash's kernels, or None when none can be written."""
    leaf = Path("dtree", "numba", sources_hash()[:20])
    given = os.environ.get("DTREE_CACHE_DIR")
    if given:
        preferred = Path(given).expanduser() / leaf.name
    elif os.environ.get("NUMBA_CACHE_DIR"):
        preferred = Path(os.environ["NUMBA_CACHE_DIR"]).expanduser() / leaf
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        preferred = Path(base).expanduser() / leaf
    if _writable(preferred):
        return preferred
    fallback = Path(tempfile.gettempdir()) / f"dtree-{os.getuid() if hasattr(os, 'getuid') else 'user'}" / leaf
    if _writable(fallback):
        print(f"dtree: cannot write the kernel cache in {preferred.parent}; using {fallback}",
              file=sys.stderr)
        return fallback
    print(f"dtree: cannot write a kernel cache ({preferred.parent}, {fallback.parent}); "
          "compiling in memory, every run", file=sys.stderr)
    return None


class SourceHashLocator(caching._CacheLocator):
    """numba cache locator for dtree's kernels (see the module docstring)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_root() / Path(py_file).parent.name)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        own = hashlib.sha256(Path(self._py_file).read_bytes()).hexdigest()
        return sources_hash(), own

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            inside = Path(py_file).resolve().is_relative_to(PACKAGE)
        except OSError:
            return None
        # not dtree's: numba's own locators; no cache_root: jit.py turns caching off
        return cls(py_func, py_file) if inside and cache_root() is not None else None


def install() -> bool:
    """Put SourceHashLocator first among numba's locators (once per process); whether
    kernels can be cached at all."""
    impl = caching.CacheImpl
    if impl._locator_classes[0] is not SourceHashLocator:
        impl._locator_classes = [SourceHashLocator, *impl._locator_classes]
    return cache_root() is not None
