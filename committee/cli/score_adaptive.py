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
                 "resume": ("--continue", None), "timeout": ("--timeout", None)}
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
                        "sentences of an OUTPUT are read, of a --with segmenter or tagger "
                        "segmented or tagged; with --task ner or pos, entities or tagged "
                        "words")
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
    option.build_help = lambda: (f"a segmenter (with --task ner or pos, a tagger) to test "
                                 f"instead of an OUTPUT (repeatable): {segmenter_names()} or "
                                 "'cmd:COMMAND'; only the drawn sentences are sent to it")
    timeout_option(g, "no limit")
    g.add_argument("-o", dest="draws", metavar="FILE",
                   help="write every draw (system, batch, sentence, gold line, probability, "
                        "inclusion probability, counts, the system's output of the "
                        "sentence) as TSV, again after every batch")
    g.add_argument("--continue", dest="resume", metavar="FILE",
                   help="continue the test whose draws -o wrote to FILE: the output it "
                        "records of a sentence is used instead of asking the system again "
                        "(the same --seed and settings make the same draws again)")


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
    from committee.corpus.formats import BY_NAME
    from committee.segmenters import registry
    from committee.tasks import get as get_task

    task = get_task(args.task)
    fmt = args.format or task.format
    if BY_NAME[fmt].parse is None:
        raise UsageError(f"--adaptive reads the drawn sentences of a file of text: --format "
                         f"{fmt} is a table, read whole")
    if "-" in args.outputs:
        raise UsageError("--adaptive reads the drawn sentences of a file: give a file, not "
                         "standard input ('-')")
    check_segmenters(args)
    for name in args.segmenter or ():
        problem = registry.tool_problem(task, name)
        if problem is not None:
            raise UsageError(f"--with {name}: {problem}")
    from committee.system.files import output_problem

    problem = None if args.draws is None else output_problem(args.draws)
    if problem is not None:  # before any system is asked
        raise UsageError(f"-o {args.draws or repr('')}: {problem}")


def cmd_adaptive(args, options) -> int:
    """Administer every OUTPUT and ``--with`` segmenter, serving what
    ``--continue`` recorded; print the table or JSON, and write the draws
    with ``-o`` after every batch (so an interrupted test keeps the
    answers it paid for)."""
    from committee import scoring, segmenters
    from committee.scoring import adaptive, adaptive_run
    from committee.system.files import refuse_overwrite

    for other, what in ([(args.gold, "the gold (--gold)")]
                        + [(o, f"the OUTPUT {o}") for o in args.outputs]):
        if args.draws is not None:
            refuse_overwrite(args.draws, "the TSV of draws (-o)", other, what,
                             "committee score --adaptive", "choose another file for -o")
    settings = adaptive.Settings(batch=args.batch, target=args.target, metric=args.metric,
                                 max_sentences=args.max_sentences, seed=args.seed)
    run = args.irt if args.irt is not None else args.difficulty
    bank = adaptive_run.load_bank(args.gold, run, args.difficulty, options)
    named, taken = [], set()
    for path in args.outputs:
        name = scoring.system_name(path, taken)
        taken.add(name)
        named.append((path, name))
    named += [(None, name) for name in args.segmenter or ()]
    recorded = {} if args.resume is None else adaptive_run.read_draws(
        args.resume, bank, [name for _, name in named])
    systems: list[dict] = []
    save = _saver(args.draws, bank, systems)
    load = segmenters.tool_loader(bank.task)
    for path, name in named:
        system = path if path is not None else load(
            name, timeout=args.timeout, timeout_name="--timeout")
        systems.append(adaptive_run.administer_one(
            bank, system, name, settings, options=options, recorded=recorded.get(name),
            after_batch=save))
    save(None)
    print(adaptive_run.result_json(settings, systems) if args.json
          else adaptive_run.result_text(systems, args.resume))
    return 0


def _saver(path, bank, systems: list[dict]):
    """``save(current)``: the TSV of draws of ``systems`` and of the one
    being administered (``current``, its result so far; None at the end)
    written to ``path`` (``-o``; nothing without it).  A regular file is
    replaced atomically after every batch; a device or FIFO is written once,
    at the end."""
    import os

    from committee.scoring import adaptive_run
    from committee.system.files import open_output, through_descriptor

    def save(current) -> None:
        if path is None:
            return
        if current is not None and (through_descriptor(path) or (
                os.path.exists(path) and not os.path.isfile(path))):
            return
        with open_output(path) as f:
            f.write(adaptive_run.draws_tsv(bank, systems + ([current] if current else [])))
    return save
