"""What several subcommands share: the parser whose errors are one line, the
options declared once (``--with``, ``--timeout``, ``--scheduler``,
``--set``, ``--task``, ``--format``/``--encoding``, ``--quiet``,
``--skip``/``--only``) and their checks.

A help text that needs a module the command line does not import at start
(:mod:`committee.segmenters`, :mod:`committee.config`) is built when shown:
an option's ``build_help`` (a callable) or a parser's callable
``description`` (:meth:`Parser.format_help`).
"""

from __future__ import annotations

import argparse
import json
import sys

from committee.corpus import FORMATS
from committee.system.arguments import cli_real
from committee.tasks import DEFAULT_TASK, TASKS


class UsageError(Exception):
    """Bad command-line usage (exit code 2), raised by :class:`Parser` and
    by the subcommands' checks."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and do not exit the process."""

    def error(self, message):
        # "argument --seed: expected ..." -> "--seed: expected ...": the flag first, as in
        # the commands' own usage errors
        if message.startswith("argument ") and ": " in message:
            message = message[len("argument "):]
        raise UsageError(f"{message} (see '{self.prog} --help')")

    def format_help(self):
        if callable(self.description):  # built only when shown (report's description)
            self.description = self.description()
        for action in self._actions:  # a help text built when shown (segmenter_names)
            build = getattr(action, "build_help", None)
            if build is not None:
                action.help = build()
        return super().format_help()


def file_options(parser, source: str, what: str, encoded: str | None = None,
                 default: str = "sighan; bio with --task ner, pku with --task pos") -> None:
    """``--SOURCE-format`` and ``--SOURCE-encoding`` (``--format``,
    ``--encoding`` for an empty ``source``): how ``what`` is read, and the
    encoding of ``encoded`` (default: ``what``); ``default`` says the
    format read when the flag is not given."""
    prefix = f"--{source}-" if source else "--"
    parser.add_argument(f"{prefix}format", default=None, choices=FORMATS, metavar="F",
                        help=f"format of {what}: {', '.join(FORMATS)} (default: {default})")
    parser.add_argument(f"{prefix}encoding", default="utf-8", metavar="E",
                        help=f"encoding of {encoded or what}: utf-8, gb18030, big5, cp950, "
                             "big5hkscs, ... (default: utf-8)")


def task_option(parser, help) -> None:
    """``--task``: one of :data:`committee.tasks.TASKS`; ``help`` is its
    text, or a callable that builds it when shown."""
    option = parser.add_argument("--task", default=DEFAULT_TASK, choices=TASKS,
                                 help=None if callable(help) else help)
    if callable(help):
        option.build_help = help


def set_option(parser, example: str) -> None:
    """``--set KEY=VALUE`` (repeatable): a config key overridden, as ``example``."""
    parser.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help=f"override a config key, e.g. --set {example}")


def quiet_option(parser, bars: str = "bar") -> None:
    """``--quiet``: no progress ``bars``."""
    parser.add_argument("--quiet", action="store_true", help=f"no progress {bars}")


def analysis_options(parser, of: str = "") -> None:
    """``--skip``/``--only NAMES`` of ``committee report`` and ``committee run``."""
    parser.add_argument("--skip", metavar="NAMES", help=f"comma-separated analyses {of}to leave "
                        "out, e.g. --skip table2 (trains no model)")
    parser.add_argument("--only", metavar="NAMES", help="comma-separated analyses to run" +
                        (", switched on in CONFIG or not" if of else ""))


def with_option(parser) -> None:
    """``--with NAME`` of ``committee run`` and ``committee report``: a
    segmenter (or a command: only ever named here, docs/security.md) whose
    output the report ranks."""
    option = parser.add_argument("--with", dest="segmenter", action="append", metavar="NAME")
    option.build_help = lambda: (
        f"segment the test set with NAME ({segmenter_names(None)}, or 'cmd:COMMAND': a command "
        "that segments one sentence per line of stdin) and rank it in the report (repeatable); "
        "of an entity run, tag it (lac, cmd:); of a pos run, tag parts of speech (jieba, "
        "thulac, lac, cmd:)")


