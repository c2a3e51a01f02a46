"""The ``crf`` section: one params model per algorithm, built from what the
trainer (:func:`committee.trainers.get`, python-crfsuite) declares of each
parameter, its preset resolved and its values checked by the trainer's own
rules: the config keeps no defaults or checks of its own."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag, TypeAdapter, ValidationError, create_model, \
    model_serializer

from committee import crf, trainers
from committee.config.base import NonEmptyStr, StrictBool, StrictFloat, StrictInt, _problem, \
    _Section
from committee.crf import ALGORITHMS, LINESEARCH


# --------------------------------------------------------------------------
# crf: one params model per algorithm, built from python-crfsuite itself

class CrfParams(_Section):
    """Trainer parameters of one algorithm; ``None`` = python-crfsuite's default."""

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler):
        return {k: v for k, v in handler(self).items() if v is not None}

    def trainer_params(self) -> dict[str, Any]:
        """The parameters to pass to ``pycrfsuite.Trainer.set_params``."""
        return self.model_dump(by_alias=True)


def _params_model(algorithm: str) -> type[CrfParams]:
    """The types and defaults of ``algorithm``'s parameters, as the trainer
    declares them; their values are checked by the trainer (see
    :func:`_crf_problems`)."""
    fields: dict[str, Any] = {}
    for name, (default, value) in trainers.get().parameters(algorithm).items():
        if name == "linesearch":
            kind: Any = Literal[LINESEARCH]
        elif isinstance(default, bool):
            kind = StrictBool
        elif isinstance(default, int):
            kind = StrictInt
        elif isinstance(default, float):
            kind = StrictFloat
        else:
            kind = NonEmptyStr
        fields[name.replace(".", "_")] = (
            Annotated[kind | None, Field(alias=name)],
            value,
        )
    return create_model(f"{algorithm.capitalize()}Params", __base__=CrfParams, **fields)


class _CrfBase(_Section):
    preset: Literal[tuple(crf.PRESETS)] | None = None
    """a recipe of committee.crf.PRESETS (algorithm and parameters) that algorithm and params
    refine; default paper, null: none"""
    algorithm: str
    params: CrfParams

    def trainer_params(self) -> dict[str, Any]:
        """``params`` as ``{crfsuite name: value}``, unset names left out."""
        return self.params.trainer_params()


def _crf_model(algorithm: str) -> type[_CrfBase]:
    params = _params_model(algorithm)
    return create_model(
        f"{algorithm.capitalize()}Crf",
        __base__=_CrfBase,
        algorithm=(Literal[algorithm], algorithm),
        params=(params, Field(default_factory=params)),
    )


_CRF_MODELS = {algorithm: _crf_model(algorithm) for algorithm in ALGORITHMS}


def _crf_tag(value: Any) -> str:
    if isinstance(value, dict):
        resolved, _ = trainers.get().resolve_preset(value)
        algorithm = (resolved or value).get("algorithm", "lbfgs")
        return algorithm if isinstance(algorithm, str) else repr(algorithm)
    return getattr(value, "algorithm", "lbfgs")


def _resolve_crf(value: Any) -> Any:
    """``crf`` as written → with its preset expanded (the trainer's ``resolve_preset``)."""
    resolved, problems = trainers.get().resolve_preset(value)
    if problems:
        key, message = problems[0].split(": ", 1)
        raise _problem(message, (key,))
    return value if resolved is None else resolved


#: ``crf`` section: ``algorithm`` picks the model, and so the valid ``params``.
CrfConfig = Annotated[
    Union[tuple(Annotated[model, Tag(name)] for name, model in _CRF_MODELS.items())],
    Discriminator(_crf_tag),
]


def _crf_problems(data: dict[str, Any]) -> list[str]:
    """The values of ``crf.params``, checked by the trainer's one rule set
    (:func:`committee.trainers.check_params`; their types are checked by the
    schema; a section whose types are wrong is left to its messages)."""
    section, problems = trainers.get().resolve_preset(data.get("crf"))
    if section is None or problems:
        return []  # reported by the schema
    try:
        validated = TypeAdapter(CrfConfig).validate_python(section)
    except ValidationError:
        return []
    raw = section.get("params") if isinstance(section, dict) else None
    raw = raw if isinstance(raw, dict) else {}
    # each value as written (``-1``, not ``-1.0``), for the message
    shown = {k: raw.get(k, v) for k, v in validated.trainer_params().items()}
    return [f"crf.{p}" for p in trainers.check_params(validated.algorithm, shown)]

