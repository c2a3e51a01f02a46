"""``committee segment``: a real segmenter's output for a test set
(:mod:`committee.segmenters`), or an entity or part-of-speech tagger's with
``--task``."""

from __future__ import annotations

import sys

from committee.cli.options import (
    UsageError, check_encodings, check_segmenters, file_options, quiet_option, segmenter_names,
    segmenters_module, task_option, timeout_option)
from committee.tasks import get as get_task


def add(sub) -> None:
    """Declare ``committee segment`` and its options, in the order ``--help`` shows them."""
    g = sub.add_parser("segment", help="segment a test set with a real segmenter (SIGHAN output)",
                       description="Segment the characters of every sentence of TEST with "
                                   "a segmenter from PyPI and write SIGHAN output aligned "
                                   "line by line with TEST, ready for `committee score`; "
                                   "with --task, tag its entities (bio) or parts of speech "
                                   "(pku) instead.")
    g.add_argument("test", metavar="TEST", help="test file (its words are joined back into "
                                                "text); '-' reads standard input")
    option = g.add_argument("--with", dest="segmenter", required=True, metavar="NAME")
    option.build_help = lambda: (f"{segmenter_names()} (each an optional extra: pip install "
                                 "'committee[jieba]'), or 'cmd:COMMAND': a command that reads "
                                 "one sentence per line on stdin and writes it segmented (words "
                                 "separated by spaces) on stdout")
    g.add_argument("-o", "--output", required=True,
                   help="output file (UTF-8; SIGHAN, bio with --task ner, pku with --task pos), "
                        "replaced atomically keeping its mode (a link's target for a "
                        "symbolic link; its directory must exist); a device or FIFO "
                        "(/dev/stdout) is written in place; '-' writes standard output")
    file_options(g, "", "TEST")
    task_option(g, lambda: (
        "ner: tag entities with an entity tagger ({}, cmd:), bio output; pos: tag words with "
        "their parts of speech ({}, cmd:), their tags mapped to People's Daily's, pku output "
        "(docs/segmenters.md)".format(*(", ".join(getattr(segmenters_module(), n))
                                        for n in ("TAGGERS", "POS_TAGGERS")))))
    timeout_option(g, "no limit")
    quiet_option(g)
    g.set_defaults(func=cmd_segment, check=check)


def check(args) -> None:
    """The encoding can decode text (:func:`~committee.cli.options.check_encodings`),
    ``--with`` names a segmenter (:func:`~committee.cli.options.check_segmenters`)
    and ``-o`` a file that can be written
    (:func:`~committee.system.files.output_problem`)."""
    from committee.system.files import output_problem

    check_encodings(args)
    check_segmenters(args)
    problem = None if args.output == "-" else output_problem(args.output)
    if problem is not None:
        raise UsageError(f"-o {args.output or repr('')}: {problem}")


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
    test = task.tool_input(test, lambda key, value: f"--{key} {value}")
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
