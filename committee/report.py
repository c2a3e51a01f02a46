"""The run report: the paper's evaluation (Table 2, Figures 1–7) on a run directory.

:func:`build_report` reads what ``committee run`` wrote (``test.txt``,
``words.tsv``, ``marks.npz``, ``predictions.npz``, ``manifest.json``),
scores every system against the run's difficulties, computes each analysis
with :mod:`committee.analysis`, draws it with :mod:`committee.plots` and
writes, inside the run directory:

* ``report.md`` — the page to open first: every table and figure, with
  the numbers that matter in the text;
* ``table2.csv`` — the Table 2 models' scores (fractions in [0, 1]) and
  training times;
* ``report/`` — one PNG and one CSV per analysis, ``systems.csv`` (every
  system's scores), and ``report/table2/`` with each Table 2 model's
  segmentation of the test set (SIGHAN) and its record (settings, times).

Systems are (1) the Table 2 models: template F2 (configurable) trained on
20/50/80/100% of the training sentences, nested random samples drawn with
``experiments.seed``; (2) segmenters run by the report itself
(``experiments.segmenters``, :mod:`committee.segmenters`); (3) output files
of any other segmenter (``experiments.systems``).  The committee members'
own segmentations (``predictions.npz``) join the split-half analysis.

Which analyses run: ``committee run`` runs those switched on in the
config's ``experiments`` section; ``committee report RUN_DIR`` runs all of
them but those given to ``--skip``.  Table 2 models are trained once and
reused afterwards: a model whose record matches the corpora and settings is
read back, not retrained.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from committee import __version__
from committee import analysis
from committee import corpus as corpus_mod
from committee import difficulty as difficulty_mod
from committee import metrics
from committee import runlock
from committee.errors import ConfigError, InputError, RunError, UndefinedMetricWarning
from committee.fileio import atomic_open, atomic_write_text

log = logging.getLogger("committee.run")

__all__ = ["ANALYSES", "PAPER_PKU", "RunData", "System", "build_report", "check_experiments",
           "load_run", "load_run_config", "markdown_table", "read_human"]

#: Analyses of the report, in order (names as in ``experiments`` and ``--skip``).
ANALYSES = ("table2", "stability", "linguistic", "bins", "ranking", "split_half",
            "word_weights")

#: What the paper reports for PKU (Qian et al. 2016, Table 2 and §5), percentages.
PAPER_PKU = {
    "table2": {0.2: {"f1": 89.97, "fb": 44.28},
               1.0: {"p": 94.03, "r": 92.91, "f1": 93.47, "pb": 64.22, "rb": 59.16,
                     "fb": 61.59}},
    "split_half_pearson": 0.996,
}

REPORT_DIR = "report"
SCORE_KEYS = ("p", "r", "f1", "pb", "rb", "fb", "oov_recall", "iv_recall")


# --------------------------------------------------------------------------
# the run directory


@dataclass(frozen=True)
class RunData:
    """What a finished run wrote, read back.

    Attributes
    ----------
    run_dir : Path
    test : Corpus
        The gold test set (``test.txt``), with POS from ``words.tsv`` when the
        corpus had them.
    d, n_correct : ndarray
        Difficulty and number of members right, per gold word.
    oov : ndarray of bool or None
    marks : ndarray of bool, shape (K, N)
    pred_ends : ndarray of bool, shape (K, C), or None
        Each member's segmentation (``predictions.npz``), when recorded.
    manifest : dict
    """

    run_dir: Path
    test: corpus_mod.Corpus
    d: np.ndarray
    n_correct: np.ndarray
    oov: np.ndarray | None
    marks: np.ndarray
    pred_ends: np.ndarray | None
    manifest: dict

    @property
    def K(self) -> int:
        return int(self.marks.shape[0])


def _need(path: Path) -> Path:
    if not path.is_file():
        raise InputError(str(path), None, "no such file: is this the output.dir of a finished "
                                          "`committee run`?")
    return path


def load_run(run_dir) -> RunData:
    """Read a finished run's outputs (see :class:`RunData`)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputError(str(run_dir), None, "no such directory")
    runlock.check_final(run_dir, "committee report")  # never half a run
    manifest_path = _need(run_dir / "manifest.json")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(str(manifest_path), None, f"not valid JSON ({exc})") from None
    test = corpus_mod.read_corpus(_need(run_dir / "test.txt"))
    words = difficulty_mod.read_words_tsv(_need(run_dir / "words.tsv"))
    if len(words) != test.n_words():
        raise InputError(str(run_dir / "words.tsv"), None,
                         f"has {len(words)} words, test.txt has {test.n_words()}")
    pos_col = words["pos"].astype(str).tolist()
    pos = None
    if any(pos_col):
        pos, k = [], 0
        for sentence in test.words:
            pos.append(pos_col[k:k + len(sentence)])
            k += len(sentence)
    test = corpus_mod.Corpus(test.path, test.words, test.lines, pos, test.sha256,
                             test.encoding, test.normalization)
    oov_col = words["oov"].astype(str)
    oov = None if (oov_col == "").any() else oov_col.isin(["1", "True", "true"]).to_numpy()
    with np.load(_need(run_dir / "marks.npz")) as f:
        marks = f["marks"].astype(bool)
    if marks.shape[1] != test.n_words():
        raise InputError(str(run_dir / "marks.npz"), None,
                         f"marks cover {marks.shape[1]} words, test.txt has {test.n_words()}")
    pred_ends = None
    pred_path = run_dir / "predictions.npz"
    if pred_path.is_file():
        with np.load(pred_path) as f:
            n_chars = int(f["n_chars"])
            packed = f["pred_ends"]
        if n_chars == test.n_chars() and packed.shape[0] == marks.shape[0]:
            pred_ends = np.unpackbits(packed, axis=1, count=n_chars).astype(bool)
        else:
            log.warning("%s does not match the test set; members left out of split-half",
                        pred_path)
    return RunData(run_dir, test, words["difficulty"].to_numpy(dtype=np.float64),
                   words["n_correct"].to_numpy(dtype=np.int64), oov, marks, pred_ends, manifest)


