"""Progress of one run (``hoptcp run``) and the wall-time wording shared by the
progress lines: no heavy import here, the command line's fast lane uses it."""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Sequence

from .errors import Interrupted


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


#: seconds between two plain progress lines (no terminal); $HOPTCP_PROGRESS_INTERVAL_S
PLAIN_INTERVAL_S = _env_float("HOPTCP_PROGRESS_INTERVAL_S", 10.0)


def duration(s: float) -> str:
    s = int(round(s))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class RunProgress:
    """Progress of one long run, from the core's reports (at most four a second;
    runs under a quarter of a second never show any): a transient bar on a
    terminal, a plain line every ``PLAIN_INTERVAL_S`` otherwise. If the
    run would take more than ``LONG_RUN_S`` of wall time, a warning states the
    estimate once, whatever the output."""

    LONG_RUN_S = 24 * 3600.0

    def __init__(self, name: str, show: bool = True, clock: Callable[[], float] = time.monotonic,
                 stream: Any = None) -> None:
        self.name, self.show, self.clock = name, show, clock
        self.stream = stream or sys.stderr
        self.fraction = 0.0
        self.warned = False
        self.progress: Any = None
        self.task: Any = None
        self.t0 = self.last_line = 0.0

    def __enter__(self) -> "RunProgress":
        self.t0 = self.last_line = self.clock()
        return self

    def update(self, fraction: float) -> None:
        self.fraction = fraction
        elapsed = self.clock() - self.t0
        estimate = elapsed / fraction if fraction > 0 else float("inf")
        if not self.warned and elapsed > 0 and estimate > self.LONG_RUN_S:
            self.warned = True
            how_long = duration(estimate) if estimate < 3600 * 24 * 365 else f"{estimate / (3600 * 24 * 365):.3g} years"
            print(f"hoptcp: warning: {self.name} will take about {how_long} of wall time at this speed "
                  f"({fraction:.2%} simulated in {elapsed:.1f} s); Ctrl-C stops it", file=self.stream, flush=True)
        if not self.show:
            return
        if not self.stream.isatty():
            if self.clock() - self.last_line >= PLAIN_INTERVAL_S:
                self.last_line = self.clock()
                print(f"simulating {self.name}: {fraction:.0%}, eta {duration(estimate - elapsed)}",
                      file=self.stream, flush=True)
            return
        if self.progress is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                     TimeRemainingColumn(), console=Console(file=self.stream), transient=True)
            self.progress.start()
            self.task = self.progress.add_task(f"simulating {self.name}", total=1.0)
        self.progress.update(self.task, completed=fraction)

    def __exit__(self, *exc: Any) -> None:
        if self.progress is not None:
            self.progress.stop()


def run_with_progress(name: str, toml_text: str, overrides: Sequence[tuple[str, str]], seed: int | None, *,
                      show: bool, pcap: str | None = None, pcap_node: int | None = None,
                      pcap_view: str = "sources", keep_air: bool = False) -> str:
    """One run of ``hoptcp run``: the result JSON text, with progress shown (``show``)
    and the long-run warning; Ctrl-C raises :class:`Interrupted` saying how far it got.
    ``pcap_view``: which trace ``pcap`` holds (:mod:`hoptcp.pcap_view`; for ``sources`` the
    scenario records its air trace, which the result keeps only if ``keep_air``)."""
    from . import _bridge
    from .pcap_view import traced_run

    bar = RunProgress(name, show=show)
    try:
        with bar:
            return traced_run(lambda path, node: _bridge.run_json(toml_text, overrides, seed, path,
                                                                  progress=bar.update, pcap_node=node),
                              pcap, pcap_node, pcap_view, keep_air)
    except KeyboardInterrupt:
        done = f" at {bar.fraction:.0%} of the simulated time" if bar.fraction else ""
        from_air = pcap and pcap_node is None and pcap_view == "sources"
        trace = (f"; no trace was written to {pcap}" if from_air else
                 f"; the trace in {pcap} is incomplete" if pcap else "")
        raise Interrupted(f"run interrupted{done}: single runs are not stored, nothing was kept{trace}") from None


def keep_ctrl_c() -> None:
    """Ctrl-C must stop a run even where SIGINT was inherited as ignored (a
    command started in the background by a non-interactive shell)."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        except ValueError:  # not the main thread: only it may set handlers
            pass
