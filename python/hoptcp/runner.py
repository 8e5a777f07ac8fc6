"""Executing runs: one at a time (:func:`run`), or many in parallel (:func:`execute`).

Local execution uses a thread pool: the core releases the GIL, so threads run
simulations in parallel. With ``dask=ADDRESS`` the same runs go to an existing
Dask cluster; the result JSON is the same wherever a run executes, and only the
calling process writes the store.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from . import _bridge
from .errors import RunError, SpecError
from .progress import PLAIN_INTERVAL_S, duration
from .results import RunResult
from .scenario import Scenario, as_scenario

#: run_fn(scenario_toml, overrides, seed) -> result JSON text
RunFn = Callable[[str, Sequence[tuple[str, str]], int], str]


def run(scenario: Scenario | str | Path, seed: int | None = None, pcap: str | Path | None = None,
        pcap_node: int | None = None, series: Sequence[str] | None = None, pcap_view: str = "sources",
        **overrides: Any) -> RunResult:
    """Run one simulation: ``hoptcp.run("chain7.toml", seed=1, tcp__max_window=3)``.

    ``pcap``: a packet trace (pcapng). By default the sources' view, which Wireshark's TCP
    analysis reads right (each flow's frames at the node that sends it; :mod:`hoptcp.pcap_view`);
    ``pcap_view="network"``: every node's frames, one interface per node; ``pcap_node``: that
    node's frames alone. ``series=["gateway"]`` also
    records TCP-GAP's per-flow estimate at the gateway (``"tcp_ap"``: at TCP-AP senders); read it
    with :meth:`RunResult.time_series`.
    """
    sc = as_scenario(scenario)
    if overrides:
        sc = sc.with_(**overrides)
    if series is not None:
        sc = with_series(sc, series)
    from .pcap_view import check_view, traced_run, wants_air, with_air

    trace = str(pcap) if pcap is not None else None
    check_view(pcap_view, pcap_node)
    keep_air = series is not None and "air" in series
    if wants_air(trace, pcap_node, pcap_view):
        sc = with_air(sc)
    raw = traced_run(lambda path, node: _bridge.run_json(sc.toml, sc.overrides, seed, path, pcap_node=node),
                     trace, pcap_node, pcap_view, keep_air)
    return RunResult(raw, scenario=sc)


def with_series(sc: Scenario, kinds: Sequence[str]) -> Scenario:
    """``sc`` also recording the time series ``kinds`` (``stats.series``; the core checks the names)."""
    if isinstance(kinds, str):
        kinds = [kinds]
    return sc.with_overrides({"stats.series": [str(k) for k in kinds]})


class _Cancelled(Exception):
    """Raised from the core's progress hook to stop a run of a cancelled sweep."""


def default_run(toml_text: str, overrides: Sequence[tuple[str, str]], seed: int,
                cancel: threading.Event | None = None) -> str:
    """One run in the compiled core; it stops within a fraction of a second once ``cancel`` is set."""
    if cancel is None:
        return _bridge.run_json(toml_text, overrides, seed, None)

    def check(_fraction: float) -> None:
        if cancel.is_set():
            raise _Cancelled()

    return _bridge.run_json(toml_text, overrides, seed, None, progress=check)


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


@dataclass
class ExecStats:
    total: int = 0
    done: int = 0
    #: runs another process on the same store finished while we waited for them
    done_elsewhere: int = 0
    failed: list[tuple[Task, BaseException]] = field(default_factory=list)
    elapsed_s: float = 0.0


def _describe(task: Task) -> str:
    p = ", ".join(f"{k}={v}" for k, v in task.params.items())
    return f"seed {task.seed}" + (f", {p}" if p else "")


class TaskSource:
    """The tasks of one execution, handed out one at a time. This plain version
    hands out a fixed list; :class:`ClaimingSource` shares work with other
    processes through the store."""

    def __init__(self, tasks: Sequence[Task]):
        self._pending = iter(tasks)
        self.total = len(tasks)

    def take(self) -> Task | None:
        """The next task to run here, or None if none can be run right now."""
        return next(self._pending, None)

    def elsewhere(self) -> int:
        """Tasks being run by another process (waited for before returning)."""
        return 0

    def wait_elsewhere(self) -> list[Task]:
        """Pause briefly; return the tasks another process has finished meanwhile."""
        return []

    def tick(self) -> None:
        """Called regularly while runs go on (claims are renewed here)."""

    def close(self) -> None:
        """Give up whatever this process still holds."""


#: how long a claim lives without renewal, and how often owners renew them
CLAIM_TTL_S = 120.0
CLAIM_RENEW_S = 30.0
#: how often a sweep waiting for another process's runs looks at the store
WAIT_POLL_S = 1.0


class ClaimingSource(TaskSource):
    """Tasks this process claims in the store before running them. Tasks claimed
    by another live process are left to it and waited for; if their claims expire
    (the other process died) they are claimed and run here."""

    def __init__(self, db: Any, version: str, tasks: Sequence[Task], *, batch: int = 1,
                 ttl_s: float | None = None, poll_s: float | None = None):
        super().__init__(tasks)
        self.db, self.version, self.batch = db, version, max(1, batch)
        self.ttl_s = CLAIM_TTL_S if ttl_s is None else ttl_s
        self.poll_s = WAIT_POLL_S if poll_s is None else poll_s
        self.owner = uuid.uuid4().hex
        self._todo = list(tasks)  # not yet claimed by us, in order
        self._ready: list[Task] = []  # claimed by us, not yet handed out
        self._others: dict[tuple[str, int], Task] = {}  # claimed elsewhere when we looked
        self._renewed = time.monotonic()

    def take(self) -> Task | None:
        if not self._ready and self._todo:
            self._claim_more()
        return self._ready.pop(0) if self._ready else None

    def _claim_more(self) -> None:
        while self._todo and not self._ready:
            chunk, self._todo = self._todo[:self.batch], self._todo[self.batch:]
            got = set(self.db.claim([t.key for t in chunk], self.version, self.owner, self.ttl_s))
            for t in chunk:
                if t.key in got:
                    self._ready.append(t)
                else:
                    self._others[t.key] = t

    def elsewhere(self) -> int:
        return len(self._others) + len(self._todo)

    def wait_elsewhere(self) -> list[Task]:
        time.sleep(self.poll_s)
        self.tick()
        keys = list(self._others)
        stored = self.db.existing(keys, self.version)
        finished = [self._others.pop(k) for k in keys if k in stored]
        live = self.db.live_claims(self.version, exclude_owner=self.owner)
        orphaned = [self._others.pop(k) for k in list(self._others) if k not in live]
        self._todo = orphaned + self._todo  # their owner died: ours now (claimed on take)
        return finished

    def tick(self) -> None:
        if time.monotonic() - self._renewed >= min(CLAIM_RENEW_S, self.ttl_s / 4):
            self.db.renew_claims(self.owner, self.ttl_s)
            self._renewed = time.monotonic()

    def close(self) -> None:
        self.db.release_claims(self.owner)


def execute(tasks: Sequence[Task] | TaskSource, on_result: Callable[[Task, str], None], *,
            run_fn: RunFn | None = None, jobs: int | None = None, dask: Any = None,
            progress: bool | Progress = True, description: str = "runs") -> ExecStats:
    """Run ``tasks``; call ``on_result(task, result_json)`` in this thread as each finishes.

    Failures do not stop the others; when all are done a failure raises
    :class:`SpecError` (invalid scenario) or :class:`RunError`. Ctrl-C stops the
    runs in progress within a fraction of a second and propagates.
    """
    source = tasks if isinstance(tasks, TaskSource) else TaskSource(tasks)
    stats = ExecStats(total=source.total)
    t0 = time.perf_counter()
    bar = progress if isinstance(progress, Progress) else Progress(
        source.total, description, enabled=progress and source.total > 0)

    def finished(task: Task, outcome: str | BaseException) -> None:
        if isinstance(outcome, BaseException):
            stats.failed.append((task, outcome))
        else:
            on_result(task, outcome)
            stats.done += 1
        bar.advance()

    def finished_elsewhere(done: list[Task]) -> None:
        stats.done_elsewhere += len(done)
        bar.advance(len(done))

    try:
        with bar:
            if dask is not None:
                _execute_dask(source, finished, finished_elsewhere, run_fn, dask)
            elif source.total:
                _execute_local(source, finished, finished_elsewhere, run_fn, jobs)
    finally:
        source.close()
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


def _execute_local(source: TaskSource, finished: Callable[[Task, Any], None],
                   finished_elsewhere: Callable[[list[Task]], None], run_fn: RunFn | None, jobs: int | None) -> None:
    jobs = jobs or default_jobs()
    if jobs < 1:
        raise SpecError(f"jobs: invalid value {jobs}; expected a positive number of parallel runs")
    cancel = threading.Event()
    call: RunFn = run_fn or functools.partial(default_run, cancel=cancel)
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="hoptcp-run") as pool:
        inflight: dict[Any, Task] = {}

        def top_up() -> None:
            while len(inflight) < 2 * jobs:
                task = source.take()
                if task is None:
                    return
                inflight[pool.submit(call, task.toml, task.overrides, task.seed)] = task

        try:
            while True:
                top_up()
                if not inflight:
                    if not source.elsewhere():
                        break
                    finished_elsewhere(source.wait_elsewhere())
                    continue
                done, _ = wait(inflight, timeout=CLAIM_RENEW_S, return_when=FIRST_COMPLETED)
                source.tick()
                for fut in done:
                    task = inflight.pop(fut)
                    exc = fut.exception()
                    finished(task, exc if exc is not None else fut.result())
        except BaseException:
            cancel.set()  # runs in progress stop at their next progress check
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


