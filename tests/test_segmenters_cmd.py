"""``--with 'cmd:COMMAND'``: a user's own segmenter, run as a command that
reads one sentence per line on stdin and writes it segmented on stdout;
every way it can fail is one line naming the command."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

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
     "wrote 1 line for 2 sentences (its output ends after line 1 of 2); its stderr is empty"),
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

    from committee.pipeline import workflow
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


def test_a_config_names_segmenters_but_never_a_command(tmp_path):
    """A command is named on the command line only (docs/security.md)."""
    from committee.errors import ConfigError
    from committee.report.rundata import check_experiments

    cfg = _experiments_config(tmp_path, '[snownlp]')
    assert cfg.experiments.segmenters == ("snownlp",)
    check_experiments(cfg, ["ranking"])
    with pytest.raises(ConfigError) as caught:
        _experiments_config(tmp_path, '[jieba, "cmd:python3 -m my.seg --fast"]')
    assert caught.value.problems == [
        "experiments.segmenters[1]: 'cmd:python3 -m my.seg --fast': a config never names a "
        "command (files are data, docs/security.md); name it on the command line: --with "
        "'cmd:python3 -m my.seg --fast'"]


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


# --------------------------------------------------------------------------
# supervision: the command's process group, its output's bound, its time


def _live_group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that are not zombies, read from /proc
    (a zombie has ended; an init that does not reap keeps it listed)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                text = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            fields = text[text.rfind(b")") + 2:].split()
            if fields[0] not in (b"Z", b"X") and int(fields[2]) == pgid:
                found.append(int(name))
    return found


def _wait_for(path: Path, timeout: float = 60) -> str:
    """The content of ``path`` once a command has written a line to it."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().endswith("\n")):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.02)
    return path.read_text()


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def _cli(args, capsys):
    code = cli.main(args)
    return code, capsys.readouterr().err


def test_endless_output_is_stopped_at_its_bound(user, capsys):
    d, _ = user  # 2 sentences of 6 and 8 characters: 44 bytes with their newlines
    code, err = _cli(["segment", "--with", "cmd:yes x y z", str(d / "test.txt"), "-o",
                      str(d / "out.txt"), "--quiet"], capsys)
    assert (code, err) == (3, "committee: error: cmd:yes x y z: wrote more than 1,048,752 bytes "
                              "for 44 bytes of input (an endless output?); stopped it; its "
                              "stderr is empty\n")
    assert segmenters.output_limit(44) == 4 * 44 + 2 ** 20
    assert not (d / "out.txt").exists()


def test_a_hung_command_is_stopped_after_its_timeout(user, capsys):
    d, _ = user
    started = time.monotonic()
    code, err = _cli(["segment", "--with", "cmd:sh -c 'echo loading model... >&2; sleep 60'",
                      "--timeout", "1", str(d / "test.txt"), "-o", str(d / "out.txt")], capsys)
    assert time.monotonic() - started < 30  # not the 60 s of its sleep
    assert code == 3
    # with progress on, a bar shows the command at work until it is stopped
    *bar, line = err.rstrip("\n").split("\n")
    assert "0/2" in "".join(bar)
    assert line == ("committee: error: cmd:sh -c 'echo loading model... >&2; sleep 60': no "
                    "answer after 1 s (--timeout); stopped it; its stderr ends: loading model...")


def test_a_command_that_writes_before_it_reads_does_not_block():
    """1 MB on stderr before it reads 95 kB of input (more than a pipe
    holds), then its output: fed and read at once, the tail of stderr kept."""
    script = ("import sys; sys.stderr.write('e' * 1_000_000 + '\\nlast words\\n'); "
              "sys.stderr.flush(); sys.stdout.write(sys.stdin.read()); sys.exit(1)")
    seg = segmenters.command(f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}",
                             timeout=120)  # a deadlock fails, not hangs
    with pytest.raises(SegmenterFailed) as caught:
        segmenters.segment(seg, ["约翰喜欢玛丽"] * 5000)
    tail = " | last words"
    assert str(caught.value).endswith(f": exited with status 1; its stderr ends: …"
                                      f"{'e' * (300 - len(tail))}{tail}")


@needs_proc
def test_a_command_ignoring_sigterm_is_killed_after_the_grace(tmp_path):
    pgfile = tmp_path / "group"
    seg = segmenters.command(f"sh -c 'trap \"\" TERM; echo $$ > {pgfile}; sleep 60'",
                             timeout=0.5)
    started = time.monotonic()
    with pytest.raises(SegmenterFailed, match=r": no answer after 0\.5 s \(timeout\); stopped "
                                              r"it; its stderr is empty$"):
        segmenters.segment(seg, ["约翰"])
    assert time.monotonic() - started < 30  # SIGKILL after the grace, not the sleep's end
    assert _live_group(int(_wait_for(pgfile))) == []


