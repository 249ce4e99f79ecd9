"""Release order: plain PEP 440 versions compared numerically (0.5.9 < 0.5.10)."""
from __future__ import annotations

import re

from extractor.errors import SourceError

_VERSION_RE = re.compile(r"^(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?$")
_PRE = {"a": 0, "b": 1, "rc": 2}


def version_key(version: str) -> tuple[object, ...]:
    """Numeric order for plain PEP 440 versions (X.Y.Z[aN|bN|rcN][.postN][.devN])."""
    m = _VERSION_RE.match(version)
    if not m:
        raise SourceError(f"cannot order version {version!r} (expected e.g. 0.5.23, 0.5.3rc0, 0.5.3.post1)")
    nums = [int(x) for x in m.group(1).split(".")]
    while len(nums) > 1 and nums[-1] == 0:  # 1.0 == 1.0.0
        nums.pop()
    if m.group(2):
        pre = (_PRE[m.group(2)], int(m.group(3)))
    elif m.group(5) is not None and m.group(4) is None:
        pre = (-1, 0)  # X.devN precedes X's pre-releases
    else:
        pre = (3, 0)  # the final release follows its pre-releases
    post = int(m.group(4)) if m.group(4) is not None else -1
    dev = int(m.group(5)) if m.group(5) is not None else 1 << 62  # .devN before the release
    return (tuple(nums), pre, post, dev)


def in_range(version: str, start: str | None, until: str | None) -> bool:
    """`start` <= `version` < `until` (either bound may be absent)."""
    key = version_key(version)
    return (start is None or version_key(start) <= key) and (until is None or key < version_key(until))
