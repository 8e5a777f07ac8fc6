"""CUBIC against ns-2.35's TCP-Linux: hoptcp's ``tcp.cubic.profile = "ns2_linux"`` where it
differs from NewReno.

The ``cubic-*`` cases of ``validation/ns2/suite.toml`` come in pairs, ``cubic-<base>-cubic`` and
``cubic-<base>-newreno``, run on the same seeds by ``hoptcp ns2 validate``. From their stored
runs (``validation/ns2/results.json``) this module compares, with the project's one agreement
rule (:mod:`hoptcp.reproduce.agreement`):

- each simulator's CUBIC against its NewReno (does ns-2.35's CUBIC differ beyond seed noise?),
- hoptcp's CUBIC−NewReno difference against ns-2.35's, paired by seed (the difference of the
  same seed's two runs in each simulator),

and, from the cwnd traces of the CUBIC runs (``hoptcp ns2 cubic-check`` runs them again with
traces: ns-2.35's ``cwnd_`` trace, hoptcp's ``cwnd`` series), the window's own features:
the peak before each cut (the W_max a cut remembers), the time between cuts (the epoch), and
the time an epoch takes to regain the previous peak (the K the curve aims at).

The ``cubic-sack-<base>`` cases (CUBIC with SACK: TCP-Linux behind ``TCPSink/Sack1``) are paired
the same way with their base's plain CUBIC and NewReno runs, and their recoveries per run are
counted in both simulators (``--recoveries``: ns-2.35's ``ncwndcuts_`` less its timeouts).
"""

from __future__ import annotations

import json
import math
import statistics
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..reproduce.agreement import DEFAULT_MARGIN_PCT, Agreement, tost

#: the stored trace features of the CUBIC runs
FEATURES = Path("validation/ns2/cubic/features.json")
#: the stored recovery counts of the CUBIC+SACK runs
SACK_RECOVERIES = Path("validation/ns2/cubic/sack_recoveries.json")
#: the metrics compared per case (per flow summed over flows, as the suite stores them)
METRICS = ("aggregate_goodput_bps", "retransmissions", "timeouts")
#: a cut: cwnd falls to at most this fraction of its value before
CUT_RATIO = 0.9


def bases(case_names: Sequence[str]) -> list[str]:
    """The ``<base>`` of every ``cubic-<base>-cubic`` case that has its NewReno twin."""
    names = set(case_names)
    out = []
    for n in case_names:
        if n.startswith("cubic-") and n.endswith("-cubic") and n.removesuffix("-cubic") + "-newreno" in names:
            out.append(n.removeprefix("cubic-").removesuffix("-cubic"))
    return out


def sack_bases(case_names: Sequence[str]) -> list[str]:
    """The ``<base>`` of every ``cubic-sack-<base>`` case (CUBIC with SACK) whose plain CUBIC and
    NewReno twins, ``cubic-<base>-cubic`` and ``cubic-<base>-newreno``, are in the suite."""
    names = set(case_names)
    out = []
    for n in case_names:
        b = n.removeprefix("cubic-sack-")
        if n.startswith("cubic-sack-") and {f"cubic-{b}-cubic", f"cubic-{b}-newreno"} <= names:
            out.append(b)
    return out


def metric_of(run: Mapping[str, Any], metric: str) -> float:
    """A run's value: the aggregate goodput, or a per-flow count summed over the flows."""
    if metric in run:
        return float(run[metric])
    vals = [float(v) for k, v in run.items() if k.startswith("flow.") and k.endswith(f".{metric}") and v is not None]
    return sum(vals) if vals else math.nan


def by_seed(entry: Mapping[str, Any], side: str, metric: str) -> dict[int, float]:
    return {int(s): metric_of(r, metric) for s, r in zip(entry["seeds"], entry[side])}


def margin(values: Sequence[float]) -> float:
    """The agreement margin for a case's metric: DEFAULT_MARGIN_PCT % of ns-2.35's larger mean
    of the two variants (of a difference too, so a difference near zero is judged against the
    size of what it is the difference of)."""
    return DEFAULT_MARGIN_PCT / 100 * max(abs(v) for v in values)


def _mean(xs: Sequence[float]) -> float:
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else math.nan


