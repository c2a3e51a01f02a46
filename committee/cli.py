"""Command line: ``committee run`` (train a committee, write difficulties,
then the report), ``committee report`` (the analyses on a finished run),
``committee score`` (standard and balanced metrics of any segmenter's
output), ``committee irt`` (item response theory on a run's marks),
``committee check-gold`` (the gold spans most likely to be annotation
errors) and ``committee segment`` (a real segmenter's output for a test set).

The library raises typed errors (:mod:`committee.errors`); this module is the
only place that turns them into a one-line message and an exit code:

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

# size: near the 800-line cap because it holds every subcommand's parser and
# handler (the one place errors become messages and exit codes); a new
# subcommand's work lives in its module (committee.scoring.goldcheck), only
# its options here.

import argparse
import json
import signal
import sys
import warnings

from committee import __version__
from committee.system.arguments import cli_int, cli_real
from committee.corpus import FORMATS, NORMALIZATIONS
from committee.corpus.entities import MODES, SCHEMES
from committee import tasks as tasks_mod
from committee.tasks import DEFAULT_TASK, TASKS
from committee.tasks import get as get_task
from committee.errors import CommitteeError, Note
from committee.system.process import (
    exit_now, handle_stop_signals, run_command, say_stopped, stdout_closed)

def _columns(names: str | None, irt: bool = False) -> tuple:
    """The metric records (:mod:`committee.metrics.records`) chosen by
    ``--metrics`` (a comma-separated list of keys or column headings); without
    it every shown metric, the IRT ones with ``--irt``.  An unknown name, or
    an IRT metric without ``--irt``, is a usage error."""
    from committee.metrics import records

    shown = [m for m in records.registry() if m.shown]
    if names is None:
        return tuple(m for m in shown if irt or m.source == "stats")
    by_name = {n: m for m in records.registry() for n in (m.key, m.heading)}
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in by_name]
    if unknown or not wanted:
        raise _UsageError(f"--metrics: unknown metric {', '.join(unknown) or repr(names)}; "
                          f"choose from {', '.join(m.heading for m in shown)}")
    chosen = tuple(dict.fromkeys(by_name[n] for n in wanted))
    needs_irt = [m.key for m in chosen if m.source == "irt"]
    if needs_irt and not irt:
        raise _UsageError(f"--metrics: {', '.join(needs_irt)} needs --irt RUN_DIR (the items "
                          "of `committee irt RUN_DIR`)")
    return chosen


def _cli_spelling(source: str):
    """How messages spell setting ``key`` of ``source`` (``gold``, ``train``,
    ``output``) on the command line: ``--gold-format conllu``, ``--format conllu``."""
    prefix = "" if source == "output" else f"{source}-"

    def spell(key: str, value) -> str:
        if value is True:
            return f"--{key.replace('_', '-')}"
        return f"--{prefix}{key} {value}"
    return spell


def cmd_score(args) -> int:
    from committee import scoring
    from committee.pipeline import difficulty
    from committee.pipeline import layout

    if args.difficulty is not None:  # a run in progress: one clear line, not "no such file"
        difficulty.check_from_final_run(args.difficulty)
    # --irt: a run directory, checked by the Scorer; "-": standard input
    files = [args.gold, difficulty.difficulty_file(args.difficulty), args.train_words,
             args.train, *(o for o in args.outputs if o != "-")]
    scoring.require_files(files)
    layout.verify_files(files)  # a run's file (its test.txt, ...) as the run wrote it
    layout.check_task([args.gold, args.difficulty, args.train_words, args.train, args.irt,
                       *args.outputs], args.task, _cli_spelling("output"))
    check = None
    if args.gold_check is not None:
        from committee.scoring import goldcheck

        check = goldcheck.read(args.gold_check)  # refused before any scoring
    fmt = args.format or get_task(args.task).format
    options = scoring.ScorerOptions(
        format=fmt, encoding=args.encoding,
        gold_format=args.gold_format or fmt, gold_encoding=args.gold_encoding,
        train_encoding=args.train_encoding, allow_overlap=args.allow_overlap,
        normalization=None if args.normalize == "none" else args.normalize,
        train_format=(args.train_format or fmt) if args.train else None,
        spelling=_cli_spelling, irt=args.irt, buckets=args.buckets, task=args.task,
        mode=args.mode, scheme=args.scheme)
    scorer = scoring.Scorer(args.gold, args.difficulty, args.train_words or args.train, options)
    if check is not None:  # a list of this gold, before any output is scored
        goldcheck.check_scored_gold(check[1], scorer, args.gold_check)
    result = scorer.score_all(args.outputs, bootstrap=args.bootstrap, seed=args.seed,
                              progress=True)
    sens = None
    if args.gold_check is not None:
        from committee.scoring import goldcheck

        sens = goldcheck.sensitivity(scorer, args.outputs, args.gold_check,
                                     full=result.systems, check=check)
    if args.json:
        text = result.json(args.columns if args.metrics is not None else None,
                           gold_check=sens)
        print(text)
    elif args.markdown:
        print(result.markdown(args.columns))
    else:
        print(result.text(args.columns))
    if sens is not None and not args.json:
        print()
        print(goldcheck.format_sensitivity(sens))
    return 0


def cmd_run(args) -> int:
    from committee import config as config_mod
    from committee.pipeline import workflow

    cfg = config_mod.load_config(args.config, overrides=(args.set or []) + _scheduler(args))
    # --only picks any analysis; otherwise those of the config, less --skip
    analyses = [a for a in args.analyses if args.only or a in cfg.experiments.enabled()]
    out = workflow.run(cfg, restart=args.restart, progress=not args.quiet, where=args.config,
                       segmenters=args.segmenter or [], timeout=args.timeout,
                       timeout_name="--timeout", analyses=analyses)
    print(workflow.describe_run(out, cfg, analyses))
    return 0


def _scheduler(args) -> list[str]:
    """``--scheduler ADDRESS`` as the overrides it stands for: the Dask
    backend on the scheduler the user names (docs/security.md)."""
    if not getattr(args, "scheduler", None):
        return []
    return ["parallel.backend=dask", f"parallel.scheduler={json.dumps(args.scheduler)}"]


def _check_report(args) -> None:
    """``--only``/``--skip`` (and ``--no-report`` of ``committee run``) as
    ``args.analyses`` (:func:`committee.pipeline.workflow.choose_analyses`)."""
    from committee.pipeline.workflow import choose_analyses

    run = args.command == "run"  # its --with needs the ranking
    try:
        args.analyses = choose_analyses(args.only, args.skip, no_report=run and args.no_report,
                                        segmenters=run and bool(args.segmenter))
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    _check_segmenters(argparse.Namespace(segmenter=args.segmenter or []))


def cmd_report(args) -> int:
    import time

    from committee.pipeline import workflow

    started = time.time_ns()
    workflow.report(args.run_dir, args.config, (args.set or []) + _scheduler(args),
                    analyses=args.analyses,
                    systems=args.system or [], segmenters=args.segmenter or [],
                    human=args.human, progress=not args.quiet, timeout=args.timeout,
                    timeout_name="--timeout")
    print(workflow.describe_written(args.run_dir, workflow.written_since(args.run_dir, started)))
    return 0


def cmd_segment(args) -> int:
    from committee import corpus, segmenters
    from committee.system.files import open_output, refuse_overwrite

    refuse_overwrite(args.output, "the output (-o)", args.test, "the input TEST",
                     "committee segment", "choose another output file")
    task = get_task(args.task)
    seg, load = None, segmenters.tool_loader(task)
    if task.pos_tagset is None and not task.tagged:  # a segmenter loads before TEST is read
        seg = load(args.segmenter, timeout=args.timeout, timeout_name="--timeout")
    test = corpus.read_corpus(args.test, format=args.format or task.format, encoding=args.encoding)
    test = task.prepare(test, lambda key, value: f"--{key} {value}")
    seg = seg or load(args.segmenter, timeout=args.timeout, timeout_name="--timeout")
    text, did = _tool_output(task, seg, test, progress=not args.quiet)
    if args.output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        with open_output(args.output) as f:
            f.write(text)
    where = "standard output" if args.output == "-" else args.output
    print(f"wrote {where}: {len(test.words):,} sentences {did} by {seg.name} {seg.version}",
          file=sys.stderr)
    if seg.note:
        print(f"committee: note: {seg.name} is {seg.note}", file=sys.stderr)
    return 0


def _tool_output(task, seg, test, progress: bool) -> tuple[str, str]:
    """The text of ``seg``'s output on ``test`` for ``task`` in the task's
    format (SIGHAN words, ``bio`` entity tags or ``pku`` parts of speech)
    and what it did."""
    from committee import corpus, segmenters

    texts = ["".join(s) for s in test.words]
    words, tags = segmenters.apply(task, seg, texts, test.path, test.lines, progress=progress)
    did = ("tagged with parts of speech" if task.pos_tagset is not None else
           "tagged with entities" if task.tagged else "segmented")
    return corpus.format_output(task.format, words, tags), did


def cmd_irt(args) -> int:
    from committee.scoring import irt as irtrun

    summary = irtrun.run(args.run_dir, model=args.model, systems=args.system or [],
                         min_a=args.min_a, max_iter=args.max_iter, export=not args.no_export,
                         subset=args.subset, seed=args.seed)
    flags = ", ".join(f"{k} {v:,}" for k, v in summary["flags"].items()) or "none"
    print(f"wrote {args.run_dir}/items.tsv, irt.json, irt-flags.tsv: {summary['model']} on "
          f"K={summary['n_members']} × {summary['n_words']:,} words, {summary['n_iter']} EM "
          f"iterations, log-likelihood {summary['log_likelihood']:.1f}; flags: {flags}")
    for s in summary["systems"]:
        print(f"{s['output']}: theta {s['theta']:.3f} ± {s['theta_se']:.3f}")
    if "subset" in summary:
        print(irtrun.format_subset(summary["subset"]))
    return 0


def cmd_check_gold(args) -> int:
    from committee.scoring import goldcheck

    summary = goldcheck.run(args.run_dir, systems=args.system or [], train=args.train)
    units, n = summary["units"], summary["n_units"]
    print(f"wrote {args.run_dir}/check-gold.tsv, check-gold.json: {summary['n_rows']:,} "
          f"suspicious spans of {n:,} gold {units} (K={summary['n_members']}); expected "
          f"annotation errors among them: {summary['expected_errors']:.0f} "
          f"({100 * summary['expected_errors'] / max(n, 1):.2f}% of the {units}; "
          f"{summary['expected_errors_at_fitted_rate']:.0f} were errors as common as where the "
          "weights were fitted)")
    return 0


def _report_description() -> str:
    """``committee report --help``'s description, built when shown: the names
    of the analyses come from :mod:`committee.config`, which is not imported
    just to build the parser (docs/benchmarks.md, start-up)."""
    from committee.config import EXPERIMENTS as ANALYSES

    return ("Score systems against a run's difficulties and write report.md, table2.csv and "
            "report/ (figures and their data) into RUN_DIR. Runs every analysis unless told "
            f"otherwise: {', '.join(ANALYSES)}. Table 2 models are trained once and reused; "
            "nothing of the committee is retrained.")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="committee",
        description="Difficulty-weighted evaluation of Chinese word segmentation.")
    parser.add_argument("--version", action="version", version=f"committee {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="let unexpected errors propagate with their traceback")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_score, _add_run, _add_report, _add_irt, _add_check_gold, _add_segment):
        add(sub)
    return parser


def _add_score(sub) -> None:
    # size: near the 60-line cap because it declares every option of
    # `committee score` in one place, the order `--help` shows them in
    s = sub.add_parser("score", help="score segmenters' outputs with standard and balanced metrics",
                       description="Score each OUTPUT against GOLD: p/r/f1, the balanced "
                                   "pb/rb/fb (with --difficulty), OOV/IV recall, ER, TNR, "
                                   "boundary P/R/F, and ranks by f1 and by fb.")
    s.add_argument("outputs", nargs="+", metavar="OUTPUT",
                   help="segmented output file(s); '-' reads standard input")
    s.add_argument("--gold", required=True, help="gold segmentation of the same text")
    s.add_argument("--difficulty", metavar="FILE.weight",
                   help="per-word difficulty file (.weight) for the balanced metrics")
    group = s.add_mutually_exclusive_group()
    group.add_argument("--train-words", metavar="FILE",
                       help="training word list, one word per line (for OOV metrics)")
    group.add_argument("--train", metavar="CORPUS",
                       help="training corpus whose words define in-vocabulary (for OOV metrics)")
    s.add_argument("--allow-overlap", action="store_true",
                   help="accept a --train corpus holding the very words of GOLD (a warning, "
                        "not an error)")
    _file_options(s, "gold", "GOLD", default="that of --format")
    _file_options(s, "train", "the --train CORPUS", "the --train CORPUS or --train-words file",
                  default="that of --format")
    _file_options(s, "", "the OUTPUTs")
    s.add_argument("--normalize", default="none",
                   choices=["none", *(n for n in NORMALIZATIONS if n is not None)],
                   help="normalise characters of every file identically (default: none)")
    s.add_argument("--bootstrap", type=cli_int(0), default=0, metavar="N",
                   help="bootstrap resamples for 95%% intervals and paired tests (e.g. 1000; "
                        "at most what fits in half the available memory)")
    s.add_argument("--seed", type=cli_int(0), default=12345,
                   help="bootstrap seed, an integer >= 0 (default: 12345)")
    shape = s.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print JSON instead of a table")
    shape.add_argument("--markdown", action="store_true",
                       help="print a Markdown table (to paste into a paper or a README)")
    s.add_argument("--buckets", nargs="?", const=ALL_BUCKETS, metavar="ATTR,...",
                   help="add results by word attribute: length, oov, frequency, consistency, "
                        "sentence, difficulty (default: every one whose input is given; "
                        "docs/metrics.md)")
    s.add_argument("--gold-check", metavar="RUN_DIR",
                   help="also give f1 and fb with the run's most suspicious gold spans left "
                        "out (as many as check-gold.tsv expects errors; run `committee "
                        "check-gold RUN_DIR` first) and whether the ranking changes")
    s.add_argument("--irt", metavar="RUN_DIR",
                   help="add each output's IRT ability theta (EAP, items of RUN_DIR/items.tsv "
                        "fixed; run `committee irt RUN_DIR` first)")
    s.add_argument("--metrics", metavar="NAMES",
                   help=_metrics_help())
    s.add_argument("--task", default=DEFAULT_TASK, choices=TASKS,
                   help="ner: named entities of bio files, scored as seqeval does, pb/rb/fb "
                        "with a run's entity difficulties (docs/method.md §13); pos: words and "
                        "their part-of-speech tags (pku, underscore, conllu or conllu-xpos "
                        "files), tag accuracy on the gold segmentation, joint otherwise (§14)")
    s.add_argument("--mode", default="default", choices=MODES,
                   help="--task ner: entities by the conlleval rules (default) or, strict, "
                        "the well-formed ones of --scheme (seqeval's mode='strict')")
    s.add_argument("--scheme", choices=SCHEMES, help="--task ner --mode strict: the tag "
                                                     "scheme (default: detected from GOLD)")
    s.set_defaults(func=cmd_score, check=_check_score)


def _add_run(sub) -> None:
    r = sub.add_parser("run", help="train the committee of a YAML config and write difficulties",
                       description="Train the committee described by CONFIG, decode the test "
                                   "set with every member and write the difficulty dataset; "
                                   "then, when CONFIG switches on experiments, the report of "
                                   "those analyses (as `committee report`; announced before "
                                   "training). Rerunning resumes: finished members are not "
                                   "retrained.")
    r.add_argument("config", help="YAML experiment config (see configs/)")
    r.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a config key, e.g. --set committee.size=5 (repeatable)")
    r.add_argument("--restart", action="store_true",
                   help="discard a previous run in output.dir made with a different config")
    _with_option(r)
    _timeout_option(r)
    _scheduler_option(r)
    _analysis_options(r, "of CONFIG's experiments ")
    r.add_argument("--no-report", action="store_true", help="stop after the committee: no "
                   "analysis of CONFIG's experiments (`committee report` makes them later)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_run, check=_check_report)


def _analysis_options(parser, of: str = "") -> None:
    """``--skip``/``--only NAMES`` of ``committee report`` and ``committee run``."""
    parser.add_argument("--skip", metavar="NAMES", help=f"comma-separated analyses {of}to leave "
                        "out, e.g. --skip table2 (trains no model)")
    parser.add_argument("--only", metavar="NAMES", help="comma-separated analyses to run" +
                        (", switched on in CONFIG or not" if of else ""))


def _with_option(parser) -> None:
    """``--with NAME`` of ``committee run`` and ``committee report``: a
    segmenter (or a command: only ever named here, docs/security.md) whose
    output the report ranks."""
    option = parser.add_argument("--with", dest="segmenter", action="append", metavar="NAME")
    option.build_help = lambda: (
        f"segment the test set with NAME ({_segmenter_names(None)}, or 'cmd:COMMAND': a command "
        "that segments one sentence per line of stdin) and rank it in the report (repeatable); "
        "of an entity run, tag it (lac, cmd:); of a pos run, tag parts of speech (jieba, "
        "thulac, lac, cmd:)")


def _timeout_option(parser) -> None:
    """``--timeout SECONDS``: how long a ``cmd:COMMAND`` may run (docs/segmenters.md)."""
    parser.add_argument("--timeout", type=cli_real(0, above=True), metavar="SECONDS",
                        help="stop a cmd:COMMAND that runs longer than this, a number > 0 "
                             "(default: experiments.command_timeout, else no limit)")


def _scheduler_option(parser) -> None:
    """``--scheduler ADDRESS``: the Dask scheduler to send work to, named by
    the user (a config file may not name one, docs/security.md)."""
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="train on the Dask cluster of this scheduler (e.g. "
                             "tcp://127.0.0.1:8786); it receives the training data and "
                             "returns pickled results: name only one you trust")


def _add_report(sub) -> None:
    p = sub.add_parser("report", help="the paper's analyses (Table 2, Figs. 1-7) on a finished run",
                       description=_report_description)
    p.add_argument("run_dir", metavar="RUN_DIR", help="output.dir of a finished `committee run`")
    p.add_argument("--config", help="the run's config (default: the one in RUN_DIR/manifest.json)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a config key, e.g. --set experiments.table2_fractions=[0.5,1.0]")
    _analysis_options(p)
    p.add_argument("--system", action="append", metavar="OUTPUT",
                   help="another system's output to rank (repeatable; pku of a pos run)")
    _with_option(p)
    _timeout_option(p)
    _scheduler_option(p)
    p.add_argument("--human", metavar="FILE", help="human judgements, 'system score' per line")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_report, check=_check_report)


def _add_irt(sub) -> None:
    t = sub.add_parser("irt", help="item response theory (1PL/2PL) on a run's member marks",
                       description="Fit an IRT model to RUN_DIR/marks.npz (members x gold "
                                   "words) and write items.tsv, irt.json, irt-flags.tsv "
                                   "and py-irt/girth exports into RUN_DIR (docs/irt.md).")
    t.add_argument("run_dir", metavar="RUN_DIR", help="output.dir of a finished `committee run`")
    t.add_argument("--model", default="auto", choices=["auto", "2pl", "1pl"],
                   help="default: auto, the 2PL from 12 members on, else (or when the 2PL "
                        "does not converge) the 1PL")
    t.add_argument("--system", action="append", metavar="OUTPUT",
                   help="a system's output whose ability to estimate (repeatable; pku of a pos run)")
    t.add_argument("--min-a", type=cli_real(0), default=0.3, metavar="A",
                   help="discrimination below which a word is flagged flat, a number >= 0 "
                        "(default: 0.3)")
    t.add_argument("--max-iter", type=cli_int(1), default=500, metavar="N",
                   help="EM iterations at most, >= 1 (default: 500)")
    t.add_argument("--no-export", action="store_true",
                   help="skip irt-responses.jsonlines and irt-responses.npz")
    t.add_argument("--subset", type=cli_int(1), metavar="N",
                   help="choose the N most informative words (irt-subset.tsv) and measure "
                        "theta, r and fb estimated from them on the --system outputs and "
                        "perturbed gold")
    t.add_argument("--seed", type=cli_int(0), default=0,
                   help="seed of the perturbed outputs and the random words, an integer >= 0 "
                        "(default: 0)")
    t.set_defaults(func=cmd_irt)


def _add_check_gold(sub) -> None:
    t = sub.add_parser("check-gold", help="rank the gold words most likely to be annotation "
                                          "errors",
                       description="Rank spans of RUN_DIR's gold segmentation by the "
                                   "probability that they are annotation errors (the members' "
                                   "readings and variation n-grams, docs/method.md §15) and "
                                   "write check-gold.tsv and check-gold.json into RUN_DIR.")
    t.add_argument("run_dir", metavar="RUN_DIR", help="output.dir of a finished `committee run`")
    t.add_argument("--system", action="append", metavar="OUTPUT",
                   help="a segmenter's output (SIGHAN) whose readings the reasons name "
                        "(repeatable)")
    t.add_argument("--train", metavar="PATH", help="the training corpus the run used, where "
                   "it is now (it must have the checksum the run recorded)")
    t.set_defaults(func=cmd_check_gold)


def _add_segment(sub) -> None:
    g = sub.add_parser("segment", help="segment a test set with a real segmenter (SIGHAN output)",
                       description="Segment the characters of every sentence of TEST with "
                                   "a segmenter from PyPI and write SIGHAN output aligned "
                                   "line by line with TEST, ready for `committee score`; "
                                   "with --task, tag its entities (bio) or parts of speech "
                                   "(pku) instead.")
    g.add_argument("test", metavar="TEST", help="test file (its words are joined back into "
                                                "text); '-' reads standard input")
    option = g.add_argument("--with", dest="segmenter", required=True, metavar="NAME")
    option.build_help = lambda: (f"{_segmenter_names()} (each an optional extra: pip install "
                                 "'committee[jieba]'), or 'cmd:COMMAND': a command that reads "
                                 "one sentence per line on stdin and writes it segmented (words "
                                 "separated by spaces) on stdout")
    g.add_argument("-o", "--output", required=True,
                   help="output file (UTF-8; SIGHAN, bio with --task ner, pku with --task pos), "
                        "replaced atomically keeping its mode (a link's target for a "
                        "symbolic link; its directory must exist); a device or FIFO "
                        "(/dev/stdout) is written in place; '-' writes standard output")
    _file_options(g, "", "TEST")
    option = g.add_argument("--task", default=DEFAULT_TASK, choices=TASKS)
    option.build_help = lambda: (
        "ner: tag entities with an entity tagger ({}, cmd:), bio output; pos: tag words with "
        "their parts of speech ({}, cmd:), their tags mapped to People's Daily's, pku output "
        "(docs/segmenters.md)".format(*(", ".join(getattr(_segmenters_mod(), n))
                                        for n in ("TAGGERS", "POS_TAGGERS"))))
    g.add_argument("--timeout", type=cli_real(0, above=True), metavar="SECONDS",
                   help="stop a cmd:COMMAND that runs longer than this, a number > 0 "
                        "(default: no limit)")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.set_defaults(func=cmd_segment, check=_check_segment)


def _check_segment(args) -> None:
    """``--with`` names a segmenter (:func:`_check_segmenters`) and ``-o`` a
    file that can be written (:func:`~committee.system.files.output_problem`)."""
    from committee.system.files import output_problem

    _check_segmenters(args)
    problem = None if args.output == "-" else output_problem(args.output)
    if problem is not None:
        raise _UsageError(f"-o {args.output or repr('')}: {problem}")


def _file_options(parser, source: str, what: str, encoded: str | None = None,
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


class _UsageError(Exception):
    """Bad command-line usage (exit code 2), raised by :class:`_Parser`."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and do not exit the process."""

    def error(self, message):
        # "argument --seed: expected ..." -> "--seed: expected ...": the flag first, as in
        # the commands' own usage errors
        if message.startswith("argument ") and ": " in message:
            message = message[len("argument "):]
        raise _UsageError(f"{message} (see '{self.prog} --help')")

    def format_help(self):
        if callable(self.description):  # built only when shown (_report_description)
            self.description = self.description()
        for action in self._actions:  # a help text built when shown (_segmenter_names)
            build = getattr(action, "build_help", None)
            if build is not None:
                action.help = build()
        return super().format_help()


