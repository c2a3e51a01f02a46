"""The committee's learners: feature templates (:mod:`features`), the trainer
interface and its registry (:mod:`trainers`), python-crfsuite behind it
(:mod:`crf`), and one member drawn, trained and marked end to end
(:mod:`members`).
"""