def compare_case(cubic: Mapping[str, Any], newreno: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per metric: ns-2.35's and hoptcp's means per variant, each simulator's CUBIC against its
    NewReno, and the paired CUBIC−NewReno differences of the two simulators against each other.
    (Any two cases on the same seeds compare so: ``cubic`` the one, ``newreno`` the other, e.g.
    CUBIC with SACK against plain CUBIC.)"""
    out: dict[str, dict[str, Any]] = {}
    for m in METRICS:
        sides = {(sim, v): by_seed(e, sim, m) for v, e in (("cubic", cubic), ("newreno", newreno))
                 for sim in ("ns2", "hoptcp")}
        seeds = sorted(set.intersection(*(set(d) for d in sides.values())))
        if not seeds:
            continue
        col = {k: [d[s] for s in seeds] for k, d in sides.items()}
        mar = margin([_mean(col[("ns2", "cubic")]), _mean(col[("ns2", "newreno")])])
        diff = {sim: [c - n for c, n in zip(col[(sim, "cubic")], col[(sim, "newreno")])] for sim in ("ns2", "hoptcp")}
        out[m] = {
            "seeds": len(seeds),
            "means": {f"{sim}_{v}": _mean(col[(sim, v)]) for sim, v in col},
            "margin": mar,
            # Does each simulator's CUBIC differ from its NewReno? (a = NewReno, b = CUBIC)
            "cubic_vs_newreno": {sim: _agreement(tost(col[(sim, "newreno")], col[(sim, "cubic")], mar))
                                 for sim in ("ns2", "hoptcp")},
            # hoptcp's CUBIC against ns-2.35's (a = ns-2.35)
            "hoptcp_vs_ns2": _agreement(tost(col[("ns2", "cubic")], col[("hoptcp", "cubic")], mar)),
            "newreno_hoptcp_vs_ns2": _agreement(tost(col[("ns2", "newreno")], col[("hoptcp", "newreno")], mar)),
            # the paired differences, hoptcp's against ns-2.35's
            "difference": {"ns2": _mean(diff["ns2"]), "hoptcp": _mean(diff["hoptcp"]),
                           "agreement": _agreement(tost(diff["ns2"], diff["hoptcp"], mar))},
        }
    return out


def _agreement(a: Agreement) -> dict[str, Any]:
    return {"verdict": a.verdict, "difference": a.difference, "low90": a.low90, "high90": a.high90,
            "margin": a.margin, "text": a.text}


# --- the cwnd trace's own features ------------------------------------------------------------

def trace_features(changes: Sequence[tuple[float, float]], start: float, end: float) -> dict[str, float]:
    """From one flow's cwnd changes (time, cwnd) over [start, end]: the number of cuts (cwnd
    falling to at most CUT_RATIO of its value), the mean peak before a cut, the mean time
    between cuts, and the mean time from a cut until cwnd is back at the peak before it (over
    the epochs that get there before the next cut)."""
    pts = [(t, w) for t, w in changes if start <= t <= end]
    cuts: list[tuple[float, float]] = []  # (time, peak before it)
    peak = 0.0
    prev = None
    for t, w in pts:
        if prev is not None and w <= CUT_RATIO * prev and prev >= 2:
            cuts.append((t, peak))
            peak = w
        peak = max(peak, w)
        prev = w
    regain = []
    for i, (t, p) in enumerate(cuts):
        nxt = cuts[i + 1][0] if i + 1 < len(cuts) else end
        back = next((u for u, w in pts if t < u < nxt and w >= p), None)
        if back is not None:
            regain.append(back - t)
    gaps = [b[0] - a[0] for a, b in zip(cuts, cuts[1:])]
    return {"cuts": float(len(cuts)), "peak": _mean([p for _, p in cuts]), "epoch_s": _mean(gaps),
            "regain_s": _mean(regain)}


FEATURE_NAMES = {"cuts": "cuts", "peak": "peak before a cut (W_max)", "epoch_s": "time between cuts (s)",
                 "regain_s": "time to regain the peak (K, s)"}


def ns2_cwnd(scenario: Any, seed: int) -> tuple[list[tuple[float, float]], float]:
    """ns-2.35's cwnd_ changes of the first TCP flow, in scenario time, and the duration."""
    from .exporter import export
    from .run import run_ns2
    from .trace import node_maps, parse_cwnd, parse_stats

    with tempfile.TemporaryDirectory(prefix="hoptcp-cubic-") as tmp:
        run_ns2(scenario, seed, keep=tmp)
        t0 = export(scenario, seed).t0
        with open(Path(tmp) / "out.stats", encoding="utf-8") as fh:
            _, addrs = node_maps(parse_stats(fh).get(-2, {}))
        with open(Path(tmp) / "out.cwnd", encoding="utf-8") as fh:
            cwnd = parse_cwnd(fh, addrs)
    first = sorted(cwnd, key=lambda k: (k[0], k[2], k[1]))[0]
    return [(t - t0, w) for t, w in cwnd[first]], float(scenario.resolved()["duration_s"])


