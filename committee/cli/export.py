"""``committee export``: a finished run as a dataset that ``datasets``
loads (:func:`committee.pipeline.export.export`)."""

from __future__ import annotations


def add(sub) -> None:
    """Declare ``committee export`` and its options, in the order ``--help`` shows them."""
    t = sub.add_parser("export", help="a run's difficulties as a parquet dataset with its card",
                       description="Write RUN_DIR's difficulty dataset into DIR: "
                                   "data/test-00000-of-00001.parquet (one row per gold unit: "
                                   "sentence, unit, start, end, text, label, difficulty, "
                                   "n_correct, oov, irt_b and irt_a when `committee irt` has "
                                   "run) and README.md, a dataset card whose YAML front matter "
                                   "declares the features, so that "
                                   "datasets.load_dataset(DIR) reads it back.")
    t.add_argument("run_dir", metavar="RUN_DIR", help="output.dir of a finished `committee run`")
    t.add_argument("out_dir", metavar="DIR",
                   help="where the dataset goes: a new or empty directory, or an earlier export "
                        "(its files replaced)")
    t.add_argument("--members", action="store_true",
                   help="add each member's outcome (a list of K booleans, true: right)")
    t.add_argument("--license", metavar="ID",
                   help="the card's licence (default: the corpus's when known, else other)")
    t.add_argument("--force", action="store_true",
                   help="write into a DIR that holds other files too (they are left as they are)")
    t.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    from committee.pipeline import export as export_mod

    done = export_mod.export(args.run_dir, args.out_dir, members=args.members,
                             force=args.force, license=args.license)
    print(f"wrote {done.dir}/{export_mod.DATA_FILE} and {export_mod.CARD_FILE}: "
          f"{done.rows:,} rows, columns {', '.join(done.columns)}; license {done.license}")
    return 0
