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


class NotFittedError(DtreeError, ValueError, AttributeError):
    """An estimator was used before `fit`. ValueError and AttributeError are the bases of
    scikit-learn's NotFittedError; when scikit-learn is loaded, what the estimator raises
    is also an instance of scikit-learn's class (`dtcli.validation.not_fitted`)."""


class DataConversionWarning(UserWarning):
    """The input was converted to the shape the estimator takes (scikit-learn's name)."""
