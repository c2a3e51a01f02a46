"""The config's sections (docs/config.md): corpus, committee, parallel,
output and the whole :class:`Config`; ``crf`` is in
:mod:`committee.config.crfsection`, ``experiments`` in
:mod:`committee.config.experiments`."""

from __future__ import annotations

import codecs
import hashlib
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, StringConstraints, Strict, field_validator, \
    model_serializer, model_validator

from committee import crf
from committee.config.base import (_NAME_PATTERN, NonEmptyStr, Ratio, StrictBool, StrictInt,
                                   _absolute, _no_duplicates, _problem, _Section, _show)
from committee.config.crfsection import CrfConfig, _resolve_crf
from committee.config.experiments import ExperimentsConfig
from committee.corpus import FORMATS
from committee.features import TEMPLATES
from committee.members import DRAWS, identical_members
from committee.parallel import BACKENDS


NORMALIZATIONS = ("nfkc", "fullwidth")
BUILTINS = ("peoples-daily-1998",)
SPLITS = ("train", "test")

#: Bumped whenever :meth:`Config.recipe` changes shape, so that old and new
#: fingerprints never collide.
FINGERPRINT_VERSION = 2


# --------------------------------------------------------------------------
# corpus


class CorpusSource(_Section):
    """One corpus file, or one split of a built-in corpus.

    Exactly one of ``path`` and ``builtin`` is given.  A path source has a
    ``format`` (default ``sighan``) and an ``encoding`` (default ``utf-8``);
    a built-in source has a ``split`` and is in ``pku`` format.
    """

    path: NonEmptyStr | None = None
    """a corpus file (relative to corpus.root); give path or builtin"""
    builtin: Literal[BUILTINS] | None = None
    """a built-in corpus instead of a file"""
    split: Literal[SPLITS] | None = None
    """the split of the built-in corpus (required with builtin)"""
    format: Literal[FORMATS] = "sighan"
    """the file's format (docs/formats.md); pku for a built-in corpus"""
    encoding: NonEmptyStr | None = None
    """the file's encoding, any Python codec name (utf-8 for a file; none for a built-in corpus)"""
    normalization: Literal[NORMALIZATIONS] | None = None
    """characters normalized before use; the same for train and test"""

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
    """base directory of relative paths (itself relative to the working directory); null: the
    working directory"""
    train: CorpusSource
    """the training corpus: {path: FILE, format: F, encoding: E} or {builtin: NAME, split: train}"""
    test: CorpusSource
    """the test corpus, scored and given difficulties (same form as train)"""
    train_words: NonEmptyStr | None = None
    """word list (one a line) that defines OOV words; null: the words of train"""
    allow_overlap: Annotated[bool, Strict()] = False
    """true: a test set with the very words of the training set is a warning, not an error"""

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




#: Largest ``committee.size``: over a hundred times the paper's 90 members,
#: whose difficulties have settled long before (docs/results.md); each
#: member trains a CRF (10 s to a minute on a real corpus: 10,000 of them
#: take days).  The memory a committee needs is checked once the test set is
#: read (:func:`committee.members.check_committee`).
MAX_SIZE = 10_000


class CommitteeConfig(_Section):
    size: Annotated[int, Strict(), Field(ge=1)] = 90
    """number of members K (at most 10000)"""
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
# parallel, output


class ParallelConfig(_Section):
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
    """the run directory (relative to the working directory)"""
    keep_models: StrictBool = False
    """keep each member's CRF model file"""



# --------------------------------------------------------------------------
# the whole config




class Config(_Section):
    """A validated run configuration (immutable).

    Relative paths are resolved against ``corpus.root``, itself resolved
    against the working directory at the time the config was validated.
    """

    name: Annotated[str, Strict(), StringConstraints(pattern=_NAME_PATTERN)]
    """the run's name: letters, digits, '.', '_', '-'"""
    corpus: CorpusConfig
    """the corpora"""
    committee: CommitteeConfig = Field(default_factory=CommitteeConfig)
    """the committee's recipe"""
    crf: CrfConfig = Field(default_factory=dict, validate_default=True)
    """the members' CRF: a preset, an algorithm and its parameters"""
    parallel: ParallelConfig = Field(default_factory=ParallelConfig)
    """how members run in parallel (does not change the outputs)"""
    output: OutputConfig
    """where the run is written"""
    experiments: ExperimentsConfig = Field(default_factory=ExperimentsConfig)
    """the paper's analyses the report adds after the committee (committee.experiments)"""

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

