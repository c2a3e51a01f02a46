"""Run configuration: one YAML file, validated before any compute is spent.

A config describes one run (docs/method.md §3): the corpus to train on and to
score, the committee recipe (size, templates, sampling ratios, draw policy,
seed), the CRF hyper-parameters, how members are run in parallel and where
outputs go.  :func:`load_config` reads the file with PyYAML's safe loader
(bounded: no recursive alias, at most :data:`MAX_VALUES` values with the
aliases expanded, :data:`MAX_DEPTH` levels, :data:`MAX_BYTES` bytes), applies
``key=value`` overrides, validates everything with pydantic and
raises one :class:`committee.errors.ConfigError` that lists every problem
as ``dotted.path: message``.  The result is a frozen :class:`Config`.

Schema, with defaults::

    name: peoples-daily-1998        # required, [A-Za-z0-9._-]+
    corpus:
      root: null                    # base directory for relative paths (relative to the CWD)
      train: {path: training/pku_training.utf8, format: sighan,
              encoding: utf-8, normalization: null}
      #   or {builtin: peoples-daily-1998, split: train}   (format pku)
      test: {path: gold/pku_test_gold.utf8}               # required, like train
      train_words: null             # word list for OOV; null = derived from train
      allow_overlap: false          # true: a test set equal to train is a warning, not an error
    committee:
      size: 90                      # 1 to 10000 (MAX_SIZE), and as much as fits in memory
      templates: [F1, F2, F3]
      ratios: [0.1, 0.2, 0.3]
      draw: random                  # random | grid
      seed: 2016
    crf:
      algorithm: lbfgs              # lbfgs | l2sgd | ap | pa | arow
      params: {c2: 1.0, max_iterations: 100}
    parallel:
      backend: loky                 # loky | dask | sequential
      n_jobs: 1                     # >= 1, or -1 for all cores
      scheduler: null               # dask only: address, or null for a LocalCluster
    output:
      dir: runs/peoples-daily-1998  # required
      keep_models: false
    experiments:                    # the paper's analyses, after the committee (committee.report)
      table2: false                 # F2 segmenters on shares of the training data (trains models)
      table2_fractions: [0.2, 0.5, 0.8, 1.0]
      table2_template: F2
      table2_max_iterations: 300    # replaces crf.params.max_iterations for these models
      stability: false              # Fig. 1: difficulty as the committee grows (marks prefixes)
      stability_sizes: null         # committee sizes; null = about ten steps up to K
      linguistic: false             # Fig. 2: idioms, 2-character and OOV words over the bins
      idioms: null                  # idiom word list when the test corpus has no POS 'i';
                                    # peoples-daily-1998: the words tagged 'i' there
      bins: false                   # Fig. 4: recall of each system by difficulty bin
      ranking: false                # Fig. 3: f1 vs fb ranking of the systems
      systems: []                   # other segmenters' outputs (SIGHAN files) to rank
      segmenters: []                # segmenters the report runs itself: jieba, thulac, snownlp
      human: null                   # human judgements: "system<TAB>score" per line
      split_half: false             # Fig. 6: fb on two random halves, Pearson over models
      split_half_repeats: 100
      word_weights: false           # Fig. 7: sentences with each word's difficulty
      word_weight_sentences: []     # sentence indices; empty = the hardest ones
      irt: false                    # 2PL IRT on the marks (as `committee irt`), θ of every system
      irt_subset: 500               # informative words chosen to estimate θ and fb (docs/irt.md)
      seed: 2016

``parallel.n_jobs`` defaults to 1: a run uses more cores only when asked to.

``crf.params`` holds the names that ``pycrfsuite.Trainer(algorithm).params()``
lists for the configured algorithm.  The defaults ``c2: 1.0`` and
``max_iterations: 100`` apply where the algorithm has that parameter; a
given ``params`` mapping sets names on top of those defaults, and ``null``
for a name leaves it at python-crfsuite's own default.
"""

from __future__ import annotations

