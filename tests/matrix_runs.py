"""The runs and files the command matrix (tests/test_matrix.py) works on,
one set per task, made once per session:

- ``k3``: a K = 3 committee run on a tiny corpus (300 training and 40 test
  sentences of People's Daily; 400 training sentences for entities), made
  with ``committee run`` in-process, then ``committee check-gold`` on it;
- ``k5``: a copy of it grown to K = 5 by ``committee run --set
  committee.size=5`` (resumed: the three saved members are not trained
  again), with ``committee irt`` (IRT needs 5 members at least) and
  ``committee check-gold``;
- two system outputs per task, in the task's format: the gold with the
  first two words of each sentence merged (``merged``) and, for entities,
  one tagger that finds no entity (its precision undefined);
- ``tagger.py``: a ``cmd:COMMAND`` segmenter or tagger (each character a
  word; tags ``O`` or ``n``).
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from committee import corpus as corpus_mod
from committee.cli import main
from committee.corpus.embedded import with_entities
from toyrun import embedded

#: The tasks, with their training corpus's file name and format.
TASKS = {"segmentation": ("train.txt", "sighan"), "ner": ("train.bio", "bio"),
         "pos": ("train.txt", "pku")}

TAGGER = """import sys
mode = sys.argv[1]
for line in sys.stdin:
    chars = [c for c in line if not c.isspace()]
    if mode == "segmentation":
        print(" ".join(chars), flush=True)
    else:
        tag = "O" if mode == "ner" else "n"
        print(" ".join(f"{c}/{tag}" for c in chars), flush=True)
"""


@dataclass
class TaskRuns:
    task: str
    dir: Path
    config: Path
    k3: Path
    k5: Path
    train: Path
    train_format: str
    outputs: dict = field(default_factory=dict)  # name -> path
    tagger: str = ""

    @property
    def format(self) -> str:
        return {"segmentation": "sighan", "ner": "bio", "pos": "pku"}[self.task]


def _config(d: Path, task: str, out: Path) -> Path:
    train, fmt = TASKS[task]
    test = "test.bio" if task == "ner" else "test.txt"
    ratios = "[0.3, 0.5]" if task == "ner" else "[0.1, 0.2, 0.3]"
    iterations = {"segmentation": 20, "ner": 30, "pos": 50}[task]
    path = d / "config.yaml"
    path.write_text(f"""
name: matrix-{task}
task: {task}
corpus:
  root: {d}
  train: {{path: {train}, format: {fmt}}}
  test: {{path: {test}, format: {fmt}}}
committee: {{size: 3, templates: [F1, F2, F3], ratios: {ratios}, seed: 7}}
crf: {{preset: legacy, params: {{max_iterations: {iterations}}}}}
parallel: {{backend: sequential, n_jobs: 1}}
output: {{dir: {out}}}
""", encoding="utf-8")
    return path


def _char_level(words, tags):
    chars, out = [], []
    for w, t in zip(words, tags):
        for k, c in enumerate(w):
            chars.append(c)
            out.append(t if t == "O" or k == 0 else "I-" + t[2:])
    return chars, out


def _corpus(d: Path, task: str) -> None:
    full = embedded()
    if task == "segmentation":
        corpus_mod.write_sighan(d / "train.txt", full.words[:300])
        corpus_mod.write_sighan(d / "test.txt", full.words[1000:1040])
    elif task == "pos":
        corpus_mod.write_pku(d / "train.txt", full.words[:300], full.pos[:300])
        corpus_mod.write_pku(d / "test.txt", full.words[1000:1040], full.pos[1000:1040])
    else:
        full = with_entities(full)
        for name, rows in (("train.bio", range(400)), ("test.bio", range(1000, 1040))):
            pairs = [_char_level(full.words[i], full.tags[i]) for i in rows]
            corpus_mod.write_bio(d / name, [p[0] for p in pairs], [p[1] for p in pairs])


def _merged(ws):
    return [ws[0] + ws[1], *ws[2:]] if len(ws) > 1 else list(ws)


def _outputs(r: TaskRuns) -> None:
    d = r.dir
    if r.task == "segmentation":
        gold = corpus_mod.read_corpus(r.k3 / "test.txt")
        corpus_mod.write_sighan(d / "merged.txt", [_merged(ws) for ws in gold.words])
        corpus_mod.write_sighan(d / "chars.txt", [list("".join(ws)) for ws in gold.words])
        r.outputs = {"merged": d / "merged.txt", "chars": d / "chars.txt"}
    elif r.task == "pos":
        gold = corpus_mod.read_corpus(r.k3 / "test.txt", format="pku")
        corpus_mod.write_pku(d / "merged.txt", [_merged(ws) for ws in gold.words],
                             [[ts[0], *ts[2:]] if len(ts) > 1 else ts for ts in gold.pos])
        retag = [[t if k % 4 else "n" for k, t in enumerate(ts)] for ts in gold.pos]
        corpus_mod.write_pku(d / "retag.txt", gold.words, retag)
        r.outputs = {"merged": d / "merged.txt", "retag": d / "retag.txt"}
    else:
        gold = corpus_mod.read_corpus(r.k3 / "test.txt", format="bio")
        # every entity that starts a sentence's third token or later kept, the rest O
        drop = [[t if k % 3 else "O" for k, t in enumerate(ts)] for ts in gold.tags]
        corpus_mod.write_bio(d / "drop.bio", gold.words, drop)
        corpus_mod.write_bio(d / "none.bio", gold.words, [["O"] * len(ts) for ts in gold.tags])
        r.outputs = {"drop": d / "drop.bio", "none": d / "none.bio"}


def call(argv) -> int:
    """``committee ARGV`` in-process, its exit code."""
    return main([str(a) for a in argv])


class Runs(dict):
    """Each task's :class:`TaskRuns` under ``root``, made when first asked for
    (``-k ner`` trains only the entity committee); the session's one set is
    the ``task_runs`` fixture of tests/conftest.py."""

    def __init__(self, root: Path):
        super().__init__()
        self.root = root

    def __missing__(self, task: str) -> TaskRuns:
        self[task] = made = make(self.root, task)
        return made


def make(root: Path, task: str) -> TaskRuns:
    """Every file of ``task`` under ``root``: see the module's docstring."""
    d = root / task
    d.mkdir(parents=True)
    _corpus(d, task)
    train, fmt = TASKS[task]
    r = TaskRuns(task, d, _config(d, task, d / "k3"), d / "k3", d / "k5", d / train, fmt)
    assert call(["run", r.config, "--quiet"]) == 0
    shutil.copytree(r.k3, r.k5)
    assert call(["run", r.config, "--quiet", "--set", "committee.size=5",
                 "--set", f"output.dir={r.k5}"]) == 0
    assert call(["irt", r.k5]) == 0
    for run in (r.k3, r.k5):
        assert call(["check-gold", run]) == 0
    _outputs(r)
    (d / "tagger.py").write_text(TAGGER, encoding="utf-8")
    r.tagger = f"cmd:{sys.executable} {d / 'tagger.py'} {task}"
    return r
