"""``committee report``: the paper's analyses on a finished run
(:func:`committee.pipeline.workflow.report`)."""

from __future__ import annotations

from committee.cli.options import (
    analysis_options, check_analyses, quiet_option, scheduler_option, scheduler_overrides,
    set_option, timeout_option, with_option)


def add(sub) -> None:
    """Declare ``committee report`` and its options, in the order ``--help`` shows them."""
    p = sub.add_parser("report", help="the paper's analyses (Table 2, Figs. 1-7) on a finished run",
                       description=description)
    p.add_argument("run_dir", metavar="RUN_DIR", help="output.dir of a finished `committee run`")
    p.add_argument("--config", help="the run's config (default: the one in RUN_DIR/manifest.json)")
    set_option(p, "experiments.table2_fractions=[0.5,1.0]")
    analysis_options(p)
    p.add_argument("--system", action="append", metavar="OUTPUT",
                   help="another system's output to rank (repeatable; pku of a pos run)")
    with_option(p)
    timeout_option(p)
    scheduler_option(p)
    p.add_argument("--human", metavar="FILE", help="human judgements, 'system score' per line")
    quiet_option(p, "bars")
    p.set_defaults(func=cmd_report, check=check_analyses)


def description() -> str:
    """``committee report --help``'s description, built when shown: the names
    of the analyses come from :mod:`committee.config`, which is not imported
    just to build the parser (docs/benchmarks.md, start-up)."""
    from committee.config import ANALYSES

    return ("Score systems against a run's difficulties and write report.md, table2.csv and "
            "report/ (figures and their data) into RUN_DIR. Runs every analysis unless told "
            f"otherwise: {', '.join(ANALYSES)}. Table 2 models are trained once and reused; "
            "nothing of the committee is retrained.")


def cmd_report(args) -> int:
    import time

    from committee.pipeline import workflow

    started = time.time_ns()
    workflow.report(args.run_dir, args.config, (args.set or []) + scheduler_overrides(args),
                    analyses=args.analyses,
                    systems=args.system or [], segmenters=args.segmenter or [],
                    human=args.human, progress=not args.quiet, timeout=args.timeout,
                    timeout_name="--timeout")
    print(workflow.describe_written(args.run_dir, workflow.written_since(args.run_dir, started)))
    return 0
