"""The entry points: :func:`load_config` (a YAML file) and
:func:`parse_config` (data already loaded), every problem in one
:class:`committee.errors.ConfigError`."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from committee.config.base import absolute_path
from committee.config.crfsection import crf_problems
from committee.config.messages import got_text, validation_problems
from committee.config.overrides import SET, apply_overrides, blame_overrides
from committee.config.schema import Config
from committee.config.yamlsafe import MAX_BYTES, read_yaml, yaml_problem
from committee.errors import ConfigError
from committee.system.streams import open_problem


# --------------------------------------------------------------------------
# paths


def _path_problems(data: dict[str, Any], cwd: str) -> list[str]:
    """Missing corpus files, from the (possibly invalid) data so that they are
    reported together with every other problem.  Built-in sources are left
    to the caller."""
    corpus = data.get("corpus")
    if not isinstance(corpus, dict):
        return []
    base = Path(cwd)
    root = corpus.get("root")
    if isinstance(root, str) and root:
        base = absolute_path(cwd, root)
        if not base.is_dir():
            return [f"corpus.root: no such directory: {base}"]
    problems = []
    sources = {k: corpus.get(k) if isinstance(corpus.get(k), dict) else {} for k in ("train", "test")}
    wanted = [(f"corpus.{k}.path", s.get("path")) for k, s in sources.items()]
    wanted.append(("corpus.train_words", corpus.get("train_words")))
    # a dataset saved by save_to_disk is a directory (committee.corpus.tables)
    folders = {f"corpus.{k}.path" for k, s in sources.items() if s.get("format") == "hf-dataset"}
    for where, path in wanted:
        if isinstance(path, str) and path:
            full = absolute_path(base, path)
            if not full.exists():
                problems.append(f"{where}: no such file: {full}")
            elif where in folders and not full.is_dir():
                problems.append(f"{where}: not a directory (format hf-dataset): {full}")
            elif not full.is_file() and where not in folders:
                problems.append(f"{where}: not a file: {full}")
    return problems


# --------------------------------------------------------------------------
# entry points


def parse_config(
    data: Any,
    where: str = "<config>",
    overrides: Iterable[str] = (),
    check_paths: bool = True,
) -> Config:
    """Validate already-loaded config data (a mapping) into a :class:`Config`.

    ``data`` is not modified.  Raises :class:`ConfigError` (named ``where``)
    listing every problem: overrides, schema, CRF parameters and, with
    ``check_paths``, missing corpus files.
    """
    if not isinstance(data, dict):
        what = "an empty file" if data is None else got_text(data)
        raise ConfigError(where, [f"expected a mapping of sections at the top level, got {what}"])
    data = _copy(data)
    problems = apply_overrides(data, overrides)
    config = None
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        problems.extend(validation_problems(exc))
    problems.extend(crf_problems(data))
    if check_paths:
        problems.extend(_path_problems(data, config._cwd if config is not None else os.getcwd()))
    if problems or config is None:
        raise ConfigError(where, blame_overrides(list(dict.fromkeys(problems)), overrides))
    return config




def blame_set(exc: ConfigError, data: Any, overrides: Iterable[str]) -> ConfigError:
    """``exc``, raised by ``parse_config(data, ..., overrides)``, with every
    problem said to come from the ``--set`` overrides when ``data`` alone is
    valid: a value one of them set in another key than the one it names
    (``--set task=ner`` makes the recorded ``corpus.train.format`` wrong)
    is theirs, not the file's (a run's manifest, which the user did not
    write).

    >>> data = {"name": "x", "corpus": {"train": {"path": "train.txt"},
    ...                                 "test": {"path": "test.txt"}}, "output": {"dir": "out"}}
    >>> try:
    ...     parse_config(data, "run/manifest.json", ["task=ner"], check_paths=False)
    ... except ConfigError as exc:
    ...     print(blame_set(exc, data, ["task=ner"]))
    --set task=ner: corpus.train.format: task ner needs entity tags: set format: bio (a token and its tag a line), got sighan
    """
    overrides = list(overrides)
    if not overrides:
        return exc
    try:
        parse_config(data, exc.path, (), check_paths=False)
    except ConfigError:
        return exc  # the data has problems of its own: say them where they are
    sets = " ".join(f"{SET} {item}" for item in overrides)
    return ConfigError(exc.path, [p if p.startswith(f"{SET} ") else f"{sets}: {p}"
                                  for p in exc.problems])


def blame_keys(exc: ConfigError, overrides: Iterable[str]) -> ConfigError:
    """``exc``, raised by a check of a loaded config, with each problem of a
    key that an override set (``KEY=VALUE``: the problem's dotted path is
    ``KEY`` or below it) said to come from that ``--set``.

    >>> exc = ConfigError("experiments", ["experiments.stability_sizes: [99] exceed 5",
    ...                                   "experiments.systems[0]: no such file: a.txt"])
    >>> print(blame_keys(exc, ["experiments.stability_sizes=[99]"]))
    experiments: 2 problems
      --set experiments.stability_sizes=[99]: experiments.stability_sizes: [99] exceed 5
      experiments.systems[0]: no such file: a.txt
    """
    def key_of(problem: str) -> str:
        return problem.split(":", 1)[0].split("[", 1)[0].strip()

    def blamed(problem: str) -> str:
        key = key_of(problem)
        for item in overrides:
            name = item.split("=", 1)[0].strip()
            if key == name or key.startswith(name + "."):
                return f"{SET} {item}: {problem}"
        return problem

    return ConfigError(exc.path, [blamed(p) for p in exc.problems])


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _read_text(where: str) -> str:
    """The config file's text: at most :data:`MAX_BYTES` bytes (read so, a
    device or pipe that never ends is refused too), UTF-8."""
    try:
        with open(where, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(where, [open_problem(where, exc)]) from None
    if len(data) > MAX_BYTES:
        raise ConfigError(where, [f"cannot read: longer than {MAX_BYTES} bytes, and a config "
                                  "has a few hundred: is this a config file?"])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(where, [f"cannot read: not UTF-8 (byte {exc.object[exc.start]:#04x} "
                                  f"at offset {exc.start})"]) from None


def load_config(
    path: str | os.PathLike,
    overrides: Iterable[str] = (),
    check_paths: bool = True,
) -> Config:
    """Read, override and validate a YAML config.

    Parameters
    ----------
    path : str or path-like
        The YAML file (UTF-8), read with PyYAML's safe loader within the
        bounds :data:`MAX_BYTES`, :data:`MAX_VALUES` (aliases expanded) and
        :data:`MAX_DEPTH`; a recursive alias is refused.
    overrides : iterable of str
        ``dotted.key=value``; the value is parsed as YAML (``5`` is an int,
        ``[0.1, 0.5]`` a list).  The key must name a field of the schema, or
        ``crf.params.NAME`` for a parameter of the configured algorithm.
    check_paths : bool
        Report corpus files (and ``corpus.train_words``) that do not exist.

    Raises
    ------
    ConfigError
        Listing every problem found, each as ``dotted.path: message``.
    """
    where = str(path)
    text = _read_text(where)
    try:
        data, duplicates = read_yaml(text)
    except yaml.YAMLError as exc:
        raise ConfigError(where, [yaml_problem(exc)]) from None
    overrides = list(overrides)
    untrusted = _host_problems(data, overrides)
    try:
        config = parse_config(data, where, overrides, check_paths)
    except ConfigError as exc:
        raise ConfigError(where, duplicates + untrusted + exc.problems) from None
    if duplicates or untrusted:
        raise ConfigError(where, duplicates + untrusted)
    return config


def _host_problems(data: Any, overrides: list[str]) -> list[str]:
    """A Dask scheduler named by the file itself: the host that receives the
    work and sends back pickles is named on the command line (``--scheduler``,
    ``--set parallel.scheduler=...``) or in an API call, never by a file that
    may come from someone else (docs/security.md).

    >>> _host_problems({"parallel": {"backend": "dask", "scheduler": "tcp://10.0.0.9:8786"}}, [])
    ["parallel.scheduler: 'tcp://10.0.0.9:8786': a config file never chooses the host that receives the work (docs/security.md); name it on the command line: --scheduler tcp://10.0.0.9:8786"]
    >>> _host_problems({"parallel": {"backend": "dask", "scheduler": "tcp://h:1"}},
    ...                ["parallel.scheduler=tcp://h:1"])
    []
    """
    parallel = data.get("parallel") if isinstance(data, dict) else None
    address = parallel.get("scheduler") if isinstance(parallel, dict) else None
    if address is None or address == "" or parallel.get("backend") != "dask":
        return []  # (a scheduler without the dask backend is refused by the schema)
    named = {o.partition("=")[0].strip() for o in overrides}
    if named & {"parallel", "parallel.scheduler"}:
        return []
    return [f"parallel.scheduler: {address!r}: a config file never chooses the host that "
            "receives the work (docs/security.md); name it on the command line: --scheduler "
            f"{address}"]
