"""What an example's placeholders stand for, made real on disk for the target to read.

An example is a command a user can paste; where any model or any file will do it says
`<model>`, `<model:Arch>` (a model of that architecture), `<file>`, `<dir>` or `<missing>`.
For a run they become a generated config directory (config.json only: validation reads the
config, never weights), a small file, an empty directory and a path where nothing is, made
once per run.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from analyzers.examples import DIR, FILE, MISSING, MODEL_STAND_IN
from extractor.real_profile import RealProfile

_PLACEHOLDER = re.compile(r"<[^<>\s]*>")
_MODEL = MODEL_STAND_IN


class NotRunnable(ValueError):
    """An example this machine cannot run as written (the message says why)."""


def placeholders(text: str) -> list[str]:
    return _PLACEHOLDER.findall(text)


def unrunnable(text: str) -> list[str]:
    """The placeholders in `text` a run cannot fill (empty: runnable)."""
    return [p for p in placeholders(text) if not (_MODEL.fullmatch(p) or p in (FILE, DIR, MISSING))]


@dataclass(slots=True)
class Materials:
    """Generated stand-ins below `root` (a directory the caller owns and removes)."""

    real: RealProfile
    root: Path
    _made: dict[str, Path] = field(default_factory=dict)

    def path_for(self, placeholder: str) -> Path:
        made = self._made.get(placeholder)
        if made is not None:
            return made
        if placeholder == FILE:
            made = self.root / "file.txt"
            made.write_text("errcat\n", encoding="utf-8")
        elif placeholder == DIR:
            made = self.root / "dir"
            made.mkdir()
        elif placeholder == MISSING:  # a path where nothing is made
            made = self.root / "missing"
        elif (m := _MODEL.fullmatch(placeholder)) is not None:
            # `<model>` and `<model:Default>` name one stand-in: made once
            canonical = f"<model:{m.group(1) or self.real.default_model}>"
            made = self._made.get(canonical) or self._model(canonical[len("<model:"):-1])
            self._made[canonical] = made
        else:
            raise NotRunnable(f"placeholder {placeholder} has no generated stand-in")
        self._made[placeholder] = made
        return made

    def _model(self, architecture: str) -> Path:
        # an architecture the profile has no config for: the default config under its name
        # (checks keyed on the name alone pass; the real program refutes the rest)
        config = self.real.stand_in_config(architecture)
        if config is None:
            raise NotRunnable(f"no model config for architecture {architecture} in the profile")
        made = self.root / f"model-{architecture}"
        made.mkdir()
        (made / "config.json").write_text(json.dumps(config, indent=1, sort_keys=True), encoding="utf-8")
        return made

    def word(self, word: str) -> str:
        """`word` with every placeholder replaced (``--x=<file>`` too)."""
        return _PLACEHOLDER.sub(lambda m: str(self.path_for(m.group(0))), word)
