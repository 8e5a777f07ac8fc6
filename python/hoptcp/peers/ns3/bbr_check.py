"""BBR checked against ns-3.37's ``TcpBbr`` where both simulators model the same thing: a
wired path (``validation/ns3/bbr-wired.toml``), run in hoptcp and in the wired peer program
(``wired.cc``) with every ns-3 default that moves BBR matched or set there.

- **Trajectories** (the deterministic path: one run, not a sample): BtlBw, RTprop, pacing rate
  and state, hoptcp's value at every instant ns-3 processed an ACK, and the time in each state;
  the largest deviation of each. hoptcp is given the ProbeBW phases ns-3 drew
  (``tcp.bbr_phases``), which are random in both.
- **Agreement over seeds** (``bbr-wired-cross.toml``: the same path with jittered CBR cross
  traffic, each side's own random streams): goodput, time in each state and the mean BtlBw and
  RTprop per run, compared with the project's one rule (:mod:`hoptcp.reproduce.agreement`).

``hoptcp ns3 bbr-check`` runs both and writes ``validation/ns3/bbr-results.json``;
docs/validation.md shows the numbers.
"""

from __future__ import annotations

import bisect
import csv
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

from . import WIRED, PeerError, build

#: metrics of hoptcp's ``bbr`` series and the ns-3 trace's columns
METRICS = ("btl_bw_pps", "rt_prop_s", "pacing_rate_pps")
STATES = ("startup", "drain", "probe_bw", "probe_rtt")
#: what the agreement test compares per run
RUN_METRICS = ("goodput_bps", "btl_bw_mean_pps", "rt_prop_mean_s", *(f"{s}_s" for s in STATES))


def _unsupported(key: str, value: Any, allowed: str) -> PeerError:
    return PeerError(f"the ns-3 wired program cannot run this scenario: {key} = {value!r}; it runs {allowed}")


def wired_args(resolved: Mapping[str, Any], plan: Mapping[str, Any]) -> list[str]:
    """The wired program's arguments: every link of ``[wired]``, the flows (all between wired
    nodes), TCP's settings (one for every TCP flow)."""
    wired = resolved.get("wired")
    if not wired:
        raise _unsupported("wired", None, "a [wired] domain")
    first_wired = wired["gateway"] + 1 if resolved["topology"]["kind"] == "chain" else None
    links = [f"{ln['a']},{ln['b']},{ln['bandwidth_mbps'] * 1e6!r},{ln['delay_ms'] * 1e-3!r},{ln['queue_limit']}"
             for ln in wired["links"]]
    flows, tcp = [], None
    for i, f in enumerate(plan["flows"]):
        key = f"flows[{i}]"
        if first_wired is None or min(f["src"], f["dst"]) < first_wired:
            raise _unsupported(f"{key}.src", f["src"], "flows between wired nodes (behind the gateway)")
        if f["transport"] == "tcp" and f["app"] == "ftp":
            t = f["tcp"]
            if t["variant"] not in ("bbr", "newreno") or t["delayed_ack"] or t["ecn"]:
                raise _unsupported(f"{key}.tcp", t["variant"], "BBR or NewReno, one ACK per segment, no ECN")
            settings = {k: t[k] for k in ("variant", "payload_bytes", "max_window", "initial_window", "min_rto_s")}
            if tcp is not None and settings != tcp:
                raise _unsupported(f"{key}.tcp", settings, f"one TCP setting for every flow ({tcp})")
            tcp = settings
            flows.append(f"tcp,{f['src']},{f['dst']},{f['start_s']!r}")
        elif f["transport"] == "udp" and f["app"] == "cbr":
            flows.append(f"udp,{f['src']},{f['dst']},{f['start_s']!r},{f['rate_bps']!r},{f['packet_bytes']},"
                         f"{f['jitter']!r}")
        else:
            raise _unsupported(f"{key}.app", f["app"], "FTP over TCP and CBR over UDP")
    args = [f"--nodes={len(plan['positions']) + wired['nodes']}",
            f"--links={';'.join(links)}", f"--flows={';'.join(flows)}",
            f"--duration={resolved['duration_s']!r}", f"--seed={resolved['seed']}"]
    if tcp is not None:
        args += [f"--variant={tcp['variant']}", f"--payload={tcp['payload_bytes']}",
                 f"--maxWindow={tcp['max_window']}", f"--initialWindow={tcp['initial_window']}",
                 f"--minRto={tcp['min_rto_s']!r}"]
    return args