def load_run_config(run_dir, config_path=None, overrides: Iterable[str] = ()):
    """The config of a run: ``config_path`` if given, else the one its manifest
    records (with ``output.dir`` set to ``run_dir``); ``overrides`` applied."""
    from committee import config as config_mod

    run_dir = Path(run_dir)
    overrides = list(overrides)
    if config_path is not None:
        cfg = config_mod.load_config(config_path, overrides=overrides + [f"output.dir={run_dir}"])
    else:
        runlock.check_final(run_dir, "committee report")
        manifest_path = _need(run_dir / "manifest.json")
        try:
            data = json.loads(manifest_path.read_text(encoding="utf-8"))["config"]
        except (ValueError, KeyError) as exc:
            raise InputError(str(manifest_path), None, f"holds no run config ({exc})") from None
        data["output"] = {"dir": str(run_dir)}
        cfg = config_mod.parse_config(data, str(manifest_path), overrides, check_paths=False)
    return cfg


def check_experiments(cfg, names: Sequence[str] | None = None) -> None:
    """Refuse, before any compute, what the experiments would fail on later.

    Checks that the files named in ``experiments`` exist and that the
    segmenters are installed (only for the analyses in ``names``; default:
    those switched on).  Raises :class:`ConfigError` listing every problem.
    """
    from committee import segmenters as seg_mod

    e = cfg.experiments
    names = e.enabled() if names is None else tuple(names)
    problems = []
    if not names:
        return
    wanted = [(f"experiments.systems[{i}]", p) for i, p in enumerate(e.systems)]
    if e.human is not None and "ranking" in names:
        wanted.append(("experiments.human", e.human))
    if e.idioms is not None and e.idioms != corpus_mod.EMBEDDED_NAME and "linguistic" in names:
        wanted.append(("experiments.idioms", e.idioms))
    for where, p in wanted:
        full = cfg.resolve(p)
        if not full.is_file():
            problems.append(f"{where}: no such file: {full}")
    if e.stability_sizes and "stability" in names:
        too_big = [k for k in e.stability_sizes if k > cfg.committee.size]
        if too_big:
            problems.append(f"experiments.stability_sizes: {too_big} exceed committee.size "
                            f"({cfg.committee.size})")
    for i, name in enumerate(e.segmenters):
        module = seg_mod.SEGMENTERS[name][0]
        import importlib.util

        if importlib.util.find_spec(module) is None:
            problems.append(f"experiments.segmenters[{i}]: {name} is not installed; "
                            f"pip install 'committee[{seg_mod.SEGMENTERS[name][1]}]'")
    try:
        from committee import plots

        plots.require_matplotlib()
    except Exception as exc:  # PlotError
        problems.append(f"experiments: {exc}")
    if problems:
        raise ConfigError("experiments", problems)


# --------------------------------------------------------------------------
# systems


@dataclass
class System:
    """One scored segmentation of the test set."""

    name: str
    kind: str  # "table2", "system" (segmenter or output file) or "member"
    words: list[list[str]]
    stats: metrics.SufficientStats | None = None
    scores: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)


def _words_from_ends(texts: Sequence[str], ends: np.ndarray) -> list[list[str]]:
    """Words of each sentence from a mask over the global character axis that is
    true at the last character of every word."""
    out, k = [], 0
    for text in texts:
        n = len(text)
        cuts = np.flatnonzero(ends[k:k + n]) + 1
        starts = np.concatenate(([0], cuts[:-1])) if len(cuts) else np.zeros(0, dtype=int)
        out.append([text[s:e] for s, e in zip(starts.tolist(), cuts.tolist())])
        k += n
    return out


def read_human(path, names: Sequence[str]) -> dict[str, float]:
    """Human judgements: one ``system<TAB or spaces>score`` per line, ``#`` comments.

    Every named system must be one of ``names``.
    """
    out: dict[str, float] = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.rsplit(None, 1)
            if len(parts) != 2:
                raise InputError(str(path), lineno, "expected 'system score'")
            name, value = parts
            try:
                score = float(value)
            except ValueError:
                raise InputError(str(path), lineno, f"score {value!r} is not a number") from None
            if not math.isfinite(score):
                raise InputError(str(path), lineno, f"score {value!r} is not finite")
            if name not in names:
                raise InputError(str(path), lineno, f"unknown system {name!r}; the report's "
                                                    f"systems are: {', '.join(names)}")
            if name in out:
                raise InputError(str(path), lineno, f"system {name!r} is scored twice")
            out[name] = score
    return out


def _table2_key(data: RunData, cfg, fraction: float, n_train: int, train_sha: str) -> str:
    e = cfg.experiments
    params = dict(cfg.crf.trainer_params())
    params["max_iterations"] = e.table2_max_iterations
    key = {"train": train_sha, "test": data.test.sha256, "template": e.table2_template,
           "fraction": fraction, "n_train": n_train, "seed": e.seed,
           "algorithm": cfg.crf.algorithm, "params": params}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def _table2_name(template: str, fraction: float) -> str:
    return f"{template} {100 * fraction:g}%"


