"""What ``-o FILE`` (``committee segment``) and every atomic write keep of
the file they replace, and which targets are refused (docs/security.md,
"What committee writes"; docs/errors.md, exit 2 and 6).

A replaced regular file keeps its mode, and its owner and group where the
process may keep them (root keeps them; another user gets one warning
line); a new file gets ``0o666`` less the umask; a missing directory is a
usage error and is never made; an empty path and a socket are usage
errors.  The owner tests need root (``chown`` to another user).
"""

from __future__ import annotations

import grp  # imported while root: python's own modules are root's to read
import os
import pwd
import socket
import stat
import tempfile
import warnings
from pathlib import Path

import pytest

from committee import cli
from committee.system import files

SENTENCES = "约翰  喜欢  玛丽\n\n计算机  总是  有  问题\n"
SEGMENTED = "约翰喜欢玛丽\n\n计算机总是有问题\n"  # what cmd:cat gives
NOBODY = 65534
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


@pytest.fixture
def sentences_file(tmp_path) -> Path:
    """test.txt: the test set a `committee segment` in these tests reads."""
    (tmp_path / "test.txt").write_text(SENTENCES, encoding="utf-8")
    return tmp_path / "test.txt"


def _cat(test: Path, output) -> list[str]:
    return ["segment", "--with", "cmd:cat", "--quiet", "-o", str(output), str(test)]


def _wrote(output) -> str:
    return f"wrote {output}: 3 sentences segmented by cat cmd "


def _mode_owner(path: Path) -> tuple[str, int, int]:
    st = os.lstat(path)
    return oct(stat.S_IMODE(st.st_mode)), st.st_uid, st.st_gid


def _names(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


# --------------------------------------------------------------------------
# a replaced file keeps its mode and owner


@root_only
def test_a_private_file_of_another_user_stays_private_and_theirs(sentences_file, tmp_path, capsys):
    out = tmp_path / "out.txt"
    out.write_text("old\n", encoding="utf-8")
    os.chown(out, NOBODY, NOBODY)
    out.chmod(0o600)
    assert cli.main(_cat(sentences_file, out)) == 0
    assert _mode_owner(out) == ("0o600", NOBODY, NOBODY)
    assert out.read_text(encoding="utf-8") == SEGMENTED
    err = capsys.readouterr().err
    assert err.startswith(_wrote(out)) and err.count("\n") == 1  # no warning
    assert _names(tmp_path) == ["out.txt", "test.txt"]  # no temporary file left


@pytest.mark.parametrize("mode", [0o444, 0o640, 0o755, 0o600])
def test_a_replaced_file_keeps_its_mode(sentences_file, tmp_path, capsys, mode):
    out = tmp_path / "out.txt"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(mode)
    assert cli.main(_cat(sentences_file, out)) == 0
    assert _mode_owner(out) == (oct(mode), os.geteuid(), os.getegid())
    assert out.read_text(encoding="utf-8") == SEGMENTED


def test_a_link_s_target_keeps_its_mode_and_the_link_stays(sentences_file, tmp_path, capsys):
    target = tmp_path / "real.txt"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o400)
    (tmp_path / "link.txt").symlink_to("real.txt")
    assert cli.main(_cat(sentences_file, tmp_path / "link.txt")) == 0
    assert (tmp_path / "link.txt").is_symlink()
    assert _mode_owner(target)[0] == "0o400"
    assert target.read_text(encoding="utf-8") == SEGMENTED


@pytest.mark.parametrize("umask, mode", [(0o027, "0o640"), (0o022, "0o644"), (0o077, "0o600"),
                                         (0o002, "0o664")])
def test_a_new_file_gets_the_umask_s_mode(sentences_file, tmp_path, capsys, umask, mode):
    old = os.umask(umask)
    try:
        assert cli.main(_cat(sentences_file, tmp_path / "new.txt")) == 0
    finally:
        os.umask(old)
    assert _mode_owner(tmp_path / "new.txt")[0] == mode


