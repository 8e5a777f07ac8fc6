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
from dataclasses import dataclass, field
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

#: Bench scenarios ns-2.35 also runs with ``--peers`` (through the exporter).
PEER_SCENARIOS = ("chain7-tcp", "chain7-udp", "grid13-udp")
#: Those it runs only when named with ``--only``: 1,000 nodes cost ns-2.35 seconds of CPU per
#: simulated second after a warm-up of up to a minute (``--peer-duration`` shortens both sides'
#: runs alike). The static-route one needs an ns-2.35 built with the static-routes port
#: (``--ns-binary``); on a stock ns it is frozen DSDV, not the same work.
PEER_WHEN_NAMED = ("random1000-aodv-tcp", "random1000-tcp")
#: Those ns-3 also runs (:mod:`hoptcp.peers.ns3`); the grid only when named with ``--only``:
#: ns-3 needs about 8 minutes of CPU for its 300 s (119x hoptcp), too long for every bench run.
#: ns-3's peer program has static routes only: the AODV scenarios are not among them.
NS3_SCENARIOS = ("chain7-tcp", "chain7-udp")
NS3_WHEN_NAMED = ("grid13-udp", "random1000-tcp")


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


#: The memory row: random nodes at the bench density with 1,000 TCP flows of 2-8 hops, a short run.
MEMORY_FLOWS = 1_000
MEMORY_SECONDS = 2


def time_memory(nodes: int, progress: Any = None, base_mb: float | None = None) -> ScaleRow:
    """One run (peak memory, not time, is the point) of ``nodes`` random nodes at the bench density
    with MEMORY_FLOWS TCP flows for MEMORY_SECONDS simulated seconds."""
    base = baseline_rss_mb() if base_mb is None else base_mb
    if progress:
        progress(f"memory: {nodes:,} random nodes, {MEMORY_FLOWS:,} TCP flows, {MEMORY_SECONDS} s")
    over = [(k, v) for k, v in scale_overrides(nodes) if k not in ("random_flows.count", "duration_s")]
    r = time_scenario(bench_dir() / "random10000-tcp.toml", 1,
                      [*over, ("random_flows.count", str(MEMORY_FLOWS)), ("duration_s", str(MEMORY_SECONDS))])
    return ScaleRow(r["nodes"], r["flows"], r["duration"], r["events"], r["wall"], r["rss_mb"], base)


@dataclass
class SweepRate:
    """A sweep's throughput on one executor, and the cost per run of a sweep of near-empty runs."""
    executor: str
    workers: int
    runs: int
    runs_per_s: float
    #: wall seconds per run of the same sweep with 0.001 s simulated per run: dispatch, result
    #: transfer and the store's write, the simulation next to nothing
    empty_run_s: float | None = None


#: runs of the near-empty sweep that measures the cost per run apart from the simulation
EMPTY_RUNS = 400


def _load_core() -> None:
    """Run on each Dask worker before the timer starts, so no timed run pays the import."""
    from . import _core  # noqa: F401


