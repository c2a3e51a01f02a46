"""Checks of the values a user gives, at the command line and at the Python
API's boundary, so that a wrong value is named where it was given instead of
failing deep inside.

* :func:`cli_int`, :func:`cli_real`: ``type=`` functions of argparse.  A
  value that is not what the flag accepts is a usage error (exit 2) naming
  the flag: ``--seed: expected an integer >= 0, got '-1'``.
* :func:`require`, :func:`require_int`, :func:`require_real`,
  :func:`require_choice`, :func:`require_many`: the public functions check
  their arguments with these.  A value of the wrong type is a
  :class:`TypeError`, a value of the right type out of range a
  :class:`ValueError`; both name the function and the argument:
  ``compare: a must be a Scores (from committee.score), got NoneType``.
* :func:`parse_decimal`: the strict syntax of a number written in a file
  or on the command line (ASCII digits only).
* :func:`count`: a count with its noun, ``1 line``, ``2 lines``.

This module imports nothing heavy: the command line checks its arguments
before numpy is loaded.
"""

from __future__ import annotations

import argparse
import math
import numbers
import os
import re

__all__ = ["DECIMAL", "cli_int", "cli_real", "count", "got", "parse_decimal", "require",
           "require_choice", "require_int", "require_many", "require_real"]

#: A real number as it may be written in a file: ASCII digits, an optional
#: sign, decimal point and exponent (``0.5``, ``.5``, ``1.``, ``1e-05``).
#: Python's ``float()`` also reads ``0.3_3``, full-width ``０.５``, other
#: scripts' digits, ``nan`` and ``inf``; none of them is written by a
#: program that means a difficulty, so none is accepted.
DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

_INTEGER = re.compile(r"[+-]?[0-9]+")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, in the plural unless ``n`` is 1.

    >>> count(1, "line"), count(2, "line"), count(0, "member"), count(1, "entry", "entries")
    ('1 line', '2 lines', '0 members', '1 entry')
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def parse_decimal(text: str) -> float | None:
    """The value of ``text`` when it is a finite ASCII decimal number
    (:data:`DECIMAL`), else None.

    >>> [parse_decimal(t) for t in ("0.5", "1e-05", ".5", "0.3_3", "０.５", "nan", "inf", "")]
    [0.5, 1e-05, 0.5, None, None, None, None, None]
    """
    if DECIMAL.fullmatch(text) is None:
        return None
    value = float(text)
    return value if math.isfinite(value) else None  # 1e999 overflows to inf


def got(value) -> str:
    """How a message shows the value it refuses: the type, and the value
    itself when it is a short scalar.

    >>> got(None), got("10"), got(True), got([1, 2])
    ('NoneType', "str '10'", 'bool True', 'list')
    """
    kind = type(value).__name__
    if isinstance(value, (str, bytes, int, float)) and len(repr(value)) <= 40:
        return f"{kind} {value!r}"
    return kind


# --------------------------------------------------------------------------
# The Python API


def require(api: str, name: str, value, types, what: str, *, none: bool = False):
    """``value`` when it is an instance of ``types`` (or None with
    ``none``), else a :class:`TypeError` naming ``api`` and ``name``.

    >>> require("compare", "a", None, int, "a Scores (from committee.score)")
    Traceback (most recent call last):
    ...
    TypeError: compare: a must be a Scores (from committee.score), got NoneType
    """
    if (value is None and none) or (isinstance(value, types)
                                    and not (isinstance(value, bool) and bool not in _tuple(types))):
        return value
    raise TypeError(f"{api}: {name} must be {what}, got {got(value)}")