@pytest.mark.parametrize("value", ["0", "-1", "nan", "soon"])
def test_a_timeout_is_a_positive_number(user, capsys, value):
    d, name = user
    code, err = _cli(["segment", "--with", name, "--timeout", value, str(d / "test.txt"), "-o",
                      str(d / "out.txt")], capsys)
    assert (code, err) == (2, f"committee: error: --timeout: expected a number > 0, got "
                              f"{value!r} (see 'committee segment --help')\n")


def test_timeout_in_the_api_and_the_parsers():
    with pytest.raises(ValueError, match=r"^command: timeout must be a real number in "
                                         r"\(0, inf\), got 0$"):
        segmenters.command("cat", timeout=0)
    with pytest.raises(SegmenterFailed, match=r"^cmd:sleep 60: no answer after 0\.5 s "
                                              r"\(timeout\); stopped it; its stderr is empty$"):
        segmenters.segment(segmenters.load("cmd:sleep 60", timeout=0.5), ["约翰"])
    parser = cli.build_parser()
    for args in (["segment", "--with", "jieba", "t.txt", "-o", "o.txt"], ["report", "run"],
                 ["run", "c.yaml"]):
        assert parser.parse_args(args + ["--timeout", "2.5"]).timeout == 2.5
        assert parser.parse_args(args).timeout is None