def hoptcp_cwnd(scenario: Any, seed: int) -> tuple[list[tuple[float, float]], float]:
    """hoptcp's traced cwnd (no fast-recovery inflation, as ns-2's cwnd_) of the first flow."""
    from ..runner import run

    raw = run(scenario, seed=seed, series=["cwnd"]).raw
    ts = raw["time_series"]["cwnd"]
    m = ts["metrics"].index("cwnd_traced")
    pts = [(t, v) for t, f, k, v in zip(ts["time_s"], ts["flow"], ts["metric"], ts["value"]) if f == 0 and k == m]
    return pts, float(raw["duration_s"]) if "duration_s" in raw else float(scenario.resolved()["duration_s"])


def run_features(scenario: Any, seeds: Sequence[int]) -> dict[str, list[dict[str, float]]]:
    """The trace features of every seed in both simulators."""
    out: dict[str, list[dict[str, float]]] = {"ns2": [], "hoptcp": []}
    for seed in seeds:
        for side, fn in (("ns2", ns2_cwnd), ("hoptcp", hoptcp_cwnd)):
            pts, dur = fn(scenario, seed)
            out[side].append(trace_features(pts, 0.0, dur))
    return out


def compare_features(feats: Mapping[str, Sequence[Mapping[str, float]]]) -> dict[str, dict[str, Any]]:
    out = {}
    for f in FEATURE_NAMES:
        a = [r[f] for r in feats["ns2"] if not math.isnan(r[f])]
        b = [r[f] for r in feats["hoptcp"] if not math.isnan(r[f])]
        if not a or not b:
            continue
        out[f] = {"ns2": _mean(a), "hoptcp": _mean(b),
                  "agreement": _agreement(tost(a, b, DEFAULT_MARGIN_PCT / 100 * abs(_mean(a))))}
    return out


def ns2_recoveries(scenario: Any, seed: int) -> float:
    """ns-2.35's TCP-Linux recoveries in one run, summed over the TCP flows: its ``ncwndcuts_``
    (one cut per entry into Recovery and per timeout) less its timeouts (``nrexmit_``). The
    script is the exported one with a line printing both at the end."""
    import re
    import subprocess

    from .exporter import export
    from .run import ns_binary

    tcl = re.sub(r"^(    record (\d+) nrexmit_ .*)$", r'\1\n    puts "CUTS [$src(\2) set ncwndcuts_] [$src(\2) set nrexmit_]"',
                 export(scenario, seed).tcl, flags=re.M)
    with tempfile.TemporaryDirectory(prefix="hoptcp-cubic-") as tmp:
        (Path(tmp) / "s.tcl").write_text(tcl, encoding="utf-8")
        proc = subprocess.run([ns_binary() or "ns", "s.tcl", "out"], cwd=tmp, capture_output=True, text=True,
                              check=True)
    pairs = re.findall(r"^CUTS (\d+) (\d+)$", proc.stdout, flags=re.M)
    if not pairs:
        raise RuntimeError("ns-2.35 printed no ncwndcuts_ (not an exported TCP scenario?)")
    return float(sum(int(c) - int(t) for c, t in pairs))


def hoptcp_recoveries(scenario: Any, seed: int) -> float:
    """hoptcp's SACK recoveries in one run, summed over the flows."""
    from ..runner import run

    return float(sum((f.get("sack") or {}).get("recoveries", 0) for f in run(scenario, seed=seed).raw["flows"]))


def run_sack_recoveries(scenario: Any, seeds: Sequence[int]) -> dict[str, list[float]]:
    return {"ns2": [ns2_recoveries(scenario, s) for s in seeds], "hoptcp": [hoptcp_recoveries(scenario, s) for s in seeds]}