def _tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def require_int(api: str, name: str, value, minimum: int) -> int:
    """``value`` as an int when it is an integer (not a bool) >= ``minimum``.

    >>> require_int("score", "bootstrap", 10, 0)
    10
    >>> require_int("score", "bootstrap", "10", 0)
    Traceback (most recent call last):
    ...
    TypeError: score: bootstrap must be an integer >= 0, got str '10'
    >>> require_int("score", "seed", -1, 0)
    Traceback (most recent call last):
    ...
    ValueError: score: seed must be an integer >= 0, got -1
    """
    what = f"an integer >= {minimum}"
    require(api, name, value, numbers.Integral, what)
    if value < minimum:
        raise ValueError(f"{api}: {name} must be {what}, got {value!r}")
    return int(value)


def require_real(api: str, name: str, value, low: float, high: float, *,
                 open_ends: bool = False) -> float:
    """``value`` as a float when it is a real number (not a bool) in
    ``[low, high]`` (``(low, high)`` with ``open_ends``).

    >>> require_real("compare", "level", 2, 0, 1, open_ends=True)
    Traceback (most recent call last):
    ...
    ValueError: compare: level must be a real number in (0, 1), got 2
    """
    span = f"({low:g}, {high:g})" if open_ends else f"[{low:g}, {high:g}]"
    what = f"a real number in {span}"
    require(api, name, value, numbers.Real, what)
    x = float(value)
    inside = low < x < high if open_ends else low <= x <= high
    if not inside:  # nan is never inside
        raise ValueError(f"{api}: {name} must be {what}, got {value!r}")
    return x


def require_choice(api: str, name: str, value, choices, *, none: bool = False):
    """``value`` when it is one of ``choices`` (strings; or None with ``none``).

    >>> require_choice("score", "format", "sighan", ("sighan", "pku"))
    'sighan'
    >>> require_choice("score", "format", 5, ("sighan", "pku"))
    Traceback (most recent call last):
    ...
    TypeError: score: format must be one of 'sighan', 'pku', got int 5
    """
    names = ", ".join(map(repr, choices)) + (" or None" if none else "")
    require(api, name, value, str, f"one of {names}", none=none)
    if value is not None and value not in choices:
        raise ValueError(f"{api}: {name} must be one of {names}, got {value!r}")
    return value


def require_many(api: str, name: str, value, what: str) -> list:
    """``value`` as a list when it is a collection of several things (a
    list, tuple, ...); a string or a path, which would be taken apart
    character by character, is a :class:`TypeError`.

    >>> require_many("Scorer.score_all", "outputs", ("a.txt", "b.txt"), "a list of outputs")
    ['a.txt', 'b.txt']
    >>> require_many("Scorer.score_all", "outputs", "abc", "a list of outputs")
    Traceback (most recent call last):
    ...
    TypeError: Scorer.score_all: outputs must be a list of outputs, got str 'abc'
    """
    if isinstance(value, (str, bytes, os.PathLike)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{api}: {name} must be {what}, got {got(value)}")
    return list(value)


# --------------------------------------------------------------------------
# The command line


def cli_int(minimum: int, note: str = ""):
    """An argparse ``type=``: an integer of ASCII digits >= ``minimum``.

    >>> cli_int(0)("12")
    12
    >>> cli_int(0)("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer >= 0, got '-1'
    """
    def parse(text: str) -> int:
        try:
            value = int(text) if _INTEGER.fullmatch(text) else None
        except ValueError:  # more digits than Python converts
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}{note}, "
                                             f"got {text!r}")
        return value

    parse.__name__ = "integer"
    return parse


def cli_real(minimum: float, note: str = "", *, above: bool = False):
    """An argparse ``type=``: a finite ASCII decimal number >= ``minimum``
    (> ``minimum`` with ``above``).

    >>> cli_real(0)("0.3")
    0.3
    >>> cli_real(0)("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number >= 0, got 'nan'
    >>> cli_real(0, above=True)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number > 0, got '0'
    """
    def parse(text: str) -> float:
        value = parse_decimal(text)
        if value is None or value < minimum or (above and value == minimum):
            raise argparse.ArgumentTypeError(f"expected a number {'>' if above else '>='} "
                                             f"{minimum:g}{note}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse
