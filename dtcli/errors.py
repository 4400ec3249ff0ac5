"""Errors a user can cause; the CLI prints them as one line, never a traceback."""
import signal
from contextlib import contextmanager


class DtreeError(Exception):
    """A problem with the user's data, files or options (exit code 1)."""


class DataError(DtreeError, ValueError):
    """An input table cannot be read; the message names the file and line/column (a
    ValueError, as scikit-learn's for bad data, so that a library caller catches it so)."""


class ModelError(DtreeError):
    """A model file is damaged, foreign or from a newer dtree."""


class ParameterError(DtreeError, ValueError):
    """An option or estimator parameter is out of range (exit code 2 on the CLI)."""


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised like Ctrl-C's KeyboardInterrupt so that cleanup runs."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def interrupt_exit_code(exc: KeyboardInterrupt) -> int:
    """The shell's convention: 128 + the signal's number (130 for Ctrl-C)."""
    return 128 + getattr(exc, "signum", signal.SIGINT)


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (Ctrl-C, SIGTERM, SIGHUP) that `exc` is or that caused it.

    A signal's Python handler runs at the next check for pending signals, which can
    be inside a numba dispatcher's C code as a kernel returns (unboxing a constant,
    say); the dispatcher then returns a value with the handler's exception set, and
    Python raises SystemError('... returned a result with an exception set') from
    it, possibly from a second such SystemError."""
    while isinstance(exc, SystemError):
        exc = exc.__cause__
    return exc if isinstance(exc, KeyboardInterrupt) else None


@contextmanager
def signals_as_interrupts():
    """Inside, a signal that landed in a kernel call is raised as its KeyboardInterrupt
    (see interrupt_behind), whatever was running, so every stop is handled alike."""
    try:
        yield
    except SystemError as exc:
        interrupt = interrupt_behind(exc)
        if interrupt is None:
            raise
        raise interrupt.with_traceback(None) from None


class NotFittedError(DtreeError, ValueError, AttributeError):
    """An estimator was used before `fit`. ValueError and AttributeError are the bases of
    scikit-learn's NotFittedError; when scikit-learn is loaded, what the estimator raises
    is also an instance of scikit-learn's class (`dtcli.validation.not_fitted`)."""


class DataConversionWarning(UserWarning):
    """The input was converted to the shape the estimator takes (scikit-learn's name)."""
