"""A config in, a run directory out: the difficulty dataset (:mod:`dataset`),
``committee run`` and ``committee report`` end to end (:mod:`workflow`), the
run directory's names and rules (:mod:`layout`), its one writer
(:mod:`lock`), the members' marks (:mod:`marks`) and the difficulty files
(:mod:`difficulty`).
"""
