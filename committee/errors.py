"""Typed errors.  The library raises them; only the CLI turns them into a
one-line message and an exit code (see ``docs/errors.md``).
"""

from __future__ import annotations

__all__ = [
    "CommitteeError", "InputError", "ConfigError", "RunError", "OutputError",
    "DependencyError", "UndefinedMetricWarning", "PlausibilityWarning", "ReportWarning",
    "TagsetWarning", "Note",
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
    >>> print(ConfigError("a.yaml", ["--set committee.size=0: must be >= 1, got 0"]))
    --set committee.size=0: must be >= 1, got 0
    """

    exit_code = 4

    def __init__(self, path: str, problems: list[str]):
        self.path = str(path)
        self.problems = list(problems)
        # problems of command-line overrides ("--set KEY=VALUE: ...") are not in the file
        where = ("" if self.problems and all(p.startswith("--set ") for p in self.problems)
                 else f"{self.path}: ")
        if len(self.problems) == 1:
            text = f"{where}{self.problems[0]}"
        else:
            text = f"{where}{len(self.problems)} problems\n" + "\n".join(
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
        self.hint = hint
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


class DependencyError(CommitteeError):
    """An optional package that a command needs is not installed.

    Exit code 3, as for a missing input file (and as for a segmenter that
    is not installed): what the command reads is not there.

    Examples
    --------
    >>> str(DependencyError("matplotlib", "the report's figures need it", "report"))
    "matplotlib: not installed (the report's figures need it); pip install 'committee[report]'"
    """

    exit_code = 3

    def __init__(self, package: str, needed_for: str, extra: str):
        self.package = package
        self.extra = extra
        super().__init__(f"{package}: not installed ({needed_for}); "
                         f"pip install 'committee[{extra}]'")


class UndefinedMetricWarning(UserWarning):
    """A metric's denominator is zero; the metric is reported as undefined."""


class PlausibilityWarning(UserWarning):
    """The input is valid but looks like a mistake (e.g. an OOV rate above 50%)."""


class ReportWarning(UserWarning):
    """A part of the report was not made (an analysis failed, or plotly is
    missing for ``report.html``); the rest of the report is written and the
    page says what is missing and why."""


class UntrustedWarning(UserWarning):
    """A file (a run's manifest) names what only the person at the keyboard
    may name, a command to run or a host to contact; it was left out, and
    the warning says how to name it on the command line (docs/security.md)."""


class TagsetWarning(UserWarning):
    """A tagger wrote tags its tagset's mapping cannot place in the task's
    (:func:`committee.corpus.tagsets.map_tags`): kept as written, counted
    and named once."""


class Note(UserWarning):
    """Something the user should know, said once: a setting the command adapted
    (e.g. ``parallel.n_jobs`` reduced to the usable cores).  The command line
    prints it as ``committee: note: ...``."""


def _setting(key: str, value: str) -> str:
    """How the command line spells setting ``key`` to ``value``."""
    return f"--{key} {value}"


class FormatMismatchError(InputError):
    """A file read as one format looks like another known format.

    Parameters
    ----------
    path, line
        As for :class:`InputError`.
    given : str
        The format the file was read as.
    detected : str
        The format it looks like (a name of ``committee.corpus.FORMATS``,
        or ``"word-list"``).
    evidence : str
        What it looks like, e.g. ``"CoNLL-U (10 tab-separated columns)"``.
    setting : callable, optional
        ``setting(key, value)`` spells how to set ``key`` (``"format"``) to
        ``value`` where the reader was called from: ``--format conllu`` (the
        default) or ``corpus.train.format: conllu``.  See :meth:`rephrase`.

    Examples
    --------
    >>> e = FormatMismatchError("train.conllu", 1, "sighan", "conllu", "CoNLL-U (10 tab-separated columns)")
    >>> str(e)
    'train.conllu:1: looks like CoNLL-U (10 tab-separated columns), read as sighan: set --format conllu'
    >>> str(e.rephrase(lambda k, v: f"corpus.train.{k}: {v}"))
    'train.conllu:1: looks like CoNLL-U (10 tab-separated columns), read as sighan: set corpus.train.format: conllu'
    """

    def __init__(self, path: str, line: int | None, given: str, detected: str, evidence: str,
                 setting=None):
        self.given = given
        self.detected = detected
        self.evidence = evidence
        spell = setting or _setting
        if detected == "word-list":
            fix = "give it as the word list, not as a corpus"
        elif detected == "bio" and given != "bio":  # entity tags: another task, not a format
            fix = ("its tags are entities; score them with --task ner (in a config: task: ner "
                   "and format: bio)")
        elif given == "word-list":
            fix = "give it as a corpus, not as the word list"
        else:
            fix = "set " + spell("format", detected)
        super().__init__(path, line, f"looks like {evidence}, read as {given}: {fix}")

    def rephrase(self, setting) -> "FormatMismatchError":
        """The same error with the fix spelled by ``setting(key, value)``."""
        return type(self)(self.path, self.line, self.given, self.detected, self.evidence, setting)


class DecodeError(InputError):
    """A file does not decode with the given encoding.

    Parameters
    ----------
    path, line
        As for :class:`InputError`.
    encoding : str
        The encoding that failed.
    column : int
        1-based byte offset within the line.
    bad : bytes
        The bytes that failed.
    candidates : list of str
        Encodings that decode the file into plausible text, best first.
    note : str, optional
        Said after the candidates (e.g. which encodings give mojibake); or,
        with no candidates, the encodings to choose from.
    setting : callable, optional
        ``setting(key, value)``, as for :class:`FormatMismatchError`.

    Examples
    --------
    >>> e = DecodeError("as.txt", 3, "utf-8", 5, b"\\xa5", ["big5", "cp950"])
    >>> str(e)
    'as.txt:3: cannot decode as utf-8 at byte 5 (0xa5): try --encoding big5 or --encoding cp950'
    >>> str(e.rephrase(lambda k, v: f"corpus.test.{k}: {v}"))
    'as.txt:3: cannot decode as utf-8 at byte 5 (0xa5): try corpus.test.encoding: big5 or corpus.test.encoding: cp950'
    """

    def __init__(self, path: str, line: int | None, encoding: str, column: int, bad: bytes,
                 candidates, note: str = "", setting=None):
        self.encoding = encoding
        self.column = column
        self.bad = bad
        self.candidates = list(candidates)
        self.note = note
        spell = setting or _setting
        if self.candidates:
            hint = "try " + " or ".join(spell("encoding", c) for c in self.candidates)
            if note:
                hint += f" ({note})"
        else:
            hint = f"try {spell('encoding', '').rstrip()} with the file's encoding ({note})"
        super().__init__(path, line, f"cannot decode as {encoding} at byte {column} (0x{bad.hex()}): {hint}")

    def rephrase(self, setting) -> "DecodeError":
        """The same error with the fix spelled by ``setting(key, value)``."""
        return type(self)(self.path, self.line, self.encoding, self.column, self.bad,
                          self.candidates, self.note, setting)


def caller_level() -> int:
    """The ``stacklevel`` of a warning raised by the function that calls
    this one that points at the first caller outside committee: a warning
    of ``committee.score(...)`` names the user's line, not the library's.

    >>> import warnings
    >>> def library():
    ...     warnings.warn("x", stacklevel=caller_level())
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     library()
    >>> seen[0].filename.startswith("<doctest")
    True
    """
    import os
    import sys

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1  # the function that warns: stacklevel 1
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            package):
        frame, level = frame.f_back, level + 1
    return level
