"""Small catalogs for the website's tests: inline data (builders) and extracted sources (CLI, browser)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx

HOSTILE = "<script>alert('x')</script> <img src=x onerror=alert(1)> & more"


def entry(id_: str, template: str, *, path: str = "pkg/a.py", line: int = 3, flags: tuple[str, ...] = (),
          rows: tuple[tuple[str, str], ...] = (), **extra: Any) -> dict[str, Any]:
    """An entry with what pages read; `rows`: (value of {reason}, condition text) per table row."""
    variants = [{"values": {"reason": value}, "template": template.replace("{reason}", value),
                 "trigger": {"text": cond, "flags": list(flags)}, "solutions": [f"Avoid {value}."]}
                for value, cond in rows]
    return {"id": id_, "kind": "raise", "exception": "ValueError", "template": template,
            "source": {"path": path, "line": line, "function": "check", "url": f"https://example.invalid/{path}#L{line}"},
            "excerpt": {"start_line": line - 1, "code": "def check(x):\n    raise ValueError(\n        'm')\n"},
            "trigger": {"text": "`--x` is set", "flags": list(flags), "env": []}, "variants": variants,
            "meaning": "It refuses `--x`.", "solutions": ["Do not pass `--x`."],
            "example_fix": {"before": "run --x", "after": "run", "verified": "true", "real": "confirmed by 2.0"},
            "related": [], **extra}


def catalog(release: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"repo": "example/tiny", "commit": f"c{release}", "commit_date": None,
            "source": {"kind": "release", "release": release}, "entries": entries}


def graph(edges: list[tuple[str, str, str]], errors: dict[str, list[str]]) -> nx.MultiDiGraph:
    """Flags joined by (src, dst, role) edges; `errors`: error id -> the flags it reads."""
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    for src, dst, role in edges:
        for flag in (src, dst):
            g.add_node(f"flag:{flag}", kind="flag", name=flag, type="bool", default="False")
        g.add_edge(f"flag:{src}", f"flag:{dst}", key=role, role=role, evidence=[])
    for error, flags in errors.items():
        g.add_node(f"error:{error}", kind="error", template=f"error {error}", exception="ValueError", path="p.py",
                   line=1)
        for flag in flags:
            g.add_node(f"flag:{flag}", kind="flag", name=flag, type="bool", default="False")
            g.add_edge(f"error:{error}", f"flag:{flag}", key="trigger", role="trigger", evidence=[])
    return g


# A tiny sglang-shaped source: two releases of one file (extract it with the sglang profile).
SERVER_ARGS = '''\
import argparse
import dataclasses
from typing import Optional


@dataclasses.dataclass
class ServerArgs:
    model_path: str = ""
    enable_lora: bool = False
    lora_paths: Optional[str] = None
    speculative_algorithm: Optional[str] = None
    tp_size: int = 1

    def __post_init__(self):
        self.check_server_args()

    def check_server_args(self):
        if self.lora_paths:
            self.enable_lora = True
        if self.enable_lora and self.speculative_algorithm == "EAGLE":
            raise ValueError("LoRA does not work with EAGLE speculative decoding")
        if self.tp_size > 8:
            raise ValueError(f"--tp-size must be at most 8, got {self.tp_size}")
{hostile}        for bad, reason in [(self.tp_size == 3, "an odd width"), (self.tp_size == 5, "a prime width")]:
            if bad:
                raise ValueError(f"Tensor parallelism does not support {reason}.")

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        parser.add_argument("--model-path", type=str, default="", help="The model.")
        parser.add_argument("--enable-lora", action="store_true", help="Enable LoRA.")
        parser.add_argument("--lora-paths", type=str, default=None, help="LoRA adapters.")
        parser.add_argument("--speculative-algorithm", type=str, default=None, choices=["EAGLE", "NGRAM"])
        parser.add_argument("--tp-size", type=int, default=1, help="Tensor parallel size.")
'''
HOSTILE_CHECK = f'''        if self.tp_size < 0:
            raise ValueError("{HOSTILE}")
'''


def extract_small(root: Path) -> list[Path]:
    """Catalog directories of two releases of the tiny source (0.1.0 without the hostile
    message, 0.2.0 with it), extracted by the real pipeline; their names are their labels."""
    from errcat.model import SourceSpec
    from errcat.pipeline import extract

    out = []
    for release, hostile in (("0.1.0", ""), ("0.2.0", HOSTILE_CHECK)):
        src = root / f"src-{release}" / "python" / "sglang" / "srt"
        src.mkdir(parents=True)
        (src / "server_args.py").write_text(SERVER_ARGS.replace("{hostile}", hostile))
        extract(SourceSpec(path=str(root / f"src-{release}")), profile="sglang", out=root / release,
                cache_dir=root / "cache")
        out.append(root / release)
    return out