def _table2_file(template: str, fraction: float) -> str:
    return f"{template}-{round(1000 * fraction):04d}"


def _train_one(template, sentences, test_chars, algorithm, params, workdir, rand_seed):
    """Runs in a worker: train one Table 2 model and segment the test set."""
    import tempfile

    from committee import features, members

    t0 = time.perf_counter()
    yseqs = [corpus_mod.to_bmes(s) for s in sentences]
    xseqs = (features.attributes("".join(s), template) for s in sentences)
    Path(workdir).mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".table2-", suffix=".crfsuite", dir=workdir)
    os.close(fd)
    try:
        t = members.train_model(xseqs, yseqs, algorithm, params, tmp, rand_seed=rand_seed)
        t1 = time.perf_counter()
        tags = members.tag_sentences(tmp, members.test_attributes(test_chars, template))
        pred = [corpus_mod.from_bmes(c, tg) for c, tg in zip(test_chars, tags)]
        t2 = time.perf_counter()
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    return pred, {"build_append_s": t["append_s"], "train_s": t["train_s"],
                  "tag_s": t2 - t1, "total_s": t2 - t0}


def table2_systems(cfg, data: RunData, out_dir: Path, train: bool, inputs=None,
                   progress: bool = False) -> tuple[list[System], list[str]]:
    """The Table 2 models: read back those already made, train the others
    (only with ``train``).  Returns the systems and notes for the report."""
    e = cfg.experiments
    notes: list[str] = []
    tdir = out_dir / "table2"
    train_sha = data.manifest.get("corpus", {}).get("train", {}).get("sha256", "")
    # sizes of the samples need the number of non-empty training sentences
    train_sentences = inputs.train_sentences if inputs is not None else None
    records = {}
    for fraction in e.table2_fractions:
        rec_path = tdir / f"{_table2_file(e.table2_template, fraction)}.json"
        if rec_path.is_file():
            try:
                records[fraction] = json.loads(rec_path.read_text(encoding="utf-8"))
            except ValueError:
                pass
    n_train = None
    if train_sentences is not None:
        n_train = len(train_sentences)
    elif records:
        n_train = next(iter(records.values())).get("n_train")
    todo = []
    systems: list[System] = []
    for fraction in e.table2_fractions:
        rec = records.get(fraction)
        key = None if n_train is None else _table2_key(data, cfg, fraction, n_train, train_sha)
        out_path = tdir / f"{_table2_file(e.table2_template, fraction)}.txt"
        if rec is not None and key is not None and rec.get("key") == key and out_path.is_file():
            pred = corpus_mod.read_corpus(out_path)
            systems.append(System(_table2_name(e.table2_template, fraction), "table2",
                                  pred.words, info=rec))
        else:
            todo.append(fraction)
    if todo and not train:
        notes.append("Table 2 models not trained for fractions "
                     f"{', '.join(f'{f:g}' for f in todo)}: run `committee report` without "
                     "`--skip table2` (or `committee run` with `experiments.table2: true`).")
        todo = []
    if todo:
        if train_sentences is None:
            from committee import pipeline

            inputs = pipeline.load_inputs(cfg)
            if inputs.train.sha256 != train_sha or inputs.test.sha256 != data.manifest.get(
                    "corpus", {}).get("test", {}).get("sha256"):
                raise RunError(f"the config's corpora are not those of the run in "
                               f"{data.run_dir} (checksums differ); pass the run's config "
                               "with --config, or --set corpus.root=...")
            train_sentences = inputs.train_sentences
            n_train = len(train_sentences)
        systems += _train_table2(cfg, data, train_sentences, todo, tdir, train_sha, progress)
    order = {f: i for i, f in enumerate(e.table2_fractions)}
    systems.sort(key=lambda s: order.get(s.info.get("fraction"), 99))
    return systems, notes


