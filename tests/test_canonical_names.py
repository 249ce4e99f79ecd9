"""One name per setting: the name argparse stores an option under (``tensor_parallel_size``
for ``--tensor-parallel-size``) stands for the field a from_cli_args rename fills (``tp_size``)."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.eval_model import Model
from analyzers.flag_build import build_flag_model
from analyzers.flags import FlagModel
from analyzers.trigger import Renderer
from analyzers.witness import Leaf, settable
from extractor.ir import And, Compare, Const, Ref, RefKind, Truthy
from extractor.profile import load_profile
from extractor.records import Adjustment, FileSites, Guard, GuardOrigin
from extractor.sites import extract_file
from tests.present import present

PATH = "python/pkg/server_args.py"
PROFILE = load_profile("sglang")

# sglang 0.4.x: the parser stores --tensor-parallel-size as tensor_parallel_size and
# from_cli_args copies it to the field tp_size
RENAMED = textwrap.dedent('''
    import argparse, dataclasses
    @dataclasses.dataclass
    class ServerArgs:
        tp_size: int = 1
        pp_size: int = 1
        enable_x: bool = False
        def add_cli_args(parser):
            parser.add_argument("--tensor-parallel-size", "--tp-size", type=int, default=ServerArgs.tp_size)
            parser.add_argument("--pipeline-parallel-size", "--pp-size", type=int, default=ServerArgs.pp_size)
            parser.add_argument("--enable-x", action="store_true")
        @classmethod
        def from_cli_args(cls, args: argparse.Namespace):
            args.tp_size = args.tensor_parallel_size
            args.pp_size = args.pipeline_parallel_size
            if args.tensor_parallel_size > 8:
                raise ValueError("too big")
            return cls(tp_size=args.tp_size)
''')
FLAGS = build_flag_model({PATH: RENAMED})


def flag(name: str, text: str | None = None) -> Ref:
    return Ref(RefKind.FLAG, name, text or f"args.{name}")


def parser_model(body: str) -> FlagModel:
    src = "def add_cli_args(parser):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return build_flag_model({PATH: src})


@pytest.mark.parametrize(
    "name, dest, option",
    [
        ("tp_size", "tp_size", "--tensor-parallel-size"),  # the field itself
        ("tensor_parallel_size", "tp_size", "--tensor-parallel-size"),  # the namespace name of its option
        ("pipeline_parallel_size", "pp_size", "--pipeline-parallel-size"),
        ("enable_x", "enable_x", "--enable-x"),  # no rename: unchanged
    ],
)
def test_by_dest_maps_the_namespace_name_to_the_renamed_field(name, dest, option):
    found = present(FLAGS.by_dest(name))
    assert (found.dest, found.option) == (dest, option)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("tensor_parallel_size", "tp_size"),
        ("pipeline_parallel_size", "pp_size"),
        ("tp_size", "tp_size"),
        ("enable_x", "enable_x"),
        ("not_a_setting", "not_a_setting"),  # unknown names stay as they are
    ],
)
def test_dest_of_names_the_field(name, expected):
    assert FLAGS.dest_of(name) == expected


def test_a_name_no_option_is_stored_under_is_no_setting():
    assert FLAGS.by_dest("not_a_setting") is None


def test_a_real_field_name_is_never_shadowed_by_an_option_spelling():
    # --a-b would be stored as `a_b`, but it has dest="c"; the field `a_b` belongs to --x
    model = parser_model('''
        parser.add_argument("--a-b", dest="c", type=int)
        parser.add_argument("--x", dest="a_b", type=int)
    ''')
    assert (present(model.by_dest("a_b")).option, present(model.by_dest("c")).option) == ("--x", "--a-b")
    assert model.dest_of("a_b") == "a_b"


@pytest.mark.parametrize(
    "expr, expected",
    [
        (Compare(">", flag("tensor_parallel_size"), Const(8)),
         Compare(">", flag("tp_size", "args.tensor_parallel_size"), Const(8))),
        (And((Truthy(flag("enable_x")), Compare("==", flag("pipeline_parallel_size"), Const(2)))),
         And((Truthy(flag("enable_x")), Compare("==", flag("pp_size", "args.pipeline_parallel_size"), Const(2))))),
        # a field name, a derived call, an env var and an unknown name are left alone
        (Truthy(flag("tp_size")), Truthy(flag("tp_size"))),
        (Truthy(flag("tensor_parallel_size()")), Truthy(flag("tensor_parallel_size()"))),
        (Truthy(Ref(RefKind.ENV, "tensor_parallel_size", "envs.x")),
         Truthy(Ref(RefKind.ENV, "tensor_parallel_size", "envs.x"))),
        (Truthy(flag("other")), Truthy(flag("other"))),
    ],
)
def test_canonical_names_each_setting_by_its_field_and_keeps_the_source_text(expr, expected):
    assert FLAGS.canonical(expr) == expected


def test_canonical_file_sites_drop_the_rename_and_rename_the_guards():
    fs = extract_file(PATH, RENAMED, PROFILE)
    assert {(a.flag, a.value.name if isinstance(a.value, Ref) else a.value) for a in fs.adjustments} == {
        ("tp_size", "tensor_parallel_size"), ("pp_size", "pipeline_parallel_size")}  # as the source says
    canonical = FLAGS.with_field_names(fs)
    assert canonical.adjustments == ()
    assert canonical.sites[0].guards[0].expr == Compare(">", flag("tp_size", "args.tensor_parallel_size"), Const(8))


@pytest.mark.parametrize(
    "adjustment, kept",
    [
        # the rename itself: not an automatic change of the config
        (Adjustment("f", 1, "tp_size", flag("tensor_parallel_size"), ()), None),
        (Adjustment("f", 1, "tp_size", flag("tp_size"), ()), None),
        # real adjustments stay, named by field
        (Adjustment("f", 1, "tp_size", Const(1), ()), ("tp_size", Const(1))),
        (Adjustment("f", 1, "tensor_parallel_size", Const(1), ()), ("tp_size", Const(1))),
        (Adjustment("f", 1, "pp_size", flag("tensor_parallel_size"), ()),
         ("pp_size", flag("tp_size", "args.tensor_parallel_size"))),
    ],
)
def test_canonical_adjustments(adjustment, kept):
    found = FLAGS.with_field_names(FileSites(path="m.py", adjustments=(adjustment,))).adjustments
    assert [(a.flag, a.value) for a in found] == ([kept] if kept else [])


def test_canonical_adjustments_rename_their_guards():
    guard = Guard(Truthy(flag("tensor_parallel_size")), "args.tensor_parallel_size", GuardOrigin.IF)
    fs = FileSites(path="m.py", adjustments=(Adjustment("f", 1, "enable_x", Const(True), (guard,)),))
    [adjustment] = FLAGS.with_field_names(fs).adjustments
    assert adjustment.guards[0].expr == Truthy(flag("tp_size", "args.tensor_parallel_size"))


@pytest.mark.parametrize("name", ["tensor_parallel_size", "tp_size"])
def test_the_namespace_name_renders_and_is_set_as_its_option(name):
    ref = flag(name)
    assert Renderer.for_model(FLAGS).name(ref) == "`--tensor-parallel-size`"
    assert settable(ref, Model(FLAGS)) == Leaf(RefKind.FLAG, "tp_size")


# a class constant of the record class read through an instance
# (``server_args.LANGUAGE_MODEL_ONLY_ARCHITECTURES``, sglang 0.5.23) is its value
CONSTANTS = textwrap.dedent('''
    class ServerArgs:
        ARCHS = ("A", "B")
        LIMIT = 8
        SHADOWED = 1
        _cache = None
        NOT_LITERAL = compute()
    @dataclasses.dataclass
    class Fields:
        SHADOWED: int = 2
''')


@pytest.mark.parametrize(
    "name, expected",
    [
        ("ARCHS", Const(("A", "B"))),
        ("LIMIT", Const(8)),
        ("SHADOWED", flag("SHADOWED")),  # a field of a record class: the setting
        ("_cache", flag("_cache")),  # named as an attribute a method may set later
        ("NOT_LITERAL", flag("NOT_LITERAL")),
    ],
)
def test_class_constants_read_through_an_instance_are_their_value(name: str, expected: object) -> None:
    model = build_flag_model({PATH: CONSTANTS}, config_classes=("ServerArgs", "Fields"))
    assert model.canonical(flag(name)) == expected


def test_class_constants_survive_the_flag_model_cache() -> None:
    model = build_flag_model({PATH: CONSTANTS}, config_classes=("ServerArgs",))
    assert model.constants == (("ARCHS", ("A", "B")), ("LIMIT", 8), ("SHADOWED", 1))
    assert FlagModel.from_dict(model.as_dict()) == model
