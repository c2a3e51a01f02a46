"""What a committee can be: checked before any member is drawn
(:func:`check_committee`: identical members, memory, a grid's cells left
out) and on its first members (:func:`check_first_members`: they must be
able to do the task).  :mod:`committee.learners.members` re-exports every
name here.
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path
from typing import Sequence

from committee.errors import ConfigError, PlausibilityWarning, RunError
from committee.learners.draws import sample_size


# --------------------------------------------------------------------------
# what a committee can be, checked before any member is drawn


def _ratio_list(ratios: Sequence[float]) -> str:
    return ", ".join(str(r) for r in ratios)


def identical_members(size: int, templates: Sequence[str], ratios: Sequence[float],
                      n_train: int | None = None) -> str | None:
    """Why a committee's members cannot differ, or None when they can.

    With one template, and ratios that each give a sample of every training
    sentence (ratio 1.0; any ratio when ``n_train`` is so small that the
    sample rounds up to all of it), every member trains on the same data with
    the same features: K > 1 members are copies of one model (with a
    shuffling algorithm, up to the order it visits the sentences), and every
    difficulty is 0 or 1.  ``n_train`` None: only ratio 1.0 counts as full.

    >>> identical_members(6, ["F2"], [1.0])[:45]
    'the 6 members would be identical: with the on'
    >>> identical_members(6, ["F2"], [0.9], n_train=5)[:45]
    'the 6 members would be identical: with the on'
    >>> identical_members(1, ["F2"], [1.0]), identical_members(6, ["F1", "F2"], [1.0])
    (None, None)
    """
    full = [r for r in ratios if (r >= 1.0 if n_train is None
                                  else sample_size(r, n_train) >= n_train)]
    if size < 2 or len(templates) != 1 or len(full) != len(ratios):
        return None
    every = "every training sentence" if n_train is None else f"all {n_train} training sentences"
    return (f"the {size} members would be identical: with the one template {templates[0]} and "
            f"ratio{'s' * (len(ratios) > 1)} {_ratio_list(ratios)}, each trains on {every}, so "
            "every difficulty would be 0 or 1; add ratios below 1 (the paper draws from 0.1, "
            "0.2, 0.3) or more templates, or set committee.size: 1")


def grid_left_out(size: int, templates: Sequence[str], ratios: Sequence[float]) -> list[str]:
    """The cells ``template × ratio`` that ``draw: grid`` gives no member when
    ``size`` is below ``len(templates) * len(ratios)``, in grid order.

    >>> grid_left_out(7, ["F1", "F2", "F3"], [0.1, 0.3, 0.5])
    ['F3 × 0.3', 'F3 × 0.5']
    >>> grid_left_out(9, ["F1", "F2", "F3"], [0.1, 0.3, 0.5])
    []
    """
    cells = [f"{t} × {r}" for t in templates for r in ratios]
    return cells[size:]


#: Bytes per member a run holds once its members are assembled, per test
#: word and per test character (each member's marks and segmentation, read
#: back and stacked), and for its records: measured on 100 to 2,000 members
#: of 2k to 100k test words (docs/method.md §3, "Bounds").
BYTES_PER_WORD, BYTES_PER_CHAR, BYTES_PER_MEMBER = 2, 2, 2048


def memory_needed(size: int, n_words: int, n_chars: int) -> int:
    """Bytes of memory a committee of ``size`` members needs for its marks
    and segmentations of ``n_words`` test words of ``n_chars`` characters.

    >>> memory_needed(90, 104_372, 172_733)
    50063220
    """
    return size * (BYTES_PER_WORD * n_words + BYTES_PER_CHAR * n_chars + BYTES_PER_MEMBER)


def physical_memory() -> int | None:
    """This machine's memory in bytes, or the container's limit when lower
    (cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``); None when
    unknown."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            sizes.append(int(Path(limit).read_text().strip()))
        except (OSError, ValueError):  # absent, or "max": no limit
            pass
    sizes = [n for n in sizes if n > 0]
    return min(sizes) if sizes else None


