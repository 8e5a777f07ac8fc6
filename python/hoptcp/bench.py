"""``hoptcp bench``: time fixed scenarios and sweep throughput.

Each scenario runs in a fresh child process that imports only the core, so the
peak memory reported is the simulator's (plus a bare interpreter), and runs do
not share caches. Wall time is measured inside the core around the event loop;
"total" adds parsing, building the network and writing the result. Sweep
throughput runs the same small sweep with 1 and 2 (or ``--jobs``) workers.
Speed targets live here and in docs/performance.md, never in tests.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

#: (file under scenarios/bench, what it is, target wall seconds or None)
SCENARIOS = (
    ("chain7-udp.toml", "7-hop chain, saturated CBR (UDP), 300 s", 0.3),
    ("chain7-tcp.toml", "7-hop chain, TCP NewReno, max_window 32, 300 s", 0.3),
    ("chain7-aodv-tcp.toml", "7-hop chain, TCP NewReno over AODV, max_window 32, 300 s", 0.3),
    ("gap-parallel-tcp.toml", "2 chains + gateway + 3 wired nodes, 2 TCP flows, TCP-GAP over AODV, 300 s", None),
    ("grid13-udp.toml", "13x13 grid, 12 saturated CBR flows, 300 s", 5.0),
    ("random1000-tcp.toml", "1,000 random nodes, 50 TCP flows of 2-8 hops, 60 s", None),
    ("random1000-aodv-tcp.toml", "1,000 random nodes, 50 TCP flows over AODV, 60 s", None),
    ("random10000-tcp.toml", "10,000 random nodes, 200 TCP flows of 2-8 hops, 20 s", None),
)
MEMORY_TARGET_MB = 100.0

# Peak memory is the process's VmHWM: unlike ru_maxrss it is not carried over
# from the parent across fork + exec.
_PEAK = r"""
def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""

_CHILD = _PEAK + r"""
import json, sys, time
from hoptcp import _core
text = open(sys.argv[1]).read()
t0 = time.perf_counter()
out = json.loads(_core.run(text, [], None, None))
total = time.perf_counter() - t0
print(json.dumps({"events": out["events"], "wall": out["wall_time_s"], "total": total,
                  "duration": out["duration_s"], "nodes": len(out["nodes"]), "flows": len(out["flows"]),
                  "rss_mb": peak_mb()}))
"""

_BASELINE = _PEAK + r"""
from hoptcp import _core
print(peak_mb())
"""


@dataclass
class Timing:
    name: str
    what: str
    nodes: int
    flows: int
    sim_s: float
    events: int
    wall_s: float
    total_s: float
    rss_mb: float
    target_s: float | None

    @property
    def speedup(self) -> float:
        return self.sim_s / self.wall_s if self.wall_s else float("nan")

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s else float("nan")


def bench_dir() -> Path:
    return Path(str(resources.files("hoptcp") / "scenarios" / "bench"))


def time_scenario(path: Path, repeats: int = 3) -> dict[str, Any]:
    """Best of ``repeats`` child-process runs (least disturbed by other load)."""
    best = None
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], check=True, capture_output=True, text=True)
        r = json.loads(out.stdout)
        if best is None or r["wall"] < best["wall"]:
            best = r
    return best  # type: ignore[return-value]


def baseline_rss_mb() -> float:
    out = subprocess.run([sys.executable, "-c", _BASELINE], check=True, capture_output=True, text=True)
    return float(out.stdout)


def run_scenarios(names: Sequence[str] | None = None, repeats: int = 3, progress: Any = None) -> list[Timing]:
    rows = []
    for file, what, target in SCENARIOS:
        name = file.removesuffix(".toml")
        if names and name not in names:
            continue
        if progress:
            progress(f"timing {name} ({what})")
        r = time_scenario(bench_dir() / file, repeats)
        rows.append(Timing(name, what, r["nodes"], r["flows"], r["duration"], r["events"], r["wall"], r["total"],
                           r["rss_mb"], target))
    return rows


def sweep_throughput(jobs: Sequence[int], runs: int = 120, progress: Any = None) -> list[tuple[int, int, float]]:
    """Runs/s of a sweep of ``runs`` 7-hop TCP chain runs (30 s each, distinct seeds), per worker count."""
    import tempfile

    from .scenario import Scenario
    from .sweep import sweep

    base = Scenario.load(bench_dir() / "chain7-tcp.toml").with_(duration_s=30)
    out = []
    for j in jobs:
        if progress:
            progress(f"sweep of {runs} runs with {j} worker(s)")
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            sweep(base, grid={"tcp.max_window": [2, 4, 8, 32]}, seeds=range(1, runs // 4 + 1),
                  store=Path(tmp) / "bench.db", jobs=j, progress=False, name=f"bench-j{j}")
            out.append((j, runs, runs / (time.perf_counter() - t0)))
    return out


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def markdown(rows: list[Timing], sweeps: list[tuple[int, int, float]], base_mb: float, version: str) -> str:
    lines = [f"Machine: {machine()}; hoptcp {version}; best of 3 runs, one core per run.", "",
             "| scenario | nodes | flows | simulated | events | wall (s) | sim s / wall s | events/s | peak RSS (MB) | target |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for t in rows:
        target = f"≤ {t.target_s:g} s wall, < {MEMORY_TARGET_MB:g} MB" if t.target_s else f"< {MEMORY_TARGET_MB:g} MB"
        ok = (t.target_s is None or t.wall_s <= t.target_s) and t.rss_mb < MEMORY_TARGET_MB
        lines.append(f"| {t.what} | {t.nodes:,} | {t.flows} | {t.sim_s:g} s | {t.events:,} | {t.wall_s:.3f} | "
                     f"{t.speedup:,.0f} | {t.events_per_s / 1e6:.1f} M | {t.rss_mb:.0f} | {target} {'✓' if ok else '✗'} |")
    lines += ["", f"Peak RSS includes the Python interpreter with the core loaded ({base_mb:.0f} MB on its own).",
              "Wall time is the event loop measured inside the core; parsing and building the network add "
              "milliseconds (tens of ms for 10,000 nodes)."]
    if sweeps:
        lines += ["", "| sweep: 7-hop TCP chain, 30 s runs | workers | runs | runs/s |", "|---|---:|---:|---:|"]
        lines += [f"| local thread pool | {j} | {n} | {r:.1f} |" for j, n, r in sweeps]
    return "\n".join(lines) + "\n"
