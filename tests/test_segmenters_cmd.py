"""``--with 'cmd:COMMAND'``: a user's own segmenter, run as a command that
reads one sentence per line on stdin and writes it segmented on stdout;
every way it can fail is one line naming the command."""

from __future__ import annotations

import shlex
import sys
import textwrap

import pytest

from committee import cli, corpus, segmenters
from committee.errors import InputError
from committee.segmenters import SegmenterFailed

# a user's segmenter: words of two characters, the last one alone when odd;
# BIGRAMS_FAIL=1 makes it fail as a missing model would, BIGRAMS_DROP=N drops line N
SCRIPT = textwrap.dedent("""\
    import os, sys
    if os.environ.get("BIGRAMS_FAIL"):
        print("loading model...", file=sys.stderr)
        sys.exit("bigrams: cannot open model.bin: No such file or directory")
    drop = int(os.environ.get("BIGRAMS_DROP", "0"))
    for n, line in enumerate(sys.stdin, 1):
        text = line.rstrip("\\n")
        if n != drop:
            print("  ".join(text[i:i + 2] for i in range(0, len(text), 2)))
    """)


@pytest.fixture
def user(tmp_path):
    script = tmp_path / "bigrams.py"
    script.write_text(SCRIPT, encoding="utf-8")
    test = tmp_path / "test.txt"
    test.write_text("约翰  喜欢  玛丽\n\n计算机  总是  有  问题\n", encoding="utf-8")
    return tmp_path, f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def _segment(d, name, capsys):
    code = cli.main(["segment", "--with", name, str(d / "test.txt"), "-o", str(d / "out.txt"),
                     "--quiet"])
    return code, capsys.readouterr().err


def test_a_users_command_segments_through_cmd(user, capsys):
    d, name = user
    code, err = _segment(d, name, capsys)
    assert code == 0, err
    assert corpus.read_corpus(d / "out.txt").words == [
        ["约翰", "喜欢", "玛丽"], [], ["计算", "机总", "是有", "问题"]]
    assert err.startswith("wrote ") and " segmented by bigrams cmd " in err


def test_the_api_loads_a_command_and_names_it_by_its_script(user):
    _, name = user
    seg = segmenters.load(name)
    assert (seg.name, seg.command) == ("bigrams", name[len("cmd:"):])
    assert segmenters.segment(seg, ["", "我爱北京天安门", ""]) == [
        [], ["我爱", "北京", "天安", "门"], []]
    assert seg.cut("我爱北京") == ["我爱", "北京"]


def test_an_edited_script_is_a_new_version(user):
    d, name = user
    before = segmenters.load(name).version
    assert segmenters.load(name).version == before
    (d / "bigrams.py").write_text(SCRIPT + "# tuned\n", encoding="utf-8")
    assert segmenters.load(name).version != before and before.startswith("cmd ")


@pytest.mark.parametrize("env, expected", [
    (("BIGRAMS_FAIL", "1"),
     "exited with status 1; its stderr ends: loading model... | bigrams: cannot open "
     "model.bin: No such file or directory"),
    # the empty sentence is not sent: the command's input has 2 lines, the 2nd dropped
    (("BIGRAMS_DROP", "2"),
     "wrote 1 lines for 2 sentences (the first that differs is line 2 of its input); "
     "its stderr is empty"),
], ids=["fails", "drops-a-line"])
def test_a_failing_command_is_one_line_with_its_stderr_tail(user, capsys, monkeypatch, env,
                                                            expected):
    d, name = user
    monkeypatch.setenv(*env)
    code, err = _segment(d, name, capsys)
    assert code == 3
    assert err == f"committee: error: {name}: {expected}\n"
    assert not (d / "out.txt").exists()


def test_a_command_not_found_is_one_line(user, capsys):
    d, _ = user
    code, err = _segment(d, "cmd:no-such-segmenter --fast", capsys)
    assert (code, err) == (3, "committee: error: cmd:no-such-segmenter --fast: command not "
                              "found: no-such-segmenter\n")


