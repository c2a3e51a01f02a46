"""Fuzzing with Hypothesis (issue 5): random bytes and random near-text through
every reader, random segmentations and difficulties through the scorer and
through ``committee score``.  Nothing may escape but :class:`InputError`,
and every score is in [0, 1] (``er`` >= 0) or reported undefined (None).

Bounded and derandomised: the same examples on every run, well under 30 s.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from committee import cli
from committee.corpus import FORMATS, Corpus, read_corpus, read_word_list
from committee.pipeline.difficulty import read_weight, read_weight_c
from committee.errors import InputError, PlausibilityWarning, UndefinedMetricWarning
from committee.metrics import METRICS, Collector, compute
from committee.metrics.significance import bootstrap

#: Bootstraps over a handful of sentences are the point of these tests; the
#: warning that they are too few is tested in tests/test_hostile_usage.py.
pytestmark = pytest.mark.filterwarnings(
    "ignore:bootstrap over:committee.errors.PlausibilityWarning")

FUZZ = settings(max_examples=300, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# characters that exercise every parser: separators, slashes, brackets, tabs,
# tags, comment marks, CoNLL-U ids, controls, CR, BOM, full-width forms,
# astral characters, combining and NFKC-folded characters
ALPHABET = list("我爱北京天安门的人 \u3000\t/[]BMESIbmesix#1-.0_\r\n\x00\x85\ufeffＡ，①¨😀\u0301a")
near_text = st.text(alphabet=ALPHABET, max_size=120)
garbage = st.one_of(st.binary(max_size=200), near_text.map(lambda s: s.encode("utf-8")),
                    near_text.map(lambda s: s.encode("utf-8", errors="replace")[:40] + bytes([0xff])))

SAFE = "我爱北京天安门的人好😀Ａ，①"
safe_word = st.text(alphabet=SAFE, min_size=1, max_size=4)
noise = st.sampled_from(list("/[]\t #-.\x00\r\u3000") + ["]nt", "/", "\n"])


@st.composite
def structured(draw, fmt):
    """Text shaped like ``fmt``, with a malformation now and then."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        words = draw(st.lists(safe_word, min_size=1, max_size=5))
        if fmt == "sighan":
            lines.append(" ".join(words))
        elif fmt == "pku":
            toks = [f"{w}/{draw(st.sampled_from(['n', 'v', 'i', '']))}" for w in words]
            if toks and draw(st.booleans()):
                a = draw(st.integers(0, len(toks) - 1))
                toks[a] = "[" + toks[a]
                b = draw(st.integers(a, len(toks) - 1))
                toks[b] += "]nt"
            lines.append(" ".join(toks))
        elif fmt == "char-slash":
            toks = []
            for w in words:
                tags = "S" if len(w) == 1 else "B" + "M" * (len(w) - 2) + "E"
                toks += [f"{c}/{draw(st.sampled_from([t, t.lower(), 'I', 'X']))}"
                         if draw(st.integers(0, 9)) == 0 else f"{c}/{t}" for c, t in zip(w, tags)]
            lines.append(" ".join(toks))
        elif fmt == "char-tsv":
            for w in words:
                tags = "S" if len(w) == 1 else "B" + "M" * (len(w) - 2) + "E"
                lines += [f"{c}\t{t}" for c, t in zip(w, tags)]
            lines.append("")
        else:  # conllu
            if draw(st.booleans()):
                lines.append("# text = " + "".join(words))
            for i, w in enumerate(words, 1):
                ident = draw(st.sampled_from([str(i), str(i), f"{i}-{i + 1}", f"{i}.1"]))
                lines.append("\t".join([ident, w, "_", "NOUN", "_", "_", "0", "_", "_", "_"]))
            lines.append("")
    text = "\n".join(lines)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):  # malformations
        if text:
            i = draw(st.integers(0, len(text)))
            text = text[:i] + draw(noise) + text[i:]
    return text


GOLD = Corpus("gold.txt", [["约翰", "喜欢", "玛丽"], [], ["我", "爱", "北京"]], [1, 2, 3])


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


def _check_corpus(c: Corpus) -> None:
    assert len(c.words) == len(c.lines)
    assert c.lines == sorted(c.lines)
    for sentence in c.words:
        for w in sentence:
            assert isinstance(w, str) and w and w.split() == [w]
    if c.pos is not None:
        assert [len(s) for s in c.pos] == [len(s) for s in c.words]


@FUZZ
@given(data=st.data(), fmt=st.sampled_from(FORMATS),
       encoding=st.sampled_from(["utf-8", "gb18030", "big5hkscs", "utf-8-sig"]),
       normalization=st.sampled_from([None, "nfkc", "fullwidth"]))
