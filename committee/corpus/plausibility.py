"""Plausibility checks across input files: valid input that looks like a mistake.

Each check takes corpora already read (:class:`committee.corpus.Corpus`)
and warns (:class:`~committee.errors.PlausibilityWarning`) or raises
(:class:`~committee.errors.InputError`); callers decide when to run them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterable

from committee.system.arguments import count
from committee.corpus import Corpus, content_sha256
from committee.errors import caller_level, InputError, PlausibilityWarning

__all__ = ["Overlap", "OVERLAP_WARN_SHARE", "train_test_overlap", "check_train_test", "check_gold_output",
           "looks_like_output"]

#: A share of test sentences found verbatim in the training data above
#: which :func:`check_train_test` warns.  Test sets of the SIGHAN bakeoffs
#: share a few short sentences (headlines, dates) with their training
#: sets, well below this.
OVERLAP_WARN_SHARE = 0.2


@dataclass(frozen=True)
class Overlap:
    """Test sentences found verbatim (same characters) in the training data.

    Attributes
    ----------
    found : int
        Non-empty test sentences whose text is a training sentence's text.
    total : int
        Non-empty test sentences.
    identical : bool
        The two corpora hold the same words, sentence for sentence.
    """

    found: int
    total: int
    identical: bool

    @property
    def share(self) -> float:
        """``found / total`` (0.0 for no sentences)."""
        return self.found / self.total if self.total else 0.0


def _sha(c: Corpus) -> str:
    return c.content_sha256 or content_sha256(c.words)


def train_test_overlap(train: Corpus, test: Corpus) -> Overlap:
    """Count the test sentences that occur verbatim in the training corpus.

    Examples
    --------
    >>> tr = Corpus("train.txt", [["我", "爱"], ["北京"], ["天安门"]], [1, 2, 3])
    >>> te = Corpus("test.txt", [["我爱"], [], ["上海"]], [1, 2, 3])
    >>> o = train_test_overlap(tr, te)
    >>> o.found, o.total, o.share, o.identical
    (1, 2, 0.5, False)
    """
    seen = {"".join(s) for s in train.words if s}
    texts = ["".join(s) for s in test.words if s]
    found = sum(1 for t in texts if t in seen)
    return Overlap(found, len(texts), _sha(train) == _sha(test))


def check_train_test(train: Corpus, test: Corpus, allow_identical: bool = False) -> Overlap:
    """Refuse a test set that is the training set; warn on a large overlap.

    Parameters
    ----------
    train, test : Corpus
    allow_identical : bool
        Accept identical content (e.g. to measure a committee's fit on its
        own training data) with a warning instead of an error.

    Returns
    -------
    Overlap

    Raises
    ------
    InputError
        Same words, sentence for sentence, and ``allow_identical`` is False.

    Examples
    --------
    >>> tr = Corpus("train.txt", [["我", "爱"], ["北京"]], [1, 2])
    >>> check_train_test(tr, Corpus("test.txt", [["我", "爱"], ["北京"]], [1, 2]))
    Traceback (most recent call last):
    ...
    committee.errors.InputError: test.txt: holds the same words as the training corpus train.txt (train/test overlap 100%): a committee trained on its test set finds every word easy; give another test set
    """
    o = train_test_overlap(train, test)
    if o.identical:
        msg = (f"holds the same words as the training corpus {train.path} (train/test overlap 100%): "
               "a committee trained on its test set finds every word easy")
        if not allow_identical:
            raise InputError(test.path, None, msg + "; give another test set")
        warnings.warn(f"{test.path}: {msg}", PlausibilityWarning, stacklevel=caller_level())
    elif o.share > OVERLAP_WARN_SHARE:
        warnings.warn(
            f"{test.path}: {o.found} of its {count(o.total, 'sentence')} ({o.share:.1%}) "
            f"{'occurs' if o.found == 1 else 'occur'} verbatim in the "
            f"training corpus {train.path} (train/test overlap above {OVERLAP_WARN_SHARE:.0%}): "
            "is the test set held out from the training data?",
            PlausibilityWarning, stacklevel=caller_level(),
        )
    return o


def check_gold_output(gold: Corpus, output: Corpus, gold_sha256s: Iterable[str] = ()) -> None:
    """Warn when an output looks like the gold given in its place, or the reverse.

    Parameters
    ----------
    gold, output : Corpus
        As given by the user.
    gold_sha256s : iterable of str
        Content checksums (:attr:`Corpus.content_sha256`) known to be the
        gold of this test set, e.g. a run's ``test.txt``.

    Examples
    --------
    >>> import warnings
    >>> g = Corpus("gold.txt", [["我", "爱", "北京"]], [1])
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     check_gold_output(g, Corpus("out.txt", [["我", "爱", "北京"]], [1]))
    >>> print(w[0].message)
    out.txt: has the same words as the gold gold.txt (every score would be 1): was the gold given in place of the output?
    """
    g, o = _sha(gold), _sha(output)
    known = set(gold_sha256s)
    if g == o:
        warnings.warn(
            f"{output.path}: has the same words as the gold {gold.path} (every score would be 1): "
            "was the gold given in place of the output?",
            PlausibilityWarning, stacklevel=caller_level(),
        )
    elif o in known and g not in known:
        warnings.warn(
            f"{output.path}: has the words of the gold of this test set, and the gold {gold.path} does not: "
            "were the gold and the output given the wrong way round?",
            PlausibilityWarning, stacklevel=caller_level(),
        )


def looks_like_output(gold: Corpus, test: Corpus) -> bool:
    """Whether ``gold`` looks like a system output of the test set ``test``:
    the same text, sentence for sentence, segmented into other words.

    This is the evidence for "the gold and an output given the wrong way
    round": an output has the characters of its test set, and only its
    words differ.  A gold of other text belongs to another test set.

    Examples
    --------
    >>> test = Corpus("test.txt", [["我", "爱", "北京"]], [1])
    >>> looks_like_output(Corpus("out.txt", [["我爱", "北京"]], [1]), test)
    True
    >>> looks_like_output(Corpus("other.txt", [["上海"]], [1]), test)
    False
    >>> looks_like_output(test, test)  # the test set itself
    False
    """
    if len(gold.words) != len(test.words) or _sha(gold) == _sha(test):
        return False
    return all("".join(g) == "".join(t) for g, t in zip(gold.words, test.words))
