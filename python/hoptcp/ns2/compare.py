"""Comparing hoptcp with ns-2.35 over seeds: Welch's t per metric and a plain verdict.

Two simulators draw different random numbers, so single runs never match; what
must match are the distributions over seeds. For each metric the means are
compared with Welch's unequal-variance t test; a difference is "within seed
noise" when the two-sided p-value is at least :data:`ALPHA`.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

#: significance level of the "within seed noise" verdict (two-sided)
ALPHA = 0.05


@dataclass(frozen=True)
class Welch:
    """Welch's t test of mean(a) = mean(b)."""

    mean_a: float
    sd_a: float
    n_a: int
    mean_b: float
    sd_b: float
    n_b: int
    t: float
    df: float
    p: float

    @property
    def within_noise(self) -> bool:
        return not self.p < ALPHA

    @property
    def rel_diff(self) -> float:
        """(mean_b − mean_a) / |mean_a|; NaN when mean_a is 0."""
        return (self.mean_b - self.mean_a) / abs(self.mean_a) if self.mean_a else math.nan


def mean_sd(values: Iterable[Any]) -> tuple[float, float]:
    """Mean and sample standard deviation, ignoring missing values (NaN when none)."""
    xs = [v for v in (_num(x) for x in values) if v == v]
    return _mean_sd(xs) if xs else (math.nan, math.nan)


def _mean_sd(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return m, math.sqrt(var)


def welch(a: Iterable[float], b: Iterable[float]) -> Welch:
    """Welch's t statistic, Welch–Satterthwaite degrees of freedom and two-sided p-value.

    With no spread on either side, equal means give p = 1 and different means p = 0.
    """
    xa = [float(x) for x in a if x == x]
    xb = [float(x) for x in b if x == x]
    if not xa or not xb:
        return Welch(math.nan, math.nan, len(xa), math.nan, math.nan, len(xb), math.nan, math.nan, math.nan)
    ma, sa = _mean_sd(xa)
    mb, sb = _mean_sd(xb)
    va, vb = sa * sa / len(xa), sb * sb / len(xb)
    se2 = va + vb
    if se2 == 0:
        same = ma == mb
        return Welch(ma, sa, len(xa), mb, sb, len(xb), 0.0 if same else math.copysign(math.inf, mb - ma),
                     math.nan, 1.0 if same else 0.0)
    t = (mb - ma) / math.sqrt(se2)
    num = se2 * se2
    den = (va * va / (len(xa) - 1) if len(xa) > 1 else 0.0) + (vb * vb / (len(xb) - 1) if len(xb) > 1 else 0.0)
    df = num / den if den > 0 else math.inf
    from scipy import stats

    p = float(2 * stats.t.sf(abs(t), df))
    return Welch(ma, sa, len(xa), mb, sb, len(xb), t, df, p)


#: metrics compared by default (globs over the flat metric names both simulators give)
DEFAULT_METRICS = (
    "aggregate_goodput_bps",
    "flow.*.goodput_bps",
    "fairness_jain",
    "flow.*.avg_cwnd_traced",
    "flow.*.timeouts",
    "flow.*.retransmissions",
    "drops.total",
    "drops.queue_overflow",
    "drops.mac_rts_retry",
    "drops.mac_data_retry",
    "drops.by_kind.tcp_data.mac_rts_retry",
    "drops.by_kind.tcp_ack.mac_rts_retry",
    "drops.link_failure_flush",
    "drops.no_route",
    "routing.route_breaks",
    "node.*.mac_drops",
)
#: ... of which per-flow and per-node ones are shown only for up to this many flows / nodes
MAX_PER_ENTITY = 8


def pick_metrics(names_a: Iterable[str], names_b: Iterable[str],
                 patterns: Sequence[str] = DEFAULT_METRICS) -> list[str]:
    """Metric names both sides have, in the order of ``patterns``."""
    common = [n for n in names_a if n in set(names_b)]
    out: list[str] = []
    for pat in patterns:
        hits = [n for n in common if fnmatch.fnmatchcase(n, pat)] if "*" in pat else (
            [pat] if pat in common else [])
        if pat.startswith(("flow.*.", "node.*.")) and len(hits) > MAX_PER_ENTITY:
            continue
        out += [h for h in sorted(hits, key=_natural) if h not in out]
    return out


def _natural(name: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in name.split("."))


@dataclass(frozen=True)
class MetricComparison:
    metric: str
    test: Welch

    def sentence(self) -> str:
        """One plain line saying whether the difference is within seed noise."""
        w = self.test
        if w.n_a == 0 or w.n_b == 0:
            return f"{self.metric}: missing on one side"
        d = w.rel_diff
        rel = f"{d * 100:+.1f}%" if d == d else f"{w.mean_b - w.mean_a:+.4g}"
        if w.within_noise:
            return f"{self.metric}: hoptcp {rel} from ns-2.35, within seed noise (p = {w.p:.2f})"
        return f"{self.metric}: hoptcp {rel} from ns-2.35, outside seed noise (p = {w.p:.2g})"


def compare(ns2_runs: Sequence[Mapping[str, Any]], hoptcp_runs: Sequence[Mapping[str, Any]],
            metrics: Sequence[str] | None = None) -> list[MetricComparison]:
    """Compare flat metric dicts (one per seed) of ns-2.35 (a) and hoptcp (b)."""
    names_a = [k for r in ns2_runs for k in r]
    names_b = [k for r in hoptcp_runs for k in r]
    chosen = pick_metrics(dict.fromkeys(names_a), dict.fromkeys(names_b), metrics or DEFAULT_METRICS)
    return [MetricComparison(m, welch([_num(r.get(m)) for r in ns2_runs], [_num(r.get(m)) for r in hoptcp_runs]))
            for m in chosen]


def _num(v: Any) -> float:
    if v is None:
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan
