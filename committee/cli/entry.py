"""The ``committee`` script's entry point: the parser of every subcommand,
and the one place where the library's typed errors
(:mod:`committee.errors`) become a one-line message and an exit code:

=====  =====================================================================
code   meaning
=====  =====================================================================
0      success
1      unexpected internal error (a bug: please report it)
2      bad command-line usage (argparse)
3      input error: a file is missing, empty, undecodable, malformed or endless,
       changed since the run wrote it, or one the command would overwrite
4      configuration error: every problem listed as ``dotted.path: message``
5      run error: the output directory holds another run or is in use, or members failed
6      cannot write output: disk full, read-only file system, permission denied,
       standard output closed or not writable
129    hung up (SIGHUP); finished work is kept
130    interrupted (Ctrl-C, SIGINT); finished work is kept
141    standard output closed early (e.g. piped into ``head``)
143    terminated (SIGTERM: ``kill``, ``timeout``, ``docker stop``); finished work is kept
=====  =====================================================================

Every error is one line ``committee: error: ...`` on stderr (a config with
several problems lists them below the first line); every warning is one
line ``committee: warning: ...``.  An unexpected exception prints
``committee: internal error: TYPE: MESSAGE (run with --debug for the
traceback)``; ``committee --debug COMMAND ...`` lets it propagate with its
traceback.  See ``docs/errors.md``.
"""

from __future__ import annotations

import signal
import sys
import warnings

from committee import __version__
from committee.cli import check_gold, export, irt, report, run, score, segment
from committee.cli.options import Parser, UsageError
from committee.errors import CommitteeError, Note
from committee.system.process import (
    exit_now, handle_stop_signals, run_command, say_stopped, stdout_closed)

#: The subcommands, in the order ``committee --help`` lists them: each a
#: module whose ``add(sub)`` declares its parser, its handler (``func``)
#: and, when argparse cannot say everything, its check (``check``).
COMMANDS = (score, run, report, irt, check_gold, segment, export)


def build_parser() -> Parser:
    parser = Parser(
        prog="committee",
        description="Difficulty-weighted evaluation of Chinese word segmentation.")
    parser.add_argument("--version", action="version", version=f"committee {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="let unexpected errors propagate with their traceback")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add(sub)
    return parser


def warning_printer():
    """A ``warnings.showwarning`` that prints each warning as one line
    ``committee: warning: ...`` (``committee: note: ...`` for a
    :class:`~committee.errors.Note`), each text once per command: the
    library's ``catch_warnings`` blocks reset Python's own record of what
    was shown.  A progress bar on the terminal is moved below the line."""
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        kind = "note" if issubclass(category, Note) else "warning"
        text = f"committee: {kind}: {message}"
        if text not in shown:
            shown.add(text)
            from tqdm import tqdm

            tqdm.write(text, file=sys.stderr)  # on a line of its own, above a progress bar
    return show


def main(argv=None) -> int:
    """Entry point of the ``committee`` script; returns the exit code.

    As the script (``argv`` None), SIGINT (Ctrl-C), SIGTERM (``kill``,
    ``timeout``, ``docker stop``, systemd) and SIGHUP (the terminal closed)
    stop every command alike, sent to the whole process group or to this
    process alone: the worker processes are stopped, one line says so, and
    the process ends at once with 128 + the signal's number (130, 143, 129).
    Finished work is already on disk (every write is atomic) and freeing a
    large training set can take seconds.
    """
    script = argv is None
    if script:
        argv = sys.argv[1:]
        handle_stop_signals()
    try:
        return _main(argv)
    except KeyboardInterrupt as exc:
        code = say_stopped(getattr(exc, "signum", signal.SIGINT))
        if script:
            exit_now(code)
        return code


def _main(argv: list[str]) -> int:
    """:func:`main` once its stop signals are handled: the arguments parsed
    and checked (exit code 2), then the command run (:func:`_run`)."""
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"committee: error: {exc}", file=sys.stderr)
        return 2
    try:
        if getattr(args, "check", None) is not None:
            args.check(args)
    except UsageError as exc:
        print(f"committee: error: {exc} (see 'committee {args.command} --help')", file=sys.stderr)
        return 2
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        # a socket or file left to the garbage collector is a matter for developers
        warnings.simplefilter("ignore", ResourceWarning)
        warnings.showwarning = warning_printer()
        return _run(args)


def _run(args) -> int:
    """The command of ``args`` run; each error it raises one line on
    standard error and its exit code (the table above)."""
    try:
        return run_command(args)
    except CommitteeError as exc:
        print(f"committee: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return stdout_closed()
    except OSError as exc:
        # readers turn their OSErrors into InputError; what is left failed
        # while writing or managing the output directory
        if args.debug:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"committee: error: {where}{exc.strerror or exc} (cannot write output: "
              "check free space and permissions)", file=sys.stderr)
        return 6
    except Exception as exc:
        if args.debug:
            raise
        text = " ".join(str(exc).split()) or "(no message)"
        print(f"committee: internal error: {type(exc).__name__}: {text} "
              "(run with --debug for the traceback)", file=sys.stderr)
        return 1
