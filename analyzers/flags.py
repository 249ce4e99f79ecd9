"""The flag and environment model of one version of a project.

`build_flag_model` reads declaration files statically (never importing them) and
merges what `flag_decls` and `env_decls` report into one `FlagModel`:

- every ``add_argument`` call is a flag; when its dest is a field of a record
  class (``ServerArgs``), the field supplies the type and, for ``default=Cls.x``
  style defaults, the default;
- annotated fields (``Annotated[T, "help" | Arg(...)]``) are flags with the
  option derived from the field name (`option_for_dest`);
- record fields no option writes are ``derived`` flags (no CLI);
- env descriptors (``SGLANG_X = EnvBool(False)``) are `EnvVar` entries.

Cost: each file is outlined with the stdlib ``ast``; only files whose outline may
hold declarations, and files a name leads into, are parsed with libcst (a caller
can lend trees it already has), and line numbers come from ``ast`` too
(`extractor.positions`).
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace

import libcst as cst

from analyzers.env_decls import EnvVar, may_declare_env, module_env
from analyzers.flag_decls import (
    ArgparseDecl,
    ClassDecl,
    Conventions,
    DeclKind,
    FieldDecl,
    ModuleDecls,
    defines_class,
    may_declare,
    module_declarations,
)
from analyzers.option_text import dest_for_option
from extractor import shape
from extractor.constant_values import FrozenMap, Json, json_value, jsonable
from extractor.ir import Const, Expr, Ref, RefKind, replace_refs
from extractor.records import FileSites
from extractor.source_set import Diagnostic, SourceSet
from extractor.symbols import Symbols

__all__ = [
    "Conventions",
    "DeclKind",
    "Diagnostic",
    "EnvVar",
    "Flag",
    "FlagModel",
    "FrozenMap",
    "build_flag_model",
    "dest_for_option",
    "option_for_dest",
]


def option_for_dest(dest: str) -> str:
    """The option a field gets by default: ``tp_size`` -> ``--tp-size``.

    The one place that turns a field name into an option string.
    """
    return "--" + dest.replace("_", "-")


def _negation(option: str) -> str:
    """argparse.BooleanOptionalAction's ``--no-`` twin of a long option."""
    return "--no-" + option[2:]


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
        }

    @classmethod
    def from_dict(cls, data: object) -> Flag:
        """Inverse of `as_dict`; `extractor.shape.ShapeError` for data of another shape."""
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
        object.__setattr__(self, "_by_dest", by_dest)
        object.__setattr__(self, "_by_option", by_option)
        object.__setattr__(self, "_by_env", by_env)
        writers: dict[str, list[Flag]] = {}
        for flag in self.flags:
            writers.setdefault(flag.dest, []).append(flag)
        object.__setattr__(self, "_writers", {dest: tuple(found) for dest, found in writers.items()})

    def by_dest(self, name: str) -> Flag | None:
        """The flag that fills field `name` (a current option if there is one), or whose
        option argparse stores under `name`."""
        return self._by_dest.get(name)

    def dest_of(self, name: str) -> str:
        """The field a setting name stands for: ``tensor_parallel_size`` -> ``tp_size``."""
        flag = self._by_dest.get(name)
        return flag.dest if flag is not None else name

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


def build_flag_model(
    files: Mapping[str, str],
    *,
    modules: Mapping[str, cst.Module] | None = None,
    config_classes: Collection[str] = (),
    conventions: Conventions = Conventions(),
) -> FlagModel:
    """Model of the flags and env vars declared in `files` ({repo path: source}).

    `modules` ({repo path: tree}) lends trees a caller already parsed from the same
    text (e.g. for site extraction) so they are not parsed again; they are only
    read. Paths in `files` without a tree are parsed here; other paths are ignored.
    `config_classes` names record classes whose plain fields are flags (e.g. the
    target profile's ``ServerArgs``); classes with annotated CLI fields, and
    classes whose fields argparse defaults read (``default=Cls.x``), count too.
    `conventions` names the declaration helpers (`Conventions.from_mapping` reads
    them from a profile).
    """
    sources = SourceSet(files, modules)
    symbols = Symbols(sources)
    by_path: dict[str, ModuleDecls] = {}

    def read(paths: Iterable[str]) -> None:
        for path in paths:
            mod = sources.module(path)
            if mod is not None and path not in by_path:
                by_path[path] = module_declarations(mod, symbols, conventions)

    # Only files that may declare something are parsed (names may lead into others).
    read(p for p in sources.paths if may_declare(sources.files[p], sources.outline(p), config_classes))
    owners = {a.default_owner for d in by_path.values() for a in d.arguments if a.default_field and a.default_owner}
    read(p for p in sources.paths if p not in by_path and defines_class(sources.outline(p), owners))
    decls = [by_path[p] for p in sorted(by_path)]
    flags, merge_diagnostics = merge_flags(decls, config_classes)
    env: list[EnvVar] = []
    env_diagnostics: list[Diagnostic] = []
    for path in sources.paths:
        mod = sources.module(path) if may_declare_env(sources.outline(path)) else None
        if mod is not None:
            found, diags = module_env(mod, symbols)
            env.extend(found)
            env_diagnostics.extend(diags)
    diagnostics = [*(d for mod in decls for d in mod.diagnostics), *merge_diagnostics, *env_diagnostics]
    diagnostics += sources.diagnostics  # files needed but not parsable
    return FlagModel(
        flags=tuple(sorted(flags, key=lambda f: (f.path, f.line, f.option or "", f.dest))),
        env=_unique_env(env),
        diagnostics=tuple(sorted(set(diagnostics), key=lambda d: (d.path, d.line, d.message))),
        constants=record_constants(decls, config_classes),
    )


