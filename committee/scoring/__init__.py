"""Score segmenters' outputs against a gold corpus: the Python API and the
engine behind ``committee score``.

:func:`score` scores one output in one call; :class:`Scorer` reads the gold
side once (gold, difficulties, training vocabulary) and scores any number of
outputs; :func:`compare` runs a paired bootstrap on two :class:`Scores`.
``committee score`` is a thin layer over :meth:`Scorer.score_all`, so a score
computed in Python equals the command's, signature included.

Every input can be a file or in memory:

* a segmentation (gold or output): a path, a :class:`~committee.corpus.Corpus`,
  a list of word lists, or a list of space-separated sentences;
* difficulties: a ``.weight``/``.weight_c`` path, a run directory, one list
  of values per sentence, or a flat vector (:func:`committee.pipeline.difficulty.load_difficulty`);
* a training vocabulary: a word-list path, a training ``Corpus`` (or a
  corpus path with ``train_format``), or any iterable of words.

Each output is reduced to sufficient statistics (:mod:`committee.metrics`);
intervals and paired comparisons come from :mod:`committee.metrics.significance`.

Modules: :mod:`~committee.scoring.inputs` (reading and checking the inputs),
:mod:`~committee.scoring.scores` (:class:`Scores`, the one result type) and
:mod:`~committee.scoring.scorer` (:class:`Scorer`, :func:`score`,
:func:`compare`).
"""

from committee.scoring.inputs import (OOV_WARN_RATE, SCORER_OPTIONS, SEGMENTATION,
                                      check_oov_rate, check_provenance, python_spelling, rank,
                                      read_corpus, read_irt_items, read_segmentation,
                                      require_files, system_name)
from committee.scoring.scorer import SEED, Scorer, ScorerOptions, compare, score
from committee.scoring.results import ScoredSystems
from committee.scoring.scores import Scores, format_buckets, format_table, select_metrics

__all__ = ["OOV_WARN_RATE", "SCORER_OPTIONS", "SEED", "SEGMENTATION", "Scorer", "ScorerOptions",
           "ScoredSystems", "Scores",
           "check_oov_rate", "check_provenance", "compare", "format_buckets", "format_table",
           "python_spelling", "rank",
           "read_corpus", "read_irt_items", "read_segmentation", "require_files", "score",
           "select_metrics", "system_name"]
