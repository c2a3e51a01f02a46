"""THULAC (Tsinghua): its own CRF-like model, ``seg_only=True``; with its
part-of-speech model (``seg_only=False``) a tagger too (tagset ``thulac``)."""

from __future__ import annotations

import contextlib
import io

from committee.segmenters.base import Segmenter, Tool, version


def load(seg_only: bool = True) -> Segmenter:
    import gc
    import warnings

    import thulac

    # it prints "Model loaded succeed" and leaves model files open (ResourceWarning)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        model = thulac.thulac(seg_only=seg_only)  # its POS model (seg_only=False) is another
        gc.collect()

    def pos(text: str) -> list[tuple[str, str]]:
        return [(w, t) for w, t in model.cut(text, text=False)]

    return Segmenter("thulac", version("thulac"), lambda text: [w for w, _ in pos(text)],
                     pos=None if seg_only else pos)


TOOL = Tool(name="thulac", order=20, module="thulac", extra="thulac", loader=load,
            tagset="thulac", pos_loader=lambda: load(seg_only=False),
            about="THULAC (Tsinghua), `seg_only=True`", licence="not stated")