def load_features(path: str | Path = FEATURES) -> dict[str, Any]:
    """The stored trace features (or the recovery counts, with ``path`` = :data:`SACK_RECOVERIES`)."""
    p = Path(path)
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}


def save_features(data: Mapping[str, Any], path: str | Path = FEATURES) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# --- docs/validation.md's section ----------------------------------------------------------------

def _v(a: Mapping[str, Any]) -> str:
    return a["verdict"] if a["verdict"] == "agree" else f"**{a['verdict']}**"


def _n(x: float, kbps: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x / 1e3:.1f}" if kbps else (f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}")


def section(suite: Any, data: Mapping[str, Any], features: Mapping[str, Any],
            recoveries: Mapping[str, Any] | None = None) -> str:
    """docs/validation.md's "CUBIC against ns-2.35's TCP-Linux" from the stored runs."""
    cases = data.get("cases", {})
    whats = {c.name: c.what for c in suite.cases}
    found = [b for b in bases([c.name for c in suite.cases]) if f"cubic-{b}-cubic" in cases
             and f"cubic-{b}-newreno" in cases and "ns2" in cases[f"cubic-{b}-cubic"]]
    if not found:
        return ""
    out: list[str] = []
    w = out.append
    w("## CUBIC against ns-2.35's TCP-Linux")
    w("")
    w("hoptcp's CUBIC with `tcp.cubic.profile = \"ns2_linux\"` (docs/model.md) against ns-2.35's "
      "`Agent/TCP/Linux` with `select_ca cubic` (Linux 2.6.22's tcp_cubic.c) behind a plain `TCPSink`, "
      "timestamps off, as `hoptcp ns2 export` writes it. Every case runs twice on seeds 1–20, CUBIC and "
      "NewReno (the `cubic-*` cases above), so each simulator's CUBIC−NewReno difference is paired by "
      "seed. Verdicts are the project's agreement rule (`hoptcp.reproduce.agreement`: TOST, the 90 % "
      f"interval of the difference inside the margin: *agree*; else the 95 % interval excludes 0: "
      f"*differ*; else *undecided*), margin ±{DEFAULT_MARGIN_PCT:g} % of the larger of ns-2.35's two "
      "means (CUBIC's, NewReno's) of the metric, for the values and for their differences alike. "
      "Counts are summed over a case's flows. `hoptcp ns2 cubic-check` renders this section from "
      "validation/ns2/results.json and the trace features in validation/ns2/cubic/features.json "
      "(`--traces` runs the CUBIC cases again with cwnd traces).")
    w("")
    w("Behind a plain sink TCP-Linux sees no loss until a timeout: its scoreboard learns of losses "
      "only from SACK blocks, so duplicate ACKs just re-arm the timer, every loss ends in a timeout, and "
      "each timeout resets CUBIC's state (W_max, the last loss), so the next epoch grows in the 50-ACK "
      "mode from ssthresh. That, not the cubic curve, is what separates ns-2.35's CUBIC from its NewReno "
      "on every path here. TCP-Linux behind `TCPSink/Sack1` (recovery through its scoreboard) is "
      "checked below, \"With SACK\".")
    w("")
    w("| case | what | metric | ns-2.35 CUBIC | hoptcp CUBIC | agreement | ns-2.35 CUBIC−NewReno | "
      "ns-2.35: CUBIC vs NewReno | hoptcp CUBIC−NewReno | hoptcp: CUBIC vs NewReno | differences agree |")
    w("|---|---|---|---:|---:|---|---:|---|---:|---|---|")
    summary = []
    for b in found:
        cmp = compare_case(cases[f"cubic-{b}-cubic"], cases[f"cubic-{b}-newreno"])
        what = whats.get(f"cubic-{b}-cubic", "").removesuffix(" (CUBIC, ns2_linux)")
        for m, c in cmp.items():
            kb, label = _metric_label(m)
            w(f"| {b} | {what} | {label} | {_n(c['means']['ns2_cubic'], kb)} | {_n(c['means']['hoptcp_cubic'], kb)} | "
              f"{_v(c['hoptcp_vs_ns2'])} | {_n(c['difference']['ns2'], kb)} | {_v(c['cubic_vs_newreno']['ns2'])} | "
              f"{_n(c['difference']['hoptcp'], kb)} | {_v(c['cubic_vs_newreno']['hoptcp'])} | "
              f"{_v(c['difference']['agreement'])} |")
            what = ""
            if kb:
                summary.append((b, c))
    w("")
    differ = [(b, c) for b, c in summary if c["cubic_vs_newreno"]["ns2"]["verdict"] == "differ"]
    agree = [b for b, c in differ if c["difference"]["agreement"]["verdict"] == "agree"]
    w(f"ns-2.35's CUBIC goodput differs from its NewReno beyond seed noise in {len(differ)} of "
      f"{len(summary)} cases ({', '.join(b for b, _ in differ) or 'none'}); there hoptcp's paired "
      f"CUBIC−NewReno difference agrees with ns-2.35's in {len(agree)} "
      f"({', '.join(agree) or 'none'}). The NewReno twins agree or not as in the tables above.")
    w("")
    feats = features.get("cases", {})
    if feats:
        w("**The cwnd trace's own features** (first flow, CUBIC runs, seeds "
          f"{features.get('seeds_text', '')}): a cut is cwnd falling to at most {CUT_RATIO:g} of its "
          "value (here: a timeout to one packet); *peak* is the largest cwnd since the last cut "
          "(the W_max the cut remembers, until the timeout resets it), *epoch* the time between cuts, "
          "*regain* the time from a cut until cwnd is back at that peak (the K the curve would aim "
          "at; after TCP-Linux's reset it is slow start to ssthresh plus the 50-ACK climb). Means "
          "over seeds; margin ±10 % of ns-2.35's mean.")
        w("")
        w("| case | feature | ns-2.35 | hoptcp | agreement |")
        w("|---|---|---:|---:|---|")
        for b, fs in feats.items():
            for f, c in compare_features(fs).items():
                w(f"| {b} | {FEATURE_NAMES[f]} | {_n(c['ns2'])} | {_n(c['hoptcp'])} | {_v(c['agreement'])} |")
        w("")
    out.extend(sack_lines(cases, suite, recoveries))
    return "\n".join(out) + "\n"


