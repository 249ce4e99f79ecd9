"""Custom argparse actions: argparse runs ``Cls.__call__`` while it parses the command
line, once for each option declared with ``action=Cls`` that the command line gives,
with ``values`` the option's parsed value. Their checks fire only then, and before any
validation hook runs."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from analyzers.flags import FlagModel
from extractor.ir import ON_COMMAND_LINE, Apply, Expr, Ref, RefKind, Truthy, disj, simplify, substitute
from extractor.records import PARAMETER, REACHED, ExprMap, FileSites, Guard, GuardOrigin, map_guards

CALL = "__call__"
_VALUES_AT = 3  # __call__(self, parser, namespace, values, option_string=None)


def action_options(flags: FlagModel) -> dict[str, tuple[str, ...]]:
    """Custom action class name -> the settings (dests) of the options declared with it."""
    found: dict[str, list[str]] = {}
    for flag in flags.flags:
        action = flag.action or ""
        name = action.rpartition(".")[2]
        if name and not action.startswith("argparse.") and flag.dest not in found.get(name, ()):
            found.setdefault(name, []).append(flag.dest)
    return {name: tuple(dests) for name, dests in found.items()}


def given(dest: str) -> Expr:
    """The option writing `dest` is on the command line."""
    return Truthy(Apply(ON_COMMAND_LINE, (Ref(RefKind.FLAG, dest, dest),), f"{dest} on the command line"))


def is_action_call(function: str, actions: Mapping[str, tuple[str, ...]]) -> bool:
    cls, _, method = function.rpartition(".")
    return method == CALL and cls in actions


def bind_action_calls(fs: FileSites, actions: Mapping[str, tuple[str, ...]]) -> FileSites:
    """`fs` with each site of an action's ``__call__`` guarded by its options being given
    and its ``values`` parameter read as their value (one option: its setting; several:
    unknown which)."""
    if not any(is_action_call(s.function, actions) for s in fs.sites):
        return fs
    params = dict(fs.params)

    def values(function: str) -> ExprMap:
        """``values`` -> the option's setting, in `function` when it is an action's call."""
        dests = actions[function.rpartition(".")[0]] if is_action_call(function, actions) else ()
        if len(dests) != 1:
            return lambda expr: expr
        names = params.get(function, ())
        name = names[_VALUES_AT] if len(names) > _VALUES_AT else "values"
        mapping = {Ref(RefKind.UNKNOWN, name, f"{PARAMETER}{name}"): Ref(RefKind.FLAG, dests[0], name)}
        return lambda expr: simplify(substitute(expr, mapping))

    priors = fs.priors.map_blocks(lambda function, guards: map_guards(guards, values(function)))
    sites = []
    for site in fs.sites:
        if is_action_call(site.function, actions):
            dests = actions[site.function.rpartition(".")[0]]
            runs = Guard(disj([given(d) for d in dests]), " or ".join(f"{d} on the command line" for d in dests),
                         GuardOrigin.CALLER)
            site = site.map_exprs(values(site.function)).with_first_guard(runs)
        sites.append(replace(site, priors=priors))
    return replace(fs, sites=tuple(sites), priors=priors)


def reach_action_calls(reach: dict[tuple[str, str], str] | None,
                       actions: Mapping[str, tuple[str, ...]]) -> dict[tuple[str, str], str] | None:
    """`reach` (`extractor.callers.reachability`) with the actions' calls reached: argparse
    runs them (their guard says when)."""
    if reach is None:
        return None
    return {func: REACHED if is_action_call(func[1], actions) else how for func, how in reach.items()}
