"""One module per tool that ``--with NAME`` runs, each declaring its
:class:`~committee.segmenters.base.Tool` record as ``TOOL``: its name, its
install hint, what it can do (segment, tag entities, tag parts of speech
and in which tagset) and its loader.  :mod:`committee.segmenters.registry`
finds every module here; a new tool is one more module (and its extra in
pyproject.toml, its row in docs/segmenters.md).

Each loader imports its package only when called and runs offline with the
model the package ships: nothing is downloaded at load or while segmenting.
"""
