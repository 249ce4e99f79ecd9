"""extractor.symbols: top-level names resolved across the files of a SourceSet."""
from __future__ import annotations

import textwrap

import libcst as cst

from extractor.constant_values import ConstScope, constant_value
from extractor.source_set import SourceSet
from extractor.symbols import Symbols

MOD = "pkg/mod.py"


def symbols_for(**files: str) -> Symbols:
    """Symbols over dedented snippets; keys are paths with "/" written as "__"."""
    return Symbols(SourceSet({k.replace("__", "/") + ".py": textwrap.dedent(v) for k, v in files.items()}))


def test_module_for_matches_a_dotted_suffix_shortest_path_first():
    symbols = symbols_for(python__pkg__consts="", vendored__python__pkg__consts="", python__pkg__mod="")
    assert symbols.module_for("pkg.consts") == "python/pkg/consts.py"
    assert symbols.module_for("nowhere.consts") is None


def test_origin_name_follows_imports_and_aliases():
    symbols = symbols_for(
        pkg__utils="from typing import Annotated\nA = Annotated\n",
        pkg__mod="from pkg.utils import A as Ann\nimport argparse\n",
    )
    name = lambda src: symbols.origin_name(MOD, cst.parse_expression(src))  # noqa: E731
    assert name("Ann") == "Annotated"
    assert name("argparse.Namespace") == "Namespace"
    assert name("local") == "local"
    assert name("f()") == "f"


def test_names_parse_only_the_files_they_lead_into():
    sources = SourceSet({
        "pkg/mod.py": "from pkg.consts import X\nRESULT = X\n",
        "pkg/consts.py": "X = 1\n",
        "pkg/unrelated.py": "Y = 2\n",
        "pkg/broken.py": "def (:\n",
    })
    symbols = Symbols(sources)
    assert constant_value(symbols.bindings(MOD).assigns["RESULT"], ConstScope(MOD, symbols)) == 1
    assert [m.path for m in sources.parsed()] == ["pkg/consts.py", "pkg/mod.py"]
    assert not sources.diagnostics  # the broken file was never needed
    assert sources.module("pkg/broken.py") is None
    [diag] = sources.diagnostics
    assert diag.path == "pkg/broken.py" and diag.message.startswith("cannot parse")


