"""snownlp: a character HMM trained on People's Daily 1998-01, the embedded
corpus, its test split included (so its scores on that split are not a fair
comparison, and it says so)."""

from __future__ import annotations

from committee.segmenters.base import Segmenter, Tool, version


def load() -> Segmenter:
    from snownlp import seg

    return Segmenter("snownlp", version("snownlp"), lambda text: list(seg.seg(text)),
                     note="trained on People's Daily 1998-01, the embedded corpus "
                          "including its test split")


TOOL = Tool(name="snownlp", order=30, module="snownlp", extra="snownlp", loader=load,
            dependency=True, about="character HMM", licence="MIT")
