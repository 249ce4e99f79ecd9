"""analyzers.flags: flag and env declarations read statically from source snippets."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest

from analyzers.flag_build import build_flag_model
from analyzers.flag_decls import Conventions
from analyzers.flags import DeclKind, FlagModel, option_for_dest
from extractor.errors import ProfileError
from extractor.frozen import FrozenMap
from extractor.globs import match_any
from extractor.profile import load_profile
from tests.present import present
from tests.spy import spy

SERVER_ARGS = "python/pkg/server_args.py"
ARG_UTILS = "python/pkg/arg_groups/arg_utils.py"
CHOICES = "python/pkg/arg_groups/choices.py"
FIELDS = "python/pkg/arg_groups/fields/parallel.py"
ENVIRON = "python/pkg/environ.py"

# What sglang's arg_utils says about A and Arg, reduced to what we read statically.
ARG_UTILS_SRC = """
from typing import Annotated
import msgspec
A = Annotated
class Arg(msgspec.Struct, frozen=True):
    help: str = ""
    choices: list | None = None
    no_cli: bool = False
class Derived(msgspec.Struct, frozen=True):
    doc: str = ""
class NS(msgspec.Struct, frozen=True):
    path: str
"""
FIELDS_HEADER = """
from typing import List, Literal, Optional
import argparse
import msgspec
from pkg.arg_groups.arg_utils import A, Arg, Derived, NS
"""


def model(**files: str) -> FlagModel:
    """build_flag_model over dedented snippets keyed by short names above."""
    paths = {
        "server_args": SERVER_ARGS, "arg_utils": ARG_UTILS, "choices": CHOICES, "fields": FIELDS, "environ": ENVIRON,
    }
    return build_flag_model({paths[k]: textwrap.dedent(v) for k, v in files.items()})


def parser_model(body: str, prelude: str = "") -> FlagModel:
    """A server_args.py whose add_cli_args holds `body`."""
    src = textwrap.dedent(prelude) + "\ndef add_cli_args(parser):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return model(server_args=src)


def fields_model(fields: str, prelude: str = "", **extra: str) -> FlagModel:
    src = FIELDS_HEADER + textwrap.dedent(prelude) + "\nclass Parallel(msgspec.Struct):\n" + textwrap.indent(
        textwrap.dedent(fields), "    "
    )
    return model(arg_utils=ARG_UTILS_SRC, fields=src, **extra)


def env_model(body: str, prelude: str = "") -> FlagModel:
    src = ENV_CLASSES + textwrap.dedent(prelude) + "\nclass Envs:\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return model(environ=src)


ENV_CLASSES = """
class EnvField:
    def __init__(self, default, secret=False): ...
class EnvBool(EnvField): ...
class EnvStr(EnvField): ...
class EnvInt(EnvField): ...
class EnvFloat(EnvField): ...
class EnvTuple(EnvField): ...
class EnvJSON(EnvField): ...
class _DeprecatedEnvFallback:
    def __init__(self, default, deprecated_name, secret=False): ...