def run_ns3(scenario: Any) -> tuple[dict[str, Any], list[dict[str, float]]]:
    """The wired program's result line and its BBR trace (one row per ACK) for a scenario."""
    from ... import _bridge
    from . import parse_output

    plan = json.loads(_bridge.plan_json(scenario.toml, scenario.overrides))
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "bbr.csv"
        cmd = [str(build(WIRED)), *wired_args(scenario.resolved(), plan), f"--bbrTrace={trace}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise PeerError(f"the ns-3 wired program failed: {proc.stderr.strip()[-300:]}")
        rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(trace.open())] if trace.exists() else []
    return parse_output(proc.stdout), rows


def run_hoptcp(scenario: Any) -> tuple[dict[str, Any], dict[str, tuple[list[float], list[float]]]]:
    """hoptcp's report of the first TCP flow and its ``bbr`` series (metric -> times, values)."""
    from ...runner import run

    raw = run(scenario, series=["bbr"]).raw
    flow = next(f for f in raw["flows"] if f["transport"] == "tcp")
    ts = raw["time_series"]["bbr"]
    series: dict[str, tuple[list[float], list[float]]] = {m: ([], []) for m in ts["metrics"]}
    for t, fl, m, v in zip(ts["time_s"], ts["flow"], ts["metric"], ts["value"]):
        if fl == flow["id"]:
            series[ts["metrics"][m]][0].append(t)
            series[ts["metrics"][m]][1].append(v)
    return flow, series


def _step(series: tuple[list[float], list[float]], t: float) -> float:
    i = bisect.bisect_right(series[0], t) - 1
    return series[1][i] if i >= 0 else float("nan")


def compare_trajectories(series: Mapping[str, tuple[list[float], list[float]]],
                         rows: Sequence[Mapping[str, float]]) -> dict[str, Any]:
    """At each ns-3 ACK, hoptcp's value then: the largest absolute and relative deviation of
    each estimate (with when), the ACKs at which the states or the pacing gains differ, and the
    pacing rate's largest deviation where the gains agree (a phase that ends one ACK apart
    differs by a whole gain step for that ACK)."""
    out: dict[str, Any] = {}
    gains_differ = [abs(_step(series["pacing_gain"], r["time_s"]) - r["pacing_gain"]) > 1e-6 for r in rows]
    for m in (*METRICS, "pacing_rate_pps_same_gain"):
        worst: dict[str, Any] = {"abs": 0.0, "rel": 0.0, "at_s": None, "hoptcp": None, "ns3": None}
        same_gain = m.endswith("_same_gain")
        m = m.removesuffix("_same_gain")
        for r, gd in zip(rows, gains_differ):
            if same_gain and gd:
                continue
            t, theirs = r["time_s"], r[m]
            if m == "rt_prop_s" and theirs < 0:  # no RTT yet
                theirs = 0.0
            ours = _step(series[m], t)
            d = abs(ours - theirs)
            rel = d / abs(theirs) if theirs else (0.0 if d == 0 else float("inf"))
            if rel > worst["rel"]:
                worst = {"abs": d, "rel": rel, "at_s": t, "hoptcp": ours, "ns3": theirs}
        out[m + ("_same_gain" if same_gain else "")] = worst
    differ = [r["time_s"] for r in rows if _step(series["state"], r["time_s"]) != r["state"]]
    out["state"] = {"acks": len(rows), "acks_differing": len(differ), "first_differing_s": differ[0] if differ else None}
    out["pacing_gain"] = {"acks_differing": sum(gains_differ)}
    return out


