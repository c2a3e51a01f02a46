"""`committee score` output, byte for byte, against golden files.

The files in ``tests/data/score/`` are a four-sentence gold with its
difficulties, two outputs, a training word list and a training corpus.  The
golden outputs ``score*.json``, ``score-bootstrap.txt`` and
``score-bootstrap.stderr`` were written by the scorer before it became a layer
over the Python API (``committee.score``); this test proves that its output
did not change.  A golden file is never regenerated to make this test pass:
a difference is a change in behaviour to explain.

The one change since: every system of ``--json`` gained ``error_types``
(docs/metrics.md, "Error types"), checked here against counts worked out by
hand; the rest of the output is compared with that key taken out.

A bootstrap over fewer than 30 sentences now warns once, before the other
warnings (docs/metrics.md, "Too few sentences"): the golden standard error
is expected after that line (:data:`FEW_SENTENCES`).  Each warning of a
metric undefined in some resamples now starts with the output it is about,
in the order the outputs are given (:func:`_named_warnings`): the golden
file has the same line twice, one per output, which read as one repeated
line.

And the signature's ``oov:words=`` field is now the checksum of the
vocabulary's words (sorted, one a line, UTF-8) instead of the file's bytes,
so that the same words in another encoding or file give the same
signature (docs/metrics.md); :func:`_vocabulary_field` works it out from
the files independently of the package and puts it in place of the
recorded one.

And the signature's ``difficulty:sha256=`` field is now the checksum of the
difficulty values (their little-endian float64 bytes, gold word order)
instead of the ``.weight`` file's bytes, so that the same difficulties
given as ``.weight``, as ``.weight_c`` or in memory sign the same
(docs/metrics.md); :func:`_difficulty_field` works it out from the file
independently of the package and puts it in place of the recorded one.
These two fields are the only differences from the golden files.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import pytest

from committee.cli import main

DATA = Path(__file__).resolve().parent / "data" / "score"
BASE = ["out-a.txt", "out-b.txt", "--gold", "gold.txt", "--difficulty", "gold.weight"]

CASES = {
    "score.json": [*BASE, "--train-words", "train-words.txt", "--json"],
    "score-bootstrap.json": [*BASE, "--train", "train.txt", "--bootstrap", "200", "--seed", "7",
                             "--json"],
    "score-bootstrap.txt": [*BASE, "--train-words", "train-words.txt", "--bootstrap", "200",
                            "--seed", "7"],
    "score-plain.json": ["out-b.txt", "--gold", "gold.txt", "--json"],
}


#: By hand.  out-a: sentence 2 merges 有 and 问题 into 有问题; sentence 4
#: (他 说 的确 实在 理) merges 的 into 的确 and crosses 确实 and 在理.
#: out-b: 约翰喜欢 merges two words, 计算 机 splits 计算机, 我爱 and 北京天安门
#: merge two words each.  17 gold words in all.
ERROR_TYPES = {
    "out-a": {"correct": 12, "split": 0, "merged": 3, "crossed": 2},
    "out-b": {"correct": 10, "split": 1, "merged": 6, "crossed": 0},
}


#: The warning that the four-sentence gold is too small for the bootstrap.
FEW_SENTENCES = ("committee: warning: bootstrap over 4 sentences: intervals from fewer than 30 "
                 "sentences are too narrow to trust (docs/metrics.md, Bootstrap); score a test "
                 "set of at least 30 sentences for meaningful intervals\n")


#: The ``oov:words=`` field each golden file records (the files' bytes).
OLD_OOV = {"train-words.txt": "oov:words=5d9c7fb009ad", "train.txt": "oov:words=e6195d6b52ad"}


def _vocabulary_field(argv) -> tuple[str, str] | None:
    """``(old, new)`` ``oov:`` field of a case: the new one is the SHA-256
    of the distinct words of the word list (one a line) or of the training
    corpus (split on whitespace), sorted, each followed by a newline."""
    for flag in ("--train-words", "--train"):
        if flag in argv:
            name = argv[argv.index(flag) + 1]
            text = (DATA / name).read_text(encoding="utf-8")
            words = sorted(set(text.split()))
            digest = hashlib.sha256("".join(w + "\n" for w in words).encode("utf-8")).hexdigest()
            return OLD_OOV[name], f"oov:words={digest[:12]}"
    return None


#: The ``difficulty:sha256=`` field each golden file records (the file's bytes).
OLD_DIFFICULTY = "difficulty:sha256=4626a5690361"


def _difficulty_field(argv) -> tuple[str, str] | None:
    """``(old, new)`` ``difficulty:`` field of a case: the new one is the
    SHA-256 of the difficulty values as little-endian float64, in order."""
    if "--difficulty" not in argv:
        return None
    text = (DATA / argv[argv.index("--difficulty") + 1]).read_text(encoding="utf-8")
    values = [float(v) for v in text.split()]
    digest = hashlib.sha256(struct.pack(f"<{len(values)}d", *values)).hexdigest()
    return OLD_DIFFICULTY, f"difficulty:sha256={digest[:12]}"


def _named_warnings(stderr: str, outputs) -> str:
    """The golden standard error with the i-th warning line naming the i-th output."""
    lines = stderr.splitlines(keepends=True)
    assert len(lines) == len(outputs)
    prefix = "committee: warning: "
    return "".join(prefix + f"{o}: " + line[len(prefix):] for o, line in zip(outputs, lines))


@pytest.mark.parametrize("golden", sorted(CASES))
def test_score_output_is_unchanged(golden, monkeypatch, capsys):
    monkeypatch.chdir(DATA)  # paths in the output are as given on the command line
    assert main(["score", *CASES[golden]]) == 0
    out, err = capsys.readouterr()
    if golden.endswith(".json"):
        result = json.loads(out)
        for system in result["systems"]:
            assert system.pop("error_types") == ERROR_TYPES[system["name"]]
        out = json.dumps(result, ensure_ascii=False, indent=2) + "\n"
    expected = (DATA / golden).read_text(encoding="utf-8")
    field = _vocabulary_field(CASES[golden])
    if field is not None:
        assert field[0] in expected and field[1] != field[0]
        expected = expected.replace(*field)
    field = _difficulty_field(CASES[golden])
    if field is not None:
        assert field[0] in expected and field[1] != field[0]
        expected = expected.replace(*field)
    assert out == expected
    if golden == "score-bootstrap.json":
        golden_err = (DATA / "score-bootstrap.stderr").read_text(encoding="utf-8")
        assert err == FEW_SENTENCES + _named_warnings(golden_err, ["out-a.txt", "out-b.txt"])
