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
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from .errors import SpecError

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

#: Event counts of each scenario before MAC and TCP timers were re-armed in place (core
#: 8f43f71, issue 18): the stale expiries it popped and ignored are no longer events. Every
#: result is unchanged; only these counts moved.
EVENTS_BEFORE_TIMER_SLOTS = {
    "chain7-udp": 2_060_588, "chain7-tcp": 2_870_230, "chain7-aodv-tcp": 1_371_234, "gap-parallel-tcp": 5_234_429,
    "grid13-udp": 29_854_899, "random1000-tcp": 58_890_895, "random1000-aodv-tcp": 83_541_031,
    "random10000-tcp": 140_507_916,
}

#: Bench scenarios ns-2.35 also runs with ``--peers`` (through the exporter); the random
#: networks are left out: ns-2 needs hours for them.
PEER_SCENARIOS = ("chain7-tcp", "chain7-udp", "grid13-udp")
#: Those ns-3 also runs (:mod:`hoptcp.peers.ns3`); the grid only when named with ``--only``:
#: ns-3 needs about 8 minutes of CPU for its 300 s (119x hoptcp), too long for every bench run.
NS3_SCENARIOS = ("chain7-tcp", "chain7-udp")
NS3_WHEN_NAMED = ("grid13-udp",)


