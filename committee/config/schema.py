"""The config's sections (docs/config.md): committee, parallel, output and
the whole :class:`Config`; ``corpus`` is in
:mod:`committee.config.corpussection` (re-exported here), ``crf`` in
:mod:`committee.config.crfsection`, ``experiments`` in
:mod:`committee.config.experiments`."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

from pydantic import BeforeValidator, Field, PrivateAttr, StringConstraints, Strict, \
    field_validator, model_serializer, model_validator
from pydantic_core import PydanticCustomError

from committee.learners import trainers
from committee.config.base import (NAME_PATTERN, NonEmptyStr, Ratio, StrictBool, StrictInt,
                                   absolute_path, no_duplicates, section_problem, Section, show_value)
from committee.config.crfsection import CrfConfig
from committee.config.experiments import ExperimentsConfig
from committee.config.corpussection import (  # noqa: F401  (re-exported)
    BUILTINS, NORMALIZATIONS, SPLITS, CorpusConfig, CorpusSource, SplitConfig, source_description)
from committee.corpus.formats import TABLE_FORMATS
from committee.errors import ConfigError
from committee.learners.features import TEMPLATES
from committee.learners.members import DRAWS, identical_members
from committee.system.pools import BACKENDS
from committee.tasks import DEFAULT_TASK, TASKS
from committee.tasks import get as get_task

#: Bumped whenever :meth:`Config.recipe` changes shape, so that old and new
#: fingerprints never collide.
FINGERPRINT_VERSION = 2


# --------------------------------------------------------------------------
# committee


#: Largest ``committee.size``: over a hundred times the paper's 90 members,
#: whose difficulties have settled long before (docs/results.md); each
#: member trains a CRF (10 s to a minute on a real corpus: 10,000 of them
#: take days).  The memory a committee needs is checked once the test set is
#: read (:func:`committee.learners.members.check_committee`).
MAX_SIZE = 10_000


class StableConfig(Section):
    reliability: Annotated[float, Strict(), Field(gt=0, lt=1)] = 0.99
    """target split-half reliability of the difficulties (docs/method.md §12)"""
    round: Annotated[int, Strict(), Field(ge=1)] = 10
    """members trained between two measurements"""
    min_size: Annotated[int, Strict(), Field(ge=2)] = 10
    """members trained before the first measurement"""


class CommitteeConfig(Section):
    size: Annotated[int, Strict(), Field(ge=1)] | Literal["auto"] = 90
    """number of members K (at most 10000), or auto: members until the difficulties are stable"""
    max_size: Annotated[int, Strict(), Field(ge=2)] = 297
    """size: auto only: the most members to train (the released Weibo dataset's 297)"""
    stable: StableConfig = StableConfig()
    """size: auto only: when the difficulties count as stable"""
    templates: Annotated[tuple[Literal[TEMPLATES], ...], Field(min_length=1)] = TEMPLATES
    """feature templates the members are drawn from (docs/method.md)"""
    ratios: Annotated[tuple[Ratio, ...], Field(min_length=1)] = (0.1, 0.2, 0.3)
    """shares of the training sentences each member trains on, in (0, 1]"""
    draw: Literal[DRAWS] = "random"
    """how members get their template and ratio: random draws, or every pair in turn (grid)"""
    seed: Annotated[int, Strict(), Field(ge=0)] = 2016
    """seed of the members' draws and samples"""

    @field_validator("templates", "ratios")
    @classmethod
    def _unique(cls, values: tuple) -> tuple:
        return no_duplicates(values)

    @field_validator("size", mode="before")
    @classmethod
    def _size_or_auto(cls, value: Any) -> Any:
        if value == "auto" or (type(value) is int and value >= 1):
            return value
        if type(value) is int:
            raise section_problem(f"must be >= 1, got {value}")
        kind = {str: " (a string)", list: " (a list)", dict: " (a mapping)"}.get(type(value), "")
        raise section_problem(f"expected an integer or auto, got {show_value(value)}{kind}")

    @field_validator("size", "max_size")
    @classmethod
    def _at_most(cls, value: int | str) -> int | str:
        if isinstance(value, int) and value > MAX_SIZE:
            raise section_problem(f"must be <= {MAX_SIZE}, got {value} (difficulties settle long "
                           "before: the paper's committee has 90 members, and every member "
                           "trains a CRF)")
        return value

    @model_validator(mode="after")
    def _members_can_differ(self) -> CommitteeConfig:
        problem = identical_members(self.largest, self.templates, self.ratios)
        if problem is not None:
            raise section_problem(problem, ("ratios",))
        if (self.auto and self.stable.min_size > self.max_size
                and "min_size" in self.stable.model_fields_set):  # the default adapts
            raise section_problem(f"must be <= committee.max_size ({self.max_size}), got "
                           f"{self.stable.min_size}", ("stable", "min_size"))
        if not self.auto:
            for key in ("max_size", "stable"):
                if key in self.model_fields_set:
                    raise section_problem(f"applies only to size: auto (size is {self.size}): remove "
                                   "it, or set committee.size: auto", (key,))
        return self

    @property
    def auto(self) -> bool:
        """Whether the run chooses its size (``size: auto``)."""
        return self.size == "auto"

    @property
    def largest(self) -> int:
        """The most members the run may train: ``size``, or ``max_size`` under auto."""
        return self.max_size if self.auto else self.size

    @model_serializer(mode="wrap")
    def _drop_unused(self, handler):
        data = handler(self)
        if not self.auto:  # a fixed size: the recipe and its fingerprint as they always were
            data.pop("max_size", None)
            data.pop("stable", None)
        return data



# --------------------------------------------------------------------------
# parallel, output


class ParallelConfig(Section):
    backend: Literal[BACKENDS] = "loky"
    """how members run: loky processes, a Dask cluster, or one after the other"""
    n_jobs: StrictInt = 1
    """members run at once: >= 1, or -1 for all cores"""
    scheduler: NonEmptyStr | None = None
    """dask only: the scheduler's address; null: a local cluster"""

    @field_validator("n_jobs")
    @classmethod
    def _jobs(cls, value: int) -> int:
        if value == 0 or value < -1:
            raise section_problem(f"must be >= 1, or -1 for all cores, got {value}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ParallelConfig:
        if self.scheduler is not None and self.backend != "dask":
            raise section_problem(f"applies only to backend 'dask' (backend is {self.backend!r})", ("scheduler",))
        if self.backend == "sequential" and self.n_jobs != 1:
            raise section_problem(f"backend 'sequential' runs one job at a time; must be 1, got {self.n_jobs}", ("n_jobs",))
        return self


class OutputConfig(Section):
    dir: NonEmptyStr
    """the run directory (relative to the working directory)"""
    keep_models: StrictBool = False
    """keep each member's CRF model file"""



# --------------------------------------------------------------------------
# the whole config





class Choices:
    """A string field's allowed values, read from their registry when the
    field is validated or documented (a task registered after import is one)."""

    def __init__(self, values: Callable[[], tuple[str, ...]]):
        self.values = values


def _registered_task(value: Any) -> Any:
    """``value`` when it names a task of the registry; otherwise the error of
    a ``Literal`` of the registry's names, read now rather than at import."""
    if isinstance(value, str) and value in TASKS:
        return value
    raise PydanticCustomError("literal_error", "Input should be {expected}",
                              {"expected": " or ".join(repr(t) for t in TASKS)})

class Config(Section):
    """A validated run configuration (immutable).

    Relative paths are resolved against ``corpus.root``, itself resolved
    against the working directory at the time the config was validated.
    """

    name: Annotated[str, Strict(), StringConstraints(pattern=NAME_PATTERN)]
    """the run's name: letters, digits, '.', '_', '-'"""
    task: Annotated[str, BeforeValidator(_registered_task), Choices(lambda: tuple(TASKS))] = \
        DEFAULT_TASK
    """what the committee rates: segmentation (each gold word), ner (each gold named entity
    of a corpus with entity tags: format bio, or the built-in corpus's persons, places and
    organisations; docs/method.md §13) or pos (each gold word with its part-of-speech tag,
    rated by word-level taggers on the gold segmentation: a corpus with a tag on every word,
    such as pku or the built-in corpus; §14)"""
    corpus: CorpusConfig
    """the corpora"""
    committee: CommitteeConfig = Field(default_factory=CommitteeConfig)
    """the committee's recipe"""
    crf: CrfConfig = Field(default_factory=dict, validate_default=True)
    """what trains the members and the report's models: a trainer (python-crfsuite's CRF by
    default), its preset, an algorithm and its parameters"""
    parallel: ParallelConfig = Field(default_factory=ParallelConfig)
    """how members run in parallel (does not change the outputs)"""
    output: OutputConfig
    """where the run is written"""
    experiments: ExperimentsConfig = Field(default_factory=ExperimentsConfig)
    """the paper's analyses: `committee run` makes those switched on here after the committee
    and names them before it trains (`--skip NAMES`, `--only NAMES` or `--no-report` choose
    otherwise); `committee report` makes them on a finished run (committee.report.analyses)"""

    _cwd: str = PrivateAttr(default_factory=os.getcwd)

    @model_serializer(mode="wrap")
    def _drop_default_task(self, handler):
        data = handler(self)
        if data.get("task") == DEFAULT_TASK:  # segmentation configs read as they always did
            data.pop("task")
        return data

    @model_validator(mode="after")
    def _runnable_task(self):
        task = get_task(self.task)
        if not task.runnable:
            raise section_problem(task.no_run, ("task",))
        return self

    @model_validator(mode="after")
    def _tagged_corpora(self):
        if not get_task(self.task).tagged:
            for key in ("train", "test"):
                if getattr(self.corpus, key).format == "bio":
                    raise section_problem("bio holds entity tags, not words: set task: ner at the top "
                                   "of the config", ("corpus", key, "format"))
            return self
        for key in ("train", "test"):
            source = getattr(self.corpus, key)
            if source.builtin is None and source.format not in ("bio", *TABLE_FORMATS):
                raise section_problem(f"task {self.task} needs entity tags: set format: bio (a token "
                               f"and its tag a line), got {source.format}", ("corpus", key, "format"))
        return self

    def _table2_preset_problem(self) -> str | None:
        """``table2_preset: ...`` when the configured trainer has no preset
        of that name (only python-crfsuite's are listed by the schema)."""
        name, preset = self.crf.trainer, self.experiments.table2_preset
        presets = getattr(trainers.get(name), "presets", {})
        if preset == "committee" or preset in presets:
            return None
        return (f"table2_preset: trainer {name!r} has no preset {preset!r}; valid: "
                f"{', '.join([*presets, 'committee'])}")

    @model_validator(mode="after")
    def _table2_preset_of_trainer(self):
        problem = self._table2_preset_problem() if self.experiments.table2 else None
        if problem is not None:
            key, message = problem.split(": ", 1)
            raise section_problem(message, ("experiments", key))
        return self

    @field_validator("name")
    @classmethod
    def _not_dots(cls, value: str) -> str:
        if value in (".", ".."):
            raise section_problem(f"must not be {value!r}")
        return value

    def base_dir(self) -> Path:
        """The directory relative corpus paths are resolved against."""
        if self.corpus.root is None:
            return Path(self._cwd)
        return absolute_path(self._cwd, self.corpus.root)

    def resolve(self, source: CorpusSource | str | os.PathLike) -> Path:
        """Absolute path of a path source (or of a path such as ``corpus.train_words``).

        Raises ``ValueError`` for a built-in source, which has no path.
        """
        if isinstance(source, CorpusSource):
            if source.path is None:
                raise ValueError(f"{source_description(source)} has no path")
            source = source.path
        return absolute_path(self.base_dir(), source)

    def to_dict(self, resolved: bool = True) -> dict[str, Any]:
        """Plain JSON-able dict.  With ``resolved``, each path source also has
        ``resolved_path`` and a given ``train_words`` has ``resolved_train_words``;
        without, the dict validates back into an equal config."""
        data = self.model_dump(mode="json", by_alias=True)
        if resolved:
            corpus = data["corpus"]
            for key in ("train", "test"):
                source = getattr(self.corpus, key)
                if source.path is not None:
                    corpus[key]["resolved_path"] = str(self.resolve(source))
            if self.corpus.train_words is not None:
                corpus["resolved_train_words"] = str(self.resolve(self.corpus.train_words))
        return data

    def recipe(self) -> dict[str, Any]:
        """Everything that determines a run's outputs, as plain data.

        Corpus sources appear without their paths and encodings (the run
        records the checksums of the corpora's words); ``parallel``,
        ``output`` and ``corpus.allow_overlap`` are left out.
        """

        def source(s: CorpusSource) -> dict[str, Any]:
            data = s.model_dump(mode="json")
            data.pop("path", None)
            # the run records the corpora's content: the same words in
            # another encoding make the same run
            data.pop("encoding", None)
            return data

        return {
            "fingerprint_version": FINGERPRINT_VERSION,
            "name": self.name,
            **({} if self.task == DEFAULT_TASK else {"task": self.task}),
            "corpus": {
                "train": source(self.corpus.train),
                "test": source(self.corpus.test),
                "train_words": "file" if self.corpus.train_words is not None else "derived",
            } | ({} if self.corpus.split is None
                 else {"split": self.corpus.split.model_dump(mode="json")}),
            "committee": self.committee.model_dump(mode="json"),
            "crf": self._crf_recipe(),
        }

    def _crf_recipe(self) -> dict[str, Any]:
        """What identifies the members' models: their trainer's fingerprint of
        the algorithm and parameters, and the trainer's name unless it is
        the default (a default config's recipe reads as it always did)."""
        name = self.crf.trainer
        recipe = trainers.get(name).fingerprint(self.crf.algorithm, self.crf.trainer_params())
        return recipe if name == trainers.DEFAULT_TRAINER else {"trainer": name, **recipe}

    def table2_crf(self) -> tuple[str, dict[str, Any]]:
        """Algorithm and parameters of the Table 2 models: ``experiments.table2_preset``
        of the configured trainer (``committee``: the members' own), with
        ``table2_max_iterations`` when set.

        Raises :class:`~committee.errors.ConfigError` when the trainer has no
        such preset."""
        e = self.experiments
        if e.table2_preset == "committee":
            algorithm, params = self.crf.algorithm, dict(self.crf.trainer_params())
        else:
            problem = self._table2_preset_problem()
            if problem is not None:
                raise ConfigError("experiments", [problem])
            preset = trainers.get(self.crf.trainer).presets[e.table2_preset]
            algorithm, params = preset["algorithm"], dict(preset["params"])
        if e.table2_max_iterations is not None:
            params["max_iterations"] = e.table2_max_iterations
        return algorithm, params

    def fingerprint(self, members: bool = False) -> str:
        """SHA-256 (hex) of the canonical JSON of :meth:`recipe`; ``members``:
        of the recipe of the members alone, without the committee's size
        (``size``, ``max_size``, ``stable``): member k is the same at any size."""
        recipe = self.recipe()
        if members:
            recipe["committee"] = {k: v for k, v in recipe["committee"].items()
                                   if k not in ("size", "max_size", "stable")}
        text = json.dumps(
            recipe, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