def _metric_label(m: str) -> tuple[bool, str]:
    """Whether a metric is the goodput (shown in kb/s), and its label in the tables."""
    kb = m == "aggregate_goodput_bps"
    return kb, "goodput (kb/s)" if kb else m


def _diff(c: Mapping[str, Any], sim: str, kbps: bool) -> str:
    """A simulator's paired difference with its verdict on whether the two runs differ."""
    return f"{_n(c['difference'][sim], kbps)} ({_v(c['cubic_vs_newreno'][sim])})"


def sack_lines(cases: Mapping[str, Any], suite: Any = None, recoveries: Mapping[str, Any] | None = None) -> list[str]:
    """The section's "With SACK" part: every ``cubic-sack-<base>`` case against its base's plain
    CUBIC and NewReno runs (paired by seed), in both simulators, and every verdict that is not
    *agree* with the suite's diagnosis of it (case ``cubic-sack-<base>``, metric ``<metric>``,
    ``sack-plain.<metric>`` or ``sack-newreno.<metric>``) or *open*; with ``recoveries`` (what
    :data:`SACK_RECOVERIES` stores), the recoveries per run in both simulators."""
    found = [b for b in sack_bases(list(cases)) if all(
        "ns2" in cases[n] for n in (f"cubic-sack-{b}", f"cubic-{b}-cubic", f"cubic-{b}-newreno"))]
    if not found:
        return []
    out: list[str] = []
    w = out.append
    w("### With SACK: TCP-Linux behind TCPSink/Sack1")
    w("")
    w("The same agent behind `Agent/TCPSink/Sack1` (hoptcp: `tcp.sack = true` with the `ns2_linux` "
      "profile, TCP-Linux's own scoreboard recovery: docs/model.md), on the bases above and their seeds, "
      "so each seed's CUBIC+SACK run pairs with that seed's plain CUBIC and NewReno runs. Values, "
      "CUBIC+SACK − CUBIC and CUBIC+SACK − NewReno in each simulator, each simulator's verdict on "
      "whether the two differ, and whether hoptcp's paired difference agrees with ns-2.35's (the rule "
      "and margin as above: ±10 % of the larger of ns-2.35's two means).")
    w("")
    w("| case | metric | ns-2.35 CUBIC+SACK | hoptcp CUBIC+SACK | agreement | ns-2.35 SACK−plain | "
      "hoptcp SACK−plain | differences agree | ns-2.35 SACK−NewReno | hoptcp SACK−NewReno | "
      "differences agree |")
    w("|---|---|---:|---:|---|---:|---:|---|---:|---:|---|")
    summary: dict[str, list[tuple[str, dict[str, Any]]]] = {"its plain CUBIC": [], "its NewReno": []}
    issues: list[tuple[str, str, str, str]] = []  # (case, diagnosis metric, what, verdict)
    for b in found:
        sack = cases[f"cubic-sack-{b}"]
        plain = compare_case(sack, cases[f"cubic-{b}-cubic"])
        reno = compare_case(sack, cases[f"cubic-{b}-newreno"])
        for m, c in plain.items():
            r = reno[m]
            kb, label = _metric_label(m)
            w(f"| {b} | {label} | {_n(c['means']['ns2_cubic'], kb)} | {_n(c['means']['hoptcp_cubic'], kb)} | "
              f"{_v(c['hoptcp_vs_ns2'])} | {_diff(c, 'ns2', kb)} | {_diff(c, 'hoptcp', kb)} | "
              f"{_v(c['difference']['agreement'])} | {_diff(r, 'ns2', kb)} | {_diff(r, 'hoptcp', kb)} | "
              f"{_v(r['difference']['agreement'])} |")
            if kb:
                summary["its plain CUBIC"].append((b, c))
                summary["its NewReno"].append((b, r))
            for key, what, a in ((m, "value", c["hoptcp_vs_ns2"]),
                                 (f"sack-plain.{m}", "CUBIC+SACK − CUBIC", c["difference"]["agreement"]),
                                 (f"sack-newreno.{m}", "CUBIC+SACK − NewReno", r["difference"]["agreement"])):
                if a["verdict"] != "agree":
                    issues.append((f"cubic-sack-{b}", key, f"{label}, {what}", a["verdict"]))
    w("")
    w("A difference's verdict in brackets: does that simulator's CUBIC+SACK differ from its plain CUBIC "
      "(or NewReno) beyond seed noise.")
    w("")
    recs = (recoveries or {}).get("cases", {})
    if recs:
        w(f"**Recoveries per run** (seeds {recoveries.get('seeds_text', '') if recoveries else ''}; summed over "
          "the flows): ns-2.35's are TCP-Linux's `ncwndcuts_` (a cut per entry into Recovery and per timeout) "
          "less its timeouts, hoptcp's `sack.recoveries`; `hoptcp ns2 cubic-check --recoveries` runs them again "
          "(validation/ns2/cubic/sack_recoveries.json). Means ± standard deviation over seeds, the agreement "
          "rule with ±10 % of ns-2.35's mean.")
        w("")
        w("| case | ns-2.35 | hoptcp | agreement |")
        w("|---|---:|---:|---|")
        for b, r in recs.items():
            ns, hp = r["ns2"], r["hoptcp"]
            agreement = _agreement(tost(ns, hp, DEFAULT_MARGIN_PCT / 100 * abs(_mean(ns))))
            w(f"| {b} | {_mean(ns):.2f} ± {statistics.stdev(ns):.1f} | {_mean(hp):.2f} ± {statistics.stdev(hp):.1f} | "
              f"{_v(agreement)} |")
            if agreement["verdict"] != "agree":
                issues.append((f"cubic-sack-{b}", "recoveries", "recoveries per run", agreement["verdict"]))
        w("")
    if issues:
        w("Every verdict above other than *agree*, with its diagnosis (or *open*):")
        w("")
        for case, key, what, verdict in issues:
            diag = suite.diagnosis(case, key) if suite is not None else None
            w(f"- {case.removeprefix('cubic-sack-')}, {what} ({verdict}): {diag or '*Open.*'}")
        w("")
    for what, rows in summary.items():
        differ = [t for t in rows if t[1]["cubic_vs_newreno"]["ns2"]["verdict"] == "differ"]
        agree = [t[0] for t in differ if t[1]["difference"]["agreement"]["verdict"] == "agree"]
        w(f"ns-2.35's CUBIC+SACK goodput differs from {what} beyond seed noise in {len(differ)} of "
          f"{len(rows)} cases ({', '.join(t[0] for t in differ) or 'none'}); there hoptcp's paired "
          f"difference agrees with ns-2.35's in {len(agree)} ({', '.join(agree) or 'none'}).")
        w("")
    return out