def ns3_runs(name: str, names: Sequence[str] | None) -> bool:
    return name in NS3_SCENARIOS or (bool(names) and name in NS3_WHEN_NAMED and name in (names or ()))

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
overrides = [tuple(kv) for kv in json.loads(sys.argv[2])]
t0 = time.perf_counter()
out = json.loads(_core.run(text, overrides, None, None))
total = time.perf_counter() - t0
print(json.dumps({"events": out["events"], "queue_entries": out.get("queue_entries"), "wall": out["wall_time_s"], "total": total,
                  "duration": out["duration_s"], "nodes": out.get("node_count", len(out["nodes"])),
                  "flows": len(out["flows"]),
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
    #: Of ``events``, those that went through the event queue: a frame's arrival-group steps run
    #: inline (where their own events would have run) count as events but not as queue entries.
    queue_entries: int | None = None

    @property
    def events_before(self) -> int | None:
        return EVENTS_BEFORE_TIMER_SLOTS.get(self.name)

    @property
    def speedup(self) -> float:
        return self.sim_s / self.wall_s if self.wall_s else float("nan")

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s else float("nan")


def bench_dir() -> Path:
    return Path(str(resources.files("hoptcp") / "scenarios" / "bench"))


def time_scenario(path: Path, repeats: int = 3, overrides: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """Best of ``repeats`` child-process runs (least disturbed by other load)."""
    best = None
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", _CHILD, str(path), json.dumps(list(overrides))], check=True,
                             capture_output=True, text=True)
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
                           r["rss_mb"], target, r.get("queue_entries")))
    return rows


#: The cost of an event as the network grows: random networks of the same density as
#: random10000-tcp (one node per 160 m x 160 m, about 8 neighbours each), one TCP flow of 2-8
#: hops per 20 nodes, 10 simulated seconds.
SCALE_NODES = (100, 1_000, 10_000)
SCALE_SECONDS = 10


def scale_overrides(nodes: int) -> list[tuple[str, str]]:
    side = f"{160 * nodes ** 0.5:g}"
    return [("topology.nodes", str(nodes)), ("topology.width_m", side), ("topology.height_m", side),
            ("random_flows.count", str(nodes // 20)), ("duration_s", str(SCALE_SECONDS))]


@dataclass
class ScaleRow:
    nodes: int
    flows: int
    sim_s: float
    events: int
    wall_s: float
    rss_mb: float
    base_mb: float

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s else float("nan")

    @property
    def ns_per_event(self) -> float:
        return self.wall_s / self.events * 1e9 if self.events else float("nan")

    @property
    def kb_per_node(self) -> float:
        """Peak RSS above the interpreter with the core loaded, per node."""
        return (self.rss_mb - self.base_mb) * 1024 / self.nodes


def cost_per_event(repeats: int = 3, progress: Any = None, base_mb: float | None = None) -> list[ScaleRow]:
    base = baseline_rss_mb() if base_mb is None else base_mb
    rows = []
    for n in SCALE_NODES:
        if progress:
            progress(f"cost per event: {n:,} random nodes, {n // 20} TCP flows, {SCALE_SECONDS} s")
        r = time_scenario(bench_dir() / "random10000-tcp.toml", repeats, scale_overrides(n))
        rows.append(ScaleRow(n, r["flows"], r["duration"], r["events"], r["wall"], r["rss_mb"], base))
    return rows


#: The issue-18 target: 10,000 random nodes, 1,000 TCP flows of 2-8 hops, 300 s, in under 2 minutes.
HUGE_SECONDS = 300.0
HUGE_TARGET_S = 120.0


@dataclass
class HugeRun:
    sim_s: float
    events: int
    wall_s: float
    total_s: float
    rss_mb: float

    @property
    def extrapolated_s(self) -> float:
        """Whole-run seconds for the full 300 s: building the network once plus the event loop
        scaled from this run's simulated time (its own time when it ran the full 300 s)."""
        return (self.total_s - self.wall_s) + self.wall_s * HUGE_SECONDS / self.sim_s


def time_huge(sim_s: float = HUGE_SECONDS, progress: Any = None) -> HugeRun:
    """One run (no repeats: minutes each) of the huge network for ``sim_s`` simulated seconds."""
    if progress:
        progress(f"huge: 10,000 random nodes, 1,000 TCP flows, {sim_s:g} s simulated")
    r = time_scenario(bench_dir() / "random10000-tcp.toml", 1,
                      [("random_flows.count", "1000"), ("duration_s", f"{sim_s:g}")])
    return HugeRun(r["duration"], r["events"], r["wall"], r["total"], r["rss_mb"])


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


def hoptcp_command() -> list[str]:
    """How a user starts hoptcp: the console script beside this interpreter, else ``python -m hoptcp``."""
    script = Path(sys.executable).with_name("hoptcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "hoptcp"]


@dataclass
class StartUp:
    """Whole-process wall seconds of a short hoptcp command (interpreter start included)."""
    command: str
    runs: int
    best_s: float
    median_s: float


#: what the start-up rows time: (shown as, arguments after ``hoptcp``)
START_UP = (("hoptcp run --help", ["run", "--help"]),
            ("hoptcp run chain7-tcp.toml --set duration_s=0.01 --json", ["run", "{bench}/chain7-tcp.toml", "--set",
                                                                          "duration_s=0.01", "--json"]))


def time_start_up(runs: int = 20) -> list[StartUp]:
    """Each start-up command ``runs`` times, the commands alternating so both see the same load.

    Bytecode caching is allowed (``PYTHONDONTWRITEBYTECODE`` dropped), as in an installed
    package: otherwise an editable install recompiles hoptcp's modules at every start."""
    cmds = [[*hoptcp_command(), *[a.format(bench=bench_dir()) for a in argv]] for _, argv in START_UP]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for cmd in cmds:
        subprocess.run(cmd, check=True, capture_output=True, env=env)  # warm the file cache and bytecode
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for cmd, ts in zip(cmds, times):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
            ts.append(time.perf_counter() - t0)
    return [StartUp(shown, runs, min(ts), statistics.median(ts)) for (shown, _), ts in zip(START_UP, times)]


@dataclass
class PeerTiming:
    """One scenario run whole-process by hoptcp and by a peer simulator, in alternation."""
    name: str
    what: str
    peer: str
    hoptcp_s: list[float]
    peer_s: list[float]
    hoptcp_goodput_bps: float
    peer_goodput_bps: float
    #: why the peer's run is not the same work (its goodput is then NaN), else None
    peer_problem: str | None = None

    @property
    def ratios(self) -> list[float]:
        """Peer time over hoptcp time, pair by pair."""
        return [p / h for h, p in zip(self.hoptcp_s, self.peer_s)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def hoptcp_median_s(self) -> float:
        return statistics.median(self.hoptcp_s)

    @property
    def peer_median_s(self) -> float:
        return statistics.median(self.peer_s)


def peer_scenarios(names: Sequence[str] | None = None) -> list[tuple[str, str]]:
    return [(f.removesuffix(".toml"), what) for f, what, _ in SCENARIOS
            if f.removesuffix(".toml") in PEER_SCENARIOS and (not names or f.removesuffix(".toml") in names)]


def installed_peers() -> tuple[list[str], list[str]]:
    """The peer simulators installed here, and one line for each one that is not."""
    from .ns2 import run as ns2run
    from .peers import ns3

    peers: list[str] = []
    skipped: list[str] = []
    for name, ok in (("ns-2.35", ns2run.available()), ("ns-3", ns3.available())):
        (peers if ok else skipped).append(name)
    return peers, [f"{name} not installed: skipped" for name in skipped]


def _alternate(name: str, peer: str, repeats: int, hoptcp_cmd: list[str], peer_cmd: list[str], cwd: str,
               progress: Any) -> tuple[list[float], list[float], float, str]:
    """``repeats`` pairs (hoptcp, then the peer), whole process each: both see the same load.
    Returns both lists of wall seconds, hoptcp's goodput and the peer's last standard output."""
    h_s: list[float] = []
    p_s: list[float] = []
    h_goodput, p_out = float("nan"), ""
    for i in range(repeats):
        if progress:
            progress(f"{name}: pair {i + 1} of {repeats} (hoptcp, then {peer})")
        t0 = time.perf_counter()
        proc = subprocess.run(hoptcp_cmd, check=True, capture_output=True, text=True)
        h_s.append(time.perf_counter() - t0)
        h_goodput = float(json.loads(proc.stdout)["aggregate_goodput_bps"])
        t0 = time.perf_counter()
        peer_proc = subprocess.run(peer_cmd, check=True, cwd=cwd, capture_output=True, text=True)
        p_s.append(time.perf_counter() - t0)
        p_out = peer_proc.stdout
    return h_s, p_s, h_goodput, p_out


def time_peers(names: Sequence[str] | None = None, repeats: int = 3, progress: Any = None,
               peers: Sequence[str] = ("ns-2.35", "ns-3")) -> list[PeerTiming]:
    """Each peer scenario ``repeats`` times in hoptcp (``hoptcp run --json``, a fresh process) and in
    each of ``peers``, alternating, so both see the same machine load: ns-2.35 runs the exporter's
    script under ``ns``, ns-3 the scenario program of :mod:`hoptcp.peers.ns3` (built first, untimed)."""
    import tempfile

    from .scenario import Scenario

    rows = []
    for name, what in peer_scenarios(names):
        path = bench_dir() / f"{name}.toml"
        sc = Scenario.load(path)
        resolved = sc.resolved()
        hoptcp_cmd = [*hoptcp_command(), "run", str(path), "--json"]
        if "ns-2.35" in peers:
            from .ns2 import exporter, run, trace

            ns = run.ns_binary()
            if ns is None:
                raise run.Ns2Error("--peers: ns-2.35 is not installed (no `ns` on PATH; Debian/Ubuntu: apt-get install ns2)")
            exp = exporter.export(sc)
            with tempfile.TemporaryDirectory(prefix="hoptcp-bench-") as tmp:
                script = Path(tmp) / "scenario.tcl"
                script.write_text(exp.tcl, encoding="utf-8")
                out = Path(tmp) / "out"
                h_s, p_s, h_goodput, _ = _alternate(name, "ns-2.35", repeats, hoptcp_cmd, [ns, str(script), str(out)],
                                                    tmp, progress)
                rep, problems = trace.read_run(out, exp.meta(), int(resolved["seed"]))
            goodput = float(rep["aggregate_goodput_bps"])
            problem = (problems[0] if problems else "no goodput") if goodput != goodput else None
            rows.append(PeerTiming(name, what, "ns-2.35", h_s, p_s, h_goodput, goodput, problem))
        if "ns-3" in peers and ns3_runs(name, names):
            from .peers import ns3

            if progress:
                progress("building the ns-3 scenario program (once per source, ns-3 version and compiler)")
            cmd = ns3.scenario_command(sc)
            with tempfile.TemporaryDirectory(prefix="hoptcp-bench-") as tmp:
                h_s, p_s, h_goodput, p_out = _alternate(name, "ns-3", repeats, hoptcp_cmd, cmd, tmp, progress)
            goodput = float(ns3.parse_output(p_out)["goodput_bps"])
            rows.append(PeerTiming(name, what, f"ns-{ns3.version()}", h_s, p_s, h_goodput, goodput))
    return rows


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


def markdown(rows: list[Timing], sweeps: list[tuple[int, int, float]], base_mb: float, version: str,
             start_up: Sequence[StartUp] = (), peers: Sequence[PeerTiming] = (), scale: Sequence[ScaleRow] = (),
             huge: HugeRun | None = None, skipped: Sequence[str] = (), repeats: int = 3,
             load: tuple[float, float] | None = None) -> str:
    lines = [f"Machine: {machine()}; hoptcp {version}; best of {repeats} run{'s' if repeats > 1 else ''}, one core per run."]
    if load:
        lines[0] += (f" Load average (1 min) {load[0]:.1f} at the start, {load[1]:.1f} at the end "
                     f"({os.cpu_count()} logical CPUs): above about 1, other jobs shared the machine and the "
                     "wall times are pessimistic; event counts are exact.")
    lines += ["",
             "| scenario | nodes | flows | simulated | events (before timer slots) | events | of which queue entries "
             "| wall (s) | sim s / wall s | events/s | peak RSS (MB) | target |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for t in rows:
        target = f"≤ {t.target_s:g} s wall, < {MEMORY_TARGET_MB:g} MB" if t.target_s else f"< {MEMORY_TARGET_MB:g} MB"
        ok = (t.target_s is None or t.wall_s <= t.target_s) and t.rss_mb < MEMORY_TARGET_MB
        before = f"{t.events_before:,}" if t.events_before is not None else "-"
        queued = f"{t.queue_entries:,}" if t.queue_entries is not None else "-"
        lines.append(f"| {t.what} | {t.nodes:,} | {t.flows} | {t.sim_s:g} s | {before} | {t.events:,} | {queued} | "
                     f"{t.wall_s:.3f} | "
                     f"{t.speedup:,.0f} | {t.events_per_s / 1e6:.1f} M | {t.rss_mb:.0f} | {target} {'✓' if ok else '✗'} |")
    if huge:
        what = "10,000 random nodes, 1,000 TCP flows of 2-8 hops"
        if huge.sim_s < HUGE_SECONDS:
            what += f", {huge.sim_s:g} s (300 s extrapolated: {huge.extrapolated_s:,.0f} s)"
        ok = huge.extrapolated_s <= HUGE_TARGET_S and huge.rss_mb < MEMORY_TARGET_MB
        lines.append(f"| {what} | 10,000 | 1000 | {huge.sim_s:g} s | - | {huge.events:,} | - | {huge.wall_s:.3f} | "
                     f"{huge.sim_s / huge.wall_s:,.2f} | {huge.events / huge.wall_s / 1e6:.1f} M | {huge.rss_mb:.0f} | "
                     f"300 s ≤ {HUGE_TARGET_S:g} s, < {MEMORY_TARGET_MB:g} MB {'✓' if ok else '✗'} |")
    lines += ["", f"Peak RSS includes the Python interpreter with the core loaded ({base_mb:.0f} MB on its own).",
              "Wall time is the event loop measured inside the core; parsing and building the network add "
              "milliseconds (tens of ms for 10,000 nodes)."]
    if scale:
        lines += ["", f"| cost per event: random nodes (same density), TCP flows, {SCALE_SECONDS} s | flows | events "
                  "| wall (s) | events/s | ns per event | peak RSS (MB) | memory per node (KB) |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {r.nodes:,} | {r.flows} | {r.events:,} | {r.wall_s:.3f} | {r.events_per_s / 1e6:.1f} M | "
                  f"{r.ns_per_event:.0f} | {r.rss_mb:.0f} | {r.kb_per_node:.2f} |" for r in scale]
        if len(scale) > 1:
            a, b = scale[-2], scale[-1]
            lines += ["", "Memory per node is the peak RSS above the interpreter with the core loaded, over the nodes: "
                      "for small networks mostly what every run allocates. From "
                      f"{a.nodes:,} to {b.nodes:,} nodes the peak grows by "
                      f"{(b.rss_mb - a.rss_mb) * 1024 / (b.nodes - a.nodes):.2f} KB per added node."]
    if start_up:
        lines += ["", "| start-up (whole process) | runs | best (ms) | median (ms) |", "|---|---:|---:|---:|"]
        lines += [f"| `{u.command}` | {u.runs} | {u.best_s * 1e3:.0f} | {u.median_s * 1e3:.0f} |" for u in start_up]
    if sweeps:
        lines += ["", "| sweep: 7-hop TCP chain, 30 s runs | workers | runs | runs/s |", "|---|---:|---:|---:|"]
        lines += [f"| local thread pool | {j} | {n} | {r:.1f} |" for j, n, r in sweeps]
    if peers or skipped:
        lines += ["", "| same work, whole process | peer | pairs | hoptcp (s, median) | peer (s, median) "
                  "| peer / hoptcp (median of pairs) | hoptcp goodput (kb/s) | peer goodput (kb/s) |",
                  "|---|---|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {p.what} | {p.peer} | {len(p.ratios)} | {p.hoptcp_median_s:.3f} | "
                  f"{p.peer_median_s:.3f} | {p.ratio:.1f}× | {p.hoptcp_goodput_bps / 1e3:.1f} | "
                  f"{'n/a (not the same work)' if p.peer_problem else f'{p.peer_goodput_bps / 1e3:.1f}'} |"
                  for p in peers]
        lines += [f"\n{p.what}: the {p.peer} run is not the same work: {p.peer_problem}." for p in peers
                  if p.peer_problem]
        lines += [f"\n{line}." for line in skipped]
    return "\n".join(lines) + "\n"


#: The generated part of a Markdown file: from the line starting with BEGIN to the line END.
BEGIN = "<!-- generated by: hoptcp bench"
END = "<!-- end of the generated tables -->"


def write_markdown(path: Path, tables: str, command: str) -> None:
    """Put ``tables`` between the markers of an existing file (the prose around them is kept),
    or write a new file with just the marked tables."""
    block = f"<!-- generated by: {command}; do not edit the tables by hand -->\n{tables}{END}\n"
    if path.exists():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        begin = next((i for i, line in enumerate(lines) if line.startswith(BEGIN)), None)
        end = next((i for i, line in enumerate(lines) if line.startswith(END)), None)
        if begin is not None and end is not None and end > begin:
            path.write_text("".join(lines[:begin]) + block + "".join(lines[end + 1:]), encoding="utf-8")
            return
    path.write_text(block, encoding="utf-8")


def check_markdown_target(path: Path, option: str = "--markdown") -> None:
    """Refuse, before anything is timed, a file whose generated part has no end."""
    if not path.exists():
        return
    lines = path.read_text(encoding="utf-8").splitlines()
    begin = next((i for i, line in enumerate(lines) if line.startswith(BEGIN)), None)
    if begin is not None and not any(line.startswith(END) for line in lines[begin + 1:]):
        raise SpecError(f"{option} {path}: has a '{BEGIN}' line but no '{END}' line after it; "
                        "add it where the generated tables end")