def test_readers_raise_only_input_error(scratch, data, fmt, encoding, normalization):
    path = scratch / "c.txt"
    def encode(t):
        try:
            return t.encode(encoding)
        except UnicodeEncodeError:
            return t.encode("utf-8")

    text = data.draw(st.one_of(garbage, structured(fmt).map(encode)))
    path.write_bytes(text)
    try:
        with warnings.catch_warnings():  # garbage may well look like mojibake: that warning is right
            warnings.simplefilter("ignore", PlausibilityWarning)
            c = read_corpus(path, format=fmt, encoding=encoding, normalization=normalization)
    except InputError as e:
        assert str(e).startswith(str(path)) and "\n" not in str(e)
        event("InputError")
    else:
        _check_corpus(c)
        event("read")


@FUZZ
@given(data=garbage, normalization=st.sampled_from([None, "nfkc"]))
def test_word_list_raises_only_input_error(scratch, data, normalization):
    path = scratch / "w.txt"
    path.write_bytes(data)
    try:
        with warnings.catch_warnings():  # entries with inner whitespace or controls are kept, with a warning
            warnings.simplefilter("ignore", PlausibilityWarning)
            words = read_word_list(path, normalization=normalization)
    except InputError as e:
        assert str(e).startswith(str(path))
    else:
        assert all(w and "\n" not in w and w.strip(" \t\u3000") == w for w in words)


numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                    st.sampled_from(["0", "1", "0.5", "-0", "1e-3", "nan", "inf", "1_0", "０.５",
                                     "", " ", "\t", "x", "1.0.0"]))
weight_text = st.lists(st.lists(numbers, max_size=8).map(" ".join), max_size=5).map(
    lambda lines: "\n".join(lines))


def shaped_weights(per_char):
    """Lines with GOLD's value counts (per word or per character), any tokens."""
    counts = ([sum(map(len, s)) for s in GOLD.words] if per_char
              else [len(s) for s in GOLD.words])
    value = st.one_of(st.floats(0, 1).map(repr), numbers)
    return st.tuples(*[st.lists(value, min_size=n, max_size=n) for n in counts]).map(
        lambda lines: "".join(" ".join(v) + "\n" for v in lines).encode("utf-8"))


@FUZZ
@given(data=st.data(), per_char=st.booleans())
def test_weight_readers_raise_only_input_error(scratch, data, per_char):
    path = scratch / "g.weight"
    path.write_bytes(data.draw(st.one_of(garbage, weight_text.map(lambda s: s.encode("utf-8")),
                                         shaped_weights(per_char))))
    reader = read_weight_c if per_char else read_weight
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = reader(path, GOLD)
    except InputError as e:
        assert str(e).startswith(str(path))
        event("InputError")
    else:
        event("read")
        n = sum(len(w) for s in GOLD.words for w in s) if per_char else GOLD.n_words()
        assert d.shape == (n,) and np.isfinite(d).all() and (0 <= d).all() and (d <= 1).all()


# --------------------------------------------------------------------------
# the scorer


@st.composite
def segmentations(draw):
    """Gold and output segmentations of the same random sentences, with
    difficulties, a vocabulary and empty sentences now and then."""
    sentences = draw(st.lists(st.text(alphabet="我爱北京天安门的人好😀", max_size=12), max_size=8))

    def cut(text):
        if not text:
            return []
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=len(text))))
        cuts = [c for c in cuts if 0 < c < len(text)]
        bounds = [0, *cuts, len(text)]
        return [text[a:b] for a, b in zip(bounds, bounds[1:])]

    gold = [cut(s) for s in sentences]
    pred = [cut(s) for s in sentences]
    n = sum(map(len, gold))
    K = draw(st.sampled_from([1, 3, 90]))
    d = draw(st.one_of(
        st.lists(st.floats(0, 1), min_size=n, max_size=n),
        st.lists(st.integers(0, K).map(lambda k: k / K), min_size=n, max_size=n),
        st.just([0.0] * n), st.just([1.0] * n)))
    vocab = draw(st.sets(st.sampled_from([w for s in gold for w in s] or ["好"]), max_size=6))
    return gold, pred, np.array(d, dtype=np.float64), vocab


def _in_range(values: dict) -> None:
    for key in METRICS:
        v = values[key]
        if v is None:
            continue
        assert math.isfinite(v), key
        if key == "er":
            assert v >= 0
        else:
            assert 0 <= v <= 1 + 1e-12, (key, v)
    for v in values["recall_by_bin"] or []:
        assert v is None or 0 <= v <= 1


