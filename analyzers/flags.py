"""The flag and environment model of one version of a project: `Flag`s (options and
record fields), `EnvVar`s and what was not understood (`Diagnostic`s), as catalog.json
holds them. `analyzers.flag_build` reads it from declaration files; `check` and `explain`
only load it from a catalog, so this module imports no parser.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from analyzers.option_text import dest_for_option
from extractor import shape
from extractor.compat import StrEnum
from extractor.frozen import FrozenMap, Json, json_value, jsonable
from extractor.ir import Const, Expr, Ref, RefKind, replace_refs
from extractor.records import Diagnostic, FileSites


def option_for_dest(dest: str) -> str:
    """The option a field gets by default: ``tp_size`` -> ``--tp-size``.

    The one place that turns a field name into an option string.
    """
    return "--" + dest.replace("_", "-")


# A derived setting documented as filled from one option (``help="Resolved from --x."``).
RESOLVED_FROM = re.compile(r"\s*resolved from (--[\w-]+)\.?\s*", re.IGNORECASE)


def json_field(source: str, dest: str) -> str:
    """The field of option `source`'s JSON that fills derived setting `dest`, by the naming
    both share (``watermark_config``, ``watermark_mixing_probability``: ``mixing_probability``)."""
    prefix = source.rsplit("_", 1)[0] + "_"
    return dest.removeprefix(prefix) or dest


class DeclKind(StrEnum):
    ARGPARSE = "argparse"  # parser.add_argument(...)
    FIELD = "field"  # plain record field: no CLI metadata of its own
    ANNOTATED = "annotated"  # Annotated[T, "help" | Arg(...)] field
    COMPUTED = "computed"  # class attribute built by a derived marker, e.g. Derived(...)


JSON_PARSERS = frozenset({"json.loads"})  # parsers a declaration names that read one word of JSON


@dataclass(frozen=True, slots=True)
class EnvVar:
    name: str
    type: str | None  # "bool", "str", "int", "float", "tuple", "json"; None if unknown
    default: Json  # literal, or FrozenMap {"expr": source} (callables, enum members...)
    deprecated_names: tuple[str, ...]  # old spellings still read as a fallback
    deprecated: bool  # the name itself is retired
    replacement: str | None  # env var or option a retired name points to
    help: str | None
    path: str
    line: int

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "type": self.type,
            "default": json_value(self.default),
            "deprecated_names": list(self.deprecated_names),
            "deprecated": self.deprecated,
            "replacement": self.replacement,
            "help": self.help,
            "path": self.path,
            "line": self.line,
        }

    @classmethod
    def from_dict(cls, data: object) -> EnvVar:
        """Inverse of `as_dict`; `extractor.shape.ShapeError` for data of another shape."""
        d = shape.record(data, cls)
        return cls(
            name=shape.text(d["name"]),
            type=shape.optional_text(d["type"]),
            default=jsonable(d["default"]),
            deprecated_names=shape.texts(d["deprecated_names"]),
            deprecated=shape.boolean(d["deprecated"]),
            replacement=shape.optional_text(d["replacement"]),
            help=shape.optional_text(d["help"]),
            path=shape.text(d["path"]),
            line=shape.integer(d["line"]),
        )


@dataclass(frozen=True, slots=True)
class Flag:
    """One configuration value a user can set (or, if `derived`, cannot).

    Immutable and hashable: sequences are tuples and objects `FrozenMap`s (which
    compare equal to plain dicts); `as_dict` gives JSON lists and dicts.
    """

    dest: str  # the record field it fills, e.g. "tp_size"
    option: str | None  # canonical option, e.g. "--tp-size"; None when derived
    aliases: tuple[str, ...]
    negations: tuple[str, ...]  # "--no-x" options of BooleanOptionalAction
    type: str | None  # source text: "int", "Optional[str]", "bool" for store_true
    default: Json  # literal, or FrozenMap {"expr": source} when not a literal
    choices: tuple | FrozenMap | None  # literal values, or FrozenMap {"expr": source}
    action: str | None
    nargs: Json
    const: Json
    required: bool
    help: str | None  # implicit concatenation joined; f-string holes as {expr}
    hidden: bool  # help=argparse.SUPPRESS
    deprecated: bool
    replacement: str | None  # the option a deprecated flag points to
    derived: bool  # a record field no CLI option writes
    kind: DeclKind
    owner: str | None  # record class declaring the field, if any
    path: str
    line: int
    fallback: Json = None  # what the program reads for the field while it is unset (``Arg(fallback=...)``)
    parser: str | None = None  # what argparse converts a word with, as the source names it (``json.loads``)

    @property
    def reads_json(self) -> bool:
        """Is a word given for this flag read by a JSON parser (``type=json.loads``)?"""
        return self.parser in JSON_PARSERS

    @property
    def options(self) -> tuple[str, ...]:
        """Every option string that sets this flag."""
        return ((self.option,) if self.option else ()) + self.aliases + self.negations

    def as_dict(self) -> dict[str, object]:
        return {
            "dest": self.dest,
            "option": self.option,
            "aliases": list(self.aliases),
            "negations": list(self.negations),
            "type": self.type,
            "default": json_value(self.default),
            "choices": json_value(self.choices),
            "action": self.action,
            "nargs": json_value(self.nargs),
            "const": json_value(self.const),
            "required": self.required,
            "help": self.help,
            "hidden": self.hidden,
            "deprecated": self.deprecated,
            "replacement": self.replacement,
            "derived": self.derived,
            "kind": str(self.kind),
            "owner": self.owner,
            "path": self.path,
            "line": self.line,
            "fallback": json_value(self.fallback),
            "parser": self.parser,
        }

    @classmethod
    def from_dict(cls, data: object) -> Flag:
        """Inverse of `as_dict`; `extractor.shape.ShapeError` for data of another shape."""
        if isinstance(data, dict) and "parser" not in data:  # stored before flags recorded their parser
            data = {**data, "parser": None}
        d = shape.record(data, cls)
        choices = d["choices"]
        if choices is not None and not isinstance(choices, (list, dict)):
            raise shape.ShapeError("choices: expected a list, an object or null")
        return cls(
            dest=shape.text(d["dest"]),
            option=shape.optional_text(d["option"]),
            aliases=shape.texts(d["aliases"]),
            negations=shape.texts(d["negations"]),
            type=shape.optional_text(d["type"]),
            default=jsonable(d["default"]),
            choices=jsonable(choices),
            action=shape.optional_text(d["action"]),
            nargs=jsonable(d["nargs"]),
            const=jsonable(d["const"]),
            required=shape.boolean(d["required"]),
            help=shape.optional_text(d["help"]),
            hidden=shape.boolean(d["hidden"]),
            deprecated=shape.boolean(d["deprecated"]),
            replacement=shape.optional_text(d["replacement"]),
            derived=shape.boolean(d["derived"]),
            kind=DeclKind(shape.text(d["kind"])),
            owner=shape.optional_text(d["owner"]),
            path=shape.text(d["path"]),
            line=shape.integer(d["line"]),
            fallback=jsonable(d["fallback"]),
            parser=shape.optional_text(d["parser"]),
        )


def _rank(flag: Flag) -> tuple[bool, bool, bool]:
    """Which flag answers for a dest: CLI before derived, current before deprecated."""
    return (flag.derived, flag.deprecated, flag.hidden)


@dataclass(frozen=True, slots=True)
class FlagModel:
    flags: tuple[Flag, ...]
    env: tuple[EnvVar, ...]
    diagnostics: tuple[Diagnostic, ...]
    # class constants of the record classes (`ClassDecl.constants`), read through an instance
    constants: tuple[tuple[str, Json], ...] = ()
    _by_dest: Mapping[str, Flag] = field(init=False, repr=False, compare=False)
    _by_option: Mapping[str, Flag] = field(init=False, repr=False, compare=False)
    _by_env: Mapping[str, EnvVar] = field(init=False, repr=False, compare=False)
    _writers: Mapping[str, tuple[Flag, ...]] = field(init=False, repr=False, compare=False)  # dest -> its flags
    # a derived setting resolved from a JSON option -> that field of the option (``x.field``)
    _fields: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_dest: dict[str, Flag] = {}
        ranked = sorted(self.flags, key=_rank)
        for flag in ranked:
            by_dest.setdefault(flag.dest, flag)
        # argparse stores `--tensor-parallel-size` as `tensor_parallel_size` before
        # from_cli_args-style code copies it to the field (`tp_size`): code reading the
        # namespace name reads that flag
        for flag in ranked:
            for option in ((flag.option,) if flag.option else ()) + flag.aliases:
                if option.startswith("--"):
                    by_dest.setdefault(dest_for_option(option), flag)
        by_option: dict[str, Flag] = {}
        for flag in self.flags:
            for option in flag.options:
                by_option.setdefault(option, flag)
        by_env: dict[str, EnvVar] = {var.name: var for var in self.env}
        for var in self.env:
            for old in var.deprecated_names:
                by_env.setdefault(old, var)
        fields = {flag.dest: f"{source.dest}.{json_field(source.dest, flag.dest)}" for flag in self.flags
                  if flag.derived and (source := self._resolved_from(flag, by_option)) is not None}
        for dest, dotted in fields.items():
            by_dest.setdefault(dotted, by_dest[dest])
        object.__setattr__(self, "_fields", fields)
        object.__setattr__(self, "_by_dest", by_dest)
        object.__setattr__(self, "_by_option", by_option)
        object.__setattr__(self, "_by_env", by_env)
        writers: dict[str, list[Flag]] = {}
        for flag in self.flags:
            writers.setdefault(flag.dest, []).append(flag)
        object.__setattr__(self, "_writers", {dest: tuple(found) for dest, found in writers.items()})

    @staticmethod
    def _resolved_from(flag: Flag, by_option: Mapping[str, Flag]) -> Flag | None:
        """The option derived setting `flag` is resolved from, per its help (None: not one)."""
        found = RESOLVED_FROM.fullmatch(flag.help or "")
        return by_option.get(found.group(1)) if found else None

    def by_dest(self, name: str) -> Flag | None:
        """The flag that fills field `name` (a current option if there is one), or whose
        option argparse stores under `name`."""
        return self._by_dest.get(name)

    def is_option(self, dest: str) -> bool:
        """Does a command-line option set `dest` (not a field only the code fills)?"""
        flag = self._by_dest.get(dest)
        return flag is not None and bool(flag.option)

    def dest_of(self, name: str) -> str:
        """The field a setting name stands for: ``tensor_parallel_size`` -> ``tp_size``; a
        derived setting resolved from a JSON option is that option's field
        (``watermark_mixing_probability`` -> ``watermark_config.mixing_probability``)."""
        flag = self._by_dest.get(name)
        dest = flag.dest if flag is not None else name
        return self._fields.get(dest, dest)

    def by_option(self, option: str) -> Flag | None:
        """The flag an option string (canonical, alias or ``--no-``) sets."""
        return self._by_option.get(option.split("=", 1)[0])

    def env_var(self, name: str) -> EnvVar | None:
        """An env var by its name or a deprecated spelling it still reads."""
        return self._by_env.get(name)

    def canonical(self, expr: Expr) -> Expr:
        """`expr` with every setting named by its field (`dest_of`)."""
        constants = dict(self.constants)

        def one(ref: Ref) -> Expr:
            if ref.kind is not RefKind.FLAG or ref.name.endswith(")"):
                return ref
            if ref.name in constants and self.by_dest(ref.name) is None:
                return Const(constants[ref.name])
            dest = self.dest_of(ref.name)
            return ref if dest == ref.name else Ref(RefKind.FLAG, dest, ref.text)

        return replace_refs(expr, one)

    def with_field_names(self, fs: FileSites) -> FileSites:
        """`fs` with every setting named by its field, in conditions, values and
        adjustment targets; ``args.tp_size = args.tensor_parallel_size`` is the rename
        itself, not an adjustment, and goes."""
        named = fs.map_exprs(self.canonical)
        adjustments = (replace(a, flag=self.dest_of(a.flag)) for a in named.adjustments)
        return replace(named, adjustments=tuple(a for a in adjustments if not _reads_itself(a.value, a.flag)))

    def flags_for_dest(self, name: str) -> tuple[Flag, ...]:
        """Every flag writing field `name` (e.g. a flag and its deprecated aliases)."""
        return self._writers.get(name, ())

    def as_dict(self) -> dict[str, object]:
        return {
            "flags": [f.as_dict() for f in self.flags],
            "env": [v.as_dict() for v in self.env],
            "diagnostics": [d.as_dict() for d in self.diagnostics],
            "constants": {name: json_value(value) for name, value in self.constants},
        }

    @classmethod
    def from_dict(cls, data: object) -> FlagModel:
        """Inverse of `as_dict` (how the model is cached: data, never code);
        `extractor.shape.ShapeError` (a ValueError) for data of another shape."""
        d = shape.record(data, cls)
        return cls(
            flags=tuple(Flag.from_dict(f) for f in shape.array(d["flags"])),
            env=tuple(EnvVar.from_dict(v) for v in shape.array(d["env"])),
            diagnostics=tuple(Diagnostic.from_dict(x) for x in shape.array(d["diagnostics"])),
            constants=tuple((name, jsonable(value)) for name, value in shape.mapping(d["constants"]).items()),
        )


def _reads_itself(value: Expr, dest: str) -> bool:
    return isinstance(value, Ref) and value.kind is RefKind.FLAG and value.name == dest


