"""Executing runs: one at a time (:func:`run`), or many in parallel (:func:`execute`).

Local execution uses a thread pool: the core releases the GIL, so threads run
simulations in parallel. With ``dask=ADDRESS`` the same runs go to an existing
Dask cluster; the result JSON is the same wherever a run executes, and only the
calling process writes the store.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from . import _bridge
from .errors import SpecError
from .results import RunResult
from .scenario import Scenario, as_scenario

#: run_fn(scenario_toml, overrides, seed) -> result JSON text
RunFn = Callable[[str, Sequence[tuple[str, str]], int], str]


def run(scenario: Scenario | str | Path, seed: int | None = None, pcap: str | Path | None = None,
        **overrides: Any) -> RunResult:
    """Run one simulation: ``hoptcp.run("chain7.toml", seed=1, tcp__max_window=3)``."""
    sc = as_scenario(scenario)
    if overrides:
        sc = sc.with_(**overrides)
    raw = _bridge.run_json(sc.toml, sc.overrides, seed, str(pcap) if pcap is not None else None)
    return RunResult(raw, scenario=sc)


def default_run(toml_text: str, overrides: Sequence[tuple[str, str]], seed: int) -> str:
    return _bridge.run_json(toml_text, overrides, seed, None)


@dataclass(frozen=True)
class Task:
    """One simulation to perform: a resolved scenario (by hash) and a seed."""

    scenario_hash: str
    seed: int
    toml: str
    overrides: tuple[tuple[str, str], ...]
    params: Mapping[str, Any] = field(default_factory=dict, compare=False)
    scenario_json: str = field(default="", compare=False)

    @property
    def key(self) -> tuple[str, int]:
        return (self.scenario_hash, self.seed)


class RunError(RuntimeError):
    """One or more runs failed inside the simulator."""


@dataclass
class ExecStats:
    total: int = 0
    done: int = 0
    failed: list[tuple[Task, BaseException]] = field(default_factory=list)
    elapsed_s: float = 0.0


def _describe(task: Task) -> str:
    p = ", ".join(f"{k}={v}" for k, v in task.params.items())
    return f"seed {task.seed}" + (f", {p}" if p else "")


def execute(tasks: Sequence[Task], on_result: Callable[[Task, str], None], *,
            run_fn: RunFn | None = None, jobs: int | None = None, dask: Any = None,
            progress: bool = True, description: str = "runs") -> ExecStats:
    """Run ``tasks``; call ``on_result(task, result_json)`` in this thread as each finishes.

    Failures do not stop the others; when all are done a failure raises
    :class:`SpecError` (invalid scenario) or :class:`RunError`.
    """
    run_fn = run_fn or default_run
    stats = ExecStats(total=len(tasks))
    t0 = time.perf_counter()
    with progress_bar(len(tasks), description, enabled=progress and len(tasks) > 0) as advance:
        def finished(task: Task, outcome: str | BaseException) -> None:
            if isinstance(outcome, BaseException):
                stats.failed.append((task, outcome))
            else:
                on_result(task, outcome)
                stats.done += 1
            advance()

        if not tasks:
            pass
        elif dask is not None:
            _execute_dask(tasks, finished, run_fn, dask)
        else:
            _execute_local(tasks, finished, run_fn, jobs)
    stats.elapsed_s = time.perf_counter() - t0
    if stats.failed:
        task, exc = stats.failed[0]
        msg = (f"{len(stats.failed)} of {stats.total} runs failed (the others are stored); "
               f"first: {_describe(task)}: {exc}")
        raise (SpecError if isinstance(exc, ValueError) else RunError)(msg)
    return stats


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _execute_local(tasks: Sequence[Task], finished: Callable, run_fn: RunFn, jobs: int | None) -> None:
    jobs = jobs or default_jobs()
    if jobs < 1:
        raise SpecError(f"jobs: invalid value {jobs}; expected a positive number of parallel runs")
    pending = iter(tasks)
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="hoptcp-run") as pool:
        inflight: dict[Any, Task] = {}

        def top_up() -> None:
            while len(inflight) < 2 * jobs:
                task = next(pending, None)
                if task is None:
                    return
                inflight[pool.submit(run_fn, task.toml, task.overrides, task.seed)] = task

        try:
            top_up()
            while inflight:
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for fut in done:
                    task = inflight.pop(fut)
                    exc = fut.exception()
                    finished(task, exc if exc is not None else fut.result())
                top_up()
        except BaseException:
            for fut in inflight:
                fut.cancel()
            raise


# --- Dask ---------------------------------------------------------------------------

def run_chunk(items: Sequence[tuple[str, tuple, int]], run_fn: RunFn | None = None) -> list[tuple[bool, Any]]:
    """Executed on a Dask worker: run several simulations, return (ok, json | error) each."""
    run_fn = run_fn or default_run
    out: list[tuple[bool, Any]] = []
    for toml_text, overrides, seed in items:
        try:
            out.append((True, run_fn(toml_text, overrides, seed)))
        except Exception as exc:  # reported per run by the client
            kind = ValueError if isinstance(exc, ValueError) else RuntimeError
            out.append((False, kind(f"{type(exc).__name__}: {exc}")))
    return out


def _connect(dask: Any) -> tuple[Any, bool]:
    try:
        from distributed import Client
    except ImportError:
        raise SpecError("--dask needs the 'distributed' package: pip install 'dask[distributed]'") from None
    if isinstance(dask, Client):
        return dask, False
    if not isinstance(dask, str):
        raise SpecError(f"dask: expected a scheduler address like 'tcp://host:8786' or a Client, got {dask!r}")
    try:
        return Client(dask, timeout="20s"), True
    except (OSError, TimeoutError) as exc:
        raise SpecError(f"dask: cannot connect to scheduler {dask}: {exc}") from None


def _execute_dask(tasks: Sequence[Task], finished: Callable, run_fn: RunFn, dask: Any) -> None:
    from distributed import as_completed

    client, owned = _connect(dask)
    try:
        threads = max(1, sum(client.nthreads().values()))
        size = max(1, min(32, len(tasks) // (threads * 4)))  # amortise scheduling of very short runs
        chunks = [list(tasks[i:i + size]) for i in range(0, len(tasks), size)]
        fn = None if run_fn is default_run else run_fn
        futures = {}
        for chunk in chunks:
            fut = client.submit(run_chunk, [(t.toml, t.overrides, t.seed) for t in chunk], fn, pure=False)
            futures[fut] = chunk
        try:
            for fut in as_completed(futures):
                chunk = futures.pop(fut)
                try:
                    outcomes = fut.result()
                except Exception as exc:  # worker died, etc.
                    outcomes = [(False, RuntimeError(f"dask task failed: {exc}"))] * len(chunk)
                for task, (ok, value) in zip(chunk, outcomes):
                    finished(task, value)
        except BaseException:
            client.cancel(list(futures))
            raise
    finally:
        if owned:
            client.close()


# --- progress -------------------------------------------------------------------------

@contextmanager
def progress_bar(total: int, description: str, enabled: bool = True) -> Iterator[Callable[[], None]]:
    """A rich progress bar on stderr (done/total, rate, elapsed, ETA); a no-op when disabled."""
    if not enabled:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:.3g} runs/s", style="progress.data.speed")

    console = Console(stderr=True)
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
               TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn()]
    with Progress(*columns, console=console, transient=False, refresh_per_second=4) as prog:
        tid = prog.add_task(description, total=total)
        yield lambda: prog.advance(tid)


def log(message: str, enabled: bool = True) -> None:
    if enabled:
        print(message, file=sys.stderr, flush=True)