def test_the_reports_commands_have_the_configs_timeout_or_the_flags(user, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from committee.pipeline import workflow
    from committee.config import load_config
    from toyrun import make_toy_corpus, write_config

    make_toy_corpus(tmp_path)
    cfg = write_config(tmp_path / "toy.yaml", tmp_path, tmp_path / "run", size=2,
                       backend="sequential", iterations=3)
    out = workflow.run(load_config(cfg), progress=False)
    report = ["report", str(out), "--only", "ranking", "--quiet", "--with", "cmd:sleep 60"]
    code, err = _cli(report + ["--set", "experiments.command_timeout=1"], capsys)
    assert (code, err) == (3, "committee: error: cmd:sleep 60: no answer after 1 s "
                              "(experiments.command_timeout); stopped it; its stderr is empty\n")
    code, err = _cli(report + ["--set", "experiments.command_timeout=100", "--timeout", "0.5"],
                     capsys)
    assert (code, err) == (3, "committee: error: cmd:sleep 60: no answer after 0.5 s "
                              "(--timeout); stopped it; its stderr is empty\n")


def test_a_config_refuses_a_timeout_that_is_not_positive(tmp_path):
    from committee.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        _experiments_config(tmp_path, "[]\n" + " " * 10 + "command_timeout: 0")
    assert caught.value.problems == ["experiments.command_timeout: must be > 0, got 0"]
    cfg = _experiments_config(tmp_path, "[]\n" + " " * 10 + "command_timeout: 30")
    assert cfg.experiments.command_timeout == 30


@needs_proc
def test_a_child_holding_the_output_open_is_stopped_after_a_grace(user, capsys):
    """The command exits, a child it left in the background holds its
    standard output: committee waits a short grace, not for the child."""
    d, _ = user
    pidfile = d / "child.pid"
    started = time.monotonic()
    code, err = _cli(["segment", "--with", f"cmd:sh -c 'sleep 60 & echo $! > {pidfile}; cat'",
                      str(d / "test.txt"), "-o", str(d / "out.txt"), "--quiet"], capsys)
    assert time.monotonic() - started < 30  # not the 60 s of the child
    assert code == 0, err
    assert corpus.read_corpus(d / "out.txt").words == [["约翰喜欢玛丽"], [], ["计算机总是有问题"]]
    child = int(pidfile.read_text())
    assert not Path(f"/proc/{child}").exists() or b") Z" in Path(
        f"/proc/{child}/stat").read_bytes()


def _terminal_signals() -> None:
    """In the child: the stop signals as a terminal leaves them (a test run
    in a script's background would hand them down ignored)."""
    for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


@needs_proc
@pytest.mark.parametrize("signum, code, word", [
    (signal.SIGTERM, 143, "terminated (SIGTERM)"), (signal.SIGHUP, 129, "hung up (SIGHUP)")])
def test_a_stopped_committee_leaves_nothing_of_its_command(user, signum, code, word):
    """SIGTERM or SIGHUP to ``committee segment`` alone while its command
    (and a child of the command) runs: the whole group of the command ends."""
    d, _ = user
    pgfile = d / "group"
    cmd = f"cmd:sh -c 'sleep 60 & echo $$ > {pgfile}; wait'"
    proc = subprocess.Popen([sys.executable, "-m", "committee", "segment", "--with", cmd,
                             str(d / "test.txt"), "-o", str(d / "out.txt"), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_terminal_signals)
    try:
        pgid = int(_wait_for(pgfile))  # the command's shell leads its own group
        assert len(_live_group(pgid)) == 2  # the shell and its sleep
        os.kill(proc.pid, signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (proc.returncode, err) == (code, f"committee: {word}; finished work is kept\n")
    assert _live_group(pgid) == []


@needs_proc
def test_an_interrupt_in_the_api_stops_the_commands_group(tmp_path):
    """KeyboardInterrupt (Ctrl-C in a notebook) while a command runs: it
    reaches the caller once the command's group is stopped."""
    pgfile = tmp_path / "group"
    seg = segmenters.load(f"cmd:sh -c 'sleep 60 & echo $$ > {pgfile}; wait'")

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with pytest.raises(KeyboardInterrupt):
            segmenters.segment(seg, ["约翰"])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _live_group(int(_wait_for(pgfile))) == []


def test_a_large_model_goes_by_its_size_and_time(tmp_path):
    """A file over 64 MiB that a command names is not read for its version
    (a sparse 8 GiB model here): its size and modification time stand for it."""
    model = tmp_path / "model.bin"
    with open(model, "wb") as f:
        f.truncate(8 << 30)
    name = f"cmd:./seg --model {model}"
    version = segmenters.load(name).version
    assert segmenters.load(name).version == version
    st = model.stat()
    os.utime(model, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert segmenters.load(name).version != version


@pytest.mark.parametrize("script, expected", [
    ("$d", "wrote 39 lines for 40 sentences (its output ends after line 39 of 40)"),
    ("17d", "wrote 39 lines for 40 sentences (line 17 of its input is the first whose "
            "characters differ)"),
    ("$p", "wrote 41 lines for 40 sentences (its output spells the 40 lines of its input, "
           "then has 1 more line)"),
    ("d", "wrote 0 lines for 40 sentences (its output is empty)"),
], ids=["last-missing", "17th-missing", "one-more", "none"])
def test_a_wrong_count_names_a_line_of_the_input(toy_corpus, tmp_path, capsys, script,
                                                 expected):
    test = toy_corpus / "test.txt"
    assert len(test.read_text(encoding="utf-8").splitlines()) == 40
    code, err = _cli(["segment", "--with", f"cmd:sed {script}", str(test), "-o",
                      str(tmp_path / "out.txt"), "--quiet"], capsys)
    assert (code, err) == (3, f"committee: error: cmd:sed {script}: {expected}; its stderr is "
                              "empty\n")


# a user's entity tagger: TOKEN/TAG items, one a character, all O; TAGGER_BAD=ITEM puts
# ITEM first on the second sentence it reads
TAGGER = textwrap.dedent("""\
    import os, sys
    bad = os.environ.get("TAGGER_BAD")
    for n, line in enumerate(sys.stdin, 1):
        items = [c + "/O" for c in line.rstrip("\\n")]
        if bad is not None and n == 2:
            items[0] = bad
        print(" ".join(items))
    """)


@pytest.mark.parametrize("bad, why", [
    ("/B-PER", "its token is empty"), ("玛/", "its tag is empty"), ("玛", "it has no /")],
    ids=["empty-token", "empty-tag", "no-slash"])
def test_a_taggers_item_that_is_not_token_slash_tag_names_its_line(tmp_path, monkeypatch, bad,
                                                                   why):
    script = tmp_path / "ner.py"
    script.write_text(TAGGER, encoding="utf-8")
    name = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    tagger = segmenters.load_tagger(name)
    texts, lines = ["约翰", "", "玛丽去北京"], [4, 5, 6]
    assert segmenters.tag(tagger, texts, "t.txt", lines) == (
        [["约", "翰"], [], list("玛丽去北京")], [["O", "O"], [], ["O"] * 5])
    monkeypatch.setenv("TAGGER_BAD", bad)
    with pytest.raises(InputError) as caught:
        segmenters.tag(tagger, texts, "t.txt", lines)
    assert str(caught.value) == (f"t.txt:6: {name} wrote the item {bad!r}, which is not "
                                 f"TOKEN/TAG ({why})")


def test_the_progress_of_an_endless_command_stops_at_its_total():
    """``yes`` writes far more lines than it was given sentences: its bar
    stops at the sentences' count, and the outcome says overflow."""
    from tqdm import tqdm

    from committee.system import commands

    with tqdm(total=2, disable=False, file=open(os.devnull, "w")) as bar:
        outcome = commands.run(["yes", "x y z"], b"a\nb\n", limit=1 << 16, bar=bar)
        assert outcome.why == "overflow" and outcome.out.count(b"\n") > 2
        assert bar.n == 2