def test_a_command_that_changes_characters_is_refused_naming_it(tmp_path):
    script = tmp_path / "t2s.py"
    script.write_text("import sys\nfor line in sys.stdin:\n"
                      "    print(line.rstrip('\\n').replace('約', '约'))\n", encoding="utf-8")
    seg = segmenters.load(f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    with pytest.raises(InputError, match=r"^test.txt:5: cmd:.*t2s.py changed the characters "
                                         r"at character 1: its output has '约' where the text "
                                         r"has '約'$"):
        segmenters.segment(seg, ["约翰", "約翰"], "test.txt", [4, 5])


def test_output_that_is_not_utf8_is_one_line():
    seg = segmenters.command(f"{shlex.quote(sys.executable)} -c "
                             f"\"import sys; sys.stdout.buffer.write(b'\\\\xff\\\\n')\"")
    with pytest.raises(SegmenterFailed, match=r"its output is not UTF-8 \(byte 1\)"):
        segmenters.segment(seg, ["约翰"])


def test_a_command_killed_by_a_signal_says_so():
    seg = segmenters.command(f"{shlex.quote(sys.executable)} -c "
                             "\"import os, signal; os.kill(os.getpid(), signal.SIGKILL)\"")
    with pytest.raises(SegmenterFailed, match=r": killed by signal 9; its stderr is empty$"):
        segmenters.segment(seg, ["约翰"])


def test_no_sentence_runs_no_command():
    seg = segmenters.command("no-such-segmenter")
    assert segmenters.segment(seg, ["", ""]) == [[], []]


@pytest.mark.parametrize("argv, name", [
    (["./bin/crf_seg"], "crf_seg"),
    (["/usr/bin/python3", "-u", "seg.py"], "seg"),
    (["python", "-m", "my.seg"], "my.seg"),
    (["node", "--max-old-space-size=4096", "/x/seg.js", "--model", "m"], "seg"),
    (["java", "-jar", "stanford.jar"], "stanford"),  # -jar takes the next word
    (["bash"], "bash"),
    (["seg tool"], "seg_tool"),
])
def test_command_names_are_readable_and_file_safe(argv, name):
    assert segmenters.command_name(argv) == name


def test_the_report_ranks_users_commands_by_their_scripts_names(user, tmp_path):
    pytest.importorskip("matplotlib")
    import pandas as pd

    from committee import workflow
    from committee.config import load_config
    from toyrun import make_toy_corpus, write_config

    _, name = user
    make_toy_corpus(tmp_path)
    cfg = write_config(tmp_path / "toy.yaml", tmp_path, tmp_path / "run", size=2,
                       backend="sequential", iterations=3)
    out = workflow.run(load_config(cfg), progress=False)
    assert cli.main(["report", str(out), "--only", "ranking", "--quiet", "--with", name,
                     "--with", name + " --beam 4"]) == 0
    systems = pd.read_csv(out / "report/systems.csv")
    assert list(systems["system"]) == ["bigrams", "bigrams-2"]
    seg = corpus.read_corpus(out / "report/systems/bigrams.txt").words
    assert all(len(w) <= 2 for s in seg for w in s) and len(seg) == 40
    assert (out / "report/systems/bigrams.json").is_file()


def _experiments_config(tmp_path, segmenters_yaml: str):
    from committee.config import load_config

    path = tmp_path / "c.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: t
        corpus:
          train: {{builtin: peoples-daily-1998, split: train}}
          test: {{builtin: peoples-daily-1998, split: test}}
        committee: {{size: 3}}
        output: {{dir: {tmp_path / 'run'}}}
        experiments:
          segmenters: {segmenters_yaml}
        """), encoding="utf-8")
    return load_config(path)


def test_a_config_names_a_users_command_as_a_segmenter(tmp_path):
    from committee.report.rundata import check_experiments

    cfg = _experiments_config(tmp_path, '[jieba, "cmd:python3 -m my.seg --fast"]')
    assert cfg.experiments.segmenters == ("jieba", "cmd:python3 -m my.seg --fast")
    check_experiments(cfg, ["ranking"])  # a command is checked when it runs, not here


def test_a_config_refuses_an_unknown_name_and_an_empty_command(tmp_path):
    from committee.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        _experiments_config(tmp_path, '[jeiba, "cmd: "]')
    lines = str(caught.value).splitlines()[1:]
    assert lines == [
        "  experiments.segmenters[0]: unknown value 'jeiba' (did you mean 'jieba'?); expected one "
        f"of: {', '.join(segmenters.SEGMENTERS)} (a command: --with 'cmd:COMMAND' on the "
        "command line)",
        "  experiments.segmenters[1]: 'cmd: ': a config never names a command (files are data, "
        "docs/security.md); name it on the command line: --with 'cmd: '"]
