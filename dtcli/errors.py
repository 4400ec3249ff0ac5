"""Errors a user can cause; the CLI prints them as one line, never a traceback."""


class DtreeError(Exception):
    """A problem with the user's data, files or options (exit code 1)."""


class DataError(DtreeError):
    """An input table cannot be read; the message names the file and line/column."""


class ModelError(DtreeError):
    """A model file is damaged, foreign or from a newer dtree."""


class ParameterError(DtreeError, ValueError):
    """An option or estimator parameter is out of range (exit code 2 on the CLI)."""