def _segmenters_mod():
    """:mod:`committee.segmenters`, imported when a help text needs it."""
    from committee import segmenters

    return segmenters


def _segmenter_names(conjunction: str | None = "or") -> str:
    """The names of :data:`committee.segmenters.SEGMENTERS` for a help text,
    the last one after ``conjunction`` (None: a comma), built when the help
    is shown so that the module is not imported at every start."""
    from committee.segmenters import SEGMENTERS

    if conjunction is None:
        return ", ".join(SEGMENTERS)
    *names, final = SEGMENTERS
    return f"{', '.join(names)} {conjunction} {final}"


def _warning_printer():
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


def _metrics_help() -> str:
    """``--metrics``' help, listing every metric of the registry."""
    from committee.metrics import records

    names = ", ".join(m.heading for m in records.registry() if m.shown)
    return (f"comma-separated columns of the table (keys or headings): {names} (default: "
            "all; theta needs --irt; docs/metrics.md)")


#: What the command line gives each input an attribute needs.
_BUCKET_FLAGS = {"difficulty": "--difficulty", "vocabulary": "--train or --train-words",
                 "training corpus": "--train CORPUS (a word list has no counts)"}


#: The value of ``--buckets`` given alone: every attribute (distinct from
#: ``--buckets=``, an empty list, which is refused).
ALL_BUCKETS = "<every attribute>"


