"""Every reader checks that a file looks like its format (docs/corpora.md).

The format matrix: each reader, given a file of every other known format,
refuses it with one line naming the format the file looks like.  Also: the
field's distributions as shipped (SIGHAN 2005 word lists, UD CoNLL-U with
multiword tokens, NLPCC 2016 ``.dat``), rebuilt as small synthetic files.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import public_corpora
from committee.corpus import FORMATS, LOOKS, read_corpus, read_word_list, sniff_format
from committee.corpus.formats import BY_NAME, TEXT_FORMATS
from committee.errors import FormatMismatchError, InputError, PlausibilityWarning

SENTENCES = [["迈向", "充满", "希望", "的", "新", "世纪"], ["中共中央", "总书记", "、", "国家", "主席"],
             ["我", "爱", "北京", "天安门"], ["计算机", "总是", "有", "问题"]]
POS = [["v", "v", "n", "u", "a", "n"], ["nt", "n", "w", "n", "n"], ["r", "v", "ns", "ns"], ["n", "d", "v", "n"]]
WORDS = ["计算机", "总是", "问题", "北京", "天安门", "希望", "世纪", "主席", "国家", "充满",
         "迈向", "中共中央", "总书记", "我", "爱", "有", "的", "新", "人民", "广播", "电台", "一心一意"]


def _bmes(w):
    return "S" if len(w) == 1 else "B" + "M" * (len(w) - 2) + "E"


def sample(fmt: str) -> str:
    """A small file of ``fmt`` (or ``"word-list"``) holding SENTENCES."""
    if fmt == "sighan":
        return "".join(" ".join(s) + "\n" for s in SENTENCES)
    if fmt == "pku":
        return "".join("  ".join(f"{w}/{p}" for w, p in zip(s, ps)) + "\n" for s, ps in zip(SENTENCES, POS))
    if fmt == "char-slash":
        return "".join(" ".join(f"{c}/{t}" for w in s for c, t in zip(w, _bmes(w))) + "\n" for s in SENTENCES)
    if fmt == "char-tsv":
        return "\n".join("".join(f"{c}\t{t}\n" for w in s for c, t in zip(w, _bmes(w))) for s in SENTENCES)
    if fmt == "underscore":
        return "".join(" ".join(f"{w}_{p}" for w, p in zip(s, ps)) + "\n" for s, ps in zip(SENTENCES, POS))
    if fmt in ("conllu", "conllu-xpos"):
        blocks = []
        for k, (s, ps) in enumerate(zip(SENTENCES, POS), 1):
            rows = [f"# sent_id = {k}", f"# text = {''.join(s)}"]
            rows += [f"{i}\t{w}\t{w}\t{p.upper()}\t{p}\t_\t0\tdep\t_\t_" for i, (w, p) in enumerate(zip(s, ps), 1)]
            blocks.append("\n".join(rows) + "\n")
        return "\n".join(blocks)
    if fmt == "bio":  # well-formed IOB2: words of three characters or more are entities
        return "\n".join("".join(f"{w}\t{'B-ORG' if len(w) > 2 else 'O'}\n" for w in s) for s in SENTENCES)
    assert fmt == "word-list"
    return "".join(w + "\n" for w in WORDS)


#: The formats of lines (tables: tests/test_table_corpora.py)
KINDS = [*TEXT_FORMATS, "word-list"]


def _read(path: Path, kind: str):
    if kind == "word-list":
        return read_word_list(path)
    return read_corpus(path, format=kind)


@pytest.mark.parametrize("kind", KINDS)
def test_each_sample_reads_as_its_own_format(tmp_path, kind):
    f = tmp_path / "f.txt"
    f.write_text(sample(kind), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _read(f, kind)
    if kind == "word-list":
        assert got == set(WORDS)
    else:
        assert got.words == SENTENCES
    shape = BY_NAME[kind].shape or kind  # conllu-xpos reads CoNLL-U lines
    assert sniff_format(sample(kind).split("\n"))[0] == shape


@pytest.mark.parametrize("kind", ["pku", "underscore", "conllu", "conllu-xpos"])
def test_the_tagged_formats_keep_their_tags(tmp_path, kind):
    f = tmp_path / "f.txt"
    f.write_text(sample(kind), encoding="utf-8")
    want = [[p.upper() for p in ps] for ps in POS] if kind == "conllu" else POS
    assert read_corpus(f, format=kind).pos == want


@pytest.mark.parametrize("reader", KINDS)
@pytest.mark.parametrize("actual", KINDS)
def test_format_matrix(tmp_path, reader, actual):
    if reader == actual or {reader, actual} == {"conllu", "conllu-xpos"}:
        return  # the same lines (conllu-xpos reads another column of them)
    f = tmp_path / "f.txt"
    f.write_text(sample(actual), encoding="utf-8")
    with pytest.raises(FormatMismatchError) as e:
        _read(f, reader)
    err = e.value
    actual = BY_NAME[actual].shape or actual  # conllu-xpos looks like conllu
    assert (err.detected, err.given) == (actual, reader)
    assert f"looks like {LOOKS[actual]}, read as {reader}: " in str(err)
    assert "\n" not in str(err) and str(err).startswith(f"{f}:")
    if actual == "bio":  # entity tags: another task, not only another format
        assert str(err).endswith(": its tags are entities; score them with --task ner (in a "
                                 "config: task: ner and format: bio)")
    elif "word-list" not in (reader, actual):
        assert str(err).endswith(f": set --format {actual}")


def test_conllu_read_as_sighan_the_reported_quirk(tmp_path):
    # a UD training file given with format: sighan used to give one
    # "sentence" per token line and a committee at f1 0.06
    f = tmp_path / "train.conllu"
    f.write_text(sample("conllu"), encoding="utf-8")
    with pytest.raises(FormatMismatchError) as e:
        read_corpus(f, format="sighan", fix="corpus.train.{key}: {value}")
    assert str(e.value) == (f"{f}:1: looks like CoNLL-U (10 tab-separated columns), read as sighan: "
                            "set corpus.train.format: conllu")
    assert e.value.detected == "conllu" and e.value.line == 1
    cli = e.value.rephrase(lambda key, value: f"--gold-{key} {value}")
    assert str(cli).endswith("read as sighan: set --gold-format conllu")
    assert isinstance(cli, InputError) and cli.exit_code == 3


def test_word_list_given_as_training_corpus(tmp_path):
    f = tmp_path / "pku_training_words.utf8"
    f.write_text(sample("word-list"), encoding="utf-8")
    with pytest.raises(FormatMismatchError, match=r"looks like a word list \(one short word a line\), "
                                                   r"read as sighan: give it as the word list, not as a corpus"):
        read_corpus(f)


def test_raw_text_is_not_a_word_list(tmp_path):
    # unsegmented sentences, one a line: a (bad) output, not a word list
    f = tmp_path / "raw.txt"
    f.write_text("".join("".join(s) + "\n" for s in SENTENCES * 6), encoding="utf-8")
    assert read_corpus(f).words == [["".join(s)] for s in SENTENCES * 6]


def test_malformed_pku_line_still_gets_the_token_error(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("约翰/nr 喜欢/v\n约翰/nr 喜欢\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"c\.txt:2: token '喜欢' has no '/'") as e:
        read_corpus(f, format="pku")
    assert not isinstance(e.value, FormatMismatchError)


def test_single_char_pku_tokens_are_not_char_slash(tmp_path):
    # PKU POS tags m, b, e, s look like BMES tags on one-character words
    f = tmp_path / "c.txt"
    f.write_text("一/m 二/m\n三/m 个/q 人民/n\n", encoding="utf-8")
    assert read_corpus(f, format="pku").words == [["一", "二"], ["三", "个", "人民"]]


# ----------------------------------------------------------- word lists as shipped


def test_as_word_list_with_a_control_character(tmp_path):
    # as_training_words.utf8:3461 holds U+0080 at column 4; it used to be refused
    words = [f"词{i}" for i in range(3460)]
    odd = "ＩＢＭ\x80"
    f = tmp_path / "as_training_words.utf8"
    f.write_text("\n".join([*words, odd, "好"]) + "\n", encoding="utf-8")
    with pytest.warns(PlausibilityWarning) as w:
        got = read_word_list(f)
    assert odd in got and len(got) == 3462
    assert [str(x.message) for x in w] == [
        f"{f}: 1 entry holds inner whitespace or a control character, kept whole as one word each "
        f"(first: line 3461, 'ＩＢＭ\\x80')"]


def test_cityu_word_list_with_inner_whitespace(tmp_path):
    # cityu_training_words.utf8:20423 is 'Phang\u3000Nga'; it used to be refused
    words = [f"詞{i}" for i in range(20422)]
    f = tmp_path / "cityu_training_words.utf8"
    f.write_text("\n".join([*words, "Phang\u3000Nga", "布吉 島", "香港"]) + "\n", encoding="utf-8")
    with pytest.warns(PlausibilityWarning) as w:
        got = read_word_list(f)
    assert {"Phang\u3000Nga", "布吉 島", "香港"} <= got and len(got) == 20425
    assert len(w) == 1
    assert str(w[0].message) == (f"{f}: 2 entries hold inner whitespace or a control character, kept whole "
                                 "as one word each (first: line 20423, 'Phang\\u3000Nga')")


def test_word_list_still_refuses_nul_and_old_mac_line_ends(tmp_path):
    f = tmp_path / "w.txt"
    f.write_bytes("计算机\n问\x00题\n".encode("utf-8"))
    with pytest.raises(InputError, match=r"w\.txt:2: binary data\? control character U\+0000 at column 2"):
        read_word_list(f)
    f.write_bytes("计算机\r问题\r有\r".encode("utf-8"))
    with pytest.raises(InputError, match=r"w\.txt:1: carriage return inside a line"):
        read_word_list(f)


# ----------------------------------------------------------- UD and NLPCC as shipped


def test_conllu_multiword_tokens_and_empty_nodes(tmp_path):
    f = tmp_path / "zh.conllu"
    f.write_text("# newdoc id = d1\n# sent_id = 1\n# text = 他们的书\n"
                 "1-2\t他们的\t_\t_\t_\t_\t_\t_\t_\t_\n"
                 "1\t他们\t他们\tPRON\t_\t_\t3\tdet\t_\tTranslit=tāmen\n"
                 "2\t的\t的\tPART\t_\t_\t1\tcase\t_\t_\n"
                 "2.1\t有\t有\tVERB\t_\t_\t_\t_\t0:root\t_\n"
                 "3\t书\t书\tNOUN\t_\t_\t0\troot\t_\tSpaceAfter=No\n\n", encoding="utf-8")
    c = read_corpus(f, format="conllu")
    assert c.words == [["他们", "的", "书"]] and c.pos == [["PRON", "PART", "NOUN"]] and c.lines == [1]


@pytest.mark.corpora
@public_corpora.needs("nlpcc2016-weibo", "dev.dat")
@public_corpora.needs("ud-chinese-gsdsimp", "dev.conllu")
def test_real_corpora_read_as_their_format_and_refused_as_another():
    dat = public_corpora.find("nlpcc2016-weibo", "dev.dat") / "dev.dat"
    ud = public_corpora.find("ud-chinese-gsdsimp", "dev.conllu") / "dev.conllu"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(read_corpus(dat)) == 2052
        assert len(read_corpus(ud, format="conllu")) == 500
    with pytest.raises(FormatMismatchError, match=r"dev\.conllu:1: looks like CoNLL-U"):
        read_corpus(ud)
    with pytest.raises(FormatMismatchError, match=r"dev\.dat:1: looks like sighan .* read as conllu"):
        read_corpus(dat, format="conllu")


# --------------------------------------------------------------------------
# one record per format

DOCS = Path(__file__).resolve().parents[1] / "docs" / "corpora.md"
PACKAGE = Path(__file__).resolve().parents[1] / "committee"

#: A toy format, added as one record (and its parser) to a copy of the
#: package: words separated by ``|``.
TOY_PARSER = '''
def _parse_toy(path, lines, norm):
    return [s.split("|") if s else [] for s in lines], list(range(1, len(lines) + 1)), None


'''
TOY_RECORD = '''    Format("toy", _parse_toy, lambda s: "|" in s, -1,
           looks="toy (words separated by |)", what="words separated by `|`"),
'''

TOY_CHECKS = r'''
import contextlib, io, json, sys
from pathlib import Path
import committee.corpus as corpus
from committee.cli import main
from committee.config import load_config
from committee.corpus.formats import format_table
from committee.errors import FormatMismatchError

d = Path(sys.argv[1])
(d / "toy.txt").write_text("迈向|充满|希望\n\n新|世纪\n", encoding="utf-8")
out = {"formats": list(corpus.FORMATS), "table": format_table()}
c = corpus.read_corpus(d / "toy.txt", format="toy")
out["words"] = c.words
out["sniffed"] = corpus.sniff_format(["迈向|充满|希望", "新|世纪"])
try:
    corpus.read_corpus(d / "toy.txt", format="sighan")
except FormatMismatchError as e:
    out["mismatch"] = str(e).replace(str(d), "D")
try:
    corpus.read_corpus(d / "toy.txt", format="nope")
except ValueError as e:
    out["unknown"] = str(e)
help_text = io.StringIO()
with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
    main(["score", "--help"])
out["help"] = " ".join(help_text.getvalue().split())
with contextlib.redirect_stdout(io.StringIO()) as so, contextlib.redirect_stderr(io.StringIO()):
    main(["score", str(d / "toy.txt"), "--gold", str(d / "toy.txt"), "--format", "toy",
          "--gold-format", "toy", "--json"])
out["score_f1"] = json.loads(so.getvalue())["systems"][0]["f1"]
(d / "cfg.yaml").write_text(f"""
name: toy
corpus:
  root: {d}
  train: {{path: toy.txt, format: toy}}
  test: {{path: toy.txt, format: toy}}
