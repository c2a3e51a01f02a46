"""``committee score``: standard and balanced metrics of any segmenter's
outputs against a gold (:mod:`committee.scoring`), as a table, JSON or
Markdown."""

from __future__ import annotations

import argparse
import os

from committee.cli import score_adaptive
from committee.cli.options import (UsageError, check_encodings, file_options, renamed_option,
                                   task_option)
from committee.corpus import NORMALIZATIONS
from committee.corpus.entities import MODES, SCHEMES
from committee.system.arguments import cli_int, parse_decimal
from committee.tasks import get as get_task

#: What the command line gives each input an attribute needs.
_BUCKET_FLAGS = {"difficulty": "--difficulty", "vocabulary": "--train or --train-words",
                 "word counts": "--train CORPUS, or --difficulty RUN of a run that keeps its "
                                "training words' counts (train-words.tsv; a word list has none, "
                                "and a run made before runs kept them gets them when "
                                "committee run is run on it again)",
                 "training corpus": "--train CORPUS, or --difficulty RUN of a run that "
                                    "keeps its training text (train-text.txt; a word list "
                                    "has none, and a run made before runs kept it gets it "
                                    "when committee run is run on it again)"}

#: The heading of each output's table of ``--schemes`` and ``--confusion``.
_TITLES = {"schemes": "matching schemes", "confusion": "confusion matrix"}

#: The value of ``--buckets`` given alone: every attribute (distinct from
#: ``--buckets=``, an empty list, which is refused).
ALL_BUCKETS = "<every attribute>"


class _BucketsAction(argparse.Action):
    """``--buckets [ATTR,...]``: a value that is an existing file is an
    OUTPUT the option took as its attributes, refused with the way on."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values is not ALL_BUCKETS and os.path.exists(values):
            parser.error(f"--buckets took the file {values!r} as its attributes: put --buckets "
                         "after the OUTPUTs, or write --buckets=ATTR,...")
        setattr(namespace, self.dest, values)


def add(sub) -> None:
    """Declare ``committee score`` and its options, in the order ``--help``
    shows them."""
    s = sub.add_parser("score", help="score segmenters' outputs with standard and balanced metrics",
                       description="Score each OUTPUT against GOLD: p/r/f1, the balanced "
                                   "pb/rb/fb (with --difficulty), OOV/IV recall, ER, TNR, "
                                   "boundary P/R/F, and ranks by f1 and by fb.")
    _input_options(s)
    _output_options(s)
    _task_options(s)
    _label_options(s)
    score_adaptive.add(s)
    s.set_defaults(func=cmd_score, check=check)


def _input_options(s) -> None:
    """The files ``committee score`` reads, and how."""
    # OUTPUT and --gold are checked by check(): --adaptive --with NAME takes no OUTPUT
    s.add_argument("outputs", nargs="*", metavar="OUTPUT",
                   help="segmented output file(s); '-' reads standard input")
    s.add_argument("--gold", help="gold segmentation of the same text (required)")
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
    file_options(s, "gold", "GOLD", default="that of --format")
    file_options(s, "train", "the --train CORPUS", "the --train CORPUS or --train-words file",
                 default="that of --format")
    file_options(s, "", "the OUTPUTs")
    s.add_argument("--normalize", default="none",
                   choices=["none", *(n for n in NORMALIZATIONS if n is not None)],
                   help="normalise characters of every file identically (default: none)")


def _output_options(s) -> None:
    """What ``committee score`` computes and prints."""
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
                   action=_BucketsAction,
                   help="add results by word attribute: length, oov, frequency, consistency, "
                        "sentence, difficulty (default: every one whose input is given; "
                        "docs/metrics.md)")
    s.add_argument("--check-gold", metavar="RUN_DIR",
                   help="also give f1 and fb with the run's most suspicious gold spans left "
                        "out (as many as check-gold.tsv expects errors; run `committee "
                        "check-gold RUN_DIR` first) and whether the ranking changes")
    renamed_option(s, "--gold-check", "--check-gold", "check_gold")
    s.add_argument("--irt", metavar="RUN_DIR",
                   help="add each output's IRT ability theta (EAP, items of RUN_DIR/items.tsv "
                        "fixed; run `committee irt RUN_DIR` first)")
    s.add_argument("--metrics", metavar="NAMES",
                   help=metrics_help())


def _task_options(s) -> None:
    """``--task`` and the entity task's ``--mode`` and ``--scheme``."""
    task_option(s, "ner: named entities of bio files, scored as seqeval does, pb/rb/fb "
                   "with a run's entity difficulties (docs/method.md §13); pos: words and "
                   "their part-of-speech tags (pku, underscore, conllu or conllu-xpos "
                   "files), tag accuracy on the gold segmentation, joint otherwise (§14)")
    s.add_argument("--mode", default="default", choices=MODES,
                   help="--task ner: entities by the conlleval rules (default) or, strict, "
                        "the well-formed ones of --scheme (seqeval's mode='strict')")
    s.add_argument("--scheme", choices=SCHEMES, help="--task ner --mode strict: the tag "
                                                     "scheme (default: detected from GOLD)")


