"""Run configuration: one YAML file, validated before any compute is spent.

A config describes one run (docs/method.md §3): the corpus to train on and to
score, the committee recipe (size, templates, sampling ratios, draw policy,
seed), the CRF hyper-parameters, how members are run in parallel, where
outputs go and which of the paper's analyses the report adds.
:func:`load_config` reads the file with PyYAML's safe loader (bounded: no
recursive alias, at most :data:`MAX_VALUES` values with the aliases
expanded, :data:`MAX_DEPTH` levels, :data:`MAX_BYTES` bytes), applies
``key=value`` overrides, validates everything with pydantic and raises one
:class:`committee.errors.ConfigError` that lists every problem as
``dotted.path: message``.  The result is a frozen :class:`Config`.

Every key, with its type, default, allowed values and meaning, is listed in
docs/config.md, written from the schema by ``python -m committee.config.docs``.
Two defaults in short: ``name``, ``corpus.train``, ``corpus.test`` and
``output.dir`` are required; ``crf.trainer`` defaults to ``crfsuite``
(:data:`committee.learners.trainers.TRAINERS`), which owns the rest of ``crf``;
``crf`` defaults to the ``paper`` preset
(L-BFGS, c1 = 1.0, c2 = 0, 100 iterations: :data:`committee.learners.crf.PRESETS`), whose
parameters a given ``crf.params`` overrides one by one, and ``null`` for a
name leaves it at python-crfsuite's own default.  ``parallel.n_jobs``
defaults to 1: a run uses more cores only when asked to.

The package:

* :mod:`~committee.config.base` — strict value types and the section base;
* :mod:`~committee.config.schema` — the sections and :class:`Config`;
* :mod:`~committee.config.crfsection` — the ``crf`` section;
* :mod:`~committee.config.experiments` — the ``experiments`` section, one
  switch and its settings per analysis of
  :data:`committee.report.analyses.REGISTRY`;
* :mod:`~committee.config.messages` — pydantic errors as one-line messages;
* :mod:`~committee.config.yamlsafe` — bounded YAML reading;
* :mod:`~committee.config.overrides` — ``--set KEY=VALUE``;
* :mod:`~committee.config.loading` — :func:`load_config`, :func:`parse_config`;
* :mod:`~committee.config.docs` — docs/config.md from the schema.
"""

from committee.config.crfsection import CrfConfig, CrfParams
from committee.config.experiments import ANALYSES, SEGMENTERS, ExperimentsConfig
from committee.config.loading import load_config, parse_config
from committee.config.schema import (BUILTINS, FINGERPRINT_VERSION, MAX_SIZE, NORMALIZATIONS,
                                     SPLITS, CommitteeConfig, Config, CorpusConfig,
                                     CorpusSource, OutputConfig, ParallelConfig,
                                     SplitConfig, source_description)
from committee.config.yamlsafe import MAX_BYTES, MAX_DEPTH, MAX_VALUES
from committee.corpus import FORMATS
from committee.learners.crf import ALGORITHMS
from committee.learners.features import TEMPLATES
from committee.system.pools import BACKENDS

__all__ = [
    "ALGORITHMS",
    "BACKENDS",
    "BUILTINS",
    "ANALYSES",
    "FINGERPRINT_VERSION",
    "FORMATS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_SIZE",
    "MAX_VALUES",
    "NORMALIZATIONS",
    "SEGMENTERS",
    "SPLITS",
    "TEMPLATES",
    "CommitteeConfig",
    "Config",
    "CorpusConfig",
    "CorpusSource",
    "SplitConfig",
    "CrfConfig",
    "CrfParams",
    "ExperimentsConfig",
    "OutputConfig",
    "ParallelConfig",
    "load_config",
    "parse_config",
    "source_description",
]
