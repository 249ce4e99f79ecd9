"""Scale: N checks in one function (or N functions) cost O(N) records and catalog bytes.

Counted, not timed: what is stored per site and written per entry must not grow with
the number of checks before it (`scripts/scale_shapes.py` makes the inputs;
`scripts/bench_scale.py` measures time and memory).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from errcat.model import SourceSpec
from errcat.pipeline import write_catalog
from extractor.profile import load_profile
from extractor.sites import extract_file
from scripts import scale_shapes

SHAPES = ["one-if", "one-assert", "one-elif", "many"]


def stored_per_site(shape: str, lines: int, tmp_path: Path) -> float:
    """Bytes of the cacheable per-file record, per site."""
    profile = load_profile(str(scale_shapes.write(shape, lines, tmp_path / f"{shape}{lines}")))
    fs = extract_file(scale_shapes.TARGET, scale_shapes.source(shape, lines), profile)
    assert fs.sites and fs.parse_error is None
    return len(json.dumps(fs.as_dict())) / len(fs.sites)


def written_per_entry(shape: str, lines: int, tmp_path: Path) -> tuple[float, int]:
    """catalog.json bytes per entry, and the most earlier-raise guards any entry lists."""
    root = tmp_path / f"{shape}{lines}"
    profile = scale_shapes.write(shape, lines, root)
    write_catalog(SourceSpec(path=str(root)), profile=str(profile), out=root / "out", use_cache=False, jobs=1)
    catalog = json.loads((root / "out" / "catalog.json").read_text())
    size = (root / "out" / "catalog.json").stat().st_size
    priors = max(sum(g["origin"] == "prior-raise" for g in e["guards"]) for e in catalog["entries"])
    return size / len(catalog["entries"]), priors


@pytest.mark.parametrize("shape", SHAPES)
def test_record_per_site_does_not_grow_with_earlier_checks(shape, tmp_path):
    small, large = stored_per_site(shape, 200, tmp_path), stored_per_site(shape, 1600, tmp_path)
    assert large < 1.2 * small, (small, large)


@pytest.mark.parametrize("shape", ["one-if", "one-elif"])
def test_catalog_bytes_per_entry_do_not_grow_with_earlier_checks(shape, tmp_path):
    (small, _), (large, priors) = written_per_entry(shape, 100, tmp_path), written_per_entry(shape, 400, tmp_path)
    assert large < 1.2 * small, (small, large)
    assert priors == 25  # the nearest 24 earlier raises and one line counting the rest


def test_long_run_of_earlier_raises_is_counted_not_listed(tmp_path):
    root = tmp_path / "t"
    profile = scale_shapes.write("one-if", 2 * 30 + 1, root)
    write_catalog(SourceSpec(path=str(root)), profile=str(profile), out=root / "out", use_cache=False, jobs=1)
    last = max(json.loads((root / "out" / "catalog.json").read_text())["entries"], key=lambda e: e["source"]["line"])
    guards = [(g["origin"], g["text"]) for g in last["guards"]]
    assert guards[0] == ("prior-raise", "5 earlier checks did not fire (not listed)")
    assert guards[1:] == [("prior-raise", f"not (cfg.x{i} > {i})") for i in range(5, 29)] + [("if", "cfg.x29 > 29")]


NESTED = '''\
def f(cfg):
    if cfg.a == 1:
        raise ValueError("one")
    assert cfg.b, "b"
    if cfg.mode == "x":
        if cfg.a == 2:
            raise ValueError("two")
        if cfg.c:
            return
        assert cfg.a != 3, "three"
        raise ValueError("x mode")
    for name, why in [("p", "pp"), ("q", "qq")]:
        assert cfg.a != 4, "four"
        if cfg.mode == name:
            raise ValueError(why)
    if cfg.mode == "y":
        raise ValueError("y mode")
    elif cfg.a == 5:
        raise ValueError("five")
    raise ValueError("last")
'''


@pytest.mark.parametrize("code", [NESTED, scale_shapes.source("one-elif", 120)], ids=["nested", "one-elif"])
def test_trigger_from_the_prior_table_equals_filtering_the_whole_path(code):
    """The indexed lookup keeps exactly the earlier raises the plain filter keeps, in order."""
    from analyzers.entries import site_trigger_guards, trigger_guards

    fs = extract_file("m.py", code, load_profile("sglang"))
    assert fs.priors.blocks and fs.sites
    for site in fs.sites:
        related = [g for v in site.variants for g in v.guards]
        assert site_trigger_guards(site) == trigger_guards(site.guards, related), site.line


def test_a_site_binds_only_its_nearest_earlier_raises(tmp_path):
    """Issue 39: per site, what the catalog shows of N earlier raises is built for the nearest
    few and the rest counted, so one function of N checks is linear work, not quadratic."""
    from analyzers.entries import nearest_priors, site_reach

    root = tmp_path / "t"
    profile = load_profile(scale_shapes.write("one-if", 2 * 400 + 1, root))
    fs = extract_file(scale_shapes.TARGET, scale_shapes.source("one-if", 2 * 400 + 1), profile)
    last = max(fs.sites, key=lambda s: s.line)
    reach, more = site_reach(last, 10)
    assert (len(reach), more) == (10, len(site_reach(last)[0]) - 10)
    assert [g.text for g in nearest_priors(last, 3)] == [f"not (cfg.x{i} > {i})" for i in (396, 397, 398)]


@pytest.mark.parametrize("nearest", [0, 1, 3, 1000])
@pytest.mark.parametrize("code", [NESTED, scale_shapes.source("one-elif", 120)], ids=["nested", "one-elif"])
def test_the_nearest_reach_is_the_tail_of_the_whole_reach(code, nearest):
    """Issue 39: `site_reach` walks only the nearest earlier raises and counts the others from
    the runs' lengths (less those the trigger keeps): the same as walking them all."""
    from analyzers.entries import site_reach

    for site in extract_file("m.py", code, load_profile("sglang")).sites:
        whole, more = site_reach(site)
        assert more == 0
        tail = whole[max(0, len(whole) - nearest):]
        assert site_reach(site, nearest) == (tail, len(whole) - len(tail)), site.line


def test_no_judge_builds_no_catalog_data(tmp_path, monkeypatch):
    """Issue 39: where no judge can run (no release), the whole catalog's data, most of a
    large run's memory, is never built for it."""
    from errcat.model import Catalog
    from errcat.pipeline import example_judge, extract

    root = tmp_path / "t"
    catalog = extract(SourceSpec(path=str(root)), profile=scale_shapes.write("server-args", 20, root),
                      out=root / "out", use_cache=False)

    def refused(*_: object, **__: object) -> None:
        raise AssertionError("as_dict called")

    monkeypatch.setattr(Catalog, "as_dict", refused)
    assert example_judge(catalog, None) is None