def _label_options(s) -> None:
    """The matching schemes of entities and the confusion matrices of labels."""
    s.add_argument("--schemes", action="store_true",
                   help="--task ner: add the four SemEval-2013 matching schemes (strict, "
                        "exact, partial, type; their correct, incorrect, partial, missed and "
                        "spurious counts, P/R/F1 and, with --difficulty, pb/rb/fb), overall "
                        "and per type (docs/metrics.md)")
    s.add_argument("--confusion", action="store_true",
                   help="--task ner or pos: add each output's confusion matrix, gold type x "
                        "predicted type of entities paired by overlap (with spurious and "
                        "missed) or gold tag x output tag of the words segmented alike")
    s.add_argument("--min-overlap", type=_percent, metavar="PCT",
                   help="with --schemes or --confusion: the share of a gold entity's "
                        "characters, in percent from 1 to 100, an overlap must cover to pair "
                        "(nervaluate's min_overlap_percentage; default: 1, any overlap)")


def _percent(text: str) -> float:
    """``--min-overlap``: a number from 1 to 100."""
    import argparse

    value = parse_decimal(text)
    if value is None or not 1 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a number from 1 to 100, got {text!r}")
    return value


_percent.__name__ = "percentage"


def _check_labels(args, task) -> None:
    """``--schemes``, ``--confusion`` and ``--min-overlap`` against the task."""
    if args.schemes and not task.tagged:
        raise UsageError("--schemes is for --task ner (entity spans)")
    if args.confusion and task.labels_field is None:
        raise UsageError("--confusion is for --task ner or --task pos (labelled units)")
    if args.min_overlap is not None and not (args.schemes or args.confusion):
        raise UsageError("--min-overlap is for --schemes or --confusion")
    if (args.schemes or args.confusion) and "-" in args.outputs:
        raise UsageError("--schemes and --confusion read each output twice: give files, not "
                         "standard input ('-')")


def _label_results(args, scorer) -> list[dict]:
    """Each output's ``schemes`` and ``confusion`` (those asked for)."""
    import warnings

    from committee.metrics import confusion, schemes

    overlap = 1.0 if args.min_overlap is None else args.min_overlap
    with warnings.catch_warnings():  # the outputs' warnings were given once already
        warnings.simplefilter("ignore")
        return [({"schemes": schemes.score_output(scorer, o, min_overlap=overlap)}
                 if args.schemes else {})
                | ({"confusion": confusion.of_output(scorer, o, min_overlap=overlap)}
                   if args.confusion else {}) for o in args.outputs]


def _with_labels(text: str, args, extra: list[dict], names: list[str]) -> str:
    """The text with each output's schemes and confusion tables (``--markdown``:
    as Markdown)."""
    parts = [text]
    for name, more in zip(names, extra):
        for key, value in more.items():
            parts += ["", f"{name}: {_TITLES[key]}", value.text(markdown=args.markdown)]
    return "\n".join(parts)


def cli_spelling(source: str):
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

    _check_inputs(args)
    if args.adaptive:
        return score_adaptive.cmd_adaptive(args, _scorer_options(args))
    check = None
    if args.check_gold is not None:
        from committee.scoring import checkgold

        check = checkgold.read(args.check_gold)  # refused before any scoring
    scorer = scoring.Scorer(args.gold, args.difficulty, args.train_words or args.train,
                            _scorer_options(args))
    if check is not None:  # a list of this gold, before any output is scored
        checkgold.check_scored_gold(check[1], scorer, args.check_gold)
    result = scorer.score_all(args.outputs, bootstrap=args.bootstrap, seed=args.seed,
                              progress=True)
    sens = None
    if args.check_gold is not None:
        from committee.scoring import checkgold

        sens = checkgold.sensitivity(scorer, args.outputs, args.check_gold,
                                     full=result.systems, check=check)
    extra = _label_results(args, scorer) if args.schemes or args.confusion else None
    if args.json:
        text = result.json(args.columns if args.metrics is not None else None,
                           check_gold=sens, per_system=extra)
    elif args.markdown:
        text = result.markdown(args.columns)
    else:
        text = result.text(args.columns)
    if extra is not None and not args.json:
        text = _with_labels(text, args, extra, [s["name"] for s in result.systems])
    print(text)
    if sens is not None and not args.json:
        print()
        print(checkgold.format_sensitivity(sens))
    return 0


def _check_inputs(args) -> None:
    """The files exist, a run's files are as the run wrote them, and every
    one is of ``--task``'s kind."""
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
                       *args.outputs], args.task, cli_spelling("output"))


def _scorer_options(args):
    """The :class:`committee.scoring.ScorerOptions` of the arguments."""
    from committee import scoring

    fmt = args.format or get_task(args.task).format
    return scoring.ScorerOptions(
        format=fmt, encoding=args.encoding,
        gold_format=args.gold_format or fmt, gold_encoding=args.gold_encoding,
        train_encoding=args.train_encoding, allow_overlap=args.allow_overlap,
        normalization=None if args.normalize == "none" else args.normalize,
        train_format=(args.train_format or fmt) if args.train else None,
        spelling=cli_spelling, irt=args.irt, buckets=args.buckets, task=args.task,
        mode=args.mode, scheme=args.scheme)


def columns(names: str | None, irt: bool = False) -> tuple:
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
        raise UsageError(f"--metrics: unknown metric {', '.join(unknown) or repr(names)}; "
                         f"choose from {', '.join(m.heading for m in shown)}")
    chosen = tuple(dict.fromkeys(by_name[n] for n in wanted))
    needs_irt = [m.key for m in chosen if m.source == "irt"]
    if needs_irt and not irt:
        raise UsageError(f"--metrics: {', '.join(needs_irt)} needs --irt RUN_DIR (the items "
                         "of `committee irt RUN_DIR`)")
    return chosen


def metrics_help() -> str:
    """``--metrics``' help, listing every metric of the registry."""
    from committee.metrics import records

    names = ", ".join(m.heading for m in records.registry() if m.shown)
    return (f"comma-separated columns of the table (keys or headings): {names} (default: "
            "all; theta needs --irt; docs/metrics.md)")


def _buckets(value: str | None, args) -> object:
    """``--buckets``: None (not given), True (given alone: every attribute
    whose input is given) or the attributes named, each checked to exist and
    to have its input; a value that names none (``--buckets=``) is refused."""
    from committee.metrics.buckets import KEYS, attribute

    if value is None or value is ALL_BUCKETS:
        return None if value is None else True
    if not any(n.strip() for n in value.split(",")):
        raise UsageError(f"--buckets: {value!r} names no attribute; give --buckets alone for "
                         "every attribute, or --buckets=ATTR,... (before the OUTPUTs)")
    if get_task(args.task).unit_kind.labelled:  # entities' or tagged words' attributes
        return _unit_buckets(value, args.difficulty is not None, get_task(args.task))
    given = {"difficulty": args.difficulty is not None,
             "vocabulary": bool(args.train or args.train_words),
             "word counts": bool(args.train) or _run_keeps(args.difficulty, "train_counts"),
             "training corpus": bool(args.train) or (
                 _run_keeps(args.difficulty, "train_counts")
                 and _run_keeps(args.difficulty, "train_text"))}
    names = list(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    for name in names:
        if name not in KEYS:
            raise UsageError(f"--buckets: unknown attribute {name!r}; choose from "
                             f"{', '.join(KEYS)} (write --buckets=ATTR,... before the OUTPUTs)")
        needs = attribute(name).needs
        if needs is not None and not given[needs]:
            raise UsageError(f"--buckets: {name} needs {_BUCKET_FLAGS[needs]}")
    return names or True


def _run_keeps(difficulty, which: str) -> bool:
    """Whether ``--difficulty`` names a run (or a file of one) that keeps
    ``which`` of its training corpus: ``train_counts``, its words with their
    counts (``--buckets=frequency``), or ``train_text``, its text (with the
    counts, ``--buckets=consistency``)."""
    if difficulty is None:
        return False
    from committee.pipeline import difficulty as difficulty_mod
    from committee.pipeline import layout

    path = difficulty_mod.difficulty_file(difficulty)
    return path is not None and getattr(layout.paths(path.parent), which).is_file()


def _unit_buckets(value: str, difficulty: bool, task) -> list[str] | bool:
    """``--buckets`` of labelled units: ``type`` (``--task ner``) or ``tag``
    (``--task pos``), ``length``, ``difficulty``."""
    keys = tuple(a.key for a in task.unit_kind.attributes())
    names = list(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    for name in names:
        if name not in keys or (name == "difficulty" and not difficulty):
            raise UsageError(f"--buckets: {name!r} is not an attribute of {task.units} here; "
                             f"choose from {', '.join(keys)} (difficulty needs "
                             "--difficulty)")
    return names or True


def check(args) -> None:
    """Argument checks argparse cannot express, in order: ``--bootstrap``,
    the encodings, ``--check-gold`` with standard input, ``--metrics``,
    ``--mode``/``--scheme``, ``--buckets``, ``--schemes``/``--confusion``/
    ``--min-overlap``, standard input given twice; OUTPUT (or ``--adaptive
    --with``) and ``--gold`` given, and the options
    of ``--adaptive`` (:func:`committee.cli.score_adaptive.check`)."""
    missing = [flag for flag, given in (("OUTPUT", args.outputs or args.segmenter),
                                        ("--gold", args.gold)) if not given]
    if missing:
        raise UsageError(f"the following arguments are required: {', '.join(missing)}")
    score_adaptive.check(args)
    if args.bootstrap:
        from committee.metrics.significance import check_resamples

        try:
            check_resamples(args.bootstrap)
        except ValueError as exc:
            raise UsageError(f"--bootstrap: {exc}") from None
    check_encodings(args)
    if args.check_gold is not None and "-" in args.outputs:
        raise UsageError("--check-gold scores each output twice: give files, not standard "
                         "input ('-')")
    args.columns = columns(args.metrics, irt=args.irt is not None)
    task = get_task(args.task)
    if not task.tagged and (args.mode != "default" or args.scheme is not None):
        raise UsageError("--mode and --scheme are for --task ner (entity tags)")
    if not task.tiles and args.metrics is None:  # TNR and boundaries: of words only
        args.columns = tuple(m for m in args.columns
                             if not {"total_words", "boundary_gold"} & set(m.needs))
    args.buckets = _buckets(args.buckets, args)
    _check_labels(args, task)
    if args.outputs.count("-") > 1:
        raise UsageError("standard input ('-') can be given as one OUTPUT only")
