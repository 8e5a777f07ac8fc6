"""BBR against NewReno on the wireless stack, in hoptcp and in ns-3.37, compared as relative
numbers only: the two simulators' 802.11 models carry different capacities (ns-3's about
30 % more on the 7-hop chain, docs/performance.md), so what is compared is the effect of
replacing NewReno by BBR in each.

Each seed runs a scenario twice in each simulator, with ``tcp.variant = "newreno"`` and
``"bbr"`` (ns-3: the static-route peer program ``static.cc`` with ``--variant``). Per seed
the ratio BBR / NewReno of: aggregate goodput, the flows' mean smoothed RTT (each sender's
own estimate, time-averaged from its first RTT sample: in hoptcp ns-2's, gain 1/8 over one
timed segment per round trip; in ns-3 its estimator's, gain 1/8 over a sample per ACK), TCP
retransmissions, the MAC's retry-limit drops and the queues' overflow drops, Jain's index
and the largest flow's share; and BBR's mean RTprop over NewReno's mean smoothed RTT. Per simulator the mean of each ratio over seeds with its 95 % interval; the
two simulators' ratios are compared with the project's one rule
(:mod:`hoptcp.reproduce.agreement`, margin 10 % of hoptcp's mean ratio).

``hoptcp ns3 bbr-wireless`` runs it and writes ``validation/ns3/bbr-wireless-results.json``;
docs/validation.md shows the numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from . import PeerError, build, parse_output, scenario_args
from .bbr_check import _time_mean

VARIANTS = ("newreno", "bbr")
#: one run's values (either simulator, either variant); rt_prop_mean_s for BBR only
RUN_METRICS = ("goodput_bps", "srtt_mean_s", "rt_prop_mean_s", "retransmissions", "mac_retry_drops",
               "queue_drops", "jain", "max_share")
#: ratios BBR / NewReno of values every run has, taken per seed (name -> (BBR's metric,
#: NewReno's metric)): mean over seeds, t interval, TOST
RATIOS = {"goodput": ("goodput_bps", "goodput_bps"), "srtt": ("srtt_mean_s", "srtt_mean_s"),
          "rt_prop_over_newreno_srtt": ("rt_prop_mean_s", "srtt_mean_s"),
          "jain": ("jain", "jain"), "max_share": ("max_share", "max_share")}
#: ratios BBR / NewReno of counts, pooled over seeds (a run may count none): bootstrap over seeds
POOLED = ("retransmissions", "mac_retry_drops", "queue_drops")
#: resamples of the per-simulator bootstrap interval of a pooled ratio
CI_RESAMPLES = 2000


def _srtt_mean(times: Sequence[float], samples: Sequence[float], end: float) -> float:
    """Time mean of the smoothed RTT as ns-2 keeps it (gain 1/8 over the samples, the first
    sample its start), from the first sample to ``end``."""
    srtt, out = None, []
    for r in samples:
        srtt = r if srtt is None else srtt + (r - srtt) / 8
        out.append(srtt)
    return _time_mean(list(times), out, times[0], end) if times else math.nan


def _step_mean(series: tuple[list[float], list[float]], end: float) -> float:
    """Time mean of a step function from its first value to ``end`` (NaN without values)."""
    return _time_mean(*series, series[0][0], end) if series[0] else math.nan


def _share(goodputs: Sequence[float]) -> tuple[float, float]:
    """Jain's index and the largest flow's share of the aggregate (NaN for one flow)."""
    total, squares = sum(goodputs), sum(g * g for g in goodputs)
    if total <= 0 or len(goodputs) < 2:
        return math.nan, math.nan
    return total * total / (len(goodputs) * squares), max(goodputs) / total


def _mean(xs: Sequence[float]) -> float:
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else math.nan


def _per_flow(series: Mapping[str, Any], kind: str, metric: str, flow: int) -> tuple[list[float], list[float]]:
    ts = series.get(kind)
    if ts is None:
        return [], []
    m = ts["metrics"].index(metric)
    pairs = [(t, v) for t, f, mi, v in zip(ts["time_s"], ts["flow"], ts["metric"], ts["value"]) if f == flow and mi == m]
    return [t for t, _ in pairs], [v for _, v in pairs]


def run_hoptcp(scenario: Any) -> dict[str, float]:
    """One run's :data:`RUN_METRICS` in hoptcp."""
    from ...runner import run

    end = float(scenario.resolved()["duration_s"])
    raw = run(scenario, series=["rtt", "bbr"] if scenario.resolved()["tcp"]["variant"] == "bbr" else ["rtt"]).raw
    flows = [f for f in raw["flows"] if f["transport"] == "tcp"]
    srtt = [_srtt_mean(*_per_flow(raw["time_series"], "rtt", "rtt_s", f["id"]), end) for f in flows]
    rt_prop = [_step_mean(_per_flow(raw["time_series"], "bbr", "rt_prop_s", f["id"]), end) for f in flows]
    jain, top = _share([f["goodput_bps"] for f in flows])
    d = raw["drops"]
    return {"goodput_bps": sum(f["goodput_bps"] for f in flows), "srtt_mean_s": _mean(srtt),
            "rt_prop_mean_s": _mean(rt_prop), "retransmissions": float(sum(f["retransmissions"] for f in flows)),
            "mac_retry_drops": float(d["mac_rts_retry"] + d["mac_data_retry"]),
            "queue_drops": float(d["queue_overflow"]), "jain": jain, "max_share": top}


