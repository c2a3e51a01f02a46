"""Former name of :mod:`committee.scoring` (``committee.report`` imports
:func:`rank` and :func:`system_name` from here).

TODO(merge): delete this module once ``committee/report.py`` imports
``committee.scoring``.
"""

from committee.scoring import rank, system_name  # noqa: F401
