"""rjieba: jieba's dictionary and HMM in Rust (jieba-rs, ``rjieba.Jieba``)."""

from __future__ import annotations

from committee.segmenters.base import Segmenter, Tool, version


def load() -> Segmenter:
    import rjieba

    tokenizer = rjieba.Jieba()
    return Segmenter("rjieba", version("rjieba"), lambda text: tokenizer.cut(text, hmm=True))


TOOL = Tool(name="rjieba", order=70, module="rjieba", extra="rjieba", loader=load,
            about="jieba's dictionary and HMM in Rust (jieba-rs)", licence="MIT")