def sweep_throughput(jobs: Sequence[int], runs: int = 120, progress: Any = None,
                     dask_jobs: Sequence[int] = (), rounds: int = 1) -> list[SweepRate]:
    """Runs/s of a sweep of ``runs`` 7-hop TCP chain runs (30 s each, distinct seeds), per worker count,
    on the local thread pool and (``dask_jobs``) on a Dask LocalCluster of that many one-thread
    worker processes, started before any timer and closed after the last. Each also times a
    sweep of EMPTY_RUNS runs of 0.001 s, whose time per run is what the executor adds to every
    run. ``rounds`` rounds, every executor once per round in turn (so all see the same load):
    the medians."""
    import contextlib
    import tempfile

    from .scenario import Scenario
    from .sweep import sweep

    base = Scenario.load(bench_dir() / "chain7-tcp.toml").with_(duration_s=30)
    empty = base.with_(duration_s=0.001)

    def timed(sc: Scenario, n: int, tag: str, **kw: Any) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            sweep(sc, grid={"tcp.max_window": [2, 4, 8, 32]}, seeds=range(1, n // 4 + 1),
                  store=Path(tmp) / "bench.db", progress=False, name=f"bench-{tag}", **kw)
            return time.perf_counter() - t0

    with contextlib.ExitStack() as stack:
        executors: list[tuple[str, int, dict[str, Any]]] = [("local thread pool", j, {"jobs": j}) for j in jobs]
        if dask_jobs:
            try:
                from distributed import Client, LocalCluster
            except ImportError:
                raise SpecError("--dask-jobs needs the 'distributed' package: pip install 'dask[distributed]'") from None
            for j in dask_jobs:
                if progress:
                    progress(f"starting a Dask LocalCluster of {j} worker process(es)")
                cluster = stack.enter_context(LocalCluster(n_workers=j, threads_per_worker=1, processes=True,
                                                           dashboard_address=None))
                client = stack.enter_context(Client(cluster))
                client.run(_load_core)  # workers load the core before any timer
                executors.append(("Dask LocalCluster", j, {"dask": client}))
        rates: dict[int, list[float]] = {i: [] for i in range(len(executors))}
        empties: dict[int, list[float]] = {i: [] for i in range(len(executors))}
        for r in range(rounds):
            for i, (what, j, kw) in enumerate(executors):
                if progress:
                    progress(f"sweep of {runs} runs, {what}, {j} worker(s) (round {r + 1} of {rounds})")
                tag = f"{i}-{r}"
                rates[i].append(runs / timed(base, runs, tag, **kw))
                empties[i].append(timed(empty, EMPTY_RUNS, f"e{tag}", **kw) / EMPTY_RUNS)
    return [SweepRate(what, j, runs, statistics.median(rates[i]), statistics.median(empties[i]))
            for i, (what, j, _) in enumerate(executors)]


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
    #: peak RSS (MB) of each whole process, run by run: the operating system's account of the child
    hoptcp_rss_mb: list[float] = field(default_factory=list)
    peer_rss_mb: list[float] = field(default_factory=list)
    #: routing packets sent in scenario time (AODV's RREQ, RREP and RERR, forwarded ones included;
    #: 0 with static routes), None where not counted
    hoptcp_routing: int | None = None
    peer_routing: int | None = None
    #: simulated seconds the peer runs before scenario time 0 (ns-2.35's warm-up: ARP, and with
    #: AODV the warm-up's routes expiring), which hoptcp does not simulate
    peer_warmup_s: float = 0.0
    #: CPU seconds (user + system) of each whole process, run by run
    hoptcp_cpu_s: list[float] = field(default_factory=list)
    peer_cpu_s: list[float] = field(default_factory=list)
    #: CPU seconds of one peer run of the warm-up alone (0.001 s of scenario time), None if not run
    peer_warmup_cpu_s: float | None = None

    @property
    def ratios(self) -> list[float]:
        """Peer time over hoptcp time, pair by pair."""
        return [p / h for h, p in zip(self.hoptcp_s, self.peer_s)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def cpu_ratio(self) -> float:
        """Median over the pairs of the peer's CPU time over hoptcp's (NaN if not measured)."""
        pairs = [p / h for h, p in zip(self.hoptcp_cpu_s, self.peer_cpu_s) if h > 0]
        return statistics.median(pairs) if pairs else float("nan")

    @property
    def hoptcp_cpu_median_s(self) -> float:
        return statistics.median(self.hoptcp_cpu_s) if self.hoptcp_cpu_s else float("nan")

    @property
    def peer_cpu_median_s(self) -> float:
        return statistics.median(self.peer_cpu_s) if self.peer_cpu_s else float("nan")

    @property
    def hoptcp_median_s(self) -> float:
        return statistics.median(self.hoptcp_s)

    @property
    def peer_median_s(self) -> float:
        return statistics.median(self.peer_s)


def peer_scenarios(names: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """The peer scenarios to run: every one of PEER_SCENARIOS (or those in ``names``), and those of
    PEER_WHEN_NAMED named in ``names``."""
    out = []
    for f, what, _ in SCENARIOS:
        name = f.removesuffix(".toml")
        if (name in PEER_SCENARIOS and (not names or name in names)) or (
                names and name in PEER_WHEN_NAMED and name in names):
            out.append((name, what))
    return out


def installed_peers() -> tuple[list[str], list[str]]:
    """The peer simulators installed here, and one line for each one that is not."""
    from .ns2 import run as ns2run
    from .peers import ns3

    peers: list[str] = []
    skipped: list[str] = []
    for name, ok in (("ns-2.35", ns2run.available()), ("ns-3", ns3.available())):
        (peers if ok else skipped).append(name)
    return peers, [f"{name} not installed: skipped" for name in skipped]


@dataclass
class WholeRun:
    """One whole process: wall seconds, peak RSS, CPU seconds and what it printed."""
    wall_s: float
    rss_mb: float
    stdout: str
    cpu_s: float = 0.0


#: GNU time, which reports the peak RSS of the command it starts (``%M``, KB)
GNU_TIME = "/usr/bin/time"


def run_whole(cmd: Sequence[str], cwd: str | None = None) -> WholeRun:
    """Run ``cmd`` to its end: wall seconds, CPU seconds (user + system, ``wait4``) and peak RSS.

    A child's peak RSS as the kernel keeps it starts at its parent's (the parent's memory is its
    memory until the exec), so the peak is read through GNU time (``/usr/bin/time -f %M``, the
    figure ``/usr/bin/time -v`` calls "Maximum resident set size"): its child is forked from a
    small process. Without GNU time it is ``wait4``'s, at least this interpreter's own peak."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hoptcp-bench-") as tmp:
        rss_file = Path(tmp) / "rss"
        gnu_time = Path(GNU_TIME).is_file() and os.access(GNU_TIME, os.X_OK)
        argv = [GNU_TIME, "-f", "%M", "-o", str(rss_file), *cmd] if gnu_time else list(cmd)
        with open(Path(tmp) / "out", "w+b") as out, open(Path(tmp) / "err", "w+b") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            text = out.read().decode(errors="replace")
            if proc.returncode != 0:
                raise subprocess.CalledProcessError(proc.returncode, list(cmd), text, err.read().decode(errors="replace"))
        rss_kb = float(rss_file.read_text().split()[-1]) if gnu_time else float(usage.ru_maxrss)
    return WholeRun(wall, rss_kb / 1024, text, usage.ru_utime + usage.ru_stime)


def _alternate(name: str, peer: str, repeats: int, hoptcp_cmd: list[str], peer_cmd: list[str], cwd: str,
               progress: Any) -> tuple[list[WholeRun], list[WholeRun]]:
    """``repeats`` pairs (hoptcp, then the peer), whole process each: both see the same load."""
    h: list[WholeRun] = []
    p: list[WholeRun] = []
    for i in range(repeats):
        if progress:
            progress(f"{name}: pair {i + 1} of {repeats} (hoptcp, then {peer})")
        h.append(run_whole(hoptcp_cmd))
        p.append(run_whole(peer_cmd, cwd))
    return h, p


#: hoptcp's counters of the routing packets a node sends (forwarded ones included)
ROUTING_SENT = ("rreq_sent", "rreq_forwarded", "rrep_sent", "rrep_forwarded", "rerr_sent", "rerr_forwarded")


def hoptcp_routing_sent(report: dict[str, Any]) -> int:
    """Routing packets hoptcp's nodes sent (0 without a routing protocol: static routes)."""
    routing = report.get("routing") or {}
    return sum(int(routing.get(k, 0)) for k in ROUTING_SENT)


def with_duration(what: str, duration: float | None) -> str:
    """A scenario's description with its simulated time replaced (``..., 60 s`` -> ``..., 10 s``)."""
    if duration is None:
        return what
    head, _, tail = what.rpartition(", ")
    return f"{head if tail.endswith(' s') else what}, {duration:g} s"


def time_peers(names: Sequence[str] | None = None, repeats: int = 3, progress: Any = None,
               peers: Sequence[str] = ("ns-2.35", "ns-3"), duration: float | None = None) -> list[PeerTiming]:
    """Each peer scenario ``repeats`` times in hoptcp (``hoptcp run --json``, a fresh process) and in
    each of ``peers``, alternating, so both see the same machine load: ns-2.35 runs the exporter's
    script under ``ns``, ns-3 the scenario program of :mod:`hoptcp.peers.ns3` (built first, untimed).
    ``duration``: simulated seconds of every run on both sides instead of the scenario's.

    With AODV, ns-2.35's routing packets are counted in one more run of the same script with
    the routing agents traced, untimed (tracing them costs time; ns-2 is deterministic for a
    seed, and the goodput of that run is checked against the timed ones)."""
    import tempfile

    from .scenario import Scenario

    rows = []
    for name, what in peer_scenarios(names):
        path = bench_dir() / f"{name}.toml"
        sc = Scenario.load(path)
        hoptcp_cmd = [*hoptcp_command(), "run", str(path), "--json"]
        if duration is not None:
            sc = sc.with_(duration_s=duration)
            hoptcp_cmd += ["--set", f"duration_s={duration:g}"]
            what = with_duration(what, duration)
        resolved = sc.resolved()
        aodv = resolved["routing"]["protocol"] == "aodv"
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
                h, p = _alternate(name, "ns-2.35", repeats, hoptcp_cmd, [ns, str(script), str(out)], tmp, progress)
                rep, problems = trace.read_run(out, exp.meta(), int(resolved["seed"]))
                warm = exporter.export(sc.with_(duration_s=0.001))  # the warm-up alone, for its CPU time
                script.write_text(warm.tcl, encoding="utf-8")
                warmup_cpu = run_whole([ns, str(script), str(out)], tmp).cpu_s
                peer_routing: int | None = 0 if exp.static_routes == "agent" else None
                if aodv:
                    if progress:
                        progress(f"{name}: counting ns-2.35's routing packets (one more run, routing agents traced)")
                    counted = exporter.export(sc, router_trace=True)
                    script.write_text(counted.tcl, encoding="utf-8")
                    run_whole([ns, str(script), str(out)], tmp)
                    with open(f"{out}.tr", encoding="utf-8", errors="replace") as fh:
                        peer_routing = trace.routing_sends(fh, counted.t0)
                    again, _ = trace.read_run(out, counted.meta(), int(resolved["seed"]))
                    if again["aggregate_goodput_bps"] != rep["aggregate_goodput_bps"]:
                        peer_routing = None  # not the same run: nothing to count
                        if progress:
                            progress(f"{name}: the traced ns-2.35 run carried {again['aggregate_goodput_bps']:g} b/s, "
                                     f"the timed ones {rep['aggregate_goodput_bps']:g}: routing packets not counted")
            goodput = float(rep["aggregate_goodput_bps"])
            problem = (problems[0] if problems else "no goodput") if goodput != goodput else None
            hrep = json.loads(h[-1].stdout)
            rows.append(PeerTiming(name, what, "ns-2.35", [r.wall_s for r in h], [r.wall_s for r in p],
                                   float(hrep["aggregate_goodput_bps"]), goodput, problem,
                                   [r.rss_mb for r in h], [r.rss_mb for r in p], hoptcp_routing_sent(hrep),
                                   peer_routing, exp.t0, [r.cpu_s for r in h], [r.cpu_s for r in p], warmup_cpu))
        if "ns-3" in peers and ns3_runs(name, names):
            from .peers import ns3

            if progress:
                progress("building the ns-3 scenario program (once per source, ns-3 version and compiler)")
            cmd = ns3.scenario_command(sc)
            with tempfile.TemporaryDirectory(prefix="hoptcp-bench-") as tmp:
                h, p = _alternate(name, "ns-3", repeats, hoptcp_cmd, cmd, tmp, progress)
            hrep = json.loads(h[-1].stdout)
            rows.append(PeerTiming(name, what, f"ns-{ns3.version()}", [r.wall_s for r in h], [r.wall_s for r in p],
                                   float(hrep["aggregate_goodput_bps"]),
                                   float(ns3.parse_output(p[-1].stdout)["goodput_bps"]), None,
                                   [r.rss_mb for r in h], [r.rss_mb for r in p], hoptcp_routing_sent(hrep), 0, 0.0,
                                   [r.cpu_s for r in h], [r.cpu_s for r in p]))
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


def markdown(rows: list[Timing], sweeps: Sequence[SweepRate], base_mb: float, version: str,
             start_up: Sequence[StartUp] = (), peers: Sequence[PeerTiming] = (), scale: Sequence[ScaleRow] = (),
             huge: HugeRun | None = None, skipped: Sequence[str] = (), repeats: int = 3,
             load: tuple[float, float] | None = None, memory: ScaleRow | None = None) -> str:
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
    if memory:
        lines += ["", "| memory: random nodes (same density), TCP flows, one run | flows | simulated | events "
                  "| peak RSS (MB) | of which the interpreter with the core (MB) | memory per node (KB) |",
                  "|---:|---:|---:|---:|---:|---:|---:|",
                  f"| {memory.nodes:,} | {memory.flows:,} | {memory.sim_s:g} s | {memory.events:,} | "
                  f"{memory.rss_mb:.0f} | {memory.base_mb:.0f} | {memory.kb_per_node:.2f} |"]
    if start_up:
        lines += ["", "| start-up (whole process) | runs | best (ms) | median (ms) |", "|---|---:|---:|---:|"]
        lines += [f"| `{u.command}` | {u.runs} | {u.best_s * 1e3:.0f} | {u.median_s * 1e3:.0f} |" for u in start_up]
    if sweeps:
        rounds = f" (median of {repeats} rounds)" if repeats > 1 else ""
        lines += ["", f"| sweep: 7-hop TCP chain, 30 s runs{rounds} | workers | runs | runs/s "
                  f"| per run of a sweep of {EMPTY_RUNS} runs of 0.001 s (ms) |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {w.executor} | {w.workers} | {w.runs} | {w.runs_per_s:.1f} | "
                  f"{'-' if w.empty_run_s is None else f'{w.empty_run_s * 1e3:.2f}'} |" for w in sweeps]
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
        measured = [p for p in peers if p.hoptcp_rss_mb and p.peer_rss_mb]
        if measured:
            lines += ["", "| same runs | peer | hoptcp CPU (s, median) | peer CPU (s, median) "
                      "| peer / hoptcp, CPU (median of pairs) | hoptcp peak RSS (MB) "
                      "| peer peak RSS (MB) | hoptcp routing packets sent | peer routing packets sent "
                      "| peer's warm-up before scenario time 0 | of which CPU (s, one run) |",
                      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
            lines += [f"| {p.what} | {p.peer} | {_seconds(p.hoptcp_cpu_median_s)} | {_seconds(p.peer_cpu_median_s)} | "
                      f"{_times(p.cpu_ratio)} | {max(p.hoptcp_rss_mb):.0f} | "
                      f"{max(p.peer_rss_mb):.0f} | {_count(p.hoptcp_routing)} | {_count(p.peer_routing)} | "
                      f"{p.peer_warmup_s:g} s | {'-' if p.peer_warmup_cpu_s is None else f'{p.peer_warmup_cpu_s:.2f}'} |"
                      for p in measured]
            lines += ["", "Peak RSS: the largest of each side's runs, whole process (`/usr/bin/time -v`'s "
                      "maximum resident set size). Routing packets: AODV's RREQ, RREP and RERR sent, "
                      "forwarded ones included, in scenario time (ns-2.35's counted in one more run with its "
                      "routing agents traced, untimed; its warm-up's are left out). Every peer run also "
                      "simulates the warm-up in the last column, which hoptcp does not need: its time is in "
                      "the peer's."]
        lines += [f"\n{line}." for line in skipped]
    return "\n".join(lines) + "\n"


def _seconds(x: float) -> str:
    return "-" if x != x else f"{x:.3f}"


def _times(ratio: float) -> str:
    return "-" if ratio != ratio else f"{ratio:.1f}×"


def _count(n: int | None) -> str:
    return "not counted" if n is None else f"{n:,}"


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