def check_dask_address(address: str) -> None:
    """A scheduler address like ``tcp://host:8786`` (checked before anything runs)."""
    import re

    if not re.fullmatch(r"(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):\d{1,5}/?", address.strip()):
        raise SpecError(f"--dask {address}: expected a scheduler address with a port, like tcp://host:8786")


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
    except ValueError as exc:  # e.g. an address without a port
        raise SpecError(f"dask: invalid scheduler address {dask!r} ({exc}); "
                        "expected e.g. tcp://host:8786") from None
    except (OSError, TimeoutError) as exc:
        raise SpecError(f"dask: cannot connect to scheduler {dask}: {exc}") from None


def _execute_dask(source: TaskSource, finished: Callable[[Task, Any], None],
                  finished_elsewhere: Callable[[list[Task]], None], run_fn: RunFn | None, dask: Any) -> None:
    from distributed import as_completed

    client, owned = _connect(dask)
    try:
        threads = max(1, sum(client.nthreads().values()))
        while True:
            tasks = list(iter(source.take, None))  # every task this process may run now
            if not tasks:
                if not source.elsewhere():
                    return
                finished_elsewhere(source.wait_elsewhere())
                continue
            size = max(1, min(32, len(tasks) // (threads * 4)))  # amortise scheduling of very short runs
            chunks = [list(tasks[i:i + size]) for i in range(0, len(tasks), size)]
            futures = {}
            for chunk in chunks:
                fut = client.submit(run_chunk, [(t.toml, t.overrides, t.seed) for t in chunk], run_fn, pure=False)
                futures[fut] = chunk
            try:
                for fut in as_completed(futures):
                    chunk = futures.pop(fut)
                    try:
                        outcomes = fut.result()
                    except Exception as exc:  # worker died, etc.
                        outcomes = [(False, RuntimeError(f"dask task failed: {exc}"))] * len(chunk)
                    for task, (_ok, value) in zip(chunk, outcomes):
                        finished(task, value)
                    source.tick()
            except BaseException:
                client.cancel(list(futures))
                raise
    finally:
        if owned:
            client.close()


# --- progress -------------------------------------------------------------------------

class Progress:
    """Progress of ``total`` runs on stderr: a live bar (done/total, rate, elapsed,
    ETA) on a terminal; otherwise (batch jobs, logs) a plain line every
    ``PLAIN_INTERVAL_S`` seconds and one at the end. A no-op when disabled.

    Re-entrant: a sweep enters its bar and hands it to :func:`execute`, which
    enters it again; only the outermost ``with`` starts and ends the display,
    so there is one bar, its count reaches the total and it ends once."""

    def __init__(self, total: int, description: str, enabled: bool = True, stream: Any = None):
        self.total, self.description, self.enabled = total, description, enabled
        self.stream = stream or sys.stderr
        self.done = 0
        self._bar: Any = None
        self._t0 = self._last = 0.0
        self._depth = 0

    def __enter__(self) -> "Progress":
        self._depth += 1
        if not self.enabled or self._depth > 1:
            return self
        self._t0 = self._last = time.monotonic()
        if self.stream.isatty():
            self._bar = _rich_bar(self.total, self.description, self.stream)
        return self

    def advance(self, n: int = 1) -> None:
        if not self.enabled or n <= 0:
            return
        self.done += n
        if self._bar is not None:
            self._bar[0].advance(self._bar[1], n)
        elif time.monotonic() - self._last >= PLAIN_INTERVAL_S and self.done < self.total:
            self._line()

    def _line(self) -> None:
        self._last = now = time.monotonic()
        elapsed = max(now - self._t0, 1e-9)
        rate = self.done / elapsed
        eta = f", eta {duration((self.total - self.done) / rate)}" if rate > 0 and self.done < self.total else ""
        pct = 100.0 * self.done / self.total if self.total else 100.0
        print(f"{self.description}: {self.done}/{self.total} runs ({pct:.0f}%), {rate:.3g} runs/s, "
              f"elapsed {duration(elapsed)}{eta}", file=self.stream, flush=True)

    def __exit__(self, *exc: Any) -> None:
        self._depth -= 1
        if not self.enabled or self._depth > 0:
            return
        if self._bar is not None:
            self._bar[0].stop()
            self._bar = None
        elif exc[0] is None:
            self._line()


def _rich_bar(total: int, description: str, stream: Any) -> tuple[Any, Any]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:.3g} runs/s", style="progress.data.speed")

    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
               TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn()]
    prog = RichProgress(*columns, console=Console(file=stream), transient=False, refresh_per_second=4)
    prog.start()
    return prog, prog.add_task(description, total=total)


def log(message: str, enabled: bool = True) -> None:
    if enabled:
        print(message, file=sys.stderr, flush=True)
