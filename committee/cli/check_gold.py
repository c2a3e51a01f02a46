"""``committee check-gold``: the gold spans of a run most likely to be
annotation errors (:func:`committee.scoring.checkgold.run`)."""

from __future__ import annotations


def add(sub) -> None:
    """Declare ``committee check-gold`` and its options, in the order ``--help`` shows them."""
    t = sub.add_parser("check-gold", help="rank the gold words most likely to be annotation "
                                          "errors",
                       description="Rank spans of RUN_DIR's gold segmentation by the "
                                   "evidence that they are annotation errors (the members' "
                                   "readings, variation n-grams and the training data around "
                                   "them, docs/method.md §15) and write check-gold.tsv and "
                                   "check-gold.json into RUN_DIR.")
    t.add_argument("run_dir", metavar="RUN_DIR", help="output.dir of a finished `committee run`")
    t.add_argument("--system", action="append", metavar="OUTPUT",
                   help="a segmenter's output (SIGHAN) whose readings the reasons name "
                        "(repeatable)")
    t.add_argument("--train", metavar="PATH", help="the training corpus the run used, where "
                   "it is now (it must have the checksum the run recorded)")
    t.set_defaults(func=cmd_check_gold)


def cmd_check_gold(args) -> int:
    from committee.scoring import checkgold

    summary = checkgold.run(args.run_dir, systems=args.system or [], train=args.train)
    print(checkgold.summary_line(args.run_dir, summary))
    return 0
