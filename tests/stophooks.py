"""``committee`` as the script runs it (stop signals handled), paused at a
chosen phase so that a test can signal it there (tests/test_signals.py).

Started as ``python -c "import stophooks; stophooks.main()" COMMAND ...`` with
``tests/`` on ``PYTHONPATH``, and two environment variables:

- ``COMMITTEE_TEST_PAUSE``: the phase to pause in: ``corpora`` (the parent
  reads the corpora), ``members`` (committee members train in the workers),
  ``outputs`` (the parent writes the difficulty files) or ``table2`` (the
  report's Table 2 models train in the workers);
- ``COMMITTEE_TEST_MARKS``: a directory where each pause leaves a file named
  after itself, for the test to wait on.

In the worker phases the first task to start runs as usual and every later
one pauses, so that at the signal a task has finished (and is saved) while
others are in flight.  The wrappers replace the tasks in the parent only
(the runs signalled here have two workers): a worker unpickles a wrapper,
which calls the real task of its own, unpatched import.  A pause sleeps far longer than any test waits: a
paused worker still alive after its run was stopped is a survivor.

The task wrappers live in this module, not in ``__main__``: a worker (loky
or Dask) unpickles them by module name and imports this module, which
installs nothing on import.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

#: How long a paused step sleeps.
HOLD = 600


def _marks() -> Path:
    return Path(os.environ["COMMITTEE_TEST_MARKS"])


def pause(name: str) -> None:
    (_marks() / name).touch()
    time.sleep(HOLD)


def _first(kind: str) -> bool:
    """Whether this is the first task of ``kind`` to start (in any process)."""
    try:
        os.close(os.open(_marks() / f"first-{kind}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def member_task(task):
    from committee.pipeline import dataset

    if not _first("member"):
        pause(f"member-{task.index}")
    return dataset._member_task(task)


def table2_task(job):
    from committee.report import systems

    if not _first("table2"):
        pause(f"table2-{job.index}")
    return systems._train_one(job)


def _before(module, name: str, phase: str) -> None:
    """Pause before ``module.name`` runs."""
    real = getattr(module, name)

    def paused(*args, **kwargs):
        pause(phase)
        return real(*args, **kwargs)

    setattr(module, name, paused)


def main() -> None:
    from committee import cli
    from committee.pipeline import difficulty
    from committee.pipeline import dataset

    phase = os.environ["COMMITTEE_TEST_PAUSE"]
    if phase == "corpora":
        _before(dataset, "load_inputs", "corpora")
    elif phase == "outputs":
        _before(difficulty, "write_weight", "outputs")
    elif phase == "members":
        dataset._member_task = member_task
    elif phase == "table2":
        from committee.report import systems

        systems._train_one = table2_task
    sys.argv[0] = "committee"
    sys.exit(cli.main())
