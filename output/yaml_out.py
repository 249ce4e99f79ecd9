"""YAML rendering of catalog data: the same data as the JSON, deterministic text."""
from __future__ import annotations

from typing import Any

import yaml

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when built in: ~10x faster


def dumps_yaml(data: Any) -> str:
    """Key order as given (the JSON's), no line folding, UTF-8 text; loads back equal."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 30,
                     default_flow_style=False)