def _train_table2(cfg, data: RunData, train_sentences, fractions, tdir: Path, train_sha: str,
                  progress: bool) -> list[System]:
    from tqdm import tqdm

    e = cfg.experiments
    n_train = len(train_sentences)
    order = np.random.default_rng(e.seed).permutation(n_train)  # nested samples
    params = dict(cfg.crf.trainer_params())
    params["max_iterations"] = e.table2_max_iterations
    test_chars = ["".join(s) for s in data.test.words]
    workdir = str(tdir / ".tmp")
    tasks = []
    for fraction in sorted(fractions, reverse=True):  # largest first
        n = max(1, math.floor(fraction * n_train + 0.5))
        idx = np.sort(order[:n])
        tasks.append((fraction, [train_sentences[i] for i in idx]))
    n_jobs = cfg.parallel.n_jobs if cfg.parallel.backend != "sequential" else 1
    n_jobs = min(len(tasks), os.cpu_count() or 1 if n_jobs == -1 else n_jobs)
    log.info("table2: training %d %s model(s) (%s, max_iterations %d) on %s of %d sentences, "
             "n_jobs %d", len(tasks), e.table2_template, cfg.crf.algorithm,
             e.table2_max_iterations, ", ".join(f"{f:g}" for f, _ in tasks), n_train, n_jobs)
    args = [(e.table2_template, sents, test_chars, cfg.crf.algorithm, params, workdir,
             e.seed + 1) for _, sents in tasks]
    started = time.monotonic()
    if progress:
        tqdm.write(f"committee: training {len(tasks)} Table 2 model(s) on {n_jobs} worker(s); "
                   "they are kept and reused (--skip table2 leaves them out)")
    if n_jobs <= 1:
        results = (_train_one(*a) for a in args)
    else:
        # loky's reusable pool directly, as the pipeline does (joblib.Parallel cannot
        # reuse a pool that loky's get_reusable_executor made); results in task order
        from joblib.externals.loky import get_reusable_executor

        executor = get_reusable_executor(max_workers=n_jobs)
        futures = [executor.submit(_train_one, *a) for a in args]
        results = (f.result() for f in futures)
    systems = []
    bar = tqdm(total=len(tasks), unit="model", desc="table2", disable=not progress,
               dynamic_ncols=True)
    try:
        for (fraction, sents), (pred, timings) in zip(tasks, results):
            name = _table2_file(e.table2_template, fraction)
            corpus_mod.write_sighan(tdir / f"{name}.txt", pred)
            rec = {"key": _table2_key(data, cfg, fraction, n_train, train_sha),
                   "template": e.table2_template, "fraction": fraction, "n_train": n_train,
                   "n_sentences": len(sents), "n_chars": sum(len(w) for s in sents for w in s),
                   "algorithm": cfg.crf.algorithm, "params": params, "seed": e.seed,
                   "timings": {k: round(v, 1) for k, v in timings.items()},
                   "version": __version__}
            atomic_write_text(tdir / f"{name}.json", json.dumps(rec, indent=2) + "\n")
            log.info("table2: %s (%d sentences) trained in %.0f s, tagged in %.1f s",
                     _table2_name(e.table2_template, fraction), len(sents),
                     timings["train_s"], timings["tag_s"])
            systems.append(System(_table2_name(e.table2_template, fraction), "table2", pred,
                                  info=rec))
            bar.update(1)
    finally:
        bar.close()
    log.info("table2: %d model(s) in %.0f s", len(tasks), time.monotonic() - started)
    import shutil

    shutil.rmtree(workdir, ignore_errors=True)
    return systems


def other_systems(cfg, data: RunData, out_dir: Path, files: Sequence[str] = (),
                  segmenters: Sequence[str] = (), progress: bool = False) -> list[System]:
    """Segmenters run by the report (their output kept in ``report/systems/``)
    and output files of other segmenters."""
    from committee import evaluate
    from committee import segmenters as seg_mod

    systems, taken = [], set()
    texts = ["".join(s) for s in data.test.words]
    for name in segmenters:
        path = out_dir / "systems" / f"{name}.txt"
        seg = seg_mod.load(name)
        info_path = out_dir / "systems" / f"{name}.json"
        cached = None
        if path.is_file() and info_path.is_file():
            info = json.loads(info_path.read_text(encoding="utf-8"))
            if info.get("test") == data.test.sha256 and info.get("version") == seg.version:
                cached = corpus_mod.read_corpus(path).words
        if cached is None:
            t0 = time.perf_counter()
            cached = seg_mod.segment(seg, texts, str(data.run_dir / "test.txt"),
                                     data.test.lines, progress=progress)
            corpus_mod.write_sighan(path, cached)
            info = {"segmenter": name, "version": seg.version, "test": data.test.sha256,
                    "seconds": round(time.perf_counter() - t0, 1), "note": seg.note}
            atomic_write_text(info_path, json.dumps(info, indent=2) + "\n")
            log.info("segmented the test set with %s %s in %.1f s", name, seg.version,
                     info["seconds"])
        taken.add(name)
        systems.append(System(name, "system", cached, info=info))
    for p in files:
        pred = corpus_mod.read_corpus(p)
        metrics.check_aligned(data.test, pred)
        name = evaluate.system_name(os.fspath(p), taken)
        systems.append(System(name, "system", pred.words, info={"path": os.fspath(p)}))
    return systems


def _score(systems: Sequence[System], scorer: metrics.Scorer, test) -> None:
    for s in systems:
        s.stats = scorer.collect(corpus_mod.Corpus(s.name, s.words, test.lines))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            s.scores = metrics.compute(s.stats)


# --------------------------------------------------------------------------
# output helpers