def _time_mean(times: Sequence[float], values: Sequence[float], start: float, end: float) -> float:
    """Time-weighted mean of a step function over [start, end]."""
    total = 0.0
    for i, (t, v) in enumerate(zip(times, values)):
        t_next = times[i + 1] if i + 1 < len(times) else end
        a, b = max(t, start), min(t_next, end)
        if b > a:
            total += v * (b - a)
    return total / (end - start) if end > start else float("nan")


def run_metrics(goodput_bps: float, state_s: Sequence[float], btl_bw: tuple[list[float], list[float]],
                rt_prop: tuple[list[float], list[float]], start: float, end: float) -> dict[str, float]:
    """One run's values for the agreement test (means over [start, end])."""
    return {"goodput_bps": goodput_bps, "btl_bw_mean_pps": _time_mean(*btl_bw, start, end),
            "rt_prop_mean_s": _time_mean(*rt_prop, start, end),
            **{f"{s}_s": float(v) for s, v in zip(STATES, state_s)}}


def one_run(scenario: Any) -> dict[str, dict[str, float]]:
    """Both simulators' :func:`run_metrics` for one scenario and seed."""
    end = float(scenario.resolved()["duration_s"])
    flow, series = run_hoptcp(scenario)
    res, rows = run_ns3(scenario)
    start = min(series["btl_bw_pps"][0][0], rows[0]["time_s"]) if rows else 0.0
    ours = run_metrics(flow["goodput_bps"], flow["bbr"]["state_s"], series["btl_bw_pps"], series["rt_prop_s"],
                       start, end)
    ns_t = [r["time_s"] for r in rows]
    theirs = run_metrics(res["flows_bps"][0], res["bbr_state_s"], (ns_t, [r["btl_bw_pps"] for r in rows]),
                         (ns_t, [max(r["rt_prop_s"], 0.0) for r in rows]), start, end)
    return {"hoptcp": ours, "ns3": theirs}


def check(trajectory: Any, cross: Any, seeds: Sequence[int]) -> dict[str, Any]:
    """The whole check: the trajectory comparison of ``trajectory`` and the agreement of
    ``cross`` over ``seeds``."""
    from ...reproduce.agreement import margin_for, tost

    flow, series = run_hoptcp(trajectory)
    res, rows = run_ns3(trajectory)
    times_h = flow["bbr"]["state_s"]
    traj = {"scenario": trajectory.resolved()["name"], "goodput_bps": {"hoptcp": flow["goodput_bps"],
                                                                       "ns3": res["flows_bps"][0]},
            "state_s": {"hoptcp": dict(zip(STATES, times_h)), "ns3": dict(zip(STATES, res["bbr_state_s"]))},
            "deviation": compare_trajectories(series, rows)}
    per_seed = {s: one_run(cross.with_(seed=s)) for s in seeds}
    verdicts = {}
    for m in RUN_METRICS:
        a = [per_seed[s]["ns3"][m] for s in seeds]
        b = [per_seed[s]["hoptcp"][m] for s in seeds]
        mean_b = sum(b) / len(b)
        # Times in Drain and ProbeRTT are fractions of a second: 10 % of 0.1 s is below one
        # round trip, so their margin is one RTprop (about 45 ms) at least.
        margin = max(margin_for(None, mean_b), 0.05 if m.endswith("_s") and m != "rt_prop_mean_s" else 0.0)
        ag = tost(a, b, margin)
        verdicts[m] = {"verdict": ag.verdict, "text": ag.text, "ns3_mean": sum(a) / len(a), "hoptcp_mean": mean_b}
    return {"trajectory": traj, "agreement": {"scenario": cross.resolved()["name"], "seeds": list(seeds),
                                              "verdicts": verdicts, "per_seed": per_seed}}
