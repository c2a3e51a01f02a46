"""Typed errors.  The library raises them; only the CLI turns them into a
one-line message and an exit code (see ``docs/errors.md``).
"""

from __future__ import annotations

__all__ = [
    "CommitteeError", "InputError", "ConfigError", "RunError", "OutputError",
    "UndefinedMetricWarning", "PlausibilityWarning",
]


class CommitteeError(Exception):
    """Base class of every error the user can act on."""

    exit_code = 1


class InputError(CommitteeError):
    """A file cannot be read or scored as given.

    Parameters
    ----------
    path : str
        The file at fault.
    line : int or None
        1-based line number, when one can be named.
    message : str
        What is wrong and, where possible, what to do.

    Examples
    --------
    >>> str(InputError("gold.txt", 412, "characters differ at offset 7"))
    'gold.txt:412: characters differ at offset 7'
    >>> str(InputError("gold.txt", None, "file is empty"))
    'gold.txt: file is empty'
    """

    exit_code = 3

    def __init__(self, path: str, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {message}")


class ConfigError(CommitteeError):
    """A configuration is invalid.  Holds every problem found, each as
    ``dotted.path: message``.

    Examples
    --------
    >>> print(ConfigError("a.yaml", ["committee.size: must be >= 1", "crf.params.c3: unknown"]))
    a.yaml: 2 problems
      committee.size: must be >= 1
      crf.params.c3: unknown
    """

    exit_code = 4

    def __init__(self, path: str, problems: list[str]):
        self.path = str(path)
        self.problems = list(problems)
        if len(self.problems) == 1:
            text = f"{self.path}: {self.problems[0]}"
        else:
            text = f"{self.path}: {len(self.problems)} problems\n" + "\n".join(
                "  " + p for p in self.problems
            )
        super().__init__(text)


class RunError(CommitteeError):
    """A run cannot go on (output directory holds another run, a member failed, ...)."""

    exit_code = 5


class OutputError(CommitteeError):
    """An output file or directory cannot be written (disk full, read-only
    file system, permission denied, ...).

    Examples
    --------
    >>> str(OutputError("runs/x/test.weight", "No space left on device"))
    'runs/x/test.weight: cannot write: No space left on device; free some space or choose another output directory'
    """

    exit_code = 6

    def __init__(self, path: str, reason: str, hint: str | None = None):
        self.path = str(path)
        self.reason = reason
        if hint is None:
            hint = "free some space or choose another output directory"
        super().__init__(f"{self.path}: cannot write: {reason}; {hint}")

    @classmethod
    def from_os_error(cls, exc: OSError, path=None) -> "OutputError":
        """The error for an :class:`OSError` met while writing ``path``."""
        import errno

        where = path if path is not None else (exc.filename or "<output>")
        reason = exc.strerror or str(exc)
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            hint = "make the directory writable or choose another output directory"
        elif exc.errno in (errno.ENOSPC, errno.EDQUOT):
            hint = "free some space or choose another output directory"
        else:
            hint = "check the output directory"
        return cls(where, reason, hint)


class UndefinedMetricWarning(UserWarning):
    """A metric's denominator is zero; the metric is reported as undefined."""


class PlausibilityWarning(UserWarning):
    """The input is valid but looks like a mistake (e.g. an OOV rate above 50%)."""
