"""The signature of a score: what its numbers depend on, as one value.

Two scores with equal :class:`Signature` values (bootstrap aside) are
comparable: the same gold words, the same per-word difficulty values, the
same training vocabulary, the same normalisation and matching.  It is
built in one place, :func:`make_signature`, from the scored data itself
(never from file bytes), so the same difficulties given as ``.weight`` or
``.weight_c``, or in memory, sign the same.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np

from committee import __version__
from committee.corpus import content_sha256


def array_sha256(d) -> str:
    """Checksum of a difficulty vector: SHA-256 of its little-endian float64 bytes."""
    return hashlib.sha256(np.ascontiguousarray(d, dtype="<f8").tobytes()).hexdigest()


@dataclass(frozen=True)
class Signature:
    """What a score depends on (sacrebleu-style); ``str()`` is :meth:`format`.

    Attributes
    ----------
    gold : str or None
        SHA-256 of the gold's words written as SIGHAN UTF-8
        (:func:`committee.corpus.content_sha256`).
    match : str
        ``exact-span``: a unit is correct iff its span is a gold span;
        ``exact-entity``: iff its span and type are a gold entity's, the
        entities read by the conlleval rules (``exact-entity:strict-IOB2``:
        by the strict rules of a scheme).
    normalization : str or None
        Character normalisation applied identically to every file.
    difficulty : str or None
        SHA-256 of the per-word difficulty values (:func:`array_sha256`).
    vocabulary : str or None
        SHA-256 of the training vocabulary's distinct words, sorted, one a
        line (:func:`committee.corpus.word_list_sha256`).
    bootstrap, seed : int
        Resamples and seed of the confidence intervals (0: none).
    version : str
        The committee version that produced the numbers.
    """

    gold: str | None
    difficulty: str | None = None
    vocabulary: str | None = None
    normalization: str | None = None
    match: str = "exact-span"
    bootstrap: int = 0
    seed: int | None = None
    version: str = __version__

    def format(self, short: bool = True) -> str:
        """The ``|``-separated fields of docs/metrics.md; ``short`` cuts each
        checksum to 12 hex digits.

        >>> s = Signature("ef" * 32, difficulty="ab" * 32, vocabulary="cd" * 32)
        >>> s.format()[:-len(__version__)]
        'committee-score|gold:sha256=efefefefefef|match:exact-span|norm:none|difficulty:sha256=abababababab|oov:words=cdcdcdcdcdcd|version:'
        """
        def cut(sha: str) -> str:
            return sha[:12] if short else sha

        parts = ["committee-score"]
        if self.gold:
            parts.append(f"gold:sha256={cut(self.gold)}")
        parts.append(f"match:{self.match}")
        parts.append(f"norm:{self.normalization or 'none'}")
        parts.append(f"difficulty:sha256={cut(self.difficulty)}" if self.difficulty
                     else "difficulty:none")
        parts.append(f"oov:words={cut(self.vocabulary)}" if self.vocabulary else "oov:none")
        if self.bootstrap:
            parts.append(f"bootstrap:{self.bootstrap},seed={self.seed}")
        parts.append(f"version:{self.version}")
        return "|".join(parts)

    def __str__(self) -> str:
        return self.format()

    def base(self) -> "Signature":
        """The signature without its bootstrap: what makes two scores comparable."""
        return replace(self, bootstrap=0, seed=None)


def make_signature(gold_words, *, difficulty=None, vocabulary_sha256: str | None = None,
                   normalization: str | None = None, bootstrap: int = 0,
                   seed: int | None = None, tags=None, match: str = "exact-span") -> Signature:
    """The one builder of a :class:`Signature`: from the gold's words (and
    entity ``tags``), the difficulty vector (one value per gold word; for
    entities, their values then the per-character weights) and the
    checksum of the vocabulary's words.

    >>> a = make_signature([["我", "爱"]], difficulty=[0.5, 0.25])
    >>> a == make_signature([["我", "爱"]], difficulty=np.array([0.5, 0.25]))
    True
    >>> a == make_signature([["我爱"]], difficulty=[0.5])
    False
    """
    return Signature(gold=content_sha256(gold_words, tags),
                     difficulty=None if difficulty is None else array_sha256(difficulty),
                     vocabulary=vocabulary_sha256, normalization=normalization, match=match,
                     bootstrap=bootstrap, seed=seed if bootstrap else None)
