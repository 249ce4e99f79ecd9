"""The first-error pipeline of a catalog as plain data, compiled once at extract time.

Building `analyzers.first_error.Pipeline` from catalog.json reads every entry's trigger,
inlines the helpers' returns, gathers the values the code compares each setting with and
orders the checks: seconds on a large catalog, paid by every `errcat check`. `pipeline_data`
writes the result (checks in pipeline order with their inlined conditions, the adjustments
in model order, the known values, the facts the conditions read) with every condition in one
`extractor.ir_table` node table; `pipeline_of_data` reads it back into the same pipeline.
JSON only: the file is data, never code.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analyzers.eval_model import Model
from analyzers.examples import Examples
from analyzers.first_error import Check, Pipeline
from analyzers.flags import FlagModel
from analyzers.platform_facts import fact_names
from analyzers.rules import Rule
from extractor.ir import RefKind, frozen_json, json_value
from extractor.ir_table import NodeTable, nodes_of
from extractor.profile import ExampleRules


@dataclass(frozen=True, slots=True)
class CompiledPipeline:
    """A pipeline read back, with the names of the facts its conditions read (`fact_names`)."""

    pipeline: Pipeline
    names: Mapping[RefKind, tuple[str, ...]]


def pipeline_data(pipeline: Pipeline) -> dict[str, Any]:
    """`pipeline` as JSON-ready data (`pipeline_of_data` reads it back)."""
    table = NodeTable()
    model = pipeline.model
    checks = [[c.id, c.path, c.line, c.function, table.add(c.condition), c.order, table.add(c.reach), c.quiet,
               c.message] for c in pipeline.checks]
    rules = [[r.dest, table.add(r.value), table.add(r.when), r.at] for r in model.rules]
    names = fact_names(pipeline.conditions())
    return {"nodes": table.rows, "checks": checks, "rules": rules,
            "known": [[key, json_value(values)] for key, values in model.examples.known],
            "flags": model.flags.as_dict() if model.flags is not None else None,
            "later": sorted(pipeline.later), "names": {str(k): list(v) for k, v in sorted(names.items())}}


def pipeline_of_data(data: Mapping[str, Any], rules: ExampleRules | None = None) -> CompiledPipeline:
    """`pipeline_data`'s data back as the pipeline (`rules`: the profile's examples section);
    ValueError, KeyError or TypeError where it is not such data."""
    nodes = nodes_of(data["nodes"])
    checks = tuple(Check(str(i), str(path), int(line), str(function), nodes[cond],
                         None if order is None else int(order), nodes[reach], bool(quiet), str(message))
                   for i, path, line, function, cond, order, reach, quiet, message in data["checks"])
    adjustments = tuple(Rule(str(dest), nodes[value], nodes[when], at=None if at is None else int(at))
                        for dest, value, when, at in data["rules"])
    known = tuple((str(key), frozen_json(values)) for key, values in data["known"])
    flags = FlagModel.from_dict(data["flags"]) if data["flags"] is not None else None
    model = Model(flags, adjustments, Examples(rules or ExampleRules(), known))
    names = {RefKind(k): tuple(map(str, v)) for k, v in data["names"].items()}
    return CompiledPipeline(Pipeline(checks, model, frozenset(map(str, data["later"]))), names)