def _buckets(value: str | None, args) -> object:
    """``--buckets``: None (not given), True (given alone: every attribute
    whose input is given) or the attributes named, each checked to exist and
    to have its input; a value that names none (``--buckets=``) is refused."""
    from committee.metrics.buckets import KEYS, attribute

    if value is None or value is ALL_BUCKETS:
        return None if value is None else True
    if not any(n.strip() for n in value.split(",")):
        raise _UsageError(f"--buckets: {value!r} names no attribute; give --buckets alone for "
                          "every attribute, or --buckets=ATTR,... (before the OUTPUTs)")
    if get_task(args.task).collector != tasks_mod.WORDS:  # entities' or tagged words' attributes
        return _unit_buckets(value, args.difficulty is not None, get_task(args.task))
    given = {"difficulty": args.difficulty is not None,
             "vocabulary": bool(args.train or args.train_words), "training corpus": bool(args.train)}
    names = list(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    for name in names:
        if name not in KEYS:
            raise _UsageError(f"--buckets: unknown attribute {name!r}; choose from "
                              f"{', '.join(KEYS)} (write --buckets=ATTR,... before the OUTPUTs)")
        needs = attribute(name).needs
        if needs is not None and not given[needs]:
            raise _UsageError(f"--buckets: {name} needs {_BUCKET_FLAGS[needs]}")
    return names or True


def _unit_buckets(value: str, difficulty: bool, task) -> list[str] | bool:
    """``--buckets`` of labelled units: ``type`` (``--task ner``) or ``tag``
    (``--task pos``), ``length``, ``difficulty``."""
    from committee.metrics.buckets import UNIT_ATTRIBUTES

    keys = tuple(a.key for a in UNIT_ATTRIBUTES[task.collector])
    names = list(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    for name in names:
        if name not in keys or (name == "difficulty" and not difficulty):
            raise _UsageError(f"--buckets: {name!r} is not an attribute of {task.units} here; "
                              f"choose from {', '.join(keys)} (difficulty needs "
                              "--difficulty)")
    return names or True


def _check_score(args) -> None:
    args.columns = _columns(args.metrics, irt=args.irt is not None)
    task = get_task(args.task)
    if not task.tagged and (args.mode != "default" or args.scheme is not None):
        raise _UsageError("--mode and --scheme are for --task ner (entity tags)")
    if not task.tiles and args.metrics is None:  # TNR and boundaries: of words only
        args.columns = tuple(m for m in args.columns
                             if not {"total_words", "boundary_gold"} & set(m.needs))
    args.buckets = _buckets(args.buckets, args)
    if args.outputs.count("-") > 1:
        raise _UsageError("standard input ('-') can be given as one OUTPUT only")


def _check_segmenters(args) -> None:
    """``--with`` names a segmenter of :data:`committee.segmenters.SEGMENTERS`
    or a ``cmd:COMMAND``."""
    from committee.segmenters import CMD_PREFIX, SEGMENTERS, name_problem

    given = args.segmenter if isinstance(args.segmenter, list) else [args.segmenter]
    for name in (n for n in given if n is not None):
        problem = name_problem(name)
        if problem is not None:
            raise _UsageError(f"--with {name}: {problem}; choose from {', '.join(SEGMENTERS)} "
                              f"or {CMD_PREFIX}COMMAND")


def _check_args(args) -> None:
    """Argument checks argparse cannot express; raise :class:`_UsageError`."""
    if getattr(args, "bootstrap", 0):
        from committee.metrics.significance import check_resamples

        try:
            check_resamples(args.bootstrap)
        except ValueError as exc:
            raise _UsageError(f"--bootstrap: {exc}") from None
    for flag in ("encoding", "gold_encoding", "train_encoding"):
        encoding = getattr(args, flag, None)
        if isinstance(encoding, str):
            from committee.corpus.encodings import text_encoding

            try:
                text_encoding(encoding)
            except (LookupError, ValueError) as exc:
                raise _UsageError(f"--{flag.replace('_', '-')}: {exc.args[0]}; use one of utf-8, "
                                  "utf-8-sig, gb18030, cp936, big5, cp950, big5hkscs, "
                                  "utf-16") from None
    if getattr(args, "gold_check", None) is not None and "-" in args.outputs:
        raise _UsageError("--gold-check scores each output twice: give files, not standard "
                          "input ('-')")
    if getattr(args, "check", None) is not None:
        args.check(args)


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
    """:func:`main` once its stop signals are handled."""
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        print(f"committee: error: {exc}", file=sys.stderr)
        return 2
    try:
        _check_args(args)
    except _UsageError as exc:
        print(f"committee: error: {exc} (see 'committee {args.command} --help')", file=sys.stderr)
        return 2
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        # a socket or file left to the garbage collector is a matter for developers
        warnings.simplefilter("ignore", ResourceWarning)
        warnings.showwarning = _warning_printer()
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
