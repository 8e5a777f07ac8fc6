"""Comparing hoptcp with ns-2.35 over seeds: Welch's t per metric and a plain verdict.

Two simulators draw different random numbers, so single runs never match; what
must match are the distributions over seeds. For each metric the means are
compared with Welch's unequal-variance t test. About twenty metrics are tested at
once, so by chance alone one of them would often fall below p = 0.05: the per-metric
verdict uses Holm's step-down correction over the metrics compared (family-wise error
rate :data:`ALPHA`), and a difference is "within seed noise" when its Holm-adjusted
p-value is at least :data:`ALPHA`. Goodput also gets the equivalence test of
:mod:`hoptcp.reproduce.agreement` (TOST: the 90% interval of the difference inside
± :data:`EQUIVALENCE_MARGIN_PCT` % of ns-2.35's mean), which says whether the two
*agree*, not only whether a difference was detected.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

#: significance level of the "within seed noise" verdict (two-sided; family-wise, after Holm)
ALPHA = 0.05
#: the equivalence margin of goodput, in % of ns-2.35's mean
EQUIVALENCE_MARGIN_PCT = 10.0
#: the metrics that also get the equivalence test
EQUIVALENCE_METRICS = ("aggregate_goodput_bps", "flow.*.goodput_bps")


def holm(ps: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN stays NaN and does not count in the family)."""
    idx = sorted((i for i, p in enumerate(ps) if p == p), key=lambda i: ps[i])
    m = len(idx)
    out = [math.nan] * len(ps)
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


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
    #: Holm-adjusted p-value over the metrics compared together (the test's own p alone: NaN)
    p_holm: float = math.nan
    #: the equivalence test (TOST, hoptcp.reproduce.agreement) for goodput metrics
    agreement: Any = None

    @property
    def p_verdict(self) -> float:
        """The p-value the verdict uses: Holm's when there is one."""
        return self.p_holm if self.p_holm == self.p_holm else self.test.p

    @property
    def within_noise(self) -> bool:
        """No difference detected at the family-wise level :data:`ALPHA` (Holm-corrected)."""
        return not self.p_verdict < ALPHA

    def sentence(self) -> str:
        """One plain line saying whether the difference is within seed noise."""
        w = self.test
        if w.n_a == 0 or w.n_b == 0:
            return f"{self.metric}: missing on one side"
        d = w.rel_diff
        rel = f"{d * 100:+.1f}%" if d == d else f"{w.mean_b - w.mean_a:+.4g}"
        p = f"p = {w.p:.2g}, Holm {self.p_verdict:.2g}" if self.p_holm == self.p_holm else f"p = {w.p:.2g}"
        line = (f"{self.metric}: hoptcp {rel} from ns-2.35, "
                f"{'within' if self.within_noise else 'outside'} seed noise ({p})")
        if self.agreement is not None:
            from ..reproduce.agreement import POLICY_MIN_SEEDS

            a = self.agreement
            line += f"; equivalence within ±{EQUIVALENCE_MARGIN_PCT:g}% of ns-2.35: {a.text}"
            if min(a.n_a, a.n_b) < POLICY_MIN_SEEDS:
                line += f" (the reproduction reports count it only with at least {POLICY_MIN_SEEDS} seeds a side)"
        return line


def compare(ns2_runs: Sequence[Mapping[str, Any]], hoptcp_runs: Sequence[Mapping[str, Any]],
            metrics: Sequence[str] | None = None) -> list[MetricComparison]:
    """Compare flat metric dicts (one per seed) of ns-2.35 (a) and hoptcp (b): Welch's t per
    metric, Holm-corrected over them; goodput metrics also get the equivalence test."""
    from ..reproduce.agreement import margin_for, tost

    names_a = [k for r in ns2_runs for k in r]
    names_b = [k for r in hoptcp_runs for k in r]
    chosen = pick_metrics(dict.fromkeys(names_a), dict.fromkeys(names_b), metrics or DEFAULT_METRICS)
    values = {m: ([_num(r.get(m)) for r in ns2_runs], [_num(r.get(m)) for r in hoptcp_runs]) for m in chosen}
    tests = {m: welch(*values[m]) for m in chosen}
    adjusted = holm([tests[m].p for m in chosen])
    out = []
    for m, p_holm in zip(chosen, adjusted):
        agreement = None
        if any(fnmatch.fnmatchcase(m, pat) for pat in EQUIVALENCE_METRICS) and tests[m].n_a and tests[m].n_b:
            w = tests[m]
            agreement = tost(*values[m], margin_for(w.mean_a, w.mean_b, f"{EQUIVALENCE_MARGIN_PCT}%"))
        out.append(MetricComparison(m, tests[m], p_holm, agreement))
    return out


def _num(v: Any) -> float:
    if v is None:
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan
