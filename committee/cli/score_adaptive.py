"""``committee score --adaptive``: the options of adaptive testing, their
checks and the command (:mod:`committee.scoring.adaptive_run`;
docs/method.md §16).  :mod:`committee.cli.score` declares them with its
own and hands a command line with ``--adaptive`` to :func:`cmd_adaptive`."""

from __future__ import annotations

from committee.cli.options import UsageError, check_segmenters, segmenter_names, timeout_option
from committee.system.arguments import cli_int, cli_real

#: The options only ``--adaptive`` takes (dest → flag), with their defaults.
ONLY_ADAPTIVE = {"batch": ("--batch", 10), "target": ("--target", 1.0),
                 "metric": ("--metric", "fb"), "max_sentences": ("--max-sentences", None),
                 "segmenter": ("--with", None), "draws": ("-o", None),
                 "timeout": ("--timeout", None)}
#: Options of ``committee score`` that ``--adaptive`` does not take (dest → flag).
NOT_ADAPTIVE = {"bootstrap": "--bootstrap", "buckets": "--buckets", "check_gold": "--check-gold",
                "markdown": "--markdown", "metrics": "--metrics"}


def add(s) -> None:
    """Declare ``--adaptive`` and the options that go with it."""
    from committee.metrics.estimators import METRICS

    g = s.add_argument_group("adaptive testing (docs/method.md §16)")
    g.add_argument("--adaptive", action="store_true",
                   help="estimate every metric with its 95%% interval from a few sentences "
                        "drawn in batches, favouring those whose share of the --metric "
                        "can vary most, until the --metric's interval is narrower than "
                        "--target; "
                        "needs the run directory (--irt RUN_DIR or --difficulty RUN_DIR; its "
                        "IRT items are fitted first when it has none); only the drawn "
                        "sentences of an OUTPUT are read, of a --with segmenter segmented")
    g.add_argument("--batch", type=cli_int(2), default=10, metavar="N",
                   help="sentences drawn per batch (default: 10)")
    g.add_argument("--target", type=cli_real(0), default=1.0, metavar="POINTS",
                   help="stop when the 95%% interval of --metric is narrower than this many "
                        "points (default: 1.0)")
    g.add_argument("--metric", choices=METRICS, default="fb",
                   help="the metric whose interval stops the test (default: fb)")
    g.add_argument("--max-sentences", type=cli_int(1), metavar="N",
                   help="stop after this many sentences (default: every sentence)")
    option = g.add_argument("--with", dest="segmenter", action="append", metavar="NAME")
    option.build_help = lambda: (f"a segmenter to test instead of an OUTPUT (repeatable): "
                                 f"{segmenter_names()} or 'cmd:COMMAND'; only the drawn "
                                 "sentences are sent to it")
    timeout_option(g, "no limit")
    g.add_argument("-o", dest="draws", metavar="FILE",
                   help="write every draw (system, batch, sentence, gold line, probability, "
                        "inclusion probability, counts) as TSV")


def check(args) -> None:
    """The adaptive options only with ``--adaptive``; with it, none of
    :data:`NOT_ADAPTIVE`, a ``--target`` above 0, SIGHAN outputs, and an
    OUTPUT or a ``--with``."""
    if not args.adaptive:
        for dest, (flag, default) in ONLY_ADAPTIVE.items():
            if getattr(args, dest) != default:
                raise UsageError(f"{flag} is an option of --adaptive")
        return
    for dest, flag in NOT_ADAPTIVE.items():
        if getattr(args, dest) not in (None, False, 0):
            raise UsageError(f"--adaptive estimates p, r, f1, pb, rb, fb and theta with their "
                             f"intervals: it takes no {flag}")
    if not args.target > 0:
        raise UsageError(f"--target: {args.target:g} points: the width of the interval that "
                         "stops the test must be above 0")
    from committee.tasks import get as get_task

    if get_task(args.task).unit_kind.labelled or (args.format or "sighan") != "sighan":
        raise UsageError("--adaptive reads segmentations of one sentence a line: --task "
                         "segmentation and --format sighan")
    if "-" in args.outputs:
        raise UsageError("--adaptive reads the drawn lines of a file: give a file, not "
                         "standard input ('-')")
    check_segmenters(args)


def cmd_adaptive(args, options) -> int:
    """Administer every OUTPUT and ``--with`` segmenter; print the table or
    JSON, and write the draws with ``-o``."""
    from committee import scoring, segmenters
    from committee.scoring import adaptive, adaptive_run
    from committee.system.files import open_output

    settings = adaptive.Settings(batch=args.batch, target=args.target, metric=args.metric,
                                 max_sentences=args.max_sentences, seed=args.seed)
    run = args.irt if args.irt is not None else args.difficulty
    bank = adaptive_run.load_bank(args.gold, run, args.difficulty, options)
    systems, taken = [], set()
    for path in args.outputs:
        name = scoring.system_name(path, taken)
        taken.add(name)
        systems.append(adaptive_run.administer_one(
            bank, path, name, settings, encoding=args.encoding,
            normalization=options.normalization))
    for name in args.segmenter or ():
        seg = segmenters.load(name, timeout=args.timeout, timeout_name="--timeout")
        systems.append(adaptive_run.administer_one(bank, seg, name, settings))
    if args.draws is not None:
        with open_output(args.draws) as f:
            f.write(adaptive_run.draws_tsv(bank, systems))
    print(adaptive_run.result_json(settings, systems) if args.json
          else adaptive_run.result_text(systems))
    return 0
