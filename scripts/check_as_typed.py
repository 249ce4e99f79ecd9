"""`errcat check` on the difftest corpus as a user types it: no --platform, --architecture or
--model-config; each generated model (`<model>`, `<model:Arch>`) becomes a hub id whose
config.json (the stand-in's) sits in a local Hugging Face cache this script builds; --device
cuda given where the launch does not give a device (what the corpus's real runs got).

    python scripts/check_as_typed.py --catalog DIR [--release 0.5.23] [--sample N]

Prints how many launches stay undecided, how many decided ones name the first error (or ok)
real sglang met, and the false alarms (predicted to fail, real sglang passed).
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzers.first_error import OK
from analyzers.judge import EntryIndex, Real
from analyzers.launch import CommandLine
from errcat.check import Checker, Request, given_model, model_config, on_this_machine, platform_of
from errcat.exits import Exit
from extractor.profile import load_profile
from extractor.real_profile import RealProfile

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ("python", "-m", "sglang.launch_server")


def _hub_id(word: str, cache: Path, real: RealProfile) -> str:
    """`<model:Arch>` -> ``standin/Arch``, its config.json put in the HF cache `cache`."""
    if not (word.startswith("<model") and word.endswith(">")):
        return word
    arch = word[len("<model:"):-1] or real.default_model
    snapshot = cache / f"models--standin--{arch}" / "snapshots" / ("0" * 40)
    if not snapshot.exists():
        snapshot.mkdir(parents=True)
        (snapshot / "config.json").write_text(json.dumps(real.stand_in_config(arch)))
        (snapshot.parent.parent / "refs").mkdir()
        (snapshot.parent.parent / "refs" / "main").write_text("0" * 40)
    return f"standin/{arch}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", required=True, help="a catalog directory written by errcat extract")
    parser.add_argument("--release", default="0.5.23", help="the corpus tests/data/difftest/sglang-V.jsonl.gz")
    parser.add_argument("--sample", type=int, default=0, help="this many launches (default: all)")
    args = parser.parse_args(argv)
    profile = load_profile("sglang")
    assert profile.real is not None
    data = json.loads((Path(args.catalog) / "catalog.json").read_bytes())
    truth = EntryIndex(data["entries"])
    with gzip.open(ROOT / "tests" / "data" / "difftest" / f"sglang-{args.release}.jsonl.gz", "rt") as f:
        records = [r for r in map(json.loads, f) if r["outcome"] in ("ok", "error")]
    if args.sample:
        records = random.Random(0).sample(records, min(args.sample, len(records)))
    request = on_this_machine(Request((*PROGRAM, "--model-path", "org/name")), profile)
    print(request.platform_said)
    checker = Checker.of(data, profile, platform_of(profile, request.platform))
    undecided = decided = right = 0
    alarms = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"HF_HUB_CACHE": tmp}
        for record in records:
            words = tuple(_hub_id(w, Path(tmp), profile.real) for w in record["argv"])
            words += () if "--device" in words else ("--device", "cuda")
            command = CommandLine(tuple(sorted(record["env"].items())), PROGRAM, words)
            config, _ = model_config(None, checker.model_path(command), checker.given(command, "revision"), env)
            checked = checker.with_model(given_model(config, None)).check(command)
            if checked.status == "undecided":
                undecided += 1
                continue
            decided += 1
            real = OK if record["outcome"] == "ok" else truth.which(Real(
                "error", record.get("type"), record.get("message", ""), record.get("path"), record.get("line")))
            first = checked.first or OK
            right += first == real
            if real == OK and first != OK:
                alarms.append((" ".join(record["argv"]), first))
    total = len(records)
    print(f"{total} launches: undecided {undecided} ({undecided / total:.1%}); decided {decided}, first error "
          f"(or ok) right in {right} ({right / max(decided, 1):.1%}); false alarms {len(alarms)}")
    for line, entry in alarms:
        print(f"  false alarm: {line} -> {entry}")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
