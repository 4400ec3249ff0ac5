"""Errors a user can cause; the CLI prints them as one line, never a traceback."""
import signal


class DtreeError(Exception):
    """A problem with the user's data, files or options (exit code 1)."""


class DataError(DtreeError):
    """An input table cannot be read; the message names the file and line/column."""


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
