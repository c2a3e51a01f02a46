"""pkuseg: PKU's CRF with the mixed-domain model of its sdist, whose
training data likely include People's Daily.  Its sdist needs numpy and
Cython at build time, hence a second install step (docs/segmenters.md)."""

from __future__ import annotations

from committee.segmenters.base import Segmenter, Tool, version


def load() -> Segmenter:
    import pkuseg

    model = pkuseg.pkuseg()  # model_name="default": the mixed-domain model of the sdist
    return Segmenter("pkuseg", version("pkuseg"), model.cut,
                     note="trained on a mix of domains whose data likely include "
                          "People's Daily")


TOOL = Tool(name="pkuseg", order=40, module="pkuseg", extra="pkuseg", loader=load,
            install="pip install 'committee[pkuseg]' && "
                    "pip install --no-build-isolation pkuseg==0.0.25",
            why_not_tagger="its entity tags (the POS mode's nr, ns, nt) need a model that pkuseg "
                           "downloads from GitHub at first use, which an offline machine cannot",
            about="PKU's CRF, its mixed-domain default model", licence='"Other/Proprietary"')