def _unique_env(found: Iterable[EnvVar]) -> tuple[EnvVar, ...]:
    by_name: dict[str, EnvVar] = {}
    for var in sorted(found, key=lambda v: (v.path, v.line, v.name)):
        by_name.setdefault(var.name, var)
    return tuple(by_name.values())


def _record_classes(decls: Iterable[ModuleDecls], named: Collection[str]) -> list[ClassDecl]:
    decls = list(decls)
    owners = {a.default_owner for mod in decls for a in mod.arguments if a.default_field}
    return [
        cls
        for mod in decls
        for cls in mod.classes
        if cls.name in named or cls.name in owners or cls.annotated
    ]


def record_constants(
    decls: Iterable[ModuleDecls], config_classes: Collection[str] = ()
) -> tuple[tuple[str, Json], ...]:
    """The class constants of the record classes, by name (the first class wins, like fields);
    a name some record class declares as a field is the field."""
    classes = _record_classes(decls, config_classes)
    fields = {f.name for cls in classes for f in cls.fields}
    found: dict[str, Json] = {}
    for cls in classes:
        for name, value in cls.constants:
            if name not in fields:
                found.setdefault(name, value)
    return tuple(sorted(found.items()))


def merge_flags(
    decls: Iterable[ModuleDecls], config_classes: Collection[str] = ()
) -> tuple[list[Flag], list[Diagnostic]]:
    """Turn declarations into flags: argparse calls, annotated fields, derived fields."""
    decls = list(decls)
    diagnostics: list[Diagnostic] = []
    fields: dict[str, FieldDecl] = {}
    for cls in _record_classes(decls, config_classes):
        for fld in cls.fields:
            if fld.name in fields and fields[fld.name].owner != fld.owner:
                first = fields[fld.name]
                diagnostics.append(
                    Diagnostic(fld.path, fld.line,
                               f"field {fld.name!r} also declared by {first.owner} at {first.path}:{first.line}")
                )
                continue
            fields.setdefault(fld.name, fld)
    renames = {src: dst for mod in decls for src, dst in mod.renames}
    flags: list[Flag] = []
    written: set[str] = set()
    for arg in (a for mod in decls for a in mod.arguments):
        dest = renames.get(arg.dest, arg.dest)
        flags.append(_argparse_flag(arg, dest, fields.get(dest)))
        written.add(dest)
    for record in fields.values():
        if record.cli:
            flags.append(_annotated_flag(record))
        elif record.name not in written:
            flags.append(_derived_flag(record))
    diagnostics.extend(_duplicate_options(flags))
    return flags, diagnostics


def _duplicate_options(flags: Iterable[Flag]) -> Iterable[Diagnostic]:
    """argparse refuses an option declared twice; report the later declaration."""
    seen: dict[str, Flag] = {}
    for flag in sorted(flags, key=lambda f: (f.path, f.line)):
        for option in flag.options:
            first = seen.setdefault(option, flag)
            if first is not flag:
                yield Diagnostic(flag.path, flag.line, f"option {option} already declared at {first.path}:{first.line}")


def _argparse_flag(arg: ArgparseDecl, dest: str, fld: FieldDecl | None) -> Flag:
    if arg.default_field and fld is not None and fld.has_default:
        default = fld.default
    else:
        default = arg.default
    negations: tuple[str, ...] = ()
    if arg.action and arg.action.endswith("BooleanOptionalAction"):
        negations = tuple(_negation(o) for o in arg.options if o.startswith("--"))
    return Flag(
        dest=dest,
        option=arg.options[0],
        aliases=arg.options[1:],
        negations=negations,
        type=fld.type if fld is not None and fld.type else arg.type,
        default=default,
        choices=arg.choices,
        action=arg.action,
        nargs=arg.nargs,
        const=arg.const,
        required=arg.required,
        help=arg.help if arg.help is not None or fld is None else fld.help,
        hidden=arg.hidden,
        deprecated=arg.deprecated,
        replacement=arg.replacement,
        derived=False,
        kind=DeclKind.ARGPARSE,
        owner=fld.owner if fld is not None else None,
        path=arg.path,
        line=arg.line,
    )


def _annotated_flag(fld: FieldDecl) -> Flag:
    option = fld.cli_name or option_for_dest(fld.name)
    negations: tuple[str, ...] = ()
    if fld.action and fld.action.endswith("BooleanOptionalAction"):
        negations = tuple(_negation(o) for o in (option, *fld.aliases) if o.startswith("--"))
    if fld.has_default:
        default = fld.default
    else:  # argparse's own default when the registrar passes none
        default = False if fld.action == "store_true" else None
    return Flag(
        dest=fld.name,
        option=option,
        aliases=fld.aliases,
        negations=negations,
        type=fld.type,
        default=default,
        choices=fld.choices,
        action=fld.action,
        nargs=fld.nargs,
        const=fld.const,
        required=fld.required,
        help=fld.help,
        hidden=False,
        deprecated=fld.deprecated,
        replacement=fld.replacement,
        derived=False,
        kind=fld.kind,
        owner=fld.owner,
        path=fld.path,
        line=fld.line,
        fallback=fld.fallback,
    )


def _derived_flag(fld: FieldDecl) -> Flag:
    return Flag(
        dest=fld.name,
        option=None,
        aliases=(),
        negations=(),
        type=fld.type,
        default=fld.default,
        choices=fld.choices,
        action=None,
        nargs=None,
        const=None,
        required=False,
        help=fld.help,
        hidden=False,
        deprecated=fld.deprecated,
        replacement=fld.replacement,
        derived=True,
        kind=fld.kind,
        owner=fld.owner,
        path=fld.path,
        line=fld.line,
        fallback=fld.fallback,
    )
