"""A TCP variant against its NewReno twin, in both simulators: docs/validation.md's variant sections.

A suite case with ``versus = "TWIN"`` runs the same scenario as case TWIN with one variant
changed (SACK, CUBIC, ...). Its section shows, per case, each metric in ns-2.35 and hoptcp
with the project's agreement rule (:func:`hoptcp.reproduce.agreement.tost`: the 90 % interval
of the difference of the means inside ±10 % of ns-2.35's mean), and then the variant's
effect: per seed, the variant's value minus its twin's (the same seed in the same simulator),
whether ns-2.35's effect is beyond seed noise (a paired t-test, p < 0.05), and whether
hoptcp's effect agrees with ns-2.35's. The effects are judged by the same rule, with the
margin ±10 % of ns-2.35's value of the twin (the NewReno level), so an effect counts as
reproduced when the two simulators' effects differ by less than a tenth of what is measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..reproduce.agreement import DEFAULT_MARGIN_PCT, Agreement, tost

#: (label, metric for one flow's report; None: summed over the flows) of a variant section
Metric = tuple[str, Callable[[Mapping[str, Any]], float]]


def flow_sum(key: str) -> Callable[[Mapping[str, Any]], float]:
    """A run's ``flow.N.<key>`` summed over its flows (nan when no flow has it)."""
    def value(run: Mapping[str, Any]) -> float:
        vs = [float(v) for k, v in run.items() if k.startswith("flow.") and k.split(".", 2)[2] == key
              and v is not None]
        return sum(vs) if vs else math.nan
    return value


def run_value(key: str) -> Callable[[Mapping[str, Any]], float]:
    def value(run: Mapping[str, Any]) -> float:
        v = run.get(key)
        return math.nan if v is None else float(v)
    return value


def _mean_sd(xs: Sequence[float]) -> tuple[float, float]:
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return math.nan, math.nan
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd


def paired_p(ds: Sequence[float]) -> float:
    """Two-sided p of a paired t-test on the per-seed differences ``ds`` (1 when all are equal)."""
    from scipy import stats

    xs = [d for d in ds if not math.isnan(d)]
    if len(xs) < 2:
        return math.nan
    m, sd = _mean_sd(xs)
    if sd == 0:
        return 0.0 if m != 0 else 1.0
    return float(stats.ttest_1samp(xs, 0.0).pvalue)


def by_seed(entry: Mapping[str, Any], side: str) -> dict[int, Mapping[str, Any]]:
    return dict(zip(entry["seeds"], entry[side], strict=True))


def effects(var: Mapping[str, Any], twin: Mapping[str, Any], side: str,
            value: Callable[[Mapping[str, Any]], float]) -> list[float]:
    """Per seed both cases ran: the variant's value minus the twin's, in one simulator."""
    a, b = by_seed(twin, side), by_seed(var, side)
    return [value(b[s]) - value(a[s]) for s in sorted(set(a) & set(b))]


def _fmt(x: float) -> str:
    if math.isnan(x):
        return "-"
    if abs(x) >= 1e4:
        return f"{x / 1e3:.1f} k"
    return f"{x:.3g}"


def _pm(xs: Sequence[float]) -> str:
    m, sd = _mean_sd(xs)
    if abs(m) >= 1e4:  # both in thousands, as the mean
        return f"{m / 1e3:.1f} k ± {sd / 1e3:.1f} k"
    return f"{_fmt(m)} ± {_fmt(sd)}"


def _verdict(a: Agreement) -> str:
    return a.verdict if a.verdict != "undecided" else f"undecided ({a.why})" if a.why else "undecided"


def section(cases: Sequence[Any], data: Mapping[str, Any], metrics: Sequence[Metric],
            variant: str) -> list[str]:
    """The lines of a variant section for the suite ``cases`` that have a ``versus`` twin."""
    out: list[str] = []
    w = out.append
    stored = data.get("cases", {})
    pairs = [c for c in cases if c.versus and "seeds" in stored.get(c.name, {})
             and "seeds" in stored.get(c.versus, {})]
    if not pairs:
        w("No stored results yet: `hoptcp ns2 validate --only NAME` runs them.")
        return out
    w(f"Per case, means ± standard deviations over the seeds; *agreement* is "
      f"`hoptcp.reproduce.agreement`'s equivalence test (TOST at 5 %, margin ±{DEFAULT_MARGIN_PCT:g} % of "
      "ns-2.35's mean). Goodput is the flows' sum; retransmissions and timeouts are summed over the "
      "flows.")
    w("")
    w("| case | metric | ns-2.35 | hoptcp | agreement |")
    w("|---|---|---:|---:|---|")
    for c in pairs:
        for case in (c.name, c.versus):
            e = stored[case]
            for label, value in metrics:
                a = [value(r) for r in e["ns2"]]
                b = [value(r) for r in e["hoptcp"]]
                if all(math.isnan(x) for x in a + b):
                    continue
                m = abs(_mean_sd(a)[0]) * DEFAULT_MARGIN_PCT / 100
                w(f"| {case} | {label} | {_pm(a)} | {_pm(b)} | {_verdict(tost(a, b, m))} |")
    w("")
    w(f"{variant}'s effect: per seed, the {variant} case's value minus its NewReno twin's (same seed, same "
      "simulator); *ns-2.35 beyond noise* is a paired t-test of ns-2.35's differences (p < 0.05); "
      f"*agreement* compares hoptcp's differences with ns-2.35's by the same rule, margin ±"
      f"{DEFAULT_MARGIN_PCT:g} % of ns-2.35's NewReno mean.")
    w("")
    w(f"| case | metric | ns-2.35 {variant} − NewReno | p | hoptcp {variant} − NewReno | agreement |")
    w("|---|---|---:|---:|---:|---|")
    for c in pairs:
        var, twin = stored[c.name], stored[c.versus]
        for label, value in metrics:
            dn = effects(var, twin, "ns2", value)
            dh = effects(var, twin, "hoptcp", value)
            base = [value(r) for r in twin["ns2"]]
            if not dn or all(math.isnan(x) for x in dn + dh):
                continue
            p = paired_p(dn)
            m = abs(_mean_sd(base)[0]) * DEFAULT_MARGIN_PCT / 100
            noise = "-" if math.isnan(p) else f"{p:.2g}" + (" **beyond**" if p < 0.05 else "")
            w(f"| {c.name} | {label} | {_pm(dn)} | {noise} | {_pm(dh)} | {_verdict(tost(dn, dh, m))} |")
    w("")
    return out


#: the metrics every variant section compares
COMMON: tuple[Metric, ...] = (
    ("goodput (b/s)", run_value("aggregate_goodput_bps")),
    ("retransmissions", flow_sum("retransmissions")),
    ("timeouts", flow_sum("timeouts")),
)

#: docs/validation.md's variant sections: the suite group -> (the variant's name, its metrics)
SECTIONS: dict[str, tuple[str, tuple[Metric, ...]]] = {
    "SACK against ns-2.35's Sack1": ("SACK", COMMON + (
        ("SACK recoveries begun", flow_sum("sack.recoveries")),
        ("SACK recoveries without a timeout", flow_sum("sack.recoveries_completed")),
    )),
}