def _size(n: int) -> str:
    """Bytes for a message: ``3.2 GB``, ``512 MB``."""
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def check_committee(size: int, templates: Sequence[str], ratios: Sequence[float], draw: str,
                    *, n_train: int, n_words: int, n_chars: int, where: str) -> None:
    """Refuse, before any member is drawn, a committee that cannot fit in
    memory or whose members would be identical (:class:`ConfigError` named
    ``where``); warn when ``draw: grid`` leaves cells of the grid out.

    The memory needed is :func:`memory_needed`; it must not exceed
    :func:`physical_memory` (a run that swaps or is killed by the kernel's
    out-of-memory killer after hours of training helps no one).
    """
    problem = identical_members(size, templates, ratios, n_train)
    if problem is not None:
        raise ConfigError(where, [f"committee.ratios: {problem}"])
    need, have = memory_needed(size, n_words, n_chars), physical_memory()
    if have is not None and need > have:
        fit = max(0, have // memory_needed(1, n_words, n_chars))
        raise ConfigError(where, [
            f"committee.size: {size} members need about {_size(need)} of memory for their marks "
            f"and segmentations of the {n_words:,} test words ({n_chars:,} characters), more "
            f"than the {_size(have)} this machine has; lower committee.size (at most {fit:,} "
            "fit) or score a smaller test set"])
    left = grid_left_out(size, templates, ratios) if draw == "grid" else []
    if left:
        cells = len(templates) * len(ratios)
        warnings.warn(PlausibilityWarning(
            f"{where}: committee.size: draw: grid with {size} members covers {size} of the "
            f"{cells} cells of templates × ratios; left out: {', '.join(left)} (raise "
            f"committee.size to {cells}, or use draw: random)"), stacklevel=2)


# --------------------------------------------------------------------------
# the first members


#: A committee whose first members score a median f1 below this is stopped:
#: CRF segmenters trained on a tenth of any real corpus score 0.8 and more
#: (docs/results.md); below 0.5 the corpora were read wrongly, or the
#: members train on too few sentences.
MIN_MEDIAN_F1 = 0.5

#: How many members are finished before :func:`check_first_members` judges.
FIRST_MEMBERS = 3

#: Members trained on fewer sentences than this are too small to judge a
#: test set by: on People's Daily, CRFs (F2, L-BFGS, 100 iterations) score
#: a median f1 of 0.46 on 1 or 2 sentences, 0.56 on 5, 0.59 on 10, 0.66 on
#: 20 and 0.77 on 100 (docs/method.md §10).
SMALL_SAMPLE = 20


def _samples(samples: Sequence[tuple[int, float]], n_train: int) -> str:
    """The members' samples in a few words.

    >>> _samples([(2, 0.3), (1, 0.1), (1, 0.2)], 5), _samples([(2, 0.1)], 20)
    ('1 to 2 sentences (10% to 30% of 5)', '2 sentences (10% of 20)')
    """
    sizes = sorted({k for k, _ in samples})
    ratios = sorted({r for _, r in samples})
    size = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
    share = f"{ratios[0]:.0%}" if len(ratios) == 1 else f"{ratios[0]:.0%} to {ratios[-1]:.0%}"
    return f"{size} sentence{'s' * (sizes[-1] != 1)} ({share} of {n_train})"


def check_first_members(f1s: Sequence[float | None], size: int, train: str = "the training corpus",
                        test: str = "the test corpus",
                        samples: Sequence[tuple[int, float]] = (), n_train: int | None = None,
                        *, task=None) -> bool:
    """Stop a committee whose first members cannot segment the test set.

    Parameters
    ----------
    f1s : sequence of float or None
        f1 of the members finished so far (None: undefined).
    size : int
        Members in the committee.
    train, test : str
        How messages name the two corpora (e.g. their config keys and files).
    samples : sequence of (int, float)
        The same members' training sample sizes and ratios; with ``n_train``
        (the training sentences), samples all below :data:`SMALL_SAMPLE` are
        named as the likely cause.

    Returns
    -------
    bool
        True once judged (``min(FIRST_MEMBERS, size)`` members finished and
        their median f1 is at least :data:`MIN_MEDIAN_F1`, or the ``task``'s
        own ``min_median_f1``); False while
        too few are finished.

    Raises
    ------
    RunError
        The median f1 is below :data:`MIN_MEDIAN_F1`.

    Examples
    --------
    >>> check_first_members([0.91], 12), check_first_members([0.91, 0.9, 0.93], 12)
    (False, True)
    >>> check_first_members([0.06, 0.05, 0.07], 12, "corpus.train raw.txt (sighan, utf-8)")
    Traceback (most recent call last):
    ...
    committee.errors.RunError: the first 3 members of 12 score a median f1 of 0.060 (below 0.5): they cannot segment the test set, so every word would look hard; are the format and encoding of corpus.train raw.txt (sighan, utf-8) and the test corpus right? Fix the config and rerun with --restart
    >>> check_first_members([0.3, 0.35, 0.4], 12, "corpus.train t.txt (sighan, utf-8)",
    ...                     samples=[(2, 0.3), (1, 0.1), (1, 0.2)], n_train=5)
    Traceback (most recent call last):
    ...
    committee.errors.RunError: the first 3 members of 12 score a median f1 of 0.350 (below 0.5): they cannot segment the test set, so every word would look hard; they train on 1 to 2 sentences (10% to 30% of 5), too few to learn segmentation from (fewer than 20): give corpus.train t.txt (sighan, utf-8) more sentences (hundreds or more) or raise committee.ratios, then rerun with --restart
    """
    if len(f1s) < min(FIRST_MEMBERS, size):
        return False
    values = sorted(v if isinstance(v, (int, float)) and math.isfinite(v) else 0.0 for v in f1s)
    n = len(values)
    median = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
    least = MIN_MEDIAN_F1 if task is None else task.min_median_f1
    if median >= least:
        return True
    does, unit, what = (("segment the test set", "word", "segmentation") if task is None
                        else (task.does, task.unit, task.learns))
    head = (f"the first {n} members of {size} score a median f1 of {median:.3f} (below "
            f"{least}): they cannot {does}, so every {unit} would look hard; ")
    if samples and n_train is not None and max(k for k, _ in samples) < SMALL_SAMPLE:
        raise RunError(
            f"{head}they train on {_samples(samples, n_train)}, too few to learn {what} "
            f"from (fewer than {SMALL_SAMPLE}): give {train} more sentences (hundreds or more) "
            "or raise committee.ratios, then rerun with --restart")
    raise RunError(
        f"{head}are the format and encoding of {train} and {test} right? Fix the config and "
        "rerun with --restart")
