"""Measure what the target's model configuration object holds for each generated stand-in.

    python scripts/measure_model_properties.py --release 0.5.23 [--catalog DIR] [--python PY]

The properties are those the release's catalog reads of the object the profile describes
(``real.models.object``: ``model_config.is_multimodal``, ``model_config_of(...).context_len``).
For every architecture the profile has a config for, a stand-in directory is generated
(`errcat.real.materials`) and the target itself builds the object from ``--model-path DIR``
(`errcat.real.model_probe`, in the interpreter `--python` or the one `scripts/target_env.py`
builds); the values are written under the release in the profile's `measured` file, which
the evaluator then states for launches of those stand-ins (`analyzers.platform_facts`).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzers.examples import Examples, model_of
from analyzers.first_error import Pipeline
from analyzers.launchgen import named_architectures
from analyzers.platform_facts import TRIED, VARIES, WHOLE_CONFIGS, object_property
from errcat.exits import Exit
from errcat.real.materials import Materials
from errcat.real.runner import driver_setup
from extractor.errors import ErrcatError
from extractor.ir import Apply, Compare, Const, Expr, In, Ref, RefKind, from_dict, refs, walk
from extractor.profile import Profile, load_profile
from output.catalog_dirs import catalog_dir_data

PROBE = Path(__file__).resolve().parents[1] / "errcat" / "real" / "model_probe.py"
PROFILES = Path(__file__).resolve().parents[1] / "extractor" / "profiles"


def _exprs(catalog: dict) -> list[Expr]:
    exprs = [from_dict(a["value"]) for a in catalog.get("adjustments", [])]
    exprs += [from_dict(a["when"]["expr"]) for a in catalog.get("adjustments", [])]
    for entry in catalog["entries"]:
        for trigger in [entry["trigger"], *(v["trigger"] for v in entry.get("variants") or ())]:
            if trigger.get("expr") is not None:
                exprs.append(from_dict(trigger["expr"]))
    return exprs


def read_helpers(catalog: dict, examples: Examples | None = None, architecture: str = "") -> dict[str, str]:
    """Functions the catalog calls on the model's whole config (``is_deepseek_dsa(hf_config)``)
    or on its architecture (``get_spec_by_arch(hf_config.architectures[0])``, where `examples`
    says which property that is; `architecture`: the object's property holding it): name ->
    the object's property the argument is."""
    found: dict[str, str] = {}
    for expr in _exprs(catalog):
        for node in walk(expr):
            if not (isinstance(node, Apply) and len(node.args) == 1):
                continue
            arg = node.args[0]
            if isinstance(arg, Ref) and arg.kind is RefKind.MODEL and arg.name.rpartition(".")[2] in WHOLE_CONFIGS:
                found[node.fn] = arg.name.rpartition(".")[2]
            elif architecture and examples is not None and _names_architecture(arg, examples):
                found[node.fn] = architecture
    return dict(sorted(found.items()))


def _names_architecture(arg: Expr, examples: Examples) -> bool:
    """``hf_config.architectures[0]`` (a property, or the list's first item), not the list."""
    item = isinstance(arg, Apply) and arg.fn == "item" and arg.args[1:] == (Const(0),)
    ref = arg.args[0] if isinstance(arg, Apply) and item else arg
    return isinstance(ref, Ref) and ref.kind is RefKind.MODEL and examples.is_architecture(ref.name) \
        and (item or not ref.name.endswith("architectures"))


def read_properties(catalog: dict, names: str) -> list[str]:
    """The dotted properties of the object the catalog's conditions and adjustments read."""
    found: set[str] = set()
    for expr in _exprs(catalog):
        for ref in refs(expr):
            if ref.kind in (RefKind.MODEL, RefKind.FLAG) and (prop := object_property(ref.name, names)):
                found.add(prop)
    # the model's whole config.json object is its stand-in (`analyzers.platform_facts.model_facts`)
    return sorted(p for p in found if p not in WHOLE_CONFIGS)



def variants(catalog: dict, inputs: Sequence[str]) -> dict[str, list[str | None]]:
    """The values tried for each input option (`ModelProperties.inputs`): a switch alone
    (None), a choice option's choices, else the constants the catalog compares it with."""
    flags = {f["dest"]: f for f in (catalog.get("flags") or {}).get("flags", [])}
    compared = _compared(catalog)
    out: dict[str, list[str | None]] = {}
    for dest in inputs:
        flag = flags.get(dest)
        if flag is None or flag.get("option") is None:
            continue
        if flag.get("action") in ("store_true", "store_false"):
            out[flag["option"]] = [None]
        elif values := flag.get("choices") or sorted(compared.get(dest, ())):
            out[flag["option"]] = [str(v) for v in values]
    return out


def _compared(catalog: dict) -> dict[str, set[str]]:
    """Per flag, the text and integer constants the catalog's conditions compare it with."""
    compared: dict[str, set[str]] = {}
    for expr in _exprs(catalog):
        for node in walk(expr):
            for ref, const in _operands(node):
                if isinstance(ref, Ref) and ref.kind is RefKind.FLAG and isinstance(const, Const):
                    items = const.value if isinstance(const.value, tuple) else (const.value,)
                    compared.setdefault(ref.name, set()).update(str(v) for v in items if isinstance(v, str | int)
                                                                and not isinstance(v, bool))
    return compared


def _operands(node: Expr) -> list[tuple[Expr, Expr]]:
    """(what is compared, what with) of a comparison, both ways, or of a membership test."""
    if isinstance(node, Compare):
        return [(node.left, node.right), (node.right, node.left)]
    return [(node.item, node.container)] if isinstance(node, In) else []


def _by_dest(measured: dict, tried: dict[str, list[str | None]], catalog: dict) -> dict:
    """The probe's result with options named by their settings (as launches give them), and
    the values tried per setting under ``(tried)``."""
    dest = {f["option"]: f["dest"] for f in (catalog.get("flags") or {}).get("flags", []) if f.get("option")}
    for values in measured.values():
        if VARIES in values:
            values[VARIES] = {dest[o]: v for o, v in values[VARIES].items()}
    return {**measured, TRIED: {dest[o]: ["" if v is None else v for v in vs] for o, vs in tried.items()}}


def stand_ins(catalog: dict, profile: Profile, release: str) -> list[str]:
    """The architectures measured: those the profile has a config for, and every one the
    catalog's checks compare the model's against (launches use them: `analyzers.launchgen`;
    their stand-ins get the default config under that name)."""
    real = profile.real
    assert real is not None
    validation = real.validation_for(release)
    pipeline = Pipeline.of_catalog(catalog, [s.name for s in validation.steps] if validation else [],
                                   profile.examples)
    named = [a for check in pipeline.checks for a in named_architectures(check, pipeline.model)]
    return list(dict.fromkeys([a for a, _ in real.model_configs] + sorted(set(named))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1].strip())
    parser.add_argument("--release", required=True)
    parser.add_argument("--catalog", help="the release's catalog (default: extract it, cached)")
    parser.add_argument("--python", help="the target's interpreter (default: build or reuse its env)")
    parser.add_argument("--profile", default="sglang")
    args = parser.parse_args(argv)
    try:
        profile = load_profile(args.profile)
        real = profile.real
        if real is None or real.model_object is None:
            raise ErrcatError(f"profile {args.profile} describes no model configuration object")
        props = real.model_object
        with tempfile.TemporaryDirectory(prefix="errcat-measure-") as tmp:
            catalog_dir = Path(args.catalog) if args.catalog else Path(tmp) / "catalog"
            if not args.catalog:
                from errcat.model import SourceSpec
                from errcat.pipeline import extract
                extract(SourceSpec(release=args.release), out=catalog_dir, profile=args.profile)
            catalog = catalog_dir_data(str(catalog_dir))
            names = read_properties(catalog, props.names)
            helpers = read_helpers(catalog, Examples(profile.examples), profile.model_architecture)
            python = args.python
            if python is None:
                from errcat.real.targetenv import ensure_target_env
                python = str(ensure_target_env(profile, args.release).python)
            materials = Materials(real, Path(tmp) / "models")
            materials.root.mkdir()
            models = {arch: str(materials.path_for(model_of(arch)))
                      for arch in stand_ins(catalog, profile, args.release)}
            tried = variants(catalog, props.inputs)
            request = {"setup": driver_setup(real, args.release), "factory": props.factory,
                       "models": models, "names": names, "helpers": helpers, "variants": tried}
            done = subprocess.run([python, str(PROBE)], input=json.dumps(request), capture_output=True,
                                  text=True, timeout=900, check=False)
            if done.returncode != 0:
                tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
                raise ErrcatError(f"the model probe failed: {tail[0]}")
            measured = _by_dest(json.loads(done.stdout.strip().splitlines()[-1]), tried, catalog)
    except (ErrcatError, OSError, ValueError, subprocess.TimeoutExpired) as exc:
        print(f"measure_model_properties: {exc}", file=sys.stderr)
        return Exit.USAGE
    target = PROFILES / f"{args.profile}.models.json"
    everything = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
    everything[args.release] = measured
    text = json.dumps(everything, indent=1, sort_keys=True) + "\n"
    partial = target.with_suffix(".json.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(target)
    failed = sorted(a for a, v in measured.items() if "error" in v)
    print(f"{args.release}: {len(names)} properties and {len(helpers)} helpers of {len(measured)} stand-ins -> {target}"
          + (f" (not built: {', '.join(failed)})" if failed else ""))
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