def timeout_option(parser, default: str = "experiments.command_timeout, else no limit") -> None:
    """``--timeout SECONDS``: how long a ``cmd:COMMAND`` may run (docs/segmenters.md)."""
    parser.add_argument("--timeout", type=cli_real(0, above=True), metavar="SECONDS",
                        help="stop a cmd:COMMAND that runs longer than this, a number > 0 "
                             f"(default: {default})")


def scheduler_option(parser) -> None:
    """``--scheduler ADDRESS``: the Dask scheduler to send work to, named by
    the user (a config file may not name one, docs/security.md)."""
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="train on the Dask cluster of this scheduler (e.g. "
                             "tcp://127.0.0.1:8786); it receives the training data and "
                             "returns pickled results: name only one you trust")


def scheduler_overrides(args) -> list[str]:
    """``--scheduler ADDRESS`` as the overrides it stands for: the Dask
    backend on the scheduler the user names (docs/security.md)."""
    if not getattr(args, "scheduler", None):
        return []
    return ["parallel.backend=dask", f"parallel.scheduler={json.dumps(args.scheduler)}"]


def segmenters_module():
    """:mod:`committee.segmenters`, imported when a help text needs it."""
    from committee import segmenters

    return segmenters


def segmenter_names(conjunction: str | None = "or") -> str:
    """The names of :data:`committee.segmenters.SEGMENTERS` for a help text,
    the last one after ``conjunction`` (None: a comma), built when the help
    is shown so that the module is not imported at every start."""
    from committee.segmenters import SEGMENTERS

    if conjunction is None:
        return ", ".join(SEGMENTERS)
    *names, final = SEGMENTERS
    return f"{', '.join(names)} {conjunction} {final}"


def check_segmenters(args) -> None:
    """``--with`` names a segmenter of :data:`committee.segmenters.SEGMENTERS`
    or a ``cmd:COMMAND``."""
    from committee.segmenters import CMD_PREFIX, SEGMENTERS, name_problem

    given = args.segmenter if isinstance(args.segmenter, list) else [args.segmenter]
    for name in (n for n in given if n is not None):
        problem = name_problem(name)
        if problem is not None:
            raise UsageError(f"--with {name}: {problem}; choose from {', '.join(SEGMENTERS)} "
                             f"or {CMD_PREFIX}COMMAND")


def check_analyses(args) -> None:
    """``--only``/``--skip`` (and ``--no-report`` of ``committee run``) as
    ``args.analyses`` (:func:`committee.pipeline.workflow.choose_analyses`),
    and ``--with``'s names (:func:`check_segmenters`)."""
    from committee.pipeline.workflow import choose_analyses

    run = args.command == "run"  # its --with needs the ranking
    try:
        args.analyses = choose_analyses(args.only, args.skip, no_report=run and args.no_report,
                                        segmenters=run and bool(args.segmenter))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    check_segmenters(argparse.Namespace(segmenter=args.segmenter or []))


def check_encodings(args) -> None:
    """``--encoding``, ``--gold-encoding``, ``--train-encoding``: each one
    Python can decode text with (:func:`committee.corpus.encodings.text_encoding`)."""
    for flag in ("encoding", "gold_encoding", "train_encoding"):
        encoding = getattr(args, flag, None)
        if isinstance(encoding, str):
            from committee.corpus.encodings import text_encoding

            try:
                text_encoding(encoding)
            except (LookupError, ValueError) as exc:
                raise UsageError(f"--{flag.replace('_', '-')}: {exc.args[0]}; use one of utf-8, "
                                 "utf-8-sig, gb18030, cp936, big5, cp950, big5hkscs, "
                                 "utf-16") from None


class _Renamed(argparse.Action):
    """An option under its former name: it works as the new one, with a
    warning naming the new one (``new``)."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"committee: warning: {option_string} is now {self.new}; the old name will go",
              file=sys.stderr)  # parsed before the command's warnings are set up
        setattr(namespace, self.dest, values)


def renamed_option(parser, old: str, new: str, dest: str) -> None:
    """Accept ``old``, a former name of the option ``new``, without listing it in ``--help``."""
    parser.add_argument(old, dest=dest, action=_Renamed, new=new, help=argparse.SUPPRESS)
