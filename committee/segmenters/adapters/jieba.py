"""jieba: a prefix dictionary and an HMM for unknown words; a part-of-speech
tagger too (``jieba.posseg``, its tagset ``jieba``)."""

from __future__ import annotations

import logging

from committee.segmenters.base import Segmenter, Tool, version


def load() -> Segmenter:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()  # its own dictionary state, not jieba's global one
    tokenizer.initialize()
    return Segmenter("jieba", version("jieba"), lambda text: list(tokenizer.cut(text, HMM=True)))


def load_pos() -> Segmenter:
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    tagger = jieba.posseg.POSTokenizer(jieba.Tokenizer())  # not jieba's global dictionary
    return Segmenter("jieba", version("jieba"), lambda text: [w for w, _ in tagger.cut(text)],
                     pos=lambda text: [(p.word, p.flag) for p in tagger.cut(text, HMM=True)])


TOOL = Tool(name="jieba", order=10, module="jieba", extra="jieba", loader=load,
            tagset="jieba", pos_loader=load_pos,
            about="prefix dictionary + HMM for unknown words", licence="MIT")