def ns3_command(scenario: Any) -> list[str]:
    from ... import _bridge

    plan = json.loads(_bridge.plan_json(scenario.toml, scenario.overrides))
    return [str(build()), *scenario_args(scenario.resolved(), plan)]


def run_ns3(scenario: Any) -> dict[str, float]:
    """One run's :data:`RUN_METRICS` in ns-3.37 (the static-route peer program)."""
    cmd = ns3_command(scenario)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise PeerError(f"the ns-3 program failed: {proc.stderr.strip()[-300:]}")
    out = parse_output(proc.stdout)
    flows = out["tcp"]
    jain, top = _share([f["goodput_bps"] for f in flows])
    nan = math.nan
    d = out["drops"]
    return {"goodput_bps": sum(f["goodput_bps"] for f in flows),
            "srtt_mean_s": _mean([nan if f["srtt_mean_s"] is None else f["srtt_mean_s"] for f in flows]),
            "rt_prop_mean_s": _mean([nan if f.get("rt_prop_mean_s") is None else f["rt_prop_mean_s"] for f in flows]),
            "retransmissions": float(sum(f["retransmissions"] for f in flows)),
            "mac_retry_drops": float(d["mac_rts_retry"] + d["mac_data_retry"]),
            "queue_drops": float(d["queue_overflow"]), "jain": jain, "max_share": top,
            "rts_failures": float(out["rts_failures"])}


def _ratio(a: float, b: float) -> float:
    return a / b if b and not (math.isnan(a) or math.isnan(b)) else math.nan


def ratios(bbr: Mapping[str, float], newreno: Mapping[str, float]) -> dict[str, float]:
    """One seed's BBR / NewReno ratios of :data:`RATIOS` (NaN where NewReno's value is 0)."""
    return {name: _ratio(bbr[b], newreno[n]) for name, (b, n) in RATIOS.items()}


def pooled_ratio(runs: Mapping[str, Mapping[int, Mapping[str, float]]], metric: str, seeds: Sequence[int]) -> float:
    """BBR's total of a count over these seeds over NewReno's (NaN if NewReno's is 0)."""
    return _ratio(sum(runs["bbr"][s][metric] for s in seeds), sum(runs["newreno"][s][metric] for s in seeds))


def pooled_interval95(value: Callable[[Sequence[int]], float], seeds: Sequence[int]) -> dict[str, Any]:
    """A pooled value and its 95 % percentile interval from resampling the seeds (both variants
    of a seed together)."""
    import numpy as np

    from ...reproduce.agreement import BOOTSTRAP_SEED

    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = [value([seeds[i] for i in rng.integers(0, len(seeds), len(seeds))]) for _ in range(CI_RESAMPLES)]
    draws = [d for d in draws if not math.isnan(d)]
    full = value(seeds)
    if math.isnan(full) or len(draws) < CI_RESAMPLES // 2:
        return {"mean": full, "low95": math.nan, "high95": math.nan, "n": len(seeds)}
    lo, hi = (float(q) for q in np.quantile(draws, [0.025, 0.975]))
    return {"mean": full, "low95": lo, "high95": hi, "n": len(seeds)}


