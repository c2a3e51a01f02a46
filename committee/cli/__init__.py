"""Command line: ``committee run`` (train a committee, write difficulties,
then the report), ``committee report`` (the analyses on a finished run),
``committee score`` (standard and balanced metrics of any segmenter's
output), ``committee irt`` (item response theory on a run's marks),
``committee check-gold`` (the gold spans most likely to be annotation
errors) and ``committee segment`` (a real segmenter's output for a test set).

One module per subcommand (:mod:`~committee.cli.score`,
:mod:`~committee.cli.run`, :mod:`~committee.cli.report`,
:mod:`~committee.cli.irt`, :mod:`~committee.cli.check_gold`,
:mod:`~committee.cli.segment`) declares its parser and its handler
``cmd_*``; :mod:`~committee.cli.options` holds the options several share
and the parser class; :mod:`~committee.cli.entry` builds the parser
(``COMMANDS``) and holds :func:`main`, where errors become one line and an
exit code (its docstring lists the codes).
"""

from committee.cli.entry import build_parser, main

__all__ = ["build_parser", "main"]
