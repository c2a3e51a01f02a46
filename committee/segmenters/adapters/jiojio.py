"""jiojio: a CRF (``jiojio.CWSPredictText``) with its default CWS model,
about 40 s to load."""

from __future__ import annotations

import contextlib
import io

from committee.segmenters.base import Segmenter, Tool, version


def load() -> Segmenter:
    # importing jiojio prints "# jiojio - Successfully load C funcs ..." on stdout
    with contextlib.redirect_stdout(io.StringIO()):  # (when load() has not imported it)
        from jiojio import CWSPredictText

        model = CWSPredictText()  # its own default_cws_model, not jiojio's global one
    return Segmenter("jiojio", version("jiojio"), model.cut)


TOOL = Tool(name="jiojio", order=60, module="jiojio", extra="jiojio", loader=load,
            about="CRF, its default CWS model", licence="GPL-3.0")
