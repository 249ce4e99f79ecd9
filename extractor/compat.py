"""Shims for Python 3.10 (the oldest version we support)."""
from __future__ import annotations

import enum
import sys

if sys.version_info >= (3, 11):
    StrEnum = enum.StrEnum
else:  # pragma: no cover - exercised only on 3.10

    class StrEnum(str, enum.Enum):
        def __str__(self) -> str:
            return str(self.value)
