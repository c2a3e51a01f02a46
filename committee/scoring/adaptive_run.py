"""Adaptive testing on a run's test set: the test bank read from the gold,
the difficulties and the run's IRT items (fitted on demand, as ``committee
irt`` does), systems administered one by one, and their results as a
table, JSON and the TSV of every draw (``committee score --adaptive``,
:func:`adaptive_score`; docs/method.md §16)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace

from committee import tasks as tasks_mod
from committee.errors import InputError
from committee.metrics import estimators
from committee.scoring import adaptive
from committee.scoring.adaptive_draws import draws_tsv, read_draws
from committee.scoring.adaptive_sources import (MemorySource, OutputSentences, Recorded,
                                                ToolSource)

__all__ = ["adaptive_score", "administer_one", "draws_tsv", "load_bank", "read_draws",
           "result_json", "result_text", "source_for"]


def load_bank(gold, run, difficulty=None, options=None, *, quiet: bool = False):
    """The :class:`committee.scoring.adaptive.Bank` of ``gold`` against run
    directory ``run``: the difficulties of ``difficulty`` (default: the
    run's), the items of its ``items.tsv``; a run without one gets it
    first, fitted and written as ``committee irt RUN_DIR --no-export`` would
    (a line on standard error says so unless ``quiet``).  ``options``: a
    :class:`committee.scoring.ScorerOptions` (how the gold is read, and its
    task: the units are the task's, words, entities or tagged words, read
    and matched as :class:`committee.scoring.Scorer` reads them)."""
    from committee import scoring
    from committee.pipeline import layout
    from committee.scoring import irt

    options = replace(options or scoring.ScorerOptions(), irt=None, buckets=None)
    if run is None or not os.path.isdir(run):
        raise InputError(str(run), None, "--adaptive needs the run directory whose committee "
                         "rated this test set (--irt RUN_DIR, or --difficulty RUN_DIR)")
    scorer = scoring.Scorer(gold, run if difficulty is None else difficulty, None, options)
    items = layout.paths(run).irt_items
    if not os.path.lexists(items):
        if not quiet:
            print(f"{run}: no IRT items yet: fitting them as `committee irt {run}` does",
                  file=sys.stderr)
        irt.run(run, export=False)
    task = tasks_mod.get(options.task)
    texts = task.texts(scorer.gold.words, task.gold(scorer.gold, scorer.mode, scorer.scheme))
    a, b = scoring.read_irt_items(run, texts)
    return adaptive.make_bank(scorer.gold, scorer.difficulty, a, b, task=task,
                              collector=scorer._collector)


def source_for(system, bank, *, format: str | None = None, encoding: str = "utf-8",
               normalization=None):
    """The source of a system (:mod:`committee.scoring.adaptive_sources`):
    a path (an output file in ``format``, default the task's), a
    :class:`committee.segmenters.Segmenter` (a segmenter or tagger), a
    Corpus, a list of sentences or a callable."""
    from committee.segmenters import Segmenter

    if isinstance(system, (str, os.PathLike)):
        return OutputSentences(system, bank.gold, bank.task, format, encoding, normalization)
    if isinstance(system, Segmenter):
        return ToolSource(system, bank.gold, bank.task)
    return MemorySource(system, bank.gold, bank.task)


def _drawn(bank, record) -> list[dict]:
    """The draws as JSON carries them: sentence (from 1), gold line, batch,
    probability, inclusion probability."""
    return [{"sentence": d.sentence + 1, "line": bank.gold.lines[d.sentence], "batch": d.batch,
             "probability": d.probability, "inclusion": d.inclusion} for d in record]


def administer_one(bank, system, name: str | None, settings, *, options=None, recorded=None,
                   after_batch=None) -> dict:
    """One system's result: ``name``, ``path``, ``sentences_used``,
    ``sentences_reused`` (served from ``recorded``), ``draws``,
    ``batches``, ``stopped_by``, ``estimates`` and ``drawn``
    (:func:`_drawn`), with the :class:`~committee.scoring.adaptive.Draw`
    records under ``record`` and the system's output of every sentence
    administered under ``answers``.  ``options``: a
    :class:`committee.scoring.ScorerOptions` whose ``format``, ``encoding``
    and ``normalization`` read an output file (default: the task's format,
    UTF-8).  ``recorded``: this system's
    ``(answers, where)`` of :func:`read_draws`, served instead of asking
    it; ``after_batch(partial)``: called after every batch with the
    system's result so far (``name``, ``record``, ``answers``)."""
    from committee import scoring

    o = options or scoring.ScorerOptions(format=bank.task.format)
    source = Recorded(source_for(system, bank, format=o.format, encoding=o.encoding,
                                 normalization=o.normalization),
                      *(recorded or ({}, {})), bank.task)
    hook = None
    if after_batch is not None:
        def hook(record, answers):
            after_batch({"name": name, "record": record, "answers": answers})
    out = adaptive.administer(bank, source, settings, hook)
    return {"name": name, "path": adaptive.source_name(system),
            "sentences_used": out["sentences_used"],
            "sentences_reused": len(set(source.reused)), "draws": out["draws"],
            "batches": out["batches"], "stopped_by": out["stopped_by"],
            "estimates": out["estimates"], "drawn": _drawn(bank, out["record"]),
            "record": out["record"], "answers": out["answers"]}


def adaptive_score(gold, system, run, *, difficulty=None, batch: int = adaptive.BATCH,
                   target: float = adaptive.TARGET, metric: str = "fb",
                   max_sentences: int | None = None, seed: int = adaptive.SEED,
                   floor: float = adaptive.FLOOR, format: str | None = None,
                   encoding: str = "utf-8", normalization: str | None = None,
                   resume=None, task: str = tasks_mod.DEFAULT_TASK, mode: str = "default",
                   scheme: str | None = None, gold_format: str | None = None) -> dict:
    """Estimate a system's full-test scores from a few sentences of ``gold``
    drawn adaptively (docs/method.md §16).

    ``task``: ``segmentation`` (words), ``ner`` (entities; ``mode`` and
    ``scheme`` as :class:`committee.scoring.Scorer`'s) or ``pos`` (tagged
    words).  ``system``: an output file in ``format`` (default: the task's,
    ``sighan``, ``bio`` or ``pku``; ``gold_format`` the gold's, default
    ``format``), of which only the drawn sentences are read; a
    :class:`committee.segmenters.Segmenter` (a segmenter or tagger, given
    only the drawn sentences); a Corpus; a list with one entry per gold
    sentence; or a callable ``f(texts)`` returning one entry per text: an
    entry is a word list, or ``(tokens, labels)`` for ``ner`` and ``pos``.
    ``run``: the run directory whose
    ``items.tsv`` (fitted on demand) and difficulties (or ``difficulty``'s)
    are used.  Draws ``batch`` sentences at a time until the 95% interval
    of ``metric`` is narrower than ``target`` points or ``max_sentences``
    are used; ``seed`` makes it reproducible.  ``resume``: a TSV of draws
    (``committee score --adaptive -o``, :func:`draws_tsv`) of this system
    (its rows named as the system is: an output file's stem, else
    ``None``); the output it records of a sentence is used instead of
    asking the system again, and with the same seed and settings the
    draws it records are made again (docs/method.md §16).

    Returns the dict of one system of ``committee score --adaptive --json``:
    ``sentences_used``, ``sentences_reused`` (taken from ``resume``),
    ``stopped_by``, ``estimates`` (``p`` … ``fb`` and ``theta`` as
    ``{"value", "low", "high"}``), ``drawn``, ``record`` (every
    :class:`~committee.scoring.adaptive.Draw`) and ``answers`` (the
    system's output of every sentence administered).
    """
    from committee import scoring
    from committee.corpus.formats import BY_NAME

    settings = adaptive.Settings(batch=batch, target=target, metric=metric,
                                 max_sentences=max_sentences, seed=seed, floor=floor)
    settings.check()

    fmt = format or tasks_mod.get(task).format
    if fmt in BY_NAME and BY_NAME[fmt].parse is None:
        raise ValueError(f"adaptive_score: format {fmt!r} is a table, read whole: give an "
                         "output in a format of text (only its drawn sentences are read)")
    options = scoring.ScorerOptions(format=fmt, encoding=encoding, normalization=normalization,
                                    task=task, mode=mode, scheme=scheme,
                                    gold_format=gold_format)
    bank = load_bank(gold, run, difficulty, options, quiet=True)
    name = None
    if isinstance(system, (str, os.PathLike)):
        name = scoring.system_name(os.fspath(system), set())
    recorded = None if resume is None else read_draws(resume, bank, [str(name)])[str(name)]
    return administer_one(bank, system, name, settings, options=options, recorded=recorded)


def result_json(settings, systems: list[dict]) -> str:
    """``--json``: the settings and every system (fractions), without the records."""
    out = {"adaptive": adaptive.settings_dict(settings),
           "systems": [{k: v for k, v in s.items() if k not in ("record", "answers")}
                       for s in systems]}
    return json.dumps(out, ensure_ascii=False, indent=2)


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.2f}"


def result_text(systems: list[dict], resume=None) -> str:
    """The table: each system's sentences (with ``resume``, the TSV of draws
    continued, how many were taken from it), why it stopped, and every
    estimate with its 95% interval (percentages; θ on its own scale)."""
    lines = []
    for s in systems:
        reused = "" if resume is None else f", {s['sentences_reused']} from {resume}"
        lines.append(f"{s['name']}: {s['sentences_used']} sentences ({s['batches']} batches, "
                     f"{s['draws']} draws{reused}), stopped by {s['stopped_by']}")
        for key in estimators.METRICS:
            e = s["estimates"][key]
            lines.append(f"  {key:<6}{_pct(e['value']):>7}  [{_pct(e['low'])}, "
                         f"{_pct(e['high'])}]")
        t = s["estimates"]["theta"]
        lines.append(f"  {'theta':<6}{t['value']:>7.3f}  [{t['low']:.3f}, {t['high']:.3f}]"
                     f"  se {t['se']:.3f}")
    return "\n".join(lines)