import codecs
import difflib
import hashlib
import json
import os
import re
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import (
    AllowInfNan,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Strict,
    StringConstraints,
    Tag,
    TypeAdapter,
    ValidationError,
    create_model,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from committee import crf
from committee.corpus import FORMATS
from committee.crf import ALGORITHMS, LINESEARCH
from committee.errors import ConfigError
from committee.features import TEMPLATES
from committee.members import DRAWS, identical_members
from committee.parallel import BACKENDS
from committee.segmenters import SEGMENTERS as _SEGMENTER_TABLE

__all__ = [
    "ALGORITHMS",
    "BACKENDS",
    "BUILTINS",
    "FORMATS",
    "NORMALIZATIONS",
    "SPLITS",
    "TEMPLATES",
    "CommitteeConfig",
    "Config",
    "CorpusConfig",
    "CorpusSource",
    "CrfConfig",
    "CrfParams",
    "EXPERIMENTS",
    "ExperimentsConfig",
    "OutputConfig",
    "ParallelConfig",
    "load_config",
    "parse_config",
    "source_description",
]

NORMALIZATIONS = ("nfkc", "fullwidth")
BUILTINS = ("peoples-daily-1998",)
SPLITS = ("train", "test")

#: Bumped whenever :meth:`Config.recipe` changes shape, so that old and new
#: fingerprints never collide.
FINGERPRINT_VERSION = 2

_NAME_PATTERN = r"^[A-Za-z0-9._-]+$"

NonEmptyStr = Annotated[str, Strict(), StringConstraints(min_length=1)]
StrictInt = Annotated[int, Strict()]
StrictFloat = Annotated[float, Strict(), AllowInfNan(False)]  # ints are accepted
StrictBool = Annotated[bool, Strict()]


def _problem(message: str, at: tuple = ()) -> PydanticCustomError:
    """A validation error whose message is shown as is, ``at`` sub-keys below
    the location pydantic reports (model validators can only report at the
    model itself)."""
    return PydanticCustomError("config", "{message}", {"message": message, "at": at})


def _show(value: Any) -> str:
    """A value as it would read in YAML, shortened for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _no_duplicates(values: tuple) -> tuple:
    """A list setting's values, refused with the index of the first repeat."""
    seen = set()
    for i, value in enumerate(values):
        if value in seen:
            raise _problem(f"duplicate {value!r}", (i,))
        seen.add(value)
    return values


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------
# corpus


class CorpusSource(_Section):
    """One corpus file, or one split of a built-in corpus.

    Exactly one of ``path`` and ``builtin`` is given.  A path source has a
    ``format`` (default ``sighan``) and an ``encoding`` (default ``utf-8``);
    a built-in source has a ``split`` and is in ``pku`` format.
    """

    path: NonEmptyStr | None = None
    builtin: Literal[BUILTINS] | None = None
    split: Literal[SPLITS] | None = None
    format: Literal[FORMATS] = "sighan"
    encoding: NonEmptyStr | None = None
    normalization: Literal[NORMALIZATIONS] | None = None

    @model_validator(mode="before")
    @classmethod
    def _fill_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if data.get("builtin") is not None and data.get("path") is None:
                data.setdefault("format", "pku")
            if data.get("path") is not None:
                data.setdefault("encoding", "utf-8")
        return data

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                codecs.lookup(value)
            except LookupError:
                raise _problem(f"unknown encoding {value!r}") from None
        return value

    @model_validator(mode="after")
    def _one_source(self) -> CorpusSource:
        if self.path is not None and self.builtin is not None:
            raise _problem("give either 'path' or 'builtin', not both")
        if self.path is None and self.builtin is None:
            raise _problem("give 'path' (a corpus file) or 'builtin' (a built-in corpus)")
        if self.builtin is not None:
            if self.split is None:
                raise _problem("required with 'builtin' (one of: train, test)", ("split",))
            if self.format != "pku":
                raise _problem(f"built-in corpora are in 'pku' format, got {self.format!r}", ("format",))
            if self.encoding is not None:
                raise _problem("does not apply to a built-in corpus", ("encoding",))
        elif self.split is not None:
            raise _problem("applies only to 'builtin' sources", ("split",))
        return self

    @model_serializer(mode="wrap")
    def _drop_unused(self, handler):
        data = handler(self)
        for key in ("path", "builtin", "split", "encoding"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @property
    def is_builtin(self) -> bool:
        return self.builtin is not None


class CorpusConfig(_Section):
    root: NonEmptyStr | None = None
    train: CorpusSource
    test: CorpusSource
    train_words: NonEmptyStr | None = None
    #: accept a test set with the very words of the training set (a warning)
    allow_overlap: Annotated[bool, Strict()] = False

    @model_validator(mode="after")
    def _same_normalization(self) -> CorpusConfig:
        if self.train.normalization != self.test.normalization:
            raise _problem(
                f"must equal train.normalization ({_show(self.train.normalization)}), "
                f"got {_show(self.test.normalization)}: one normalization applies "
                "to every file scored together",
                ("test", "normalization"),
            )
        return self


# --------------------------------------------------------------------------
# committee

Ratio = Annotated[float, Strict(), Field(gt=0, le=1)]


#: Largest ``committee.size``: over a hundred times the paper's 90 members,
#: whose difficulties have settled long before (docs/results.md); each
#: member trains a CRF (10 s to a minute on a real corpus: 10,000 of them
#: take days).  The memory a committee needs is checked once the test set is
#: read (:func:`committee.members.check_committee`).
MAX_SIZE = 10_000


class CommitteeConfig(_Section):
    size: Annotated[int, Strict(), Field(ge=1)] = 90
    templates: Annotated[tuple[Literal[TEMPLATES], ...], Field(min_length=1)] = TEMPLATES
    ratios: Annotated[tuple[Ratio, ...], Field(min_length=1)] = (0.1, 0.2, 0.3)
    draw: Literal[DRAWS] = "random"
    seed: Annotated[int, Strict(), Field(ge=0)] = 2016

    @field_validator("templates", "ratios")
    @classmethod
    def _unique(cls, values: tuple) -> tuple:
        return _no_duplicates(values)

    @field_validator("size")
    @classmethod
    def _at_most(cls, value: int) -> int:
        if value > MAX_SIZE:
            raise _problem(f"must be <= {MAX_SIZE}, got {value} (difficulties settle long "
                           "before: the paper's committee has 90 members, and every member "
                           "trains a CRF)")
        return value

    @model_validator(mode="after")
    def _members_can_differ(self) -> CommitteeConfig:
        problem = identical_members(self.size, self.templates, self.ratios)
        if problem is not None:
            raise _problem(problem, ("ratios",))
        return self


# --------------------------------------------------------------------------
# crf: one params model per algorithm, built from python-crfsuite itself

#: Values of parameters that neither ``crf.params`` nor the preset
#: (:data:`committee.crf.PRESETS`) sets, where the algorithm has them; the
#: others take python-crfsuite's defaults.
_PARAM_DEFAULTS = {"c2": 1.0, "max_iterations": 100}


class CrfParams(_Section):
    """Trainer parameters of one algorithm; ``None`` = python-crfsuite's default."""

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler):
        return {k: v for k, v in handler(self).items() if v is not None}

    def trainer_params(self) -> dict[str, Any]:
        """The parameters to pass to ``pycrfsuite.Trainer.set_params``."""
        return self.model_dump(by_alias=True)


def _params_model(algorithm: str) -> type[CrfParams]:
    """The types of ``algorithm``'s parameters; their values are checked by
    :func:`committee.crf.check_crf_params` (see :func:`_crf_problems`)."""
    fields: dict[str, Any] = {}
    for name, default in crf.trainer_defaults(algorithm).items():
        if name == "linesearch":
            kind: Any = Literal[LINESEARCH]
        elif isinstance(default, bool):
            kind = StrictBool
        elif isinstance(default, int):
            kind = StrictInt
        elif isinstance(default, float):
            kind = StrictFloat
        else:
            kind = NonEmptyStr
        fields[name.replace(".", "_")] = (
            Annotated[kind | None, Field(alias=name)],
            _PARAM_DEFAULTS.get(name),
        )
    return create_model(f"{algorithm.capitalize()}Params", __base__=CrfParams, **fields)


class _CrfBase(_Section):
    preset: Literal[tuple(crf.PRESETS)] | None = None
    algorithm: str
    params: CrfParams

    def trainer_params(self) -> dict[str, Any]:
        """``params`` as ``{crfsuite name: value}``, unset names left out."""
        return self.params.trainer_params()


def _crf_model(algorithm: str) -> type[_CrfBase]:
    params = _params_model(algorithm)
    return create_model(
        f"{algorithm.capitalize()}Crf",
        __base__=_CrfBase,
        algorithm=(Literal[algorithm], algorithm),
        params=(params, Field(default_factory=params)),
    )


_CRF_MODELS = {algorithm: _crf_model(algorithm) for algorithm in ALGORITHMS}


def _crf_tag(value: Any) -> str:
    if isinstance(value, dict):
        resolved, _ = crf.resolve_preset(value)
        algorithm = (resolved or value).get("algorithm", "lbfgs")
        return algorithm if isinstance(algorithm, str) else repr(algorithm)
    return getattr(value, "algorithm", "lbfgs")


def _resolve_crf(value: Any) -> Any:
    """``crf`` as written → with its preset expanded (:func:`committee.crf.resolve_preset`)."""
    resolved, problems = crf.resolve_preset(value)
    if problems:
        key, message = problems[0].split(": ", 1)
        raise _problem(message, (key,))
    return value if resolved is None else resolved


#: ``crf`` section: ``algorithm`` picks the model, and so the valid ``params``.
CrfConfig = Annotated[
    Union[tuple(Annotated[model, Tag(name)] for name, model in _CRF_MODELS.items())],
    Discriminator(_crf_tag),
]


# --------------------------------------------------------------------------
# parallel, output


class ParallelConfig(_Section):
    backend: Literal[BACKENDS] = "loky"
    n_jobs: StrictInt = 1
    scheduler: NonEmptyStr | None = None

    @field_validator("n_jobs")
    @classmethod
    def _jobs(cls, value: int) -> int:
        if value == 0 or value < -1:
            raise _problem(f"must be >= 1, or -1 for all cores, got {value}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ParallelConfig:
        if self.scheduler is not None and self.backend != "dask":
            raise _problem(f"applies only to backend 'dask' (backend is {self.backend!r})", ("scheduler",))
        if self.backend == "sequential" and self.n_jobs != 1:
            raise _problem(f"backend 'sequential' runs one job at a time; must be 1, got {self.n_jobs}", ("n_jobs",))
        return self


class OutputConfig(_Section):
    dir: NonEmptyStr
    keep_models: StrictBool = False


# --------------------------------------------------------------------------
# experiments: the paper's analyses (committee.report), run after the committee

#: The switches of :class:`ExperimentsConfig`, in report order.
EXPERIMENTS = ("table2", "stability", "linguistic", "bins", "ranking", "split_half",
               "word_weights", "irt")

#: Real segmenters the report can run itself (committee.segmenters).
SEGMENTERS = tuple(_SEGMENTER_TABLE)

PositiveInt = Annotated[int, Strict(), Field(ge=1)]
NonNegativeInt = Annotated[int, Strict(), Field(ge=0)]


class ExperimentsConfig(_Section):
    """Which of the paper's analyses ``committee run`` adds, and their settings.

    Each switch (:data:`EXPERIMENTS`) is off by default; ``committee report
    RUN_DIR`` runs every analysis that needs no training whatever the
    switches, and trains the Table 2 models only when ``table2`` is on.
    Paths (``idioms``, ``systems``, ``human``) are resolved like corpus paths.
    """

    table2: StrictBool = False
    table2_fractions: Annotated[tuple[Ratio, ...], Field(min_length=1)] = (0.2, 0.5, 0.8, 1.0)
    table2_template: Literal[TEMPLATES] = "F2"
    table2_preset: Literal[(*crf.PRESETS, "committee")] = "paper"
    table2_max_iterations: PositiveInt | None = None
    stability: StrictBool = False
    stability_sizes: tuple[PositiveInt, ...] | None = None
    linguistic: StrictBool = False
    idioms: NonEmptyStr | None = None
    bins: StrictBool = False
    ranking: StrictBool = False
    systems: tuple[NonEmptyStr, ...] = ()
    segmenters: tuple[Literal[SEGMENTERS], ...] = ()
    human: NonEmptyStr | None = None
    split_half: StrictBool = False
    split_half_repeats: PositiveInt = 100
    word_weights: StrictBool = False
    word_weight_sentences: tuple[NonNegativeInt, ...] = ()
    irt: StrictBool = False
    irt_subset: PositiveInt = 500
    seed: NonNegativeInt = 2016

    @field_validator("table2_fractions")
    @classmethod
    def _unique_fractions(cls, values: tuple) -> tuple:
        return _no_duplicates(values)

    def enabled(self) -> tuple[str, ...]:
        """The experiments switched on, in report order (empty: none)."""
        return tuple(name for name in EXPERIMENTS if getattr(self, name))


# --------------------------------------------------------------------------
# the whole config


def _absolute(base: str | os.PathLike, path: str | os.PathLike) -> Path:
    return Path(os.path.abspath(os.path.join(base, os.path.expanduser(path))))


class Config(_Section):
    """A validated run configuration (immutable).

    Relative paths are resolved against ``corpus.root``, itself resolved
    against the working directory at the time the config was validated.
    """

    name: Annotated[str, Strict(), StringConstraints(pattern=_NAME_PATTERN)]
    corpus: CorpusConfig
    committee: CommitteeConfig = Field(default_factory=CommitteeConfig)
    crf: CrfConfig = Field(default_factory=dict, validate_default=True)
    parallel: ParallelConfig = Field(default_factory=ParallelConfig)
    output: OutputConfig
    experiments: ExperimentsConfig = Field(default_factory=ExperimentsConfig)

    _cwd: str = PrivateAttr(default_factory=os.getcwd)

    @field_validator("crf", mode="before")
    @classmethod
    def _preset(cls, value: Any) -> Any:
        return _resolve_crf(value)

    @field_validator("name")
    @classmethod
    def _not_dots(cls, value: str) -> str:
        if value in (".", ".."):
            raise _problem(f"must not be {value!r}")
        return value

    def base_dir(self) -> Path:
        """The directory relative corpus paths are resolved against."""
        if self.corpus.root is None:
            return Path(self._cwd)
        return _absolute(self._cwd, self.corpus.root)

    def resolve(self, source: CorpusSource | str | os.PathLike) -> Path:
        """Absolute path of a path source (or of a path such as ``corpus.train_words``).

        Raises ``ValueError`` for a built-in source, which has no path.
        """
        if isinstance(source, CorpusSource):
            if source.path is None:
                raise ValueError(f"{source_description(source)} has no path")
            source = source.path
        return _absolute(self.base_dir(), source)

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
            "corpus": {
                "train": source(self.corpus.train),
                "test": source(self.corpus.test),
                "train_words": "file" if self.corpus.train_words is not None else "derived",
            },
            "committee": self.committee.model_dump(mode="json"),
            "crf": {"algorithm": self.crf.algorithm, "params": self.crf.trainer_params()},
        }

    def table2_crf(self) -> tuple[str, dict[str, Any]]:
        """Algorithm and parameters of the Table 2 models: ``experiments.table2_preset``
        (``committee``: the members' own), with ``table2_max_iterations`` when set."""
        e = self.experiments
        if e.table2_preset == "committee":
            algorithm, params = self.crf.algorithm, dict(self.crf.trainer_params())
        else:
            preset = crf.PRESETS[e.table2_preset]
            algorithm, params = preset["algorithm"], dict(preset["params"])
        if e.table2_max_iterations is not None:
            params["max_iterations"] = e.table2_max_iterations
        return algorithm, params

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the canonical JSON of :meth:`recipe`."""
        text = json.dumps(
            self.recipe(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def source_description(source: CorpusSource) -> str:
    """A corpus source in a few words, for messages.

    Examples
    --------
    >>> source_description(CorpusSource(path="gold/pku_test_gold.utf8"))
    'gold/pku_test_gold.utf8 (sighan, utf-8)'
    >>> source_description(CorpusSource(builtin="peoples-daily-1998", split="test", normalization="nfkc"))
    'built-in peoples-daily-1998, test split (pku, nfkc)'
    """
    details = [source.format]
    if source.builtin is not None:
        what = f"built-in {source.builtin}, {source.split} split"
    else:
        what = source.path
        details.append(source.encoding)
    if source.normalization is not None:
        details.append(source.normalization)
    return f"{what} ({', '.join(details)})"


# --------------------------------------------------------------------------
# walking the schema (for overrides and messages)


def _fields(model: type[BaseModel]) -> dict[str, Any]:
    """Fields by the key used in YAML (the alias where there is one)."""
    return {info.alias or name: info for name, info in model.model_fields.items()}


def _child(annotation: Any) -> type[BaseModel] | dict[str, type[BaseModel]] | None:
    """The model a field holds, ``{tag: model}`` for a tagged union, else None."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _child(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        tagged, plain = {}, []
        for arg in get_args(annotation):
            tag = next((m.tag for m in getattr(arg, "__metadata__", ()) if isinstance(m, Tag)), None)
            sub = _child(arg)
            if isinstance(sub, type):
                if tag is None:
                    plain.append(sub)
                else:
                    tagged[tag] = sub
        if tagged:
            return tagged
        return plain[0] if len(plain) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _join(prefix: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else str(key)


def _close(word: str, candidates: Iterable[str]) -> str | None:
    lowered = {c.lower(): c for c in candidates}
    match = difflib.get_close_matches(str(word).lower(), list(lowered), n=1, cutoff=0.5)
    return lowered[match[0]] if match else None


def _unknown_key(prefix: str, key: str, model: type[BaseModel] | None) -> str:
    keys = list(_fields(model)) if model is not None else []
    guess = _close(key, keys)
    if guess is not None:
        return f"unknown key (did you mean '{_join(prefix, guess)}'?)"
    if keys:
        return f"unknown key; expected one of: {', '.join(keys)}"
    return "unknown key"


# --------------------------------------------------------------------------
# pydantic errors -> "dotted.path: message"

_KINDS = {
    str: "a string", int: "an integer", float: "a number", bool: "true/false",
    list: "a list", dict: "a mapping", type(None): "null",
}


def _got(value: Any) -> str:
    kind = _KINDS.get(type(value), type(value).__name__)
    shown = _show(value)
    return shown if isinstance(value, (int, float, type(None))) else f"{shown} ({kind})"


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _translate(error: dict[str, Any]) -> str | None:
    """``dotted.path: message`` for one pydantic error (None: nothing to add)."""
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    # Walk the location through the schema: union tags are dropped, and the
    # model holding the last key is kept for did-you-mean.
    path, model, parent = "", Config, None
    for item in error["loc"]:
        if isinstance(model, dict):  # a tagged union: this item is the tag
            model = model.get(item)
            continue
        parent = model
        if isinstance(item, int) and kind != "extra_forbidden":
            path, model = _join(path, item), None
            continue
        path = _join(path, str(item))
        info = _fields(model).get(str(item)) if model is not None else None
        model = _child(info.annotation) if info is not None else None

    if kind == "config":
        for item in ctx.get("at", ()):
            path = _join(path, item)
        message = ctx["message"]
    elif kind == "extra_forbidden":
        prefix, _, key = path.rpartition(".")
        message = _unknown_key(prefix, key, parent if isinstance(parent, type) else None)
    elif kind == "missing":
        message = "missing required key"
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        path = _join(path, "algorithm")
        given = value.get("algorithm") if isinstance(value, dict) else value
        guess = _close(str(given), ALGORITHMS)
        hint = f" (did you mean '{guess}'?)" if guess else ""
        message = f"unknown value {_show(given)}{hint}; expected one of: {', '.join(ALGORITHMS)}"
    elif kind == "literal_error":
        expected = re.findall(r"'([^']*)'", ctx.get("expected", ""))
        guess = _close(str(value), expected) if isinstance(value, str) else None
        hint = f" (did you mean '{guess}'?)" if guess else ""
        message = f"unknown value {_show(value)}{hint}; expected one of: {', '.join(expected)}"
    elif kind in ("int_type", "int_parsing", "int_from_float"):
        message = f"expected an integer, got {_got(value)}"
    elif kind in ("float_type", "float_parsing"):
        message = f"expected a number, got {_got(value)}"
        if isinstance(value, str) and _looks_numeric(value):
            message = (f"expected a number, got {_show(value)} (a string: YAML reads "
                       "exponents without a '.' as text; write e.g. 1.0e-3)")
    elif kind == "finite_number":
        message = f"must be a finite number, got {_show(value)}"
    elif kind in ("bool_type", "bool_parsing"):
        message = f"expected true or false, got {_got(value)}"
    elif kind == "string_type":
        message = f"expected a string, got {_got(value)}"
    elif kind == "string_too_short":
        message = "must not be empty"
    elif kind == "string_pattern_mismatch":
        pattern = ctx.get("pattern", "").strip("^$")
        message = f"must match {pattern} (letters, digits, '.', '_', '-'), got {_show(value)}"
    elif kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = {"greater_than_equal": ">= {ge}", "greater_than": "> {gt}",
                 "less_than_equal": "<= {le}", "less_than": "< {lt}"}[kind]
        bound = bound.format(**{k: _number(v) for k, v in ctx.items()})
        message = f"must be {bound}, got {_show(value)}"
    elif kind == "too_short":
        n = ctx.get("min_length", 1)
        if isinstance(value, (list, tuple)) and len(value) >= n:
            return None  # pydantic counts only the items that validated; those are reported
        message = "must not be empty" if n == 1 else f"needs at least {n} items"
    elif kind in ("tuple_type", "list_type", "iterable_type"):
        message = f"expected a list, got {_got(value)}"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        message = f"expected a mapping, got {_got(value)}"
        if model is CorpusSource:
            message += "; e.g. {path: FILE, format: sighan} or {builtin: peoples-daily-1998, split: train}"
    else:
        message = error["msg"].removeprefix("Value error, ")
    return f"{path}: {message}" if path else message


def _validation_problems(error: ValidationError) -> list[str]:
    return [p for p in map(_translate, error.errors()) if p is not None]


# --------------------------------------------------------------------------
# YAML


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if isinstance(exc, yaml.constructor.ConstructorError) and "constructor for the tag" in problem:
        found = re.search(r"tag '([^']*)'", problem)
        tag = (found.group(1) if found else "?").replace("tag:yaml.org,2002:", "!!")
        where = f"line {mark.line + 1}: " if mark is not None else ""
        return f"{where}YAML tag '{tag}' is not allowed: configs are plain data"
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return problem


#: Values a config may hold once its aliases are expanded (every scalar, list
#: and mapping counts one).  Real configs hold a few dozen; the bound stops
#: an alias bomb (aliases of aliases, nine of each: 9**9 values from 1 KB)
#: while it is composed, before anything walks the expanded data.
MAX_VALUES = 10_000
#: How deep values may nest (a config nests four levels).  PyYAML composes
#: and constructs recursively: thousands of ``[`` would overflow Python's stack.
MAX_DEPTH = 20
#: Bytes a config file may have (real ones have a few hundred to a few thousand).
MAX_BYTES = 1_000_000


class _ConfigLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses, while it composes, what would make a
    later walk of the data explode: a recursive alias (``x: &a [*a]``), more
    than :data:`MAX_VALUES` values with every alias expanded, nesting deeper
    than :data:`MAX_DEPTH`.

    Each finished node's expanded size is kept (``1 +`` its children's), so
    an alias costs one look-up and the count is exact without expanding
    anything.  A refusal is a :class:`yaml.composer.ComposerError` at the
    alias or value that crosses the bound.
    """

    def __init__(self, stream):
        super().__init__(stream)
        self._sizes: dict[int, int] = {}  # id(node) -> expanded size, finished nodes only
        self._total = 0  # values so far, aliases expanded
        self._depth = 0

    def _refuse(self, problem: str, mark) -> None:
        raise yaml.composer.ComposerError(None, None, problem, mark)

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None and id(node) not in self._sizes:
                self._refuse(f"alias *{event.anchor} refers to the value it is part of (a "
                             "recursive alias); a config is a tree: write the value out",
                             event.start_mark)
            self._count(self._sizes.get(id(node), 0), event, f"alias *{event.anchor} expands")
            return super().compose_node(parent, index)
        self._count(1, event, "")
        self._depth += 1
        if self._depth > MAX_DEPTH:
            self._refuse(f"values nested more than {MAX_DEPTH} deep; a config nests a few "
                         "levels: is this a config file?", event.start_mark)
        node = super().compose_node(parent, index)
        self._depth -= 1
        children = (node.value if isinstance(node, yaml.SequenceNode) else
                    [n for pair in node.value for n in pair]
                    if isinstance(node, yaml.MappingNode) else [])
        self._sizes[id(node)] = 1 + sum(self._sizes[id(c)] for c in children)
        return node

    def _count(self, n: int, event, what: str) -> None:
        self._total += n
        if self._total <= MAX_VALUES:
            return
        if what:
            self._refuse(f"{what} the config past {MAX_VALUES} values (aliases of aliases: an "
                         "alias bomb?); a config holds a few dozen: write the values out",
                         event.start_mark)
        self._refuse(f"the config holds more than {MAX_VALUES} values; a config holds a few "
                     "dozen: is this a config file?", event.start_mark)


def _read_yaml(text: str) -> tuple[Any, list[str]]:
    """The data of one YAML document, bounded (:class:`_ConfigLoader`), and
    its repeated keys as problems.  Raises :class:`yaml.YAMLError`."""
    loader = _ConfigLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        duplicates = _duplicate_keys(node)  # before construction merges ``<<`` keys in place
        return loader.construct_document(node), duplicates
    finally:
        loader.dispose()


def _duplicate_keys(root: yaml.Node) -> list[str]:
    """``yaml.safe_load`` keeps the last of repeated keys silently; name them.

    Each node is visited once: a value shared through an alias is reported
    at the first place it occurs, and the walk stays as small as the file.
    """
    problems: list[str] = []
    seen_nodes: set[int] = set()

    def walk(node: yaml.Node, path: str) -> None:
        if id(node) in seen_nodes:
            return
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                    if key.value in seen:
                        problems.append(
                            f"{_join(path, key.value)}: duplicate key "
                            f"(lines {seen[key.value]} and {key.start_mark.line + 1})"
                        )
                    seen.setdefault(key.value, key.start_mark.line + 1)
                    walk(value, _join(path, key.value))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, _join(path, i))

    walk(root, "")
    return problems


# --------------------------------------------------------------------------
# overrides


def _override_target(key: str, data: dict[str, Any]) -> tuple[list[str] | None, str | None]:
    """Split ``key`` into schema keys, or return a problem if it names no field.

    ``crf.params.NAME`` is checked against the algorithm currently in ``data``.
    """
    tokens = key.split(".")
    model: Any = Config
    raw: Any = data
    keys: list[str] = []
    i = 0
    while i < len(tokens):
        prefix = ".".join(keys)
        if isinstance(model, dict):  # tagged union (crf): the variant in the data
            tag = _crf_tag(raw) if isinstance(raw, dict) else "lbfgs"
            if tag not in model:
                return keys + [".".join(tokens[i:])], None  # the algorithm error is reported
            model = model[tag]
        if model is None:
            return None, f"{key}: unknown key ('{prefix}' takes a value, not sub-keys)"
        fields = _fields(model)
        for j in range(len(tokens), i, -1):  # longest match: names like feature.minfreq
            name = ".".join(tokens[i:j])
            if name in fields:
                break
        else:
            rest = ".".join(tokens[i:])
            guess = _close(rest, fields) or _close(tokens[i], fields)
            if guess is not None:
                return None, f"{key}: unknown key (did you mean '{_join(prefix, guess)}'?)"
            return None, f"{key}: unknown key; expected one of: {', '.join(fields)}"
        keys.append(name)
        model = _child(fields[name].annotation)
        raw = raw.get(name) if isinstance(raw, dict) else None
        i = j
    return keys, None


SET = "--set"


def _blame_overrides(problems: list[str], overrides: Iterable[str]) -> list[str]:
    """Problems of a key an override set, as ``--set KEY=VALUE: message``
    (the value was not in the file: say where it came from).

    >>> _blame_overrides(["committee.size: must be >= 1, got 0", "name: required"], ["committee.size=0"])
    ['--set committee.size=0: must be >= 1, got 0', 'name: required']
    """
    items = []
    for item in overrides:
        key, sep, _ = str(item).partition("=")
        if sep and key.strip():
            items.append((key.strip(), str(item)))
    items.sort(key=lambda t: -len(t[0]))  # the longest key that matches
    out = []
    for problem in problems:
        for key, item in items:
            if problem.startswith(key + ":"):
                problem = f"{SET} {item}:{problem[len(key) + 1:]}"
                break
            if problem.startswith(key + "."):
                problem = f"{SET} {item}: {problem[len(key) + 1:]}"
                break
        out.append(problem)
    return out


def _apply_overrides(data: dict[str, Any], overrides: Iterable[str]) -> list[str]:
    problems = []
    for item in overrides:
        key, sep, text = str(item).partition("=")
        key = key.strip()
        if not sep or not key:
            problems.append(f"{SET} {item}: expected KEY=VALUE, e.g. committee.size=5")
            continue
        try:
            value, _ = _read_yaml(text)
        except yaml.YAMLError as exc:
            problems.append(f"{key}: cannot parse the value: {_yaml_problem(exc)}")
            continue
        keys, problem = _override_target(key, data)
        if problem is not None:
            problems.append(problem)
            continue
        node = data
        for depth, name in enumerate(keys[:-1]):
            if node.get(name) is None:
                node[name] = {}
            elif not isinstance(node[name], dict):
                where = ".".join(keys[: depth + 1])
                problems.append(f"{key}: cannot set: '{where}' is {_got(node[name])}, not a mapping")
                break
            node = node[name]
        else:
            node[keys[-1]] = value
    return problems


# --------------------------------------------------------------------------
# paths


def _path_problems(data: dict[str, Any], cwd: str) -> list[str]:
    """Missing corpus files, from the (possibly invalid) data so that they are
    reported together with every other problem.  Built-in sources are left
    to the caller."""
    corpus = data.get("corpus")
    if not isinstance(corpus, dict):
        return []
    base = Path(cwd)
    root = corpus.get("root")
    if isinstance(root, str) and root:
        base = _absolute(cwd, root)
        if not base.is_dir():
            return [f"corpus.root: no such directory: {base}"]
    problems = []
    wanted = [(f"corpus.{k}.path", (corpus.get(k) or {}).get("path") if isinstance(corpus.get(k), dict) else None)
              for k in ("train", "test")]
    wanted.append(("corpus.train_words", corpus.get("train_words")))
    for where, path in wanted:
        if isinstance(path, str) and path:
            full = _absolute(base, path)
            if not full.exists():
                problems.append(f"{where}: no such file: {full}")
            elif not full.is_file():
                problems.append(f"{where}: not a file: {full}")
    return problems


# --------------------------------------------------------------------------
# entry points


def parse_config(
    data: Any,
    where: str = "<config>",
    overrides: Iterable[str] = (),
    check_paths: bool = True,
) -> Config:
    """Validate already-loaded config data (a mapping) into a :class:`Config`.

    ``data`` is not modified.  Raises :class:`ConfigError` (named ``where``)
    listing every problem: overrides, schema, CRF parameters and, with
    ``check_paths``, missing corpus files.
    """
    if not isinstance(data, dict):
        what = "an empty file" if data is None else _got(data)
        raise ConfigError(where, [f"expected a mapping of sections at the top level, got {what}"])
    data = _copy(data)
    problems = _apply_overrides(data, overrides)
    config = None
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        problems.extend(_validation_problems(exc))
    problems.extend(_crf_problems(data))
    if check_paths:
        problems.extend(_path_problems(data, config._cwd if config is not None else os.getcwd()))
    if problems or config is None:
        raise ConfigError(where, _blame_overrides(list(dict.fromkeys(problems)), overrides))
    return config


def _crf_problems(data: dict[str, Any]) -> list[str]:
    """The values of ``crf.params``, checked by the one rule set of
    :func:`committee.crf.check_crf_params` (their types are checked by the
    schema; a section whose types are wrong is left to its messages)."""
    section, problems = crf.resolve_preset(data.get("crf"))
    if section is None or problems:
        return []  # reported by the schema
    try:
        validated = TypeAdapter(CrfConfig).validate_python(section)
    except ValidationError:
        return []
    raw = section.get("params") if isinstance(section, dict) else None
    raw = raw if isinstance(raw, dict) else {}
    # each value as written (``-1``, not ``-1.0``), for the message
    shown = {k: raw.get(k, v) for k, v in validated.trainer_params().items()}
    return [f"crf.{p}" for p in crf.check_crf_params(validated.algorithm, shown)]


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _read_text(where: str) -> str:
    """The config file's text: at most :data:`MAX_BYTES` bytes (read so, a
    device or pipe that never ends is refused too), UTF-8."""
    try:
        with open(where, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(where, [f"cannot read: {exc.strerror or exc}"]) from None
    if len(data) > MAX_BYTES:
        raise ConfigError(where, [f"cannot read: longer than {MAX_BYTES} bytes, and a config "
                                  "has a few hundred: is this a config file?"])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(where, [f"cannot read: not UTF-8 (byte {exc.object[exc.start]:#04x} "
                                  f"at offset {exc.start})"]) from None


def load_config(
    path: str | os.PathLike,
    overrides: Iterable[str] = (),
    check_paths: bool = True,
) -> Config:
    """Read, override and validate a YAML config.

    Parameters
    ----------
    path : str or path-like
        The YAML file (UTF-8), read with PyYAML's safe loader within the
        bounds :data:`MAX_BYTES`, :data:`MAX_VALUES` (aliases expanded) and
        :data:`MAX_DEPTH`; a recursive alias is refused.
    overrides : iterable of str
        ``dotted.key=value``; the value is parsed as YAML (``5`` is an int,
        ``[0.1, 0.5]`` a list).  The key must name a field of the schema, or
        ``crf.params.NAME`` for a parameter of the configured algorithm.
    check_paths : bool
        Report corpus files (and ``corpus.train_words``) that do not exist.

    Raises
    ------
    ConfigError
        Listing every problem found, each as ``dotted.path: message``.
    """
    where = str(path)
    text = _read_text(where)
    try:
        data, duplicates = _read_yaml(text)
    except yaml.YAMLError as exc:
        raise ConfigError(where, [_yaml_problem(exc)]) from None
    try:
        config = parse_config(data, where, overrides, check_paths)
    except ConfigError as exc:
        raise ConfigError(where, duplicates + exc.problems) from None
    if duplicates:
        raise ConfigError(where, duplicates)
    return config
