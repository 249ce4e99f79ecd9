"""Fields of an option that takes a JSON object, as an example sets them.

A derived setting the code resolves from one field of an option's JSON (sglang's
``watermark_mixing_probability``, "Resolved from --watermark-config.") is named by that
field (``watermark_config.mixing_probability``, `analyzers.flags.FlagModel.dest_of`); the
witness search sets it by writing the field into the option's JSON text, keeping the
fields the launch already gives.
"""
from __future__ import annotations

import json
from typing import Any

from analyzers.flags import FlagModel
from analyzers.launch import Launch
from analyzers.settings import json_object


def is_json_field(name: str, flags: FlagModel | None) -> bool:
    """Is `name` (``x.field``) a field of option ``x``'s JSON that fills a declared setting?"""
    if flags is None or "." not in name:
        return False
    base = flags.by_dest(name.partition(".")[0])
    return base is not None and bool(base.option) and flags.by_dest(name) is not None


def with_json_field(launch: Launch, name: str, given: bool, value: Any) -> Launch:
    """`launch` whose option ``x`` (of `name`, ``x.field``) gives `field` `value` (or, not
    `given`, leaves it out); the option is dropped when its JSON is left with no field."""
    base, _, key = name.partition(".")
    current = json_object(launch.flags.get(base, "{}"))
    fields = dict(current) if isinstance(current, dict) else {}
    if given:
        fields[key] = value
    else:
        fields.pop(key, None)
    return launch.with_flag(base, json.dumps(fields)) if fields else launch.without_flag(base)
