"""The ``cmd:COMMAND`` adapter: any program of the user's as a segmenter or
tagger.

``COMMAND`` is split as a shell would (:func:`shlex.split`) but run
without a shell: it reads one unsegmented sentence per line on standard
input and writes each sentence segmented, words separated by whitespace,
on one line of standard output, both in UTF-8.  Empty sentences are not
sent.  See :func:`command`.
"""

from __future__ import annotations

import math
import os
import shlex
from typing import Sequence

from committee.errors import Note
from committee.segmenters.base import CMD_PREFIX, Segmenter, SegmenterFailed, SegmenterUnavailable
from committee.system import commands
from committee.system.arguments import require_real
from committee.system.commands import command_name, output_limit


def command(cmdline: str, timeout: float | None = None, *,
            timeout_name: str = "timeout") -> Segmenter:
    """A segmenter that runs ``cmdline`` once on all sentences.

    The command (split by :func:`shlex.split`, run without a shell) reads
    one unsegmented sentence per line on standard input and writes the
    segmented sentence, words separated by whitespace, on the same line of
    standard output, in UTF-8 (``PYTHONIOENCODING=utf-8`` is set unless the
    environment sets it).  Empty sentences are not sent.

    It runs in a session and process group of its own, fed and read at
    once, and every process it started is stopped (SIGTERM, then SIGKILL
    after :data:`committee.system.commands.GRACE` seconds) whenever
    committee is done with it, fails, is stopped or killed: on Linux its
    supervisor (:mod:`committee.system.reaper`) finds them, those that
    left its group with ``setsid`` included; elsewhere its group is
    stopped.  A child it leaves behind holding its standard output open is
    given the same grace, then stopped, and what the command wrote is used;
    so is a command that closed its standard output and has not exited
    after the grace (with a :class:`~committee.errors.Note`).  Its output may hold
    :func:`output_limit` bytes (4 bytes per byte of input plus 1 MiB; 16
    per byte for an entity tagger); of its standard error the last 64 KiB
    are kept, for the messages.

    Parameters
    ----------
    cmdline : str
        The command line.
    timeout : float, optional
        Seconds the command may run; default: no limit (with progress on,
        a bar shows it is still running).
    timeout_name : str
        How the messages name the timeout (the command line says
        ``--timeout``).

    Raises
    ------
    SegmenterFailed
        When segmenting: the command is not found, exits non-zero, writes
        output that is not UTF-8, more output than its limit, a number of
        lines other than the number of sentences, or runs longer than
        ``timeout``; one line naming the command, with the tail of its
        standard error.

    Examples
    --------
    >>> from committee.segmenters import segment
    >>> seg = command("tr -s ' ' '\\n'")
    >>> seg.name, seg.command
    ('tr', "tr -s ' ' '\\n'")
    >>> segment(seg, ["约翰", "", "玛丽"])
    [['约翰'], [], ['玛丽']]
    >>> segment(command("false"), ["约翰"])
    Traceback (most recent call last):
    ...
    committee.segmenters.SegmenterFailed: cmd:false: exited with status 1; its stderr is empty
    >>> segment(command("sleep 30", timeout=0.5), ["约翰"])
    Traceback (most recent call last):
    ...
    committee.segmenters.SegmenterFailed: cmd:sleep 30: no answer after 0.5 s (timeout); stopped it; its stderr is empty
    """
    argv = shlex.split(cmdline)
    if not argv:
        raise SegmenterUnavailable(f"{CMD_PREFIX}{cmdline}: no command after {CMD_PREFIX}")
    if timeout is not None:
        timeout = require_real("command", "timeout", timeout, 0, math.inf, open_ends=True)

    def cut_many(texts: Sequence[str], progress: bool = False,
                 tagged: bool = False) -> list[list[str]]:
        sent = [t for t in texts if t]
        lines = iter(_run_command(cmdline, argv, sent, timeout=timeout,
                                  timeout_name=timeout_name, progress=progress, tagged=tagged)
                     if sent else [])
        return [next(lines).split() if t else [] for t in texts]

    return Segmenter(command_name(argv), f"cmd {commands.fingerprint(argv)}",
                     lambda text: cut_many([text])[0], cut_many=cut_many, command=cmdline)


def _run_command(cmdline: str, argv: list[str], sent: list[str], *,
                 timeout: float | None = None, timeout_name: str = "timeout",
                 progress: bool = False, tagged: bool = False) -> list[str]:
    """Run the command on ``sent`` (one per line), supervised
    (:func:`committee.system.commands.run`: its own process group, it and all
    it started stopped however this ends; at most :func:`output_limit` bytes of output;
    ``timeout`` seconds); its output lines, checked for count and encoding
    (:func:`_output_lines`).  With ``progress``, a bar on standard error
    counts the lines it wrote and the time since it started."""
    from tqdm import tqdm

    who = f"{CMD_PREFIX}{cmdline}"
    env = dict(os.environ)
    env.setdefault("PYTHONIOENCODING", "utf-8")
    data = "".join(s + "\n" for s in sent).encode("utf-8")
    limit = output_limit(len(data), tagged)
    bar = tqdm(total=len(sent), unit="sentence", desc=command_name(argv), disable=not progress,
               dynamic_ncols=True, mininterval=commands.progress_every())
    try:
        done = commands.run(argv, data, limit=limit, timeout=timeout, env=env, bar=bar)
    except FileNotFoundError:
        raise SegmenterFailed(f"{who}: command not found: {argv[0]}") from None
    except OSError as exc:
        raise SegmenterFailed(f"{who}: cannot run {argv[0]}: {exc.strerror or exc}") from None
    finally:
        bar.close()
    tail = commands.stderr_tail(done.err)
    if done.why == "timeout":
        raise SegmenterFailed(f"{who}: no answer after {timeout:g} s ({timeout_name}); "
                              f"stopped it{tail}")
    if done.why == "overflow":
        raise SegmenterFailed(f"{who}: wrote more than {limit:,} bytes for {len(data):,} bytes "
                              f"of input (an endless output?); stopped it{tail}")
    return _output_lines(who, done, sent, tail)


def _output_lines(who: str, done, sent: list[str], tail: str) -> list[str]:
    """The lines of a command that ran to its end (``done``, a
    :func:`committee.system.commands.run` result) on ``sent``: it exited
    with status 0 (or lingered after closing its output: a
    :class:`~committee.errors.Note`), wrote UTF-8 and one line per
    sentence; else :class:`SegmenterFailed` ending with ``tail``."""
    import warnings

    if done.why == "lingered":  # its output is complete: used, as when a child holds it
        warnings.warn(f"{who}: closed its standard output but was still running "
                      f"{commands.GRACE:g} s later; stopped it and used its output",
                      Note, stacklevel=3)
    elif done.returncode != 0:
        how = (f"killed by signal {-done.returncode}" if done.returncode < 0
               else f"exited with status {done.returncode}")
        raise SegmenterFailed(f"{who}: {how}{tail}")
    try:
        text = done.out.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SegmenterFailed(f"{who}: its output is not UTF-8 (byte {exc.start + 1})"
                              f"{tail}") from None
    lines = [s.rstrip("\r") for s in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(sent):
        raise SegmenterFailed(
            f"{who}: wrote {commands.plural(len(lines), 'line')} for "
            f"{commands.plural(len(sent), 'sentence')} "
            f"({commands.count_problem(sent, lines)}){tail}")
    return lines
