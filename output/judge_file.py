"""``judge.json``: the compiled first-error pipeline `errcat check` needs, written beside catalog.json.

`analyzers.judge_data` makes the data at extract time; `read_judge` gives it back only while
it is what building from catalog.json now would give: catalog.json is the one it was made
from (`output.catalog_stamp`), and the `key` (this errcat's version, the profile, the code
that compiles and reads it) is the same. Otherwise check builds from catalog.json as before.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extractor.profile import Profile
from output.catalog_stamp import CATALOG, stamp_holds

NAME = "judge.json"
FORMAT = 2  # 2: a check's `quiet` (a crash)
# the modules whose code decides what the file holds (building the pipeline, and the format)
_COMPILERS = ("analyzers/first_error.py", "analyzers/judge_data.py", "analyzers/examples.py", "analyzers/rules.py",
              "analyzers/entries.py", "analyzers/flags.py", "analyzers/platform_facts.py", "extractor/inline.py",
              "extractor/ir.py", "extractor/ir_table.py", "output/judge_file.py")


@dataclass(frozen=True, slots=True)
class JudgeFile:
    release: str | None  # the target release the catalog is of (`analyzers.outcomes.release_of`)
    pipeline: Mapping[str, Any]  # `analyzers.judge_data.pipeline_data`


def judge_key(profile: Profile) -> str:
    """What the compiled pipeline depends on besides catalog.json."""
    from extractor.result_cache import profile_digest
    from extractor.tool import VERSION

    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(f"{FORMAT}\0{VERSION}\0{profile_digest(profile)}\0".encode())
    for name in _COMPILERS:
        digest.update((root / name).read_bytes() + b"\0")
    return digest.hexdigest()


def judge_text(pipeline: Mapping[str, Any], release: str | None, key: str, catalog: Mapping[str, Any]) -> str:
    """The file of `pipeline` compiled with `key` from a catalog.json stamped `catalog`."""
    data = {"judge": FORMAT, "key": key, "catalog": dict(catalog), "release": release, "pipeline": pipeline}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def read_judge(catalog_dir: str | os.PathLike[str], key: str) -> JudgeFile | None:
    """The compiled pipeline beside `catalog_dir`'s catalog.json; None where there is none, it
    is not one this errcat writes with `key`, or catalog.json changed since."""
    root = Path(catalog_dir)
    try:
        written = (root / NAME).stat()
        data = json.loads((root / NAME).read_bytes())
        if not isinstance(data, dict) or data.get("judge") != FORMAT or data.get("key") != key:
            return None
        if not stamp_holds(written, root / CATALOG, data["catalog"]) or not isinstance(data["pipeline"], dict):
            return None
        release = data["release"]
        return JudgeFile(None if release is None else str(release), data["pipeline"])
    except (OSError, ValueError, KeyError, TypeError):  # unreadable or another shape: build from catalog.json
        return None