def interval95(xs: Sequence[float]) -> dict[str, Any]:
    """Mean of the per-seed values and its 95 % t interval (NaNs left out)."""
    from scipy import stats

    v = [x for x in xs if not math.isnan(x)]
    if len(v) < 2:
        return {"mean": _mean(v), "low95": math.nan, "high95": math.nan, "n": len(v)}
    m = sum(v) / len(v)
    se = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))
    h = float(stats.t.ppf(0.975, len(v) - 1)) * se
    return {"mean": m, "low95": m - h, "high95": m + h, "n": len(v)}


def _run_key(scenario: Any, sim: str) -> str:
    """What one stored run depends on: the scenario's canonical form and, for ns-3, the build."""
    digest = hashlib.sha256(scenario.toml.encode() + json.dumps(scenario.overrides, sort_keys=True).encode())
    if sim == "ns3":
        digest.update(build().name.encode())
    return f"{sim}:{scenario.resolved()['name']}:{digest.hexdigest()[:16]}"


def compare(scenario: Any, seeds: Sequence[int], partial: Path | None = None,
            progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Both simulators, both variants, every seed of ``scenario``: per-seed runs and ratios, the
    mean ratio with its 95 % interval per simulator, and the agreement verdict of each ratio.
    Finished runs are appended to ``partial`` (JSON lines) and taken from it when rerun."""
    from ...reproduce.agreement import bootstrap, margin_for, tost

    done: dict[str, dict[str, float | None]] = {}
    if partial is not None and partial.exists():
        for line in partial.read_text().splitlines():
            row = json.loads(line)
            done[row["key"]] = row["values"]
    runners = {"hoptcp": run_hoptcp, "ns3": run_ns3}
    runs: dict[str, dict[str, dict[int, dict[str, float]]]] = {sim: {v: {} for v in VARIANTS} for sim in runners}
    for seed in seeds:
        for variant in VARIANTS:
            sc = scenario.with_(seed=seed, tcp__variant=variant)
            for sim, fn in runners.items():
                key = f"{_run_key(sc, sim)}:{variant}:{seed}"
                if key not in done:
                    done[key] = {k: (None if isinstance(x, float) and math.isnan(x) else x) for k, x in fn(sc).items()}
                    if partial is not None:
                        with partial.open("a") as fh:
                            fh.write(json.dumps({"key": key, "values": done[key]}) + "\n")
                runs[sim][variant][seed] = {k: (math.nan if x is None else x) for k, x in done[key].items()}
        progress(f"{scenario.resolved()['name']}: seed {seed} done")
    per_seed = {sim: {s: ratios(runs[sim]["bbr"][s], runs[sim]["newreno"][s]) for s in seeds} for sim in runners}
    summary: dict[str, Any] = {}
    for name in RATIOS:
        a = [per_seed["ns3"][s][name] for s in seeds]
        b = [per_seed["hoptcp"][s][name] for s in seeds]
        ci = {"ns3": interval95(a), "hoptcp": interval95(b)}
        if ci["ns3"]["n"] == ci["hoptcp"]["n"] == 0:
            continue  # not defined here (fairness with one flow)
        ag = tost(a, b, margin_for(None, ci["hoptcp"]["mean"]) if not math.isnan(ci["hoptcp"]["mean"]) else 0.0)
        summary[name] = {**ci, "verdict": ag.verdict, "text": ag.text}
    for name in POOLED:
        value = {sim: (lambda ss, r=runs[sim], m=name: pooled_ratio(r, m, ss)) for sim in runners}
        ci = {sim: pooled_interval95(value[sim], seeds) for sim in runners}
        margin = margin_for(None, ci["hoptcp"]["mean"]) if not math.isnan(ci["hoptcp"]["mean"]) else 0.0
        ag = bootstrap(seeds, seeds, value["ns3"], value["hoptcp"], margin)
        summary[name] = {**ci, "pooled": True, "verdict": ag.verdict, "text": ag.text}
    means = {sim: {v: {m: _mean([runs[sim][v][s][m] for s in seeds]) for m in runs[sim][v][seeds[0]]}
                   for v in VARIANTS} for sim in runners}

    def clean(x: Any) -> Any:
        if isinstance(x, float):
            return None if math.isnan(x) else x
        if isinstance(x, dict):
            return {str(k): clean(v) for k, v in x.items()}
        return x

    return clean({"scenario": scenario.resolved()["name"], "duration_s": scenario.resolved()["duration_s"],
                  "seeds": list(seeds), "ratios": summary, "means": means, "per_seed_ratios": per_seed,
                  "runs": runs})
