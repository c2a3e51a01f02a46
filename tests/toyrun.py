"""The toy committee run shared by the pipeline and fault-injection tests:
300 training and 40 test sentences of People's Daily, as SIGHAN files, and a
config with a few quick members."""

from __future__ import annotations

import os
from pathlib import Path

from committee import corpus as corpus_mod
from committee.pipeline import layout

OUTPUTS = layout.OUTPUT_FILES


def embedded(split: str | None = None, entities: bool = False) -> corpus_mod.Corpus:
    """``committee.corpus.read_embedded(split, entities=entities)``, read once
    per session (it takes a second of CPU) and shared: callers only read it
    (slices, files written from it) and never change it, which
    tests/conftest.py checks at the end of the session (:func:`changed`).
    Tests of reading the embedded corpus call ``read_embedded`` itself."""
    key = (split, entities)
    if key not in _EMBEDDED:
        corpus = corpus_mod.read_embedded(split, entities=entities)
        _EMBEDDED[key] = (corpus, _checksum(corpus))
    return _EMBEDDED[key][0]


#: (split, entities) -> the corpus :func:`embedded` read, and its checksum then.
_EMBEDDED: dict = {}


def _checksum(corpus: corpus_mod.Corpus) -> str:
    import hashlib

    content = (corpus.words, corpus.pos, corpus.tags, corpus.lines)
    return hashlib.sha256(repr(content).encode("utf-8")).hexdigest()


def changed() -> list[str]:
    """The corpora :func:`embedded` shared that a caller changed."""
    return [f"read_embedded{key}" for key, (corpus, checksum) in _EMBEDDED.items()
            if _checksum(corpus) != checksum]


def make_toy_corpus(d: Path) -> Path:
    """Write ``train.txt`` and ``test.txt`` into ``d``."""
    full = embedded()
    corpus_mod.write_sighan(d / "train.txt", full.words[:300])
    corpus_mod.write_sighan(d / "test.txt", full.words[1000:1040])
    return d


def write_config(path: Path, corpus_dir: Path, out: Path, *, size=3, n_jobs=1,
                 backend="loky", iterations=5, keep_models=False, name="toy",
                 experiments: str = "", crf: str | None = None) -> Path:
    """A run config for the toy corpus, written to ``path``; ``experiments``
    is the YAML body of an ``experiments:`` section (indented by two);
    ``crf`` the ``crf`` section as YAML flow (default: the legacy preset,
    L2 only, with ``iterations``: at a handful of iterations its toy members
    are of even quality)."""
    if crf is None:
        crf = f"{{preset: legacy, params: {{max_iterations: {iterations}}}}}"
    path.write_text(f"""
name: {name}
corpus:
  root: {corpus_dir}
  train: {{path: train.txt, format: sighan}}
  test: {{path: test.txt, format: sighan}}
committee: {{size: {size}, templates: [F1, F2, F3], ratios: [0.1, 0.2, 0.3], seed: 7}}
crf: {crf}
parallel: {{backend: {backend}, n_jobs: {n_jobs}}}
output: {{dir: {out}, keep_models: {str(keep_models).lower()}}}
""" + (f"experiments:\n{experiments}" if experiments else ""), encoding="utf-8")
    return path


def outputs(out: Path) -> dict[str, bytes]:
    """The bytes of every output file of a run."""
    return {name: (out / name).read_bytes() for name in OUTPUTS}


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and directory below ``root`` with its size and mtime."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_size if p.is_file() else -1, st.st_mtime_ns)
    return out
