"""``committee run``: a config's committee trained, its difficulty dataset
written, then the report of the analyses it switches on
(:func:`committee.pipeline.workflow.run`)."""

from __future__ import annotations

from committee.cli.options import (
    analysis_options, check_analyses, quiet_option, scheduler_option, scheduler_overrides,
    set_option, timeout_option, with_option)


def add(sub) -> None:
    """Declare ``committee run`` and its options, in the order ``--help`` shows them."""
    r = sub.add_parser("run", help="train the committee of a YAML config and write difficulties",
                       description="Train the committee described by CONFIG, decode the test "
                                   "set with every member and write the difficulty dataset; "
                                   "then, when CONFIG switches on experiments, the report of "
                                   "those analyses (as `committee report`; announced before "
                                   "training). Rerunning resumes: finished members are not "
                                   "retrained.")
    r.add_argument("config", help="YAML experiment config (see configs/)")
    set_option(r, "committee.size=5 (repeatable)")
    r.add_argument("--restart", action="store_true",
                   help="discard a previous run in output.dir made with a different config")
    with_option(r)
    timeout_option(r)
    scheduler_option(r)
    analysis_options(r, "of CONFIG's experiments ")
    r.add_argument("--no-report", action="store_true", help="stop after the committee: no "
                   "analysis of CONFIG's experiments (`committee report` makes them later)")
    quiet_option(r)
    r.set_defaults(func=cmd_run, check=check_analyses)


def cmd_run(args) -> int:
    from committee import config as config_mod
    from committee.pipeline import workflow

    cfg = config_mod.load_config(args.config,
                                 overrides=(args.set or []) + scheduler_overrides(args))
    # --only picks any analysis; otherwise those of the config, less --skip
    analyses = [a for a in args.analyses if args.only or a in cfg.experiments.enabled()]
    out = workflow.run(cfg, restart=args.restart, progress=not args.quiet, where=args.config,
                       segmenters=args.segmenter or [], timeout=args.timeout,
                       timeout_name="--timeout", analyses=analyses)
    print(workflow.describe_run(out, cfg, analyses))
    return 0
