"""The flag and environment model of one version of a project.

`build_flag_model` reads declaration files statically (never importing them) and
merges what `flag_decls` and `env_decls` report into one `analyzers.flags.FlagModel`:

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
from typing import TYPE_CHECKING

from analyzers.env_decls import may_declare_env, module_env
from analyzers.flag_decls import (
    ArgparseDecl,
    ClassDecl,
    Conventions,
    FieldDecl,
    ModuleDecls,
    defines_class,
    may_declare,
    module_declarations,
)
from analyzers.flags import DeclKind, Diagnostic, EnvVar, Flag, FlagModel, option_for_dest
from extractor.frozen import Json
from extractor.source_set import SourceSet
from extractor.symbols import Symbols

if TYPE_CHECKING:
    import libcst as cst


def _negation(option: str) -> str:
    """argparse.BooleanOptionalAction's ``--no-`` twin of a long option."""
    return "--no-" + option[2:]


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
        parser=arg.type if arg.type != "bool" else None,  # ``type=``: what argparse itself is given
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
        parser=fld.parser,
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
