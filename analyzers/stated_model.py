"""The model an example's command states: its model flag names an architecture
(``--model-path <model:Arch>``), which decides every model property naming the architecture;
the other facts a search assumed are assumptions, not part of the command."""
from __future__ import annotations

from typing import Any

from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.examples import Examples, model_of
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.platform_facts import architecture_fact
from extractor.ir import Expr, RefKind


def _architecture(value: Any) -> str | None:
    """The architecture a model fact's value names (a name, or a list of one)."""
    if isinstance(value, tuple) and len(value) == 1:
        value = value[0]
    return value if isinstance(value, str) and value else None


def _architecture_keys(launch: Launch, examples: Examples) -> list[str]:
    """The facts of `launch` that are model properties naming the architecture."""
    return [k for k in launch.facts
            if k.startswith(f"{RefKind.MODEL}:") and examples.is_architecture(k.partition(":")[2])]


def one_architecture(fire: Expr, launch: Launch, model: Model) -> Launch:
    """`launch` with its architecture facts naming one model, the first of their names under
    which `fire` still holds: a search sets each alone (``architectures[0]`` one name, the
    list ``architectures`` another), and a model has one architecture."""
    keys = _architecture_keys(launch, model.examples)
    names = list(dict.fromkeys(n for k in keys if (n := _architecture(launch.facts[k])) is not None))
    for name in names if len(names) > 1 else ():
        moved = Launch(launch.flags, launch.env,
                       {**launch.facts, **{k: architecture_fact(k.partition(":")[2], name) for k in keys}})
        if evaluate(fire, moved, model) is Truth.TRUE:
            return moved
    return launch


def stated_model(launch: Launch, examples: Examples) -> Launch:
    """`launch` as its command states it: the flags and env vars, and the architecture
    facts when the model flag can name them (``--model-path <model:Arch>``); other facts
    are assumptions, not part of the command."""
    keys = _architecture_keys(launch, examples)
    names = {_architecture(launch.facts[k]) for k in keys}
    name = names.pop() if len(names) == 1 else None
    if not examples.model or name is None:
        return Launch(launch.flags, launch.env)
    flags = {**launch.flags, examples.model: model_of(name)}
    return Launch(flags, launch.env, {key: launch.facts[key] for key in keys})