@settings(max_examples=300, derandomize=True, deadline=None)
@given(segmentations(), st.booleans(), st.booleans())
def test_every_score_in_range_or_undefined(case, with_d, with_vocab):
    gold, pred, d, vocab = case
    g = Corpus("gold.txt", gold, list(range(1, len(gold) + 1)))
    p = Corpus("out.txt", pred, list(range(1, len(pred) + 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        scorer = Collector(g, difficulty=d if with_d else None,
                        train_words=vocab if with_vocab else None)
        stats = scorer.collect(p)
        values = compute(stats)
        _in_range(values)
        if g.words:
            for key, (lo, hi) in bootstrap(stats, n=20, seed=1).items():
                assert (lo is None) == (hi is None) == (values[key] is None), key
                if lo is not None and key != "er":
                    assert 0 <= lo <= hi <= 1 + 1e-12, key
    # a perfect output gets 1 wherever a metric is defined (er: 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        perfect = compute(scorer.collect(g))
    for key in ("p", "r", "f1", "pb", "rb", "fb", "boundary_f1", "tnr"):
        assert perfect[key] is None or perfect[key] == pytest.approx(1.0), key


# --------------------------------------------------------------------------
# committee score end to end


def _main(argv):
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def _sighan(words) -> bytes:
    return "".join(" ".join(s) + "\n" for s in words).encode("utf-8")


@st.composite
def score_files(draw):
    """(gold bytes, output bytes, weight bytes or None): garbage, or a real
    gold and output of the same text, with a mishap now and then."""
    if draw(st.integers(0, 3)) == 0:
        return draw(garbage), draw(garbage), None
    gold, pred, d, _ = draw(segmentations())
    gold_b, pred_b = _sighan(gold), _sighan(pred)
    mishap = draw(st.sampled_from([None, None, None, "blank", "drop", "char", "noise"]))
    if mishap == "blank":
        pred_b += b"\n"
    elif mishap == "drop" and pred:
        pred_b = _sighan(pred[:-1])
    elif mishap == "char":
        pred_b = pred_b.replace("我".encode(), "Ａ".encode(), 1)
    elif mishap == "noise":
        i = draw(st.integers(0, len(pred_b)))
        pred_b = pred_b[:i] + draw(noise).encode() + pred_b[i:]
    weight = None
    if draw(st.booleans()):
        it = iter(d.tolist())
        weight = "".join(" ".join(repr(next(it)) for _ in s) + "\n" for s in gold).encode()
    return gold_b, pred_b, weight


@settings(max_examples=150, derandomize=True, deadline=None)
@given(files=score_files(), bootstrap_n=st.sampled_from([0, 0, 10]))
def test_score_cli_on_garbage(files, bootstrap_n):
    gold, output, weight = files
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "gold.txt").write_bytes(gold)
        (d / "out.txt").write_bytes(output)
        argv = ["score", "--json", "--bootstrap", str(bootstrap_n), "--gold", str(d / "gold.txt")]
        if weight is not None:
            (d / "gold.weight").write_bytes(weight)
            argv += ["--difficulty", str(d / "gold.weight")]
        code, out, err = _main(argv + [str(d / "out.txt")])
    errors = [line for line in err.splitlines() if not line.startswith("committee: warning: ")]
    event(f"exit {code}")
    if code == 0:
        assert errors == []
        result = json.loads(out)
        for system in result["systems"]:
            _in_range(system)
    else:
        assert code == 3, err
        assert len(errors) == 1 and errors[0].startswith("committee: error: "), err
        assert out == ""


# --------------------------------------------------------------------------
# what a killed or tampered run leaves behind


@FUZZ
@given(data=st.one_of(garbage, st.fixed_dictionaries(
    {"template": st.sampled_from(["F1", "F2", 3]), "ratio": st.sampled_from([0.1, 0.2, "x"]),
     "n_gold": st.sampled_from([7, 8, -1]), "marks": st.sampled_from(["", "AA==", "/w==", "!!", 5])},
).map(lambda r: json.dumps(r).encode())))
def test_saved_member_files_never_crash_a_resume(scratch, data):
    """A member file is used when it is valid for this run, else retrained."""
    from committee.learners import members as members_mod
    from committee.pipeline import marks
    from committee.pipeline import layout

    member = members_mod.draw_member(0, 10, ("F1",), (0.1,), seed=0)
    path = layout.member_path(scratch, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    record = marks.load_member(scratch, member, n_gold=7)
    event("retrain" if record is None else "used")
    if record is not None:
        assert record["marks"].shape == (7,) and record["marks"].dtype == bool
