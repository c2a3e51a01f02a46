"""``committee irt``: item response theory on a run's member marks
(:func:`committee.scoring.irt.run`)."""

from __future__ import annotations

from committee.system.arguments import cli_int, cli_real


def add(sub) -> None:
    """Declare ``committee irt`` and its options, in the order ``--help`` shows them."""
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


def cmd_irt(args) -> int:
    from committee.scoring import irt as irt_mod

    summary = irt_mod.run(args.run_dir, model=args.model, systems=args.system or [],
                         min_a=args.min_a, max_iter=args.max_iter, export=not args.no_export,
                         subset=args.subset, seed=args.seed)
    flags = ", ".join(f"{k} {v:,}" for k, v in summary["flags"].items()) or "none"
    print(f"wrote {args.run_dir}/items.tsv, irt.json, irt-flags.tsv: {summary['model']} on "
          f"K={summary['n_members']} × {summary['n_words']:,} {summary['units']}, "
          f"{summary['n_iter']} EM "
          f"iterations, log-likelihood {summary['log_likelihood']:.1f}; flags: {flags}")
    for s in summary["systems"]:
        print(f"{s['output']}: theta {s['theta']:.3f} ± {s['theta_se']:.3f}")
    if "subset" in summary:
        print(irt_mod.format_subset(summary["subset"]))
    return 0
