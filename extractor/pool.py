"""A process pool that survives a worker dying (segfault, SIGKILL, out of memory).

When a worker dies, `ProcessPoolExecutor` breaks and fails every task not finished.
`run_tasks` reruns those in a one-worker pool, in order: there the first task left
undone is the one that killed its worker, and the caller decides what that means
(a file's diagnostic, a revision's error) before the rest run again.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any


class WorkerDied(Exception):
    """The outcome of a task whose worker process died running it."""


Done = Callable[[int, Any], None]


def run_tasks(
    fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]], *, order: Sequence[int] | None = None,
    workers: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = (),
    done: Done,
) -> None:
    """`done(i, outcome)` once per task, as tasks finish; the outcome is `fn(*tasks[i])`'s
    result, the exception it raised, or a `WorkerDied` for the task that killed its worker.

    Tasks start in `order` (default: as given). An exception raised by `done` stops the run.
    """
    todo = list(range(len(tasks)) if order is None else order)
    while todo:
        todo = _round(fn, tasks, todo, workers, initializer, initargs, done)
        workers = 1  # a worker died: the rest one at a time, so the next death names its task


def _round(
    fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]], order: list[int], workers: int,
    initializer: Callable[..., None] | None, initargs: tuple[Any, ...], done: Done,
) -> list[int]:
    """Runs `order` in one pool; what a dead worker left undone, in order."""
    undone: set[int] = set()
    with ProcessPoolExecutor(max_workers=workers, initializer=initializer, initargs=initargs) as pool:
        futures = {}
        for i in order:
            try:
                futures[pool.submit(fn, *tasks[i])] = i
            except BrokenProcessPool:  # died already: the rest are left undone
                break
        submitted = set(futures.values())
        undone.update(i for i in order if i not in submitted)
        try:
            for future in as_completed(futures):
                i = futures[future]
                try:
                    outcome = future.result()
                except BrokenProcessPool:
                    undone.add(i)
                    continue
                except Exception as exc:  # noqa: BLE001 - the task's own failure, for `done` to judge
                    outcome = exc
                done(i, outcome)
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)  # `done` stopped the run: start nothing more
            raise
    left = [i for i in order if i in undone]
    if left and workers == 1:  # run in order by one worker: the first undone killed it
        done(left[0], WorkerDied())
        left = left[1:]
    return left
