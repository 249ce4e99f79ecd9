"""A catalog's first-error pipeline and the judge over it on a platform: what `errcat check`
judges command lines with and extract judges examples with. Kept apart from `errcat.pipeline`
(extraction) so that check loads none of extraction's modules."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from extractor.profile import Profile

if TYPE_CHECKING:
    from analyzers.example_check import ExampleJudge
    from analyzers.first_error import Pipeline
    from extractor.ir import RefKind
    from extractor.real_profile import Platform, Validation


def validation_of(profile: Profile, release: str | None) -> Validation | None:
    """The profile's validation steps for `release` (None: it cannot run that release)."""
    real = profile.real
    return real.validation_for(release) if real is not None and release is not None else None


def judge_of(data: Mapping[str, Any], profile: Profile, *, release: str | None,
             platform: Platform, named: Mapping[str, str] | None = None) -> ExampleJudge | None:
    """The whole pipeline of a catalog (its data, as catalog.json holds it) on `platform`, ready
    to judge command lines (`errcat check` too); None where the profile cannot run `release`.
    `named`: how notes name each entry (`RaiseSite.called`)."""
    pipeline = pipeline_of(data, profile, release=release)
    if pipeline is None:
        return None
    from analyzers.platform_facts import fact_names

    return judge_on(pipeline, fact_names(pipeline.conditions()), profile, release=release, platform=platform,
                    named=named)


def pipeline_of(data: Mapping[str, Any], profile: Profile, *, release: str | None) -> Pipeline | None:
    """The first-error pipeline of a catalog's data; None where the profile cannot run `release`."""
    validation = validation_of(profile, release)
    if profile.real is None or validation is None:
        return None
    from analyzers.first_error import Pipeline

    return Pipeline.of_catalog(data, [s.name for s in validation.steps], profile.examples)


def judge_on(pipeline: Pipeline, names: Mapping[RefKind, tuple[str, ...]], profile: Profile, *,
             release: str | None, platform: Platform, named: Mapping[str, str] | None = None) -> ExampleJudge:
    """`pipeline` on `platform` (`names`: the facts its conditions read, `fact_names`)."""
    from analyzers.example_check import ExampleJudge
    from analyzers.platform_facts import Stated

    assert profile.real is not None and release is not None  # `pipeline_of` built the pipeline
    stated = Stated.of_names(names, pipeline.model.flags, platform=platform, real=profile.real,
                             examples=pipeline.model.examples, version=release)
    return ExampleJudge(pipeline, stated, flags=pipeline.model.flags, prefix=profile.launch, named=named)
