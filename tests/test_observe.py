"""extractor.observe: stage timings and progress reach whoever observes, nobody else."""
from __future__ import annotations

import pytest

from extractor.observe import Observer, advance, observing, stage


def _run() -> None:
    with stage("sites"):
        advance(1, 2, "a.py")
        advance(2, 2, "b.py")
    with stage("advice"):
        pass


def test_nobody_listening_is_no_error():
    _run()


@pytest.mark.parametrize(
    ("observer", "stages", "items"),
    [
        ("timed", ["sites", "advice"], []),
        ("progress", [], [(1, 2, "a.py"), (2, 2, "b.py")]),
        ("both", ["sites", "advice"], [(1, 2, "a.py"), (2, 2, "b.py")]),
    ],
)
def test_each_listener_hears_its_own_events_in_order(observer, stages, items):
    heard_stages: list[str] = []
    heard_items: list[tuple[int, int, str]] = []
    timed = (lambda name, seconds: heard_stages.append(name)) if observer in ("timed", "both") else None
    progress = (lambda *item: heard_items.append(item)) if observer in ("progress", "both") else None
    with observing(Observer(timed=timed, progress=progress)):
        _run()
    assert (heard_stages, heard_items) == (stages, items)


def test_a_stage_that_raises_is_timed_still():
    heard: list[str] = []
    with observing(Observer(timed=lambda name, _: heard.append(name))), pytest.raises(ValueError), stage("write"):
        raise ValueError("disk full")
    assert heard == ["write"]


def test_observing_ends_with_its_block():
    heard: list[str] = []
    with observing(Observer(timed=lambda name, _: heard.append(name))):
        pass
    _run()
    assert heard == []