def test_run_files_follow_the_same_rule(tmp_path):
    """The atomic writes of a run (and of the report) keep a replaced file's
    mode and give a new file the umask's."""
    kept = tmp_path / "kept.tsv"
    kept.write_text("old\n", encoding="utf-8")
    kept.chmod(0o600)
    files.atomic_write_text(kept, "new\n")
    old = os.umask(0o027)
    try:
        files.atomic_write_bytes(tmp_path / "sub" / "new.npz", b"x")  # a run makes its folders
    finally:
        os.umask(old)
    assert (_mode_owner(kept)[0], kept.read_text(encoding="utf-8")) == ("0o600", "new\n")
    assert _mode_owner(tmp_path / "sub" / "new.npz")[0] == "0o640"


def test_a_replaced_file_is_never_readable_by_others_while_written(tmp_path):
    """The temporary file of a 0600 file is 0600 from the start, even under umask 0."""
    out = tmp_path / "secret.txt"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o600)
    old = os.umask(0)
    try:
        with files.atomic_open(out) as f:
            tmp = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
            assert [_mode_owner(p)[0] for p in tmp] == ["0o600"]
            f.write("new\n")
    finally:
        os.umask(old)
    assert _mode_owner(out)[0] == "0o600"


# --------------------------------------------------------------------------
# an owner that cannot be kept: one warning line