def _pct(x, digits: int = 2) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence], align: str | None = None) -> str:
    """A GitHub Markdown table; ``align`` has one ``l``/``r`` per column.

    >>> print(markdown_table(["model", "f1"], [["F2 20%", "89.97"]], "lr"))
    | model | f1 |
    |:---|---:|
    | F2 20% | 89.97 |
    """
    align = align or "l" + "r" * (len(header) - 1)
    lines = ["| " + " | ".join(map(str, header)) + " |",
             "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    lines += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(lines)


def _write_csv(path: Path, df) -> None:
    with atomic_open(path, "w", encoding="utf-8", newline="") as f:
        df.to_csv(f, index=False, lineterminator="\n")


# --------------------------------------------------------------------------
# the report


def build_report(run_dir, cfg=None, *, inputs=None, analyses: Sequence[str] | None = None,
                 systems: Sequence[str] = (), segmenters: Sequence[str] = (),
                 human=None, progress: bool = True) -> Path:
    """Write ``report.md``, ``table2.csv`` and ``report/`` into ``run_dir``.

    Parameters
    ----------
    run_dir : path
        Output directory of a finished ``committee run``.
    cfg : Config, optional
        Its config (default: the one its manifest records).
    inputs : pipeline.RunInputs, optional
        The run's corpora, already read (spares reading the training corpus).
    analyses : sequence of str, optional
        Which of :data:`ANALYSES` to run (default: those switched on in
        ``cfg.experiments``).
    systems, segmenters, human
        Added to ``cfg.experiments.systems`` / ``segmenters`` / ``human``
        (``human`` replaces it).

    Returns
    -------
    Path of ``report.md``.
    """
    import pandas as pd

    from committee import plots

    run_dir = Path(run_dir)
    if cfg is None:
        cfg = load_run_config(run_dir)
    e = cfg.experiments
    analyses = tuple(e.enabled() if analyses is None else analyses)
    unknown = [a for a in analyses if a not in ANALYSES]
    if unknown:
        raise ValueError(f"unknown analyses {unknown}; choose from {', '.join(ANALYSES)}")
    check_experiments(cfg, analyses or ("ranking",))
    with runlock.hold(run_dir, "committee report"):  # one writer of run_dir at a time
        data = load_run(run_dir)
        handler = None
        if not any(getattr(h, "baseFilename", None) == os.path.abspath(run_dir / "run.log")
                   for h in log.handlers):  # committee report: log to the run's log too
            handler = logging.FileHandler(run_dir / "run.log", encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            log.addHandler(handler)
            log.setLevel(logging.INFO)
        try:
            return _build(run_dir, cfg, data, inputs, analyses, systems, segmenters, human,
                          progress)
        finally:
            if handler is not None:
                log.removeHandler(handler)
                handler.close()


def _build(run_dir: Path, cfg, data: RunData, inputs, analyses, systems, segmenters, human,
           progress) -> Path:
    import pandas as pd

    from committee import plots

    e = cfg.experiments
    started = time.monotonic()
    out_dir = run_dir / REPORT_DIR
    out_dir.mkdir(exist_ok=True)
    plt_font = plots.cjk_font()
    notes: list[str] = []
    if plt_font is None:
        notes.append(plots.NO_CJK_FONT)
        log.warning("no CJK font found: Chinese words in the figures show as boxes")

    K, test = data.K, data.test
    scorer = metrics.Scorer(test, difficulty=data.d, oov=data.oov)
    # ---- systems
    t2, t2_notes = table2_systems(cfg, data, out_dir, train="table2" in analyses,
                                  inputs=inputs, progress=progress)
    notes += t2_notes
    files = [cfg.resolve(p) for p in e.systems] + [Path(p) for p in systems]
    segs = list(dict.fromkeys(list(e.segmenters) + list(segmenters)))
    others = other_systems(cfg, data, out_dir, files, segs, progress=progress)
    ranked = t2 + others
    _score(ranked, scorer, test)
    members: list[System] = []
    if data.pred_ends is not None:
        texts = ["".join(s) for s in test.words]
        members = [System(f"member {k}", "member", _words_from_ends(texts, data.pred_ends[k]))
                   for k in range(K)]
        _score(members, scorer, test)
    for s in others:
        if s.info.get("note"):
            notes.append(f"{s.name}: {s.info['note']}.")

    figures: list[str] = []
    sections: list[str] = []

    # ---- scores of every ranked system
    f1_rank = _ranks([s.scores["f1"] for s in ranked])
    fb_rank = _ranks([s.scores["fb"] for s in ranked])
    human_scores = None
    human_path = human if human is not None else (cfg.resolve(e.human) if e.human else None)
    if human_path is not None and "ranking" in analyses:
        human_scores = read_human(human_path, [s.name for s in ranked])
    rows = []
    for s, rf, rb in zip(ranked, f1_rank, fb_rank):
        row = {"system": s.name, "kind": s.kind}
        row.update({k: s.scores[k] for k in SCORE_KEYS})
        row["rank_f1"], row["rank_fb"] = rf, rb
        if human_scores is not None:
            row["human"] = human_scores.get(s.name)
        rows.append(row)
    if ranked:
        _write_csv(out_dir / "systems.csv", pd.DataFrame(rows))

    # ---- Table 2
    if t2:
        trows = []
        for s in t2:
            r = {"model": s.name, "template": s.info["template"], "fraction": s.info["fraction"],
                 "n_sentences": s.info["n_sentences"], "n_chars": s.info["n_chars"]}
            r.update({k: s.scores[k] for k in ("p", "r", "f1", "pb", "rb", "fb", "oov_recall",
                                               "iv_recall")})
            r["max_iterations"] = s.info["params"].get("max_iterations")
            r["train_s"] = s.info["timings"]["train_s"]
            r["total_s"] = s.info["timings"]["total_s"]
            trows.append(r)
        df = pd.DataFrame(trows)
        with atomic_open(run_dir / "table2.csv", "w", encoding="utf-8", newline="") as f:
            df.to_csv(f, index=False, lineterminator="\n")
        md = markdown_table(
            ["model", "sentences", "p", "r", "f1", "pb", "rb", "fb", "train time"],
            [[r["model"], f"{r['n_sentences']:,}", *(_pct(r[k]) for k in
                                                     ("p", "r", "f1", "pb", "rb", "fb")),
              f"{r['train_s']:.0f} s"] for r in trows])
        atomic_write_text(out_dir / "table2.md", md + "\n")
        plots.table2(out_dir / "table2.png", [r["fraction"] for r in trows],
                     {k: [r[k] for r in trows] for k in ("f1", "fb", "pb", "rb")},
                     paper={"f1": ([0.2, 1.0], [89.97, 93.47]),
                            "fb": ([0.2, 1.0], [44.28, 61.59])})
        figures.append("table2.png")
        first, last = trows[0], trows[-1]
        spread = ""
        if len(trows) > 1:
            spread = (f" From {first['model']} to {last['model']}, f1 moves "
                      f"{_pct(first['f1'])} → {_pct(last['f1'])} "
                      f"(+{100 * (last['f1'] - first['f1']):.2f} points) but fb moves "
                      f"{_pct(first['fb'])} → {_pct(last['fb'])} "
                      f"(+{100 * (last['fb'] - first['fb']):.2f} points). "
                      "The paper (PKU): f1 89.97 → 93.47 (+3.50), fb 44.28 → 61.59 (+17.31).")
        params = t2[0].info["params"]
        sections.append(
            "## Table 2: segmenters trained on more data\n\n"
            f"Template {t2[0].info['template']}, {t2[0].info['algorithm']} "
            f"({', '.join(f'{k}={v}' for k, v in sorted(params.items()))}), nested random "
            f"samples of the {t2[0].info['n_train']:,} training sentences (seed "
            f"{t2[0].info['seed']}). Scores in %; data in `table2.csv` (fractions in [0, 1]).\n\n"
            + md + "\n\n" + spread.strip() + "\n\n![Table 2](report/table2.png)\n")
    elif "table2" in analyses:
        sections.append("## Table 2\n\nNo Table 2 model.\n")

    # ---- Fig. 1 committee size
    if "stability" in analyses:
        sizes = list(e.stability_sizes) if e.stability_sizes else analysis.default_sizes(K)
        bad = [k for k in sizes if k > K]
        if bad:
            raise ConfigError("experiments", [f"experiments.stability_sizes: sizes {bad} exceed "
                                              f"the run's committee size K = {K}"])
        summary = analysis.stability(data.marks, sizes)
        idx = analysis.sample_words(data.d, 12, e.seed)
        flat_words = [w for s in test.words for w in s]
        prefix = analysis.prefix_difficulties(data.marks, sizes)
        plots.committee_size(out_dir / "fig1-committee-size.png", sizes, prefix[:, idx],
                             [flat_words[i] for i in idx], summary)
        figures.append("fig1-committee-size.png")
        _write_csv(out_dir / "fig1-committee-size.csv", pd.DataFrame(summary))
        _write_csv(out_dir / "fig1-sampled-words.csv", pd.DataFrame(
            {"word_id": np.repeat(idx, len(sizes)), "word": np.repeat([flat_words[i] for i in idx],
                                                                      len(sizes)),
             "size": np.tile(sizes, len(idx)), "d": prefix[:, idx].T.ravel()}))
        j = len(sizes) // 2
        sections.append(
            "## Fig. 1: is the committee large enough?\n\n"
            f"Difficulties from the first K' of the {K} members (a prefix of the member list "
            "is itself a committee). At K' = "
            f"{sizes[j]}, the mean |d_K' − d_K| is {summary['mean_abs_diff'][j]:.3f} and "
            f"Pearson r with the full committee's d is {summary['pearson'][j]:.4f}; at "
            f"K' = {sizes[-2] if len(sizes) > 1 else sizes[-1]}: "
            f"{summary['mean_abs_diff'][-2 if len(sizes) > 1 else -1]:.3f} and "
            f"{summary['pearson'][-2 if len(sizes) > 1 else -1]:.4f}. The left panel follows "
            "12 words sampled across the difficulty range.\n\n"
            "![Fig. 1](report/fig1-committee-size.png)\n")

    # ---- Fig. 2 linguistic features
    if "linguistic" in analyses:
        flat_words = [w for s in test.words for w in s]
        groups: dict[str, np.ndarray] = {}
        idiom_note = ""
        if e.idioms is not None:
            idioms = _idiom_list(cfg, e.idioms)
            groups["idioms"] = np.fromiter((w in idioms for w in flat_words), bool,
                                           len(flat_words))
            idiom_note = (f"idioms: the {len(idioms):,} words tagged `i` in People's Daily "
                          "1998-01" if e.idioms == corpus_mod.EMBEDDED_NAME
                          else f"idioms: the words of `{e.idioms}`")
        elif test.pos is not None:
            pos = [p for s in test.pos for p in s]
            groups["idioms"] = np.array([p == "i" for p in pos], dtype=bool)
            idiom_note = "idioms: words tagged `i` in the corpus"
        else:
            notes.append("Fig. 2 has no idioms: the test corpus has no POS tags; give a word "
                         "list as `experiments.idioms`.")
        groups["2-character words"] = np.fromiter((len(w) == 2 for w in flat_words), bool,
                                                  len(flat_words))
        if data.oov is not None:
            groups["OOV words"] = data.oov
        groups["all words"] = np.ones(len(flat_words), dtype=bool)
        shares = analysis.bin_shares(data.d, groups)
        plots.linguistic(out_dir / "fig2-linguistic.png", analysis.BIN_LABELS, shares)
        figures.append("fig2-linguistic.png")
        table = {"bin": list(analysis.BIN_LABELS)}
        for name, s in shares.items():
            table[f"{name} n"] = s["n"]
            table[f"{name} share"] = s["share"]
        _write_csv(out_dir / "fig2-linguistic.csv", pd.DataFrame(table))
        mean_d = {name: float(data.d[m].mean()) if m.any() else float("nan")
                  for name, m in groups.items()}
        md = markdown_table(["group", "words", "mean d", "share with d ≥ 0.5"],
                            [[name, f"{int(groups[name].sum()):,}", f"{mean_d[name]:.3f}",
                              _pct(float((data.d[groups[name]] >= 0.5).mean())
                                   if groups[name].any() else None, 1)]
                             for name in groups])
        sections.append(
            "## Fig. 2: which words are hard?\n\n"
            f"Distribution of word groups over the ten difficulty bins ({idiom_note or 'no idioms'}"
            "; OOV: not in the training word list).\n\n" + md
            + "\n\n![Fig. 2](report/fig2-linguistic.png)\n")

    # ---- Fig. 3 ranking
    if "ranking" in analyses and ranked:
        names = [s.name for s in ranked]
        plots.ranking(out_dir / "fig3-ranking.png", names, [s.scores["f1"] for s in ranked],
                      [s.scores["fb"] for s in ranked], f1_rank, fb_rank)
        figures.append("fig3-ranking.png")
        header = ["system", "p", "r", "f1", "pb", "rb", "fb", "OOV r", "IV r", "#f1", "#fb"]
        body = [[s.name, *(_pct(s.scores[k]) for k in SCORE_KEYS), rf, rb]
                for s, rf, rb in zip(ranked, f1_rank, fb_rank)]
        if human_scores is not None:
            header.append("human")
            for r, s in zip(body, ranked):
                r.append(human_scores.get(s.name, "–"))
        text = ("## Fig. 3: ranking systems by f1 and by fb\n\n"
                "Every system scored against this run's difficulties (scores in %, # = rank). "
                "Data in `report/systems.csv`.\n\n" + markdown_table(header, body) + "\n")
        moved = [s.name for s, rf, rb in zip(ranked, f1_rank, fb_rank) if rf != rb]
        text += ("\nf1 and fb rank these systems differently: " + ", ".join(moved) + ".\n"
                 if moved else "\nf1 and fb rank the systems in the same order.\n")
        if human_scores is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                corr = analysis.correlations(
                    {k: [s.scores[k] for s in ranked] for k in ("p", "r", "f1", "pb", "rb", "fb")},
                    [human_scores.get(s.name) for s in ranked])
            _write_csv(out_dir / "fig3-human-correlation.csv",
                       pd.DataFrame({"metric": list(corr), "pearson": list(corr.values())}))
            text += ("\nPearson correlation with the human judgements "
                     f"(`{human_path}`, {len(human_scores)} systems):\n\n"
                     + markdown_table(list(corr), [[("–" if v is None else f"{v:.3f}")
                                                    for v in corr.values()]], "r" * len(corr))
                     + "\n")
        sections.append(text + "\n![Fig. 3](report/fig3-ranking.png)\n")

    # ---- Fig. 4 accuracy by bin
    if "bins" in analyses and ranked:
        rec = np.array([[np.nan if v is None else v for v in s.scores["recall_by_bin"]]
                        for s in ranked])
        counts = analysis.bin_counts(data.d)
        plots.recall_by_bin(out_dir / "fig4-recall-by-bin.png", analysis.BIN_LABELS,
                            [s.name for s in ranked], rec, counts)
        figures.append("fig4-recall-by-bin.png")
        table = {"bin": list(analysis.BIN_LABELS), "gold_words": counts}
        for s, r in zip(ranked, rec):
            table[s.name] = r
        _write_csv(out_dir / "fig4-recall-by-bin.csv", pd.DataFrame(table))
        body = [[s.name, *(_pct(v, 1) for v in r)] for s, r in zip(ranked, rec)]
        sections.append(
            "## Fig. 4: accuracy by difficulty\n\n"
            "Recall of the gold words in each difficulty bin (%), bin sizes in grey.\n\n"
            + markdown_table(["system", *analysis.BIN_LABELS],
                             [["gold words", *(f"{c:,}" for c in counts)]] + body)
            + "\n\n![Fig. 4](report/fig4-recall-by-bin.png)\n")

    # ---- Fig. 6 split-half
    if "split_half" in analyses:
        pool = t2 + members + others
        if len(pool) < 3:
            notes.append("Split-half reliability needs at least 3 models; "
                         f"this run has {len(pool)} (no predictions.npz and few systems).")
        else:
            masks = analysis.split_half_masks(len(test.words), e.split_half_repeats, e.seed)
            a, b = analysis.split_half_scores([s.stats for s in pool], masks, "fb")
            r = analysis.split_half_pearson(a, b)
            fa, fb_ = analysis.split_half_scores([s.stats for s in pool], masks, "f1")
            r_f1 = analysis.split_half_pearson(fa, fb_)
            plots.split_half(out_dir / "fig6-split-half.png", a[0], b[0],
                             [s.kind for s in pool], r)
            figures.append("fig6-split-half.png")
            _write_csv(out_dir / "fig6-split-half.csv", pd.DataFrame(
                {"model": [s.name for s in pool], "kind": [s.kind for s in pool],
                 "fb_half_a": a[0], "fb_half_b": b[0], "f1_half_a": fa[0], "f1_half_b": fb_[0]}))
            _write_csv(out_dir / "fig6-split-half-pearson.csv",
                       pd.DataFrame({"split": np.arange(len(r)), "pearson_fb": r,
                                     "pearson_f1": r_f1}))
            kinds = ", ".join(f"{sum(s.kind == k for s in pool)} {label}"
                              for k, label in (("table2", "Table 2 models"),
                                               ("member", "committee members"),
                                               ("system", "other systems"))
                              if any(s.kind == k for s in pool))
            sections.append(
                "## Fig. 6: split-half reliability\n\n"
                f"The test sentences split at random into two halves, {len(r)} times "
                f"(seed {e.seed}); {len(pool)} models ({kinds}) scored on each half. "
                f"Pearson r of fb across halves: first split {r[0]:.4f}, mean "
                f"{np.nanmean(r):.4f}, min {np.nanmin(r):.4f} (f1: mean {np.nanmean(r_f1):.4f}). "
                f"The paper reports 0.996 on PKU.\n\n![Fig. 6](report/fig6-split-half.png)\n")
            if not members:
                notes.append("Split-half used no committee member: the run has no "
                             "predictions.npz (members trained before segmentations were "
                             "recorded).")

    # ---- Fig. 7 word weights
    if "word_weights" in analyses:
        S = len(test.words)
        chosen = list(e.word_weight_sentences)
        bad = [i for i in chosen if i >= S]
        if bad:
            raise ConfigError("experiments", [f"experiments.word_weight_sentences: {bad} do not "
                                              f"exist (the test set has {S} sentences, 0-based)"])
        sentence_of = np.repeat(np.arange(S), [len(s) for s in test.words])
        how = "the sentences chosen in `experiments.word_weight_sentences`"
        if not chosen:
            chosen = analysis.hardest_sentences(data.d, sentence_of, 3).tolist()
            how = ("the 3 sentences with the highest mean word difficulty among those of "
                   "6–24 words")
        starts = np.concatenate(([0], np.cumsum([len(s) for s in test.words])))
        ws = [test.words[i] for i in chosen]
        ds = [data.d[starts[i]:starts[i + 1]].tolist() for i in chosen]
        titles = [f"sentence {i} (line {test.lines[i]}), mean d = {np.mean(d):.2f}"
                  for i, d in zip(chosen, ds)]
        plots.word_weights(out_dir / "fig7-word-weights.png", ws, ds, titles)
        figures.append("fig7-word-weights.png")
        _write_csv(out_dir / "fig7-word-weights.csv", pd.DataFrame(
            {"sentence": np.repeat(chosen, [len(w) for w in ws]),
             "word_index": [j for w in ws for j in range(len(w))],
             "word": [x for w in ws for x in w], "d": [x for d in ds for x in d]}))
        lines = [" ".join(f"{w}<sub>{d:.2f}</sub>" for w, d in zip(w_, d_))
                 for w_, d_ in zip(ws, ds)]
        sections.append(
            "## Fig. 7: word weights\n\n"
            f"Shown: {how}; each word with its difficulty.\n\n"
            + "\n\n".join(f"- {t}: {ln}" for t, ln in zip(titles, lines))
            + "\n\n![Fig. 7](report/fig7-word-weights.png)\n")

    # ---- report.md
    m = data.manifest
    hist = analysis.bin_counts(data.d)
    head = [
        f"# Report: {m.get('name', run_dir.name)}",
        "",
        f"Committee of K = {K} CRF segmenters; test set: {len(test.words):,} sentences, "
        f"{test.n_words():,} words, {test.n_chars():,} characters. Mean difficulty "
        f"{data.d.mean():.3f}; {100 * (data.d == 0).mean():.1f}% of the words have d = 0 and "
        f"{100 * (data.d == 1).mean():.1f}% have d = 1"
        + (f"; OOV rate {100 * data.oov.mean():.2f}%." if data.oov is not None else "."),
        "",
        "How to read: a word's difficulty d is the share of the committee's members that "
        "segment it wrongly. The balanced metrics pb, rb, fb reward getting hard words right "
        "(weight d) and punish getting easy words wrong (weight 1 − d), each side as a "
        "harmonic mean (Qian, Qiu & Huang, ACL 2016); p, r, f1 count every word alike.",
        "",
        "Difficulties: `" + m.get("signature", "?") + "`",
        "",
        "Scores: `" + _score_signature(run_dir, test) + "` (the same as `committee score "
        "--gold test.txt --difficulty test.weight --train-words train-words.txt` prints)",
        "",
        "Words per difficulty bin: "
        + ", ".join(f"{lab} {n:,}" for lab, n in zip(analysis.BIN_LABELS, hist)) + ".",
        "",
        f"Analyses: {', '.join(analyses) or 'none'}; figures: {len(figures)} "
        f"(`report/*.png`, data beside each as CSV). Built in "
        f"{time.monotonic() - started:.0f} s by committee {__version__}.",
        "",
    ]
    tail = []
    if notes:
        tail = ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    text = "\n".join(head) + "\n" + "\n".join(sections) + "\n" + "\n".join(tail)
    atomic_write_text(run_dir / "report.md", text)
    log.info("report: %s (%d figures)", run_dir / "report.md", len(figures))
    return run_dir / "report.md"


def _idiom_list(cfg, idioms: str) -> set[str]:
    """A word list file, or the words tagged ``i`` in the embedded corpus."""
    if idioms == corpus_mod.EMBEDDED_NAME:
        pd98 = corpus_mod.read_embedded()
        return {w for ws, ps in zip(pd98.words, pd98.pos) for w, p in zip(ws, ps) if p == "i"}
    return corpus_mod.read_word_list(cfg.resolve(idioms))


def _score_signature(run_dir: Path, test) -> str:
    from committee.fileio import sha256_file

    words = run_dir / "train-words.txt"
    return metrics.signature(
        gold_sha256=test.sha256, difficulty_sha256=sha256_file(run_dir / "test.weight"),
        train_words_sha256=sha256_file(words) if words.is_file() else None)


def _ranks(values):
    from committee.evaluate import rank

    return rank(values)
