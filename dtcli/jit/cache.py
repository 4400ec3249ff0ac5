"""Where numba caches dtree's compiled kernels, and what makes an entry fresh.

numba keys a cached kernel on its own source file only, but dtree's kernels
call and inline code from other modules (a split search inlines the criteria;
the drivers call the searches): edit a criterion and the search's cached code
would be stale. dtree's kernels are therefore keyed on one hash of every module
of dtcli that defines jitted code (and the criteria's registry and codes, which
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

numba's cache index is a pickle, loaded before anything checks it: whoever can
write a cache folder can run code in every dtree that reads it. So a folder is
used only if it and the folders above it up to the cache's top (the folder given
in `$DTREE_CACHE_DIR` or `$NUMBA_CACHE_DIR`, dtree/ under the user's cache, or
dtree-<uid> in the temporary folder, which anyone could have created first) are
owned by this user and writable by no one else; dtree creates its folders with
mode 700. When neither the preferred folder nor the temporary one passes, the
kernels go to a fresh private folder (tempfile.mkdtemp) for this run and its
worker processes, removed at exit. The one line saying so is printed by the
process that chose; its workers inherit the choice (FALLBACK_VARIABLE) silently.
"""
from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent.parent  # dtcli/
JITTED = (b"from dtcli.jit.flags import", b"from dtcli.jit.indirect import")  # kernel modules


def _keyed_files() -> list[Path]:
    """The jit package (flags, the address calls), every module of dtcli that defines
    kernels, and the criteria's registry and codes, which name the kernel each
    criterion's code compiles (codes.CODES) and its engine flags."""
    own = PACKAGE / "jit"
    files = [path for path in sorted(PACKAGE.rglob("*.py"))
             if path.parent != own and any(mark in path.read_bytes() for mark in JITTED)]
    return [own / "flags.py", own / "indirect.py", *files, PACKAGE / "criteria" / "registry.py",
            PACKAGE / "criteria" / "codes.py"]


@functools.lru_cache(maxsize=None)
def sources_hash() -> str:
    """sha256 (hex) of the sources compiled into the engine's kernels, in a fixed order."""
    digest = hashlib.sha256()
    for path in _keyed_files():
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


# The cache folder a process chose when the preferred one could not be used, for its
# worker processes (which inherit the environment): they use it without a word.
FALLBACK_VARIABLE = "DTREE_CACHE_FALLBACK"


def _distrust(folder: Path) -> str | None:
    """Why the existing `folder` must not hold kernels (another user owns it, or others
    may write in it), or None."""
    status = folder.stat()
    if status.st_uid != os.geteuid():
        return f"{folder} is owned by another user (uid {status.st_uid})"
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{folder} is writable by other users (mode {stat.S_IMODE(status.st_mode):o})"
    return None


def _prepare(top: Path, leaf: Path, kind: str) -> str | None:
    """Create `top`/`leaf` (mode 700 where dtree creates it) and check that it can be
    trusted and written; why not, or None. `kind`: "given" (a folder the user named,
    checked as it is), "shared" (in a folder everyone can write: a symbolic link or any
    permissive mode is refused) or "home" (dtree's own folders in the user's cache: one
    found writable by others, made under a permissive umask by an older dtree, is closed
    rather than refused)."""
    try:
        if kind == "shared" and top.is_symlink():
            return f"{top} is a symbolic link"
        top.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder = top
        for part in (None, *leaf.parts):
            if part is not None:
                folder = folder / part
                folder.mkdir(mode=0o700, exist_ok=True)
            reason = _distrust(folder)
            if reason and kind == "home" and folder.stat().st_uid == os.geteuid():
                folder.chmod(stat.S_IMODE(folder.stat().st_mode) & ~0o022)
                reason = _distrust(folder)
            if reason:
                return reason
        tempfile.TemporaryFile(dir=folder).close()
        return None
    except OSError as error:
        return f"{error.filename or top} cannot be written ({error.strerror or error})"


def _private_folder(leaf: Path) -> Path | None:
    """A fresh folder only this user can use, removed when this process ends."""
    try:
        top = Path(tempfile.mkdtemp(prefix="dtree-cache-"))
    except OSError:
        return None
    atexit.register(shutil.rmtree, top, ignore_errors=True)
    return top / leaf if _prepare(top, leaf, "given") is None else None


def _user_id() -> str:
    return str(os.getuid()) if hasattr(os, "getuid") else "user"


@functools.lru_cache(maxsize=None)
def cache_root() -> Path | None:
    """The directory of this source hash's kernels, or None when none can be used."""
    name = sources_hash()[:20]
    leaf = Path("dtree", "numba", name)
    inherited = os.environ.get(FALLBACK_VARIABLE)
    if (inherited and Path(inherited).name == name
            and _prepare(Path(inherited), Path(), "given") is None):
        return Path(inherited)
    if os.environ.get("DTREE_CACHE_DIR"):
        top, below, kind = Path(os.environ["DTREE_CACHE_DIR"]).expanduser(), Path(name), "given"
    elif os.environ.get("NUMBA_CACHE_DIR"):
        top, below, kind = Path(os.environ["NUMBA_CACHE_DIR"]).expanduser(), leaf, "given"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser()
        top, below, kind = base / "dtree", Path(*leaf.parts[1:]), "home"
    reason = _prepare(top, below, kind)
    if reason is None:
        return top / below
    temporary = Path(tempfile.gettempdir()) / f"dtree-{_user_id()}"
    other = _prepare(temporary, leaf, "shared")
    fallback = temporary / leaf if other is None else _private_folder(leaf)
    if fallback is None:
        print(f"dtree: not using a kernel cache ({reason}; {other}); compiling in memory, "
              "every run", file=sys.stderr)
        return None
    instead = "" if other is None else f" nor {temporary} ({other})"
    private = "" if other is None else " (private to this run)"
    print(f"dtree: not using the kernel cache in {top} ({reason}){instead}; using "
          f"{fallback}{private}", file=sys.stderr)
    os.environ[FALLBACK_VARIABLE] = str(fallback)
    return fallback


class SourceHashLocator(caching._CacheLocator):
    """numba cache locator for dtree's kernels (see the module docstring)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_root() / Path(py_file).parent.name)

    def get_cache_path(self):
        return self._cache_path

    def ensure_cache_path(self):
        """numba's, with the folder private to this user (cache_root's rule)."""
        os.makedirs(self._cache_path, mode=0o700, exist_ok=True)
        tempfile.TemporaryFile(dir=self._cache_path).close()

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
    """Put SourceHashLocator first among numba's locators and make a damaged cache file
    a cache miss (repair.py), once per process; whether kernels can be cached at all."""
    from dtcli.jit import repair

    repair.tolerate_damage()
    impl = caching.CacheImpl
    if impl._locator_classes[0] is not SourceHashLocator:
        impl._locator_classes = [SourceHashLocator, *impl._locator_classes]
    return cache_root() is not None