class EnvBoolWithAlias(_DeprecatedEnvFallback, EnvBool): ...
class EnvIntWithAlias(_DeprecatedEnvFallback, EnvInt): ...
"""


# ---------------------------------------------------------------------------
# option names
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dest, option",
    [("tp_size", "--tp-size"), ("model_path", "--model-path"), ("x", "--x"), ("enable_lora", "--enable-lora")],
)
def test_option_for_dest(dest, option):
    assert option_for_dest(dest) == option


# ---------------------------------------------------------------------------
# argparse declarations
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, option, attr, expected",
    [
        ('parser.add_argument("--tp-size", type=int, default=1)', "--tp-size", "type", "int"),
        ('parser.add_argument("--tp-size", type=int, default=1)', "--tp-size", "default", 1),
        ('parser.add_argument("--tp-size", type=int, default=1)', "--tp-size", "dest", "tp_size"),
        ('parser.add_argument("--tp-size", type=int, default=1)', "--tp-size", "derived", False),
        ('parser.add_argument("--tp-size", dest="tensor_parallel", type=int)', "--tp-size", "dest", "tensor_parallel"),
        ('parser.add_argument("-t", "--tp-size", type=int)', "-t", "dest", "tp_size"),
        ('parser.add_argument("--tp-size", "--tensor-parallel-size", type=int)', "--tp-size", "aliases",
         ("--tensor-parallel-size",)),
        ('parser.add_argument("--x", action="store_true")', "--x", "type", "bool"),
        ('parser.add_argument("--x", action="store_true")', "--x", "default", False),
        ('parser.add_argument("--x", action="store_false")', "--x", "default", True),
        ('parser.add_argument("--x", action="store_true", default=None)', "--x", "default", None),
        ('parser.add_argument("--x", action="store_true")', "--x", "action", "store_true"),
        ('parser.add_argument("--x", nargs="*", type=str)', "--x", "nargs", "*"),
        ('parser.add_argument("--x", nargs="?", const=0.5, type=float)', "--x", "const", 0.5),
        ('parser.add_argument("--x", required=True)', "--x", "required", True),
        ('parser.add_argument("--x", type=str)', "--x", "default", None),
        ('parser.add_argument("--x", default=os.getcwd())', "--x", "default", {"expr": "os.getcwd()"}),
        ('parser.add_argument("--x", default=2 ** 10)', "--x", "default", 1024),
        ('parser.add_argument("--x", default=-1)', "--x", "default", -1),
        ('parser.add_argument("--x", help=argparse.SUPPRESS)', "--x", "hidden", True),
        ('parser.add_argument("--x", action=LoRAPathAction, nargs="*")', "--x", "action", "LoRAPathAction"),
    ],
)
def test_argparse_shapes(call, option, attr, expected):
    flag = parser_model(call).by_option(option)
    assert flag is not None
    assert getattr(flag, attr) == expected


@pytest.mark.parametrize(
    "help_src, expected",
    [
        ('"plain"', "plain"),
        ('"one " "two"', "one two"),
        ('("one "\n "two")', "one two"),
        ('"a" + "b"', "ab"),
        ('f"Options: {names}."', "Options: {names}."),
        ('f"{x!r:>4} {{literal}}"', "{x!r:>4} {literal}"),
        ('f"tab\\there"', "tab\there"),
        ('HELP', "shared help"),
        ('compute()', "{compute()}"),
    ],
)
def test_help_text(help_src, expected):
    flags = parser_model(f'parser.add_argument("--x", help={help_src})', prelude='HELP = "shared help"')
    flag = present(flags.by_option("--x"))
    assert flag.help == expected


def test_default_reads_dataclass_field():
    src = """
    import dataclasses
    from typing import Optional
    @dataclasses.dataclass
    class ServerArgs:
        tp_size: int = 1
        tokenizer_path: Optional[str] = None
        def add_cli_args(parser):
            parser.add_argument("--tp-size", type=int, default=ServerArgs.tp_size)
            parser.add_argument("--tokenizer-path", type=str, default=ServerArgs.tokenizer_path)
    """
    m = model(server_args=src)
    assert (present(m.by_dest("tp_size")).default, present(m.by_dest("tp_size")).type) == (1, "int")
    assert present(m.by_dest("tokenizer_path")).type == "Optional[str]"  # the field's type, not argparse's
    assert present(m.by_dest("tp_size")).owner == "ServerArgs"


def test_dataclass_field_without_option_is_derived():
    src = """
    import dataclasses
    @dataclasses.dataclass
    class ServerArgs:
        tp_size: int = 1
        stat_loggers: list = dataclasses.field(default_factory=list)
        def add_cli_args(parser):
            parser.add_argument("--tp-size", type=int, default=ServerArgs.tp_size)
    """
    flag = present(model(server_args=src).by_dest("stat_loggers"))
    assert (flag.derived, flag.option, flag.default, flag.kind) == (True, None, (), DeclKind.FIELD)


def test_config_class_named_by_caller():
    src = """
    class ServerArgs:
        tp_size: int = 1
    """
    files = {SERVER_ARGS: textwrap.dedent(src)}
    assert build_flag_model(files).by_dest("tp_size") is None
    assert present(build_flag_model(files, config_classes={"ServerArgs"}).by_dest("tp_size")).derived


def test_namespace_copy_renames_dest():
    # 0.4.x: --tensor-parallel-size writes tensor_parallel_size, from_cli_args copies it.
    src = """
    import argparse, dataclasses
    @dataclasses.dataclass
    class ServerArgs:
        tp_size: int = 1
        def add_cli_args(parser):
            parser.add_argument("--tensor-parallel-size", "--tp-size", type=int, default=ServerArgs.tp_size)
        @classmethod
        def from_cli_args(cls, args: argparse.Namespace):
            args.tp_size = args.tensor_parallel_size
            return cls(tp_size=args.tp_size)
    """
    m = model(server_args=src)
    assert present(m.by_dest("tp_size")).option == "--tensor-parallel-size"
    assert not present(m.by_dest("tp_size")).derived
    assert m.by_option("--tp-size") is m.by_dest("tp_size")


@pytest.mark.parametrize(
    "choices, prelude, expected",
    [
        ('["a", "b"]', "", ("a", "b")),
        ("CHOICES", 'CHOICES = ["a", "b"]', ("a", "b")),
        ("A + B", 'A = ["a"]\nB = ["b"]', ("a", "b")),
        ('A + ["c"]', 'A = ("a", "b")', ("a", "b", "c")),
        ("list(D)", 'D = {"x": 1, "y": 2}', ("x", "y")),
        ("D.keys()", 'D = {"x": 1, "y": 2}', ("x", "y")),
        ("[*A, 'z']", 'A = ["a"]', ("a", "z")),
        ("S", 'S = {"b", "a"}', ("a", "b")),  # sets come out sorted
        ("Mode.ALL", 'class Mode:\n    ALL = ["x", "y"]', ("x", "y")),
        ("[0, 1, 2]", "", (0, 1, 2)),
        ("registry()", "", {"expr": "registry()"}),
        ("UNKNOWN_NAME", "", {"expr": "UNKNOWN_NAME"}),
    ],
)
def test_choices_resolve_constants(choices, prelude, expected):
    flag = present(parser_model(f'parser.add_argument("--x", choices={choices})', prelude=prelude).by_option("--x"))
    assert flag.choices == expected


def test_choices_imported_from_another_file():
    choices = 'LOAD_FORMAT_CHOICES = ["auto", "pt"]\nQUANT = LOAD_FORMAT_CHOICES + ["gguf"]\n'
    src = """
    from pkg.arg_groups.choices import LOAD_FORMAT_CHOICES, QUANT as Q
    def add_cli_args(parser):
        parser.add_argument("--load-format", choices=LOAD_FORMAT_CHOICES)
        parser.add_argument("--quantization", choices=Q)
    """
    m = model(server_args=src, choices=choices)
    assert present(m.by_option("--load-format")).choices == ("auto", "pt")
    assert present(m.by_option("--quantization")).choices == ("auto", "pt", "gguf")


def test_choices_from_function_locals_include_literal_additions():
    body = """
    backends = set(BUILTIN)
    if feature_enabled():
        backends.add("extra")
    parser.add_argument("--sampling-backend", choices=backends)
    """
    flag = present(parser_model(body, prelude='BUILTIN = frozenset({"b", "a"})').by_option("--sampling-backend"))
    assert flag.choices == ("a", "b", "extra")


@pytest.mark.parametrize(
    "call, replacement",
    [
        ('parser.add_argument("--old", action=DeprecatedAction, help="Use --new instead.")', "--new"),
        ('parser.add_argument("--old", action=DeprecatedStoreTrueAction, new_flag="--new <n>")', "--new"),
        ('parser.add_argument("--old", action=DeprecatedAction, error_message="gone; use --new-x")', "--new-x"),
        ('parser.add_argument("--old", action=DeprecatedAction, help="Note: --old is deprecated now.")', None),
        ('parser.add_argument("--old", action="store_true", help="(Deprecated: use --new=auto) Old.")', "--new"),
        ('parser.add_argument("--old", help="[Deprecated] Use --new {a,b} instead.")', "--new"),
        ('parser.add_argument("--old", help="Deprecated alias for --new.")', "--new"),
        ('parser.add_argument("--old", action=argparse_actions.DeprecatedAliasStoreAction)', None),
        ('parser.add_argument("--old", help="Deprecated: superseded by --new.")', "--new"),
        ('parser.add_argument("--old", help="Deprecated. Automatic when --metrics is set.")', None),
    ],
)
def test_deprecated_flags(call, replacement):
    flag = present(parser_model(call).by_option("--old"))
    assert flag.deprecated
    assert flag.replacement == replacement


def test_not_deprecated_when_help_only_mentions_it():
    flag = present(parser_model('parser.add_argument("--x", help="Replaces the deprecated --y.")').by_option("--x"))
    assert not flag.deprecated


def test_custom_action_defaults_come_from_its_init():
    prelude = """
    import argparse
    class DeprecatedStoreTrueAction(argparse.Action):
        def __init__(self, option_strings, dest, new_flag=None, nargs=0, const=True, default=False, **kwargs):
            super().__init__(option_strings, dest, nargs=nargs, const=const, default=default, **kwargs)
    """
    body = 'parser.add_argument("--old", action=DeprecatedStoreTrueAction, new_flag="--new")'
    flag = present(parser_model(body, prelude=prelude).by_option("--old"))
    assert (flag.default, flag.nargs, flag.const, flag.replacement) == (False, 0, True, "--new")


def test_boolean_optional_action_has_negation():
    m = parser_model('parser.add_argument("--fast", action=argparse.BooleanOptionalAction)')
    assert m.by_option("--no-fast") is m.by_option("--fast")
    assert present(m.by_option("--fast")).type == "bool"


def test_deprecated_alias_does_not_shadow_current_flag():
    body = """
    parser.add_argument("--new-name", dest="value", type=int)
    parser.add_argument("--old-name", dest="value", type=int, action=DeprecatedAliasStoreAction)
    """
    m = parser_model(body)
    assert present(m.by_dest("value")).option == "--new-name"
    assert [f.option for f in m.flags_for_dest("value")] == ["--new-name", "--old-name"]


def test_options_generated_in_a_loop():
    body = """
    for name in ("prefill", "decode"):
        parser.add_argument(f"--{name}-backend", type=str)
    """
    m = parser_model(body)
    assert present(m.by_dest("prefill_backend")).option == "--prefill-backend"
    assert present(m.by_dest("decode_backend")).option == "--decode-backend"
    assert not m.diagnostics


def test_option_not_known_statically_is_a_diagnostic():
    m = parser_model("parser.add_argument(make_name(), type=int)")
    assert not m.flags
    [diag] = m.diagnostics
    assert diag.path == SERVER_ARGS and diag.line == 3 and "not known statically" in diag.message


def test_forwarding_wrapper_is_not_a_declaration():
    m = parser_model("parser.add_argument(*names, **kwargs)")
    assert not m.flags and not m.diagnostics


def test_option_declared_twice_is_a_diagnostic():
    m = parser_model('parser.add_argument("--x")\nparser.add_argument("--x")')
    assert any("already declared" in d.message for d in m.diagnostics)


def test_flag_line_is_the_call_line():
    flag = present(parser_model('\n\nparser.add_argument(\n    "--x",\n)').by_option("--x"))
    assert (flag.path, flag.line) == (SERVER_ARGS, 5)


def test_syntax_error_is_a_diagnostic():
    m = model(server_args="def broken(:\n")
    assert [d.path for d in m.diagnostics] == [SERVER_ARGS]


# ---------------------------------------------------------------------------
# annotated fields (sglang 0.5.19+: A[T, "help"] / A[T, Arg(...)])
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field_src, dest, attr, expected",
    [
        ('tp_size: A[int, "The tensor parallelism size."] = 1', "tp_size", "option", "--tp-size"),
        ('tp_size: A[int, "The tensor parallelism size."] = 1', "tp_size", "help", "The tensor parallelism size."),
        ('tp_size: A[int, "The tensor parallelism size."] = 1', "tp_size", "default", 1),
        ('tp_size: A[int, "The tensor parallelism size."] = 1', "tp_size", "kind", DeclKind.ANNOTATED),
        ('tp_size: A[int, "h", NS("parallel")] = 1', "tp_size", "help", "h"),
        ('tp_size: A[int, Arg(help="h", aliases=["--tensor-parallel-size"])] = 1', "tp_size", "aliases",
         ("--tensor-parallel-size",)),
        ('mode: A[Literal["a", "b"], "h"] = "a"', "mode", "choices", ("a", "b")),
        ('mode: A[Optional[Literal["a", "b"]], "h"] = None', "mode", "choices", ("a", "b")),
        ('mode: A[Optional[Literal["a", "b"]], "h"] = None', "mode", "type", "Optional[Literal['a', 'b']]"),
        ('mode: A[Literal["a", "b"], Arg(help="h", choices=["a"])] = "a"', "mode", "choices", ("a",)),
        ('mode: A[str, Arg(help="h", choices=["x", "y"])] = "x"', "mode", "choices", ("x", "y")),
        ('enable_x: A[bool, "h"] = False', "enable_x", "action", "store_true"),
        ('enable_x: A[Optional[bool], "h"] = None', "enable_x", "action", "store_true"),
        ('paths: A[Optional[List[str]], "h"] = None', "paths", "nargs", "+"),
        ('paths: A[List[str], Arg(help="h", nargs="*")] = None', "paths", "nargs", "*"),
        ('paths: A[List[str], Arg(help="h", type_parser=json_list)] = None', "paths", "nargs", None),
        ('model_path: A[str, "h"]', "model_path", "required", True),
        ('model_path: A[str, "h"]', "model_path", "default", None),
        ('fp8_gemm_runner_backend: A[str, Arg(help="h", cli_name="--fp8-gemm-backend")] = "auto"',
         "fp8_gemm_runner_backend", "option", "--fp8-gemm-backend"),
        ('x: A[str, Arg(help="h", action=XAction, choices=["a"])] = "a"', "x", "choices", None),
        ('x: A[str, Arg(help="h", action=XAction, choices=["a"])] = "a"', "x", "action", "XAction"),
        # keywords the registrar hands add_argument with a custom action
        ('x: A[list, Arg(help="h", action=XAction, action_kwargs={"type": str, "nargs": "*"})] = None',
         "x", "nargs", "*"),
        ('x: A[str, Arg("positional help")] = "a"', "x", "help", "positional help"),
        # what the program reads while the field is unset (sglang 0.5.23 swa_full_tokens_ratio)
        ('ratio: A[Optional[float], Arg(help="h", resolvable=True, fallback=0.8)] = None', "ratio", "fallback", 0.8),
        ('ratio: A[Optional[float], "h"] = None', "ratio", "fallback", None),
        # what argparse converts a word with (sglang 0.5.23 mm_process_config)
        ('cfg: A[Optional[Dict[str, Any]], Arg(help="h", type_parser=json.loads)] = None', "cfg", "parser",
         "json.loads"),
        ('cfg: A[Optional[Dict[str, Any]], "h"] = None', "cfg", "parser", None),
        ('x: A[str, Arg(help="a" "b")] = "a"', "x", "help", "ab"),
        ('x: A[list, "h"] = msgspec.field(default_factory=list)', "x", "default", ()),
        ('x: A[dict, "h"] = msgspec.field(default_factory=lambda: {"k": 1})', "x", "default", {"k": 1}),
    ],
)
def test_annotated_fields(field_src, dest, attr, expected):
    flag = fields_model(field_src).by_dest(dest)
    assert flag is not None and not flag.derived
    assert getattr(flag, attr) == expected


def test_annotated_bool_optional_action():
    m = fields_model('fast: A[Optional[bool], Arg(help="h", action=argparse.BooleanOptionalAction)] = None')
    assert m.by_option("--no-fast") is m.by_dest("fast")
    assert present(m.by_dest("fast")).action == "argparse.BooleanOptionalAction"


def test_annotated_choices_constant_from_choices_file():
    choices = 'MOE_RUNNER_BACKEND_CHOICES = ["auto", "triton"]\n'
    prelude = "from pkg.arg_groups.choices import MOE_RUNNER_BACKEND_CHOICES"
    m = fields_model('moe_runner_backend: A[str, Arg(help="h", choices=MOE_RUNNER_BACKEND_CHOICES)] = "auto"',
                     prelude=prelude, choices=choices)
    assert present(m.by_option("--moe-runner-backend")).choices == ("auto", "triton")


@pytest.mark.parametrize(
    "field_src, kind",
    [
        ("enable_x: A[bool, Arg(no_cli=True)] = False", DeclKind.ANNOTATED),
        ('enable_x: A[bool, Arg(help="internal", no_cli=True)] = False', DeclKind.ANNOTATED),
        ('enable_x: A[bool, NS("parallel")] = False', DeclKind.FIELD),
        ("enable_x: bool = False", DeclKind.FIELD),
        ('enable_x = Derived(doc="Computed at publication.")', DeclKind.COMPUTED),
    ],
)
def test_fields_without_cli_are_derived(field_src, kind):
    m = fields_model('tp_size: A[int, "h"] = 1\n' + field_src)
    flag = present(m.by_dest("enable_x"))
    assert (flag.derived, flag.option, flag.kind) == (True, None, kind)


def test_computed_field_keeps_its_doc():
    m = fields_model('tp_size: A[int, "h"] = 1\nattn_tp_size = Derived(doc="TP size of attention.")')
    assert present(m.by_dest("attn_tp_size")).help == "TP size of attention."


def test_manual_option_for_no_cli_field_merges():
    # 0.5.23: a no_cli field reached only through a deprecated add_argument.
    fields = 'tp_size: A[int, "h"] = 1\ndisable_cuda_graph: A[bool, Arg(no_cli=True)] = False\nparser_name: str = "x"'
    server_args = """
    def _declared_default(name): ...
    def add_cli_args(parser):
        parser.add_argument(
            "--disable-cuda-graph", action=DeprecatedStoreTrueAction, help="Deprecated. Use --x instead.")
        parser.add_argument("--parser-name", choices=["x", "y"], default=_declared_default("parser_name"))
    """
    m = fields_model(fields, server_args=server_args)
    flag = present(m.by_dest("disable_cuda_graph"))
    assert (flag.option, flag.derived, flag.deprecated, flag.owner, flag.type) == (
        "--disable-cuda-graph", False, True, "Parallel", "bool")
    parser = present(m.by_dest("parser_name"))
    assert (parser.default, parser.choices, parser.derived, parser.type) == ("x", ("x", "y"), False, "str")
    assert len(m.flags_for_dest("disable_cuda_graph")) == 1


def test_unknown_arg_keyword_is_a_diagnostic():
    m = fields_model('x: A[int, Arg(help="h", flavour="spicy")] = 1')
    assert m.by_dest("x") is not None
    [diag] = m.diagnostics
    assert "flavour" in diag.message and diag.path == FIELDS


def test_literal_strings_in_types_are_not_help():
    # Without Annotated, Literal["a"] must not be mistaken for A[T, "help"].
    m = fields_model('tp_size: A[int, "h"] = 1\nmode: Literal["a", "b"] = "a"')
    assert present(m.by_dest("mode")).derived


def test_class_without_annotated_fields_is_not_config():
    m = model(arg_utils=ARG_UTILS_SRC)  # Arg's own fields (help, choices...) are not flags
    assert not m.flags


# ---------------------------------------------------------------------------
# environment variables
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "decl, name, type_, default",
    [
        ("SGLANG_X = EnvBool(False)", "SGLANG_X", "bool", False),
        ('SGLANG_X = EnvStr("static")', "SGLANG_X", "str", "static"),
        ("SGLANG_X = EnvStr(None)", "SGLANG_X", "str", None),
        ("SGLANG_X = EnvInt(-1)", "SGLANG_X", "int", -1),
        ("SGLANG_X = EnvInt(128 * 1024)", "SGLANG_X", "int", 131072),
        ("SGLANG_X = EnvFloat(0.5)", "SGLANG_X", "float", 0.5),
        ("SGLANG_X = EnvTuple(tuple())", "SGLANG_X", "tuple", ()),
        ("SGLANG_X = EnvJSON(None)", "SGLANG_X", "json", None),
        ("SGLANG_X = EnvBool(_default_hip)", "SGLANG_X", "bool", {"expr": "_default_hip"}),
        ("SGLANG_X = EnvInt(Level.OFF)", "SGLANG_X", "int", 0),
        ('SGLANG_X = EnvBoolWithAlias(True, deprecated_name="SGLANG_OLD")', "SGLANG_X", "bool", True),
        ('SGLANG_X = EnvIntWithAlias(4, "SGLANG_OLD")', "SGLANG_X", "int", 4),
    ],
)
def test_env_declarations(decl, name, type_, default):
    var = present(env_model(decl, prelude="class Level:\n    OFF = 0\n").env_var(name))
    assert (var.type, var.default, var.path) == (type_, default, ENVIRON)


def test_env_alias_is_a_deprecated_name():
    m = env_model('SGLANG_NEW = EnvBoolWithAlias(True, deprecated_name="SGLANG_OLD")')
    assert present(m.env_var("SGLANG_NEW")).deprecated_names == ("SGLANG_OLD",)
    assert m.env_var("SGLANG_OLD") is m.env_var("SGLANG_NEW")


def test_retired_env_table():
    prelude = """
    class _DeprecatedEnv:
        def __init__(self, replacement=None, transform=None, note=None): ...
    _DEPRECATED_ENVS = {
        "SGLANG_GC_LOG": _DeprecatedEnv(replacement="SGLANG_LOG_GC"),
        "SGLANG_IDLE": _DeprecatedEnv(note="Please use '--enable-prefill-delayer' instead."),
        "SGLANG_STILL": _DeprecatedEnv(note="Gone."),
        "SGLANG_AR": _DeprecatedEnv(note="Pass --ar-backend cutedsl instead."),
    }
    """
    m = env_model("SGLANG_STILL = EnvBool(False)", prelude=prelude)
    gc_log = present(m.env_var("SGLANG_GC_LOG"))
    assert (gc_log.deprecated, gc_log.replacement) == (True, "SGLANG_LOG_GC")
    assert present(m.env_var("SGLANG_IDLE")).replacement == "--enable-prefill-delayer"
    assert present(m.env_var("SGLANG_AR")).replacement == "--ar-backend"
    still = present(m.env_var("SGLANG_STILL"))
    assert (still.deprecated, still.type, still.help) == (True, "bool", "Gone.")


def test_env_line_and_non_env_members():
    m = env_model("\nSGLANG_A = EnvBool(False)\nhelper = make()\n_private = EnvBool(True)\n")
    assert [v.name for v in m.env] == ["SGLANG_A"]
    assert present(m.env_var("SGLANG_A")).line == ENV_CLASSES.count("\n") + 4


def test_no_environ_file_means_no_env():
    assert parser_model('parser.add_argument("--x")').env == ()


# ---------------------------------------------------------------------------
# model output
# ---------------------------------------------------------------------------


def test_as_dict_is_json_and_deterministic():
    files = {
        "fields": 'tp_size: A[int, Arg(help="h", aliases=["--tps"], choices=[1, 2])] = 1\nx: A[list, "h"] = ()',
    }
    first: dict[str, Any] = fields_model(**files).as_dict()
    again = fields_model(**files).as_dict()
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    [tp] = [f for f in first["flags"] if f["dest"] == "tp_size"]
    assert tp["aliases"] == ["--tps"] and tp["choices"] == [1, 2] and tp["kind"] == "annotated"
    assert set(first) == {"flags", "env", "diagnostics", "constants"}


def test_by_option_accepts_inline_value():
    m = parser_model('parser.add_argument("--tp-size", type=int)')
    assert m.by_option("--tp-size=2") is m.by_option("--tp-size")
    assert m.by_option("--missing") is None and m.by_dest("missing") is None and m.env_var("X") is None


def test_flags_are_hashable_and_as_dict_keeps_json():
    body = """
    parser.add_argument("--x", default=os.getcwd(), choices=registry())
    parser.add_argument("--y", default={"a": [1, 2]}, nargs=2, const=(1, 2))
    """
    m = parser_model(body)
    assert len(set(m.flags)) == 2 and hash(m.by_option("--x")) == hash(parser_model(body).by_option("--x"))
    x, y = present(m.by_option("--x")), present(m.by_option("--y"))
    assert x.default == {"expr": "os.getcwd()"} and x.choices == FrozenMap({"expr": "registry()"})
    assert y.default == {"a": (1, 2)} and y.const == (1, 2)
    as_dict = y.as_dict()
    assert as_dict["default"] == {"a": [1, 2]} and type(as_dict["default"]) is dict
    assert type(as_dict["default"]["a"]) is list and as_dict["const"] == [1, 2]
    json.dumps(m.as_dict())


# ---------------------------------------------------------------------------
# lent trees, conventions, line numbers, what gets parsed
# ---------------------------------------------------------------------------


def _release_like_files() -> dict[str, str]:
    fields = FIELDS_HEADER + '\nclass Parallel(msgspec.Struct):\n    tp_size: A[int, "h"] = 1\n'
    env = ENV_CLASSES + "\nclass Envs:\n    SGLANG_X = EnvBool(False)\n"
    server = 'def add_cli_args(parser):\n    parser.add_argument("--x", type=int)\n'
    return {FIELDS: fields, ARG_UTILS: textwrap.dedent(ARG_UTILS_SRC), ENVIRON: env, SERVER_ARGS: server}


def test_lent_trees_are_not_parsed_again(monkeypatch):
    import libcst

    files = _release_like_files()
    expected = build_flag_model(files).as_dict()
    trees = {path: libcst.parse_module(src) for path, src in files.items()}
    trees["python/pkg/not_a_declaration_file.py"] = libcst.parse_module("X = 1\n")  # ignored

    def refuse(source):
        raise AssertionError("parsed a file whose tree was lent")

    monkeypatch.setattr(libcst, "parse_module", refuse)
    assert build_flag_model(files, modules=trees).as_dict() == expected
    partial = {ENVIRON: trees[ENVIRON]}  # the others are parsed as usual
    monkeypatch.undo()
    assert build_flag_model(files, modules=partial).as_dict() == expected


def test_files_that_cannot_declare_anything_are_not_parsed(monkeypatch):
    import libcst

    files = _release_like_files()
    files["python/pkg/hooks.py"] = "def hook(cfg):\n    return cfg.tp_size * 2\n"
    files["python/pkg/broken_hook.py"] = "def hook(:\n"  # ast cannot read it either: reported
    parsed: list[str] = []
    real = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", spy(parsed, real, lambda src: src))
    m = build_flag_model(files)
    assert files["python/pkg/hooks.py"] not in parsed
    assert [d.path for d in m.diagnostics] == ["python/pkg/broken_hook.py"]
    assert m.by_dest("tp_size") and m.by_option("--x") and m.env_var("SGLANG_X")


def test_record_class_named_by_a_default_in_another_file():
    record = "class Config:\n    tp_size: int = 1\n    hidden: str = 'x'\n"  # plain fields: parsed on demand
    server = """
    from pkg.config import Config
    def add_cli_args(parser):
        parser.add_argument("--tp-size", type=int, default=Config.tp_size)
    """
    m = build_flag_model({"python/pkg/config.py": record, SERVER_ARGS: textwrap.dedent(server)})
    assert (present(m.by_dest("tp_size")).owner, present(m.by_dest("tp_size")).type) == ("Config", "int")
    assert present(m.by_dest("hidden")).derived


def test_env_descriptor_subclass_from_another_file():
    base = "class EnvField:\n    pass\nclass EnvBool(EnvField):\n    pass\nclass Flag(EnvBool):\n    pass\n"
    env = "from pkg.env_base import Flag\nclass Envs:\n    SGLANG_Y = Flag(True)\n"
    m = build_flag_model({"python/pkg/env_base.py": base, ENVIRON: env})
    assert (present(m.env_var("SGLANG_Y")).type, present(m.env_var("SGLANG_Y")).default) == ("bool", True)


@pytest.mark.parametrize(
    "data, expected",
    [
        (None, Conventions()),
        ({}, Conventions()),
        ({"arg": ["Opt"]}, Conventions(arg_markers=("Opt",))),
        ({"arg": "Opt", "derived": ["Computed", "Derived"], "field": ["field", "attr_field"]},
         Conventions(("Opt",), ("Computed", "Derived"), ("field", "attr_field"))),
    ],
)
def test_conventions_from_mapping(data, expected):
    assert Conventions.from_mapping(data) == expected


@pytest.mark.parametrize(
    "data, message",
    [
        (["Arg"], "must be a mapping"),
        ({"args": ["Arg"]}, "unknown key"),
        ({"arg": []}, "arg must be"),
        ({"derived": [1]}, "derived must be"),
        ({"field": ""}, "field must be"),
    ],
)
def test_conventions_from_mapping_rejects(data, message):
    with pytest.raises(ProfileError, match=message):
        Conventions.from_mapping(data)


def test_conventions_name_the_helpers():
    utils = "from typing import Annotated as A\nclass Opt:\n    pass\nclass Computed:\n    pass\n"
    fields = """
    from pkg.arg_groups.arg_utils import A, Opt, Computed
    class Parallel:
        tp_size: A[int, Opt(help="h")] = 1
        attn_tp_size = Computed(doc="d")
    """
    files = {ARG_UTILS: utils, FIELDS: textwrap.dedent(fields)}
    default = build_flag_model(files)
    assert default.flags == ()  # Opt(...) is not Arg: no annotated field, so no record class
    custom = build_flag_model(files, conventions=Conventions.from_mapping({"arg": "Opt", "derived": "Computed"}))
    assert present(custom.by_dest("tp_size")).option == "--tp-size"
    attn_tp = present(custom.by_dest("attn_tp_size"))
    assert (attn_tp.kind, attn_tp.help) == (DeclKind.COMPUTED, "d")


@pytest.mark.parametrize(
    "body, option, line",
    [
        ('parser.add_argument("--x")', "--x", 3),
        ('\n# note\nparser.add_argument(\n    "--x")', "--x", 5),
        ('action = parser.add_argument(\n    "--x")', "--x", 3),
        ('(\n    parser\n    .add_argument("--x"))', "--x", 4),
        ('group = make()\ngroup.add_argument("--a"); group.add_argument("--b")', "--b", 4),
        ('if x:\n    parser.add_argument(\n        "--x")', "--x", 4),
        ('for name in ("a",):\n    parser.add_argument(f"--{name}")', "--a", 4),
        ('wrap(\n    parser.add_argument("--x"))', "--x", 4),
    ],
)
def test_argparse_lines(body, option, line):
    assert present(parser_model(body).by_option(option)).line == line


def test_field_env_and_diagnostic_lines():
    m = fields_model('tp_size: A[\n    int,\n    Arg(help="h",\n        flavour="spicy"),\n] = 1\nx: A[int, "h"] = 0')
    header = (FIELDS_HEADER + "\nclass Parallel(msgspec.Struct):\n").count("\n")
    assert (present(m.by_dest("tp_size")).line, present(m.by_dest("x")).line) == (header + 1, header + 6)
    [diag] = m.diagnostics
    assert diag.line == header + 4  # the unknown keyword, inside the field's statement
    prelude = """
    class _DeprecatedEnv:
        def __init__(self, replacement=None, note=None): ...
    _DEPRECATED_ENVS = {
        "SGLANG_A": _DeprecatedEnv(replacement="SGLANG_B"),

        "SGLANG_C": _DeprecatedEnv(
            note="n"),
    }
    """
    env = env_model("SGLANG_B = EnvBool(False)", prelude=prelude)
    start = ENV_CLASSES.count("\n") + 1
    assert (present(env.env_var("SGLANG_A")).line, present(env.env_var("SGLANG_C")).line) == (start + 4, start + 6)


# ---------------------------------------------------------------------------
# real releases (network: PyPI; downloads cached)
# ---------------------------------------------------------------------------

CACHE = Path(os.environ.get("ERRCAT_TEST_CACHE", Path.home() / ".cache" / "errcat-tests"))


def release_files(version: str) -> dict[str, str]:
    """Declaration files of an sglang release from PyPI, in repository layout."""
    dest = CACHE / "sglang" / version
    wheels = sorted(dest.glob("sglang-*.whl"))
    if not wheels:
        base = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(dest), f"sglang=={version}"]
        # Some releases ship only interpreter-specific wheels: retry with the tag they have.
        pinned = ["--only-binary=:all:", "--python-version", "3.11", "--platform", "manylinux_2_34_x86_64"]
        for cmd in (base, base + pinned):
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            if done.returncode == 0:
                break
        wheels = sorted(dest.glob("sglang-*.whl"))
        if not wheels:  # a failure, not a skip: an index outage must show
            pytest.fail(f"could not download sglang=={version} from the package index: {done.stderr.strip()}")
    profile = load_profile("sglang")
    globs = [*profile.flag_globs, *profile.env_globs]
    files: dict[str, str] = {}
    with zipfile.ZipFile(wheels[0]) as zf:
        for name in zf.namelist():
            path = profile.repo_path(name)
            if path and match_any(path, globs):
                files[path] = zf.read(name).decode("utf-8")
    return files


def ast_cli_options(files: dict[str, str]) -> set[str]:
    """Option strings the source declares, counted independently with stdlib ast."""
    options: set[str] = set()
    for src in files.values():
        tree = ast.parse(src)
        aliases = {"Annotated"} | {
            t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
            and n.value.id == "Annotated" for t in n.targets if isinstance(t, ast.Name)
        }
        if any(isinstance(n, ast.ImportFrom) and any(a.name == "A" for a in n.names) for n in ast.walk(tree)):
            aliases.add("A")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                options.update(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    options.update(_ast_annotated_options(stmt, aliases))
    return options


def _ast_annotated_options(stmt: ast.stmt, aliases: set[str]) -> set[str]:
    if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
        return set()
    ann = stmt.annotation
    if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id in aliases):
        return set()
    items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    for meta in items[1:]:
        if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
            return {"--" + stmt.target.id.replace("_", "-")}
        if isinstance(meta, ast.Call) and getattr(meta.func, "id", None) == "Arg":
            kw: dict[str | None, Any] = {k.arg: k.value for k in meta.keywords}
            if isinstance(kw.get("no_cli"), ast.Constant) and kw["no_cli"].value is True:
                return set()
            name = kw.get("cli_name")
            found = {str(name.value) if isinstance(name, ast.Constant) else "--" + stmt.target.id.replace("_", "-")}
            if isinstance(kw.get("aliases"), ast.List):
                found |= {e.value for e in kw["aliases"].elts}
            return found
    return set()


def ast_env_names(files: dict[str, str]) -> set[str]:
    names: set[str] = set()
    for src in files.values():
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                            and getattr(stmt.value.func, "id", "").startswith("Env")):
                        names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    return names


ReleaseModel = tuple[str, dict[str, str], FlagModel]  # version, declaration files, their flag model


# not `release`: conftest's fixture of that name gives a Snapshot
@pytest.fixture(scope="module", params=["0.4.10", "0.5.18", "0.5.23"])
def release_model(request: pytest.FixtureRequest) -> ReleaseModel:
    files = release_files(request.param)
    return request.param, files, build_flag_model(files, config_classes=load_profile("sglang").config_classes)


@pytest.mark.network
def test_release_every_declared_option_is_modelled(release_model: ReleaseModel) -> None:
    version, files, m = release_model
    declared = ast_cli_options(files)
    modelled = {o for f in m.flags for o in f.options if o not in f.negations}
    assert declared == modelled, version
    assert len(declared) > 150


@pytest.mark.network
def test_release_every_env_var_is_modelled(release_model: ReleaseModel) -> None:
    version, files, m = release_model
    declared = ast_env_names(files)
    assert declared <= {v.name for v in m.env}
    assert (len(declared) > 500) == (version != "0.4.10")


@pytest.mark.network
def test_release_has_no_diagnostics(release_model: ReleaseModel) -> None:
    _, _, m = release_model
    assert m.diagnostics == ()


@pytest.mark.network
def test_release_known_flags(release_model: ReleaseModel) -> None:
    version, _, m = release_model
    tp = present(m.by_dest("tp_size"))
    if version == "0.4.10":  # the long spelling came first then
        assert (tp.option, tp.aliases) == ("--tensor-parallel-size", ("--tp-size",))
    else:
        assert (tp.option, tp.aliases) == ("--tp-size", ("--tensor-parallel-size",))
    assert (tp.type, tp.default) == ("int", 1)
    assert present(m.by_option("--speculative-algorithm")).dest == "speculative_algorithm"
    lora = present(m.by_option("--lora-paths"))
    assert lora.action == "LoRAPathAction"
    assert present(m.by_option("--enable-lora")).action == "store_true"
    model_path = present(m.by_option("--model-path"))
    assert model_path.required and "--model" in model_path.aliases
    if version != "0.4.10":  # --moe-runner-backend came later
        assert "experimental_sgl_trtllm" in present(present(m.by_option("--moe-runner-backend")).choices)


@pytest.mark.network
def test_release_0_5_23_details(release_model: ReleaseModel) -> None:
    version, _, m = release_model
    if version != "0.5.23":
        pytest.skip("0.5.23 only")
    assert present(m.by_dest("tp_size")).owner == "Parallel"
    assert "experimental_sgl_trtllm" in present(present(m.by_option("--moe-runner-backend")).choices)
    assert next(iter(present(present(m.by_option("--load-format")).choices))) == "auto"
    assert present(m.env_var("SGLANG_ENABLE_OVERLAP_PLAN_STREAM")).type == "bool"
    assert present(m.env_var("SGLANG_RAGGED_VERIFY_MODE")).type == "str"
    monokernel = present(m.by_option("--monokernel-backend"))
    assert (monokernel.dest, monokernel.deprecated, monokernel.replacement) == (
        "enable_amd_monokernel", True, "--enable-amd-monokernel")
    assert present(m.by_dest("enable_amd_monokernel")).option == "--enable-amd-monokernel"
    assert present(m.by_dest("attn_tp_size")).derived


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.18", "0.5.23"])
def test_release_lines_need_no_whole_file_positions(version, monkeypatch):
    import libcst

    import extractor.positions as positions

    files = release_files(version)
    trees = {path: libcst.parse_module(src) for path, src in files.items()}
    wrapped: list[libcst.Module] = []
    real = positions.MetadataWrapper
    monkeypatch.setattr(positions, "MetadataWrapper", spy(wrapped, real, lambda mod, **kw: mod))
    lent = build_flag_model(files, modules=trees, config_classes=load_profile("sglang").config_classes)
    assert not [mod for mod in wrapped if any(mod is tree for tree in trees.values())]  # only single statements
    assert len(wrapped) <= 5
    monkeypatch.undo()
    parsed: list[str] = []
    real_parse = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", spy(parsed, real_parse, lambda src: src))
    own = build_flag_model(files, config_classes=load_profile("sglang").config_classes)
    assert own.as_dict() == lent.as_dict()
    assert len(parsed) < len(files) / 2  # files no reader or name needs are never parsed