output: {{dir: {d / "out"}}}
""", encoding="utf-8")
out["config_format"] = load_config(d / "cfg.yaml").corpus.train.format
print(json.dumps(out, ensure_ascii=False))
'''


def _with_toy_format(tmp_path: Path) -> Path:
    """A copy of the package whose formats module has one more record."""
    import shutil

    root = tmp_path / "pkg"
    shutil.copytree(PACKAGE, root / "committee", ignore=shutil.ignore_patterns("__pycache__"))
    formats = root / "committee" / "corpus" / "formats.py"
    text = formats.read_text(encoding="utf-8")
    anchor = "#: Every format, in the order"
    end = "\n)\n\n#: The records by name."
    assert text.count(anchor) == 1 and text.count(end) == 1
    text = text.replace(anchor, TOY_PARSER.lstrip("\n") + anchor)
    text = text.replace(end, "\n" + TOY_RECORD.rstrip("\n") + end)
    formats.write_text(text, encoding="utf-8")
    return root


def test_a_format_is_one_record(tmp_path):
    """A record added to ``formats.RECORDS`` (and nothing else) makes the
    format readable by name, sniffed, refused as another format, listed in
    the errors, the command line's choices and help, the config's values
    and the table of docs/corpora.md."""
    import json
    import os
    import subprocess
    import sys

    root = _with_toy_format(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", TOY_CHECKS, str(tmp_path)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["formats"] == [*FORMATS, "toy"]
    assert got["words"] == [["迈向", "充满", "希望"], [], ["新", "世纪"]]
    assert got["sniffed"] == ["toy", 1]
    assert got["mismatch"] == ("D/toy.txt:1: looks like toy (words separated by |), "
                               "read as sighan: set --format toy")
    assert got["unknown"] == f"unknown corpus format 'nope'; valid: {', '.join(FORMATS)}, toy"
    # argparse may wrap the help at a hyphen (conllu-xpos): compared without spaces
    assert (f"{', '.join(FORMATS)}, toy (default: sighan".replace(" ", "")
            in got["help"].replace(" ", ""))
    assert got["score_f1"] == 1.0
    assert got["config_format"] == "toy"
    assert got["table"].endswith("| `toy` | words separated by `|` | no |\n")


def test_the_docs_list_every_format():
    """docs/corpora.md's format table is the one the records give."""
    from committee.corpus.formats import format_table

    table = format_table()
    assert table in DOCS.read_text(encoding="utf-8"), (
        "docs/corpora.md: replace the format table with\n" + table)
    assert [line.split("`")[1] for line in table.splitlines()[2:]] == list(FORMATS)


def test_the_sniffing_order_follows_the_records():
    """The records' precedence orders the line tests and the claims: a
    line that two formats would claim gets the earlier one."""
    from dataclasses import replace

    from committee.corpus import formats, sniffing

    line = "1\t迈\t迈\tV\t_\t_\t0\troot\t_\t_"
    assert sniffing.line_shape(line) == "conllu"
    catch_all = formats.Format("all", None, lambda s: True, -1, looks="", what="")
    order = (catch_all, *formats.SNIFF_ORDER)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sniffing, "SNIFF_ORDER", order)
        assert sniffing.line_shape(line) == "all"
        assert sniffing.sniff_format([line]) == ("all", 1)
        mp.setattr(sniffing, "SNIFF_ORDER", (*formats.SNIFF_ORDER, replace(catch_all, precedence=9)))
        assert sniffing.line_shape(line) == "conllu"
