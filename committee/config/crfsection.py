"""The ``crf`` section: ``crf.trainer`` names the trainer
(:data:`committee.learners.trainers.TRAINERS`, default ``crfsuite``), and that
trainer owns the rest of the section: its presets are resolved by it, its
algorithms pick one params model each, built from what it declares of
each parameter, and its values are checked by its own rules.  The config
keeps no defaults or checks of its own.

The models of a trainer are built when a config first names it, so a
trainer registered at run time is validated like python-crfsuite."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, SerializeAsAny, Tag, TypeAdapter, ValidationError, \
    WrapValidator, create_model, model_serializer

from committee.learners import trainers
from committee.config.base import NonEmptyStr, StrictBool, StrictFloat, StrictInt, section_problem, \
    Section


# --------------------------------------------------------------------------
# crf: one params model per algorithm of a trainer, built from the trainer

class CrfParams(Section):
    """Trainer parameters of one algorithm; ``None`` = the trainer's own default."""

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler):
        return {k: v for k, v in handler(self).items() if v is not None}

    def trainer_params(self) -> dict[str, Any]:
        """The parameters to pass to the trainer (python-crfsuite's ``set_params``)."""
        return self.model_dump(by_alias=True)


def _params_model(trainer: trainers.Trainer, algorithm: str) -> type[CrfParams]:
    """The types and defaults of ``algorithm``'s parameters, as ``trainer``
    declares them (a string parameter with ``choices`` takes one of them);
    their values are checked by the trainer (see :func:`crf_problems`)."""
    fields: dict[str, Any] = {}
    choices = getattr(trainer, "choices", {})
    for name, (default, value) in trainer.parameters(algorithm).items():
        if name in choices:
            kind: Any = Literal[tuple(choices[name])]
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


class CrfBase(Section):
    trainer: NonEmptyStr = trainers.DEFAULT_TRAINER
    """the trainer of the members and the report's models, a key of
    committee.learners.trainers.TRAINERS: it decides which crf.preset, crf.algorithm and crf.params
    exist"""
    preset: NonEmptyStr | None = None
    """a recipe of the trainer (algorithm and parameters) that algorithm and params refine;
    crfsuite's default paper, null: none"""
    algorithm: str
    params: CrfParams

    def trainer_params(self) -> dict[str, Any]:
        """``params`` as ``{the trainer's name: value}``, unset names left out."""
        return self.params.trainer_params()

    @model_serializer(mode="wrap")
    def _drop_default_trainer(self, handler):
        data = handler(self)
        if data.get("trainer") == trainers.DEFAULT_TRAINER:  # configs read as they always did
            data.pop("trainer")
        return data


def _tag(trainer: str, algorithm: str) -> str:
    """The union tag of ``trainer``'s ``algorithm``: the algorithm itself for
    the default trainer, ``trainer:algorithm`` for another."""
    return algorithm if trainer == trainers.DEFAULT_TRAINER else f"{trainer}:{algorithm}"


def _crf_model(trainer: trainers.Trainer, algorithm: str) -> type[CrfBase]:
    params = _params_model(trainer, algorithm)
    presets = tuple(getattr(trainer, "presets", ()))
    return create_model(
        f"{algorithm.capitalize()}Crf",
        __base__=CrfBase,
        trainer=(Literal[trainer.name], trainer.name),
        preset=(Literal[presets] | None if presets else None,
                Field(None, description=CrfBase.model_fields["preset"].description)),
        algorithm=(Literal[algorithm], algorithm),
        params=(params, Field(default_factory=params)),
    )


def trainer_of(value: Any) -> str:
    """The trainer a ``crf`` section names (the default when it names none)."""
    name = value.get("trainer") if isinstance(value, dict) else None
    return trainers.DEFAULT_TRAINER if name is None else name


def crf_tag(value: Any) -> str:
    """The union tag of a ``crf`` section, as written or resolved."""
    if isinstance(value, dict):
        name = trainer_of(value)
        if trainers.check_trainer(name):
            return repr(name)
        resolved, _ = trainers.TRAINERS[name].resolve_preset(value)
        algorithm = (resolved or value).get("algorithm", "lbfgs")
        return _tag(name, algorithm) if isinstance(algorithm, str) else repr(algorithm)
    return _tag(getattr(value, "trainer", trainers.DEFAULT_TRAINER),
                getattr(value, "algorithm", "lbfgs"))


#: Per trainer name: the trainer, its models by union tag, and their union.
_BUILT: dict[str, tuple[trainers.Trainer, dict[str, type[CrfBase]], TypeAdapter]] = {}


def _built(name: str) -> tuple[dict[str, type[CrfBase]], TypeAdapter]:
    """The models of trainer ``name`` (a known one) by tag, and the union
    that validates its sections; built once per registered trainer."""
    trainer = trainers.TRAINERS[name]
    built = _BUILT.get(name)
    if built is None or built[0] is not trainer:
        models = {_tag(name, a): _crf_model(trainer, a) for a in trainer.algorithms}
        union = Annotated[Union[tuple(Annotated[m, Tag(t)] for t, m in models.items())],
                          Discriminator(crf_tag)]
        built = _BUILT[name] = (trainer, models, TypeAdapter(union))
    return built[1], built[2]


def crf_models(name: str | None = None) -> dict[str, type[CrfBase]]:
    """The ``crf`` models by union tag: of trainer ``name``, or of every
    registered trainer (for messages and overrides, which walk the schema)."""
    names = list(trainers.TRAINERS) if name is None else [name]
    return {tag: model for n in names for tag, model in _built(n)[0].items()}


def _validate_crf(value: Any, handler) -> Any:
    """``crf`` as written → validated by its trainer's models, its preset
    expanded (the trainer's ``resolve_preset``)."""
    if isinstance(value, CrfBase):
        return value
    name = trainer_of(value)
    for problem in trainers.check_trainer(name):
        key, message = problem.split(": ", 1)
        raise section_problem(message, (key,))
    resolved, problems = trainers.TRAINERS[name].resolve_preset(value)
    if problems:
        key, message = problems[0].split(": ", 1)
        raise section_problem(message, (key,))
    return _built(name)[1].validate_python(value if resolved is None else resolved)


#: ``crf`` section: ``trainer`` picks the trainer, ``algorithm`` its model, and
#: so the valid ``params`` (serialized as the model it holds).
CrfConfig = Annotated[SerializeAsAny[CrfBase], WrapValidator(_validate_crf)]


def crf_problems(data: dict[str, Any]) -> list[str]:
    """The values of ``crf.params``, checked by the trainer's one rule set
    (:func:`committee.learners.trainers.check_params`; their types are checked by the
    schema; a section whose types are wrong is left to its messages)."""
    value = data.get("crf")
    name = trainer_of(value)
    if trainers.check_trainer(name):
        return []  # reported by the schema
    section, problems = trainers.TRAINERS[name].resolve_preset(value)
    if section is None or problems:
        return []  # reported by the schema
    try:
        validated = _built(name)[1].validate_python(section)
    except ValidationError:
        return []
    raw = section.get("params") if isinstance(section, dict) else None
    raw = raw if isinstance(raw, dict) else {}
    # each value as written (``-1``, not ``-1.0``), for the message
    shown = {k: raw.get(k, v) for k, v in validated.trainer_params().items()}
    return [f"crf.{p}" for p in trainers.check_params(validated.algorithm, shown, name)]