def test_an_owner_not_kept_is_one_warning_line(sentences_file, tmp_path, capsys, monkeypatch):
    """As another user than the file's owner (simulated: every chown refused),
    the file becomes the writer's, keeps its mode but for the group's read
    permission, which others did not have (the group changed too), and one
    line says so."""
    out = tmp_path / "out.txt"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o640)
    real = os.stat(out)
    them = os.stat_result((real.st_mode, *real[1:4], 4242, 4343, *real[6:]))

    def refuse(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    lstat = os.lstat
    monkeypatch.setattr(os, "chown", refuse)
    monkeypatch.setattr(os, "lstat", lambda p, **k: them if Path(p) == out else lstat(p, **k))
    monkeypatch.setattr(files, "_owner", lambda st: f"{st.st_uid}:{st.st_gid}")
    assert cli.main(_cat(sentences_file, out)) == 0
    monkeypatch.undo()
    me = f"{os.geteuid()}:{os.getegid()}"
    assert capsys.readouterr().err.split("\n")[:2] == [
        f"committee: warning: {out}: replaced by a file owned by {me}, not 4242:4343 as before "
        "(only root can give a file to another user); its mode 0640 kept as 0600 (the new "
        "group gets no more than others)",
        _wrote(out) + "77af778b51ab"]
    assert _mode_owner(out) == ("0o600", os.geteuid(), os.getegid())
    assert out.read_text(encoding="utf-8") == SEGMENTED


@root_only
def test_another_user_replacing_root_s_file_really(tmp_path):
    """The same without simulation: this process acts as nobody (seteuid)
    and replaces root's 0664 file in a directory everyone may write: the
    file becomes nobody's, its group's write permission not given to
    nobody's group."""
    d = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        d.chmod(0o777)
        out = d / "root.txt"
        out.write_text("old\n", encoding="utf-8")
        out.chmod(0o664)
        groups = os.getgroups()
        os.setgroups([])
        os.setegid(NOBODY)
        os.seteuid(NOBODY)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                files.atomic_write_text(out, "new\n")
        finally:
            os.seteuid(0)
            os.setegid(0)
            os.setgroups(groups)
        assert _mode_owner(out) == ("0o644", NOBODY, NOBODY)
        assert [str(w.message) for w in caught] == [
            f"{out}: replaced by a file owned by {_user_name(NOBODY)}:{_group_name(NOBODY)}, "
            "not root:root as before (only root can give a file to another user); its mode "
            "0664 kept as 0644 (the new group gets no more than others)"]
        assert [w.category for w in caught] == [files.OwnerWarning]
    finally:
        for p in d.iterdir():
            p.unlink()
        d.rmdir()


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


# --------------------------------------------------------------------------
# targets refused before any work (exit 2), nothing made


@pytest.mark.parametrize("output, line", [
    ("", "-o '': is an empty path; name a file, or '-' for standard output"),
    ("{tmp}/a/b/c.txt", "-o {tmp}/a/b/c.txt: its directory {tmp}/a/b does not exist; create it "
                        "first (mkdir -p {tmp}/a/b) or name a file in an existing directory"),
    ("{tmp}/test.txt/c.txt", "-o {tmp}/test.txt/c.txt: its directory {tmp}/test.txt is not a "
                             "directory; name a file in an existing directory"),
    ("{tmp}/dangling", "-o {tmp}/dangling: leads to {tmp}/gone/x.txt, whose directory {tmp}/gone "
                       "does not exist; create it first (mkdir -p {tmp}/gone) or name a file in "
                       "an existing directory"),
    ("{tmp}/loop", "-o {tmp}/loop: is a symbolic link loop: following it never reaches a file; "
                   "name a file"),
    ("{tmp}/sock", "-o {tmp}/sock: is a socket, which cannot be written as a file; name a file, "
                   "a FIFO or a device, or '-' for standard output"),
    ("{tmp}/" + "x" * 300, "-o {tmp}/" + "x" * 300 + ": File name too long; name a file with a "
                           "shorter name"),
], ids=["empty", "missing-directory", "directory-is-a-file", "dangling-link-missing-directory",
        "link-loop", "socket", "name-too-long"])
def test_impossible_targets_are_usage_errors(sentences_file, tmp_path, capsys, output, line):
    (tmp_path / "dangling").symlink_to("gone/x.txt")
    (tmp_path / "loop").symlink_to("loop")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    try:
        before = _names(tmp_path)
        assert cli.main(_cat(sentences_file, output.format(tmp=tmp_path))) == 2
        assert capsys.readouterr() == ("", f"committee: error: {line.format(tmp=tmp_path)} (see "
                                           "'committee segment --help')\n")
        assert _names(tmp_path) == before
        assert stat.S_ISSOCK(os.lstat(tmp_path / "sock").st_mode)
    finally:
        server.close()


def test_the_library_refuses_the_same_and_makes_no_directory(tmp_path):
    from committee.errors import OutputError

    with pytest.raises(OutputError) as e:
        with files.open_output(tmp_path / "new" / "x.txt"):
            pass
    assert (str(e.value), e.value.exit_code) == (
        f"{tmp_path}/new/x.txt: cannot write: its directory {tmp_path}/new does not exist; "
        f"create it first (mkdir -p {tmp_path}/new) or name a file in an existing directory", 6)
    assert _names(tmp_path) == []


def test_a_directory_removed_while_segmenting_is_not_made_again(tmp_path):
    """The directory is checked again when the output is written, and
    ``atomic_open(make_parents=False)`` never makes it."""
    from committee.errors import OutputError

    with pytest.raises(OutputError) as e:
        with files.atomic_open(tmp_path / "gone" / "x.txt", make_parents=False):
            pass
    assert str(e.value) == (f"{tmp_path}/gone/x.txt: cannot write: No such file or directory; "
                            "check the output directory")
    assert _names(tmp_path) == []


def test_a_kept_model_gets_the_umask_s_mode(tmp_path):
    """A member's model, written by its trainer and renamed into the run,
    gets a new file's mode like every other file of the run."""
    from committee.learners.trainers import Recipe, get, train_and_tag
    from committee.tasks import SEGMENTATION

    old = os.umask(0o027)
    try:
        train_and_tag(Recipe(get(), "lbfgs", {"max_iterations": 5}), SEGMENTATION,
                      [["我", "爱", "北京"], ["北京", "大"]], "F1", ["我爱北京"],
                      tmp_path / "work", keep_as=tmp_path / "member.crfsuite")
    finally:
        os.umask(old)
    assert _mode_owner(tmp_path / "member.crfsuite")[0] == "0o640"
