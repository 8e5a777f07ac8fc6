"""Whether two simulators agree on a value, tested over seeds.

Agreement is an equivalence test, not the absence of a significant difference: two one-sided
Welch tests (TOST) at 5% each, i.e. the 90% confidence interval of the difference of the means
lies inside ``[-margin, +margin]``. Where a claim's value is not a mean over runs (a ratio, an
argmax, a count pooled over runs), the same interval comes from a bootstrap over seeds.

Verdicts:

- ``agree``: the 90% interval of the difference lies inside the margin (TOST, p < 0.05 on both
  sides);
- ``differ``: not ``agree``, and the 95% interval of the difference excludes 0 (Welch's test,
  or the bootstrap, rejects equal means);
- ``undecided``: fewer than :data:`MIN_SEEDS` seeds on either side, or neither of the above (an
  interval wider than the margin band, or one that reaches past the margin and contains 0).

The margin is stated per claim (``agreement_margin``) or is the default
:data:`DEFAULT_MARGIN_PCT` % of the paper's printed value at that point, or of hoptcp's mean
when the paper printed no number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

#: the default equivalence margin, in % of the paper's value (of hoptcp's mean without one)
DEFAULT_MARGIN_PCT = 10.0
#: fewer seeds than this on either side and the test is "undecided"
MIN_SEEDS = 3
#: significance level of each one-sided test (TOST) and of the two-sided difference test
ALPHA = 0.05
#: bootstrap resamples over seeds (fixed generator seed: the same data give the same verdict)
BOOTSTRAP_RESAMPLES = 200
BOOTSTRAP_SEED = 20261125


@dataclass(frozen=True)
class Agreement:
    """The outcome of an equivalence test of two simulators' values."""

    verdict: str  # "agree" | "differ" | "undecided"
    difference: float  # mean(b) - mean(a)
    low90: float  # 90% interval of the difference (the TOST interval)
    high90: float
    margin: float
    n_a: int
    n_b: int
    method: str  # "TOST (Welch)" or "bootstrap over seeds"
    why: str = ""

    @property
    def text(self) -> str:
        if self.verdict == "undecided" and self.why:
            return f"undecided ({self.why})"
        ci = ("" if math.isnan(self.low90) else
              f", 90% interval of the difference [{self.low90:.4g}, {self.high90:.4g}]")
        return (f"{self.verdict} ({self.method}: difference {self.difference:+.4g}{ci}, margin ±{self.margin:.4g}; "
                f"n = {self.n_a} and {self.n_b})") + (f"; {self.why}" if self.why else "")


def margin_for(paper: float | None, ours: float, stated: float | str | None = None) -> float:
    """The equivalence margin: ``stated`` (a number, or ``"P%"`` of the paper's value / hoptcp's
    mean), else :data:`DEFAULT_MARGIN_PCT` % of the paper's value, else of hoptcp's mean."""
    base = paper if paper is not None and not math.isnan(paper) and paper != 0 else ours
    if isinstance(stated, (int, float)):
        return abs(float(stated))
    pct = DEFAULT_MARGIN_PCT if stated is None else float(str(stated).rstrip("% "))
    return abs(base) * pct / 100


def _clean(xs: Sequence[float]) -> list[float]:
    return [float(x) for x in xs if x is not None and not math.isnan(float(x))]


def _classify(diff: float, lo90: float, hi90: float, lo95: float, hi95: float, margin: float) -> tuple[str, str]:
    if -margin < lo90 and hi90 < margin:
        return "agree", ""
    if lo95 > 0 or hi95 < 0:
        return "differ", ""
    if hi90 - lo90 >= 2 * margin:
        return "undecided", "the interval is wider than the margin band"
    return "undecided", "the interval reaches past the margin and contains 0"


def tost(a: Sequence[float], b: Sequence[float], margin: float) -> Agreement:
    """Equivalence of mean(a) and mean(b) within ``margin``: two one-sided Welch tests at 5%."""
    from scipy import stats

    xa, xb = _clean(a), _clean(b)
    if len(xa) < MIN_SEEDS or len(xb) < MIN_SEEDS:
        d = (sum(xb) / len(xb) - sum(xa) / len(xa)) if xa and xb else math.nan
        return Agreement("undecided", d, math.nan, math.nan, margin, len(xa), len(xb), "TOST (Welch)",
                         f"fewer than {MIN_SEEDS} seeds: n = {len(xa)} and {len(xb)}")
    ma, mb = sum(xa) / len(xa), sum(xb) / len(xb)
    va = sum((x - ma) ** 2 for x in xa) / (len(xa) - 1) / len(xa)
    vb = sum((x - mb) ** 2 for x in xb) / (len(xb) - 1) / len(xb)
    se = math.sqrt(va + vb)
    d = mb - ma
    if se == 0:
        lo90 = hi90 = lo95 = hi95 = d
    else:
        den = (va * va / (len(xa) - 1)) + (vb * vb / (len(xb) - 1))
        df = (va + vb) ** 2 / den
        t90, t95 = float(stats.t.ppf(1 - ALPHA, df)), float(stats.t.ppf(1 - ALPHA / 2, df))
        lo90, hi90, lo95, hi95 = d - t90 * se, d + t90 * se, d - t95 * se, d + t95 * se
    verdict, why = _classify(d, lo90, hi90, lo95, hi95, margin)
    return Agreement(verdict, d, lo90, hi90, margin, len(xa), len(xb), "TOST (Welch)", why)


def bootstrap(seeds_a: Sequence[int], seeds_b: Sequence[int], value_a: Callable[[Sequence[int]], float],
              value_b: Callable[[Sequence[int]], float], margin: float,
              resamples: int = BOOTSTRAP_RESAMPLES) -> Agreement:
    """Equivalence of a value computed from pooled runs: resample each side's seeds with
    replacement, recompute ``value_x(drawn seeds)``, and take the percentile intervals of the
    difference. A value that does not move when its runs are resampled is not computed from
    them, and gives "undecided"."""
    import numpy as np

    sa, sb = list(seeds_a), list(seeds_b)
    full_a, full_b = value_a(sa), value_b(sb)
    d = full_b - full_a
    if len(sa) < MIN_SEEDS or len(sb) < MIN_SEEDS:
        return Agreement("undecided", d, math.nan, math.nan, margin, len(sa), len(sb), "bootstrap over seeds",
                         f"fewer than {MIN_SEEDS} seeds: n = {len(sa)} and {len(sb)}")
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    diffs, moved_a, moved_b = [], False, False
    for _ in range(resamples):
        ra = [sa[i] for i in rng.integers(0, len(sa), len(sa))]
        rb = [sb[i] for i in rng.integers(0, len(sb), len(sb))]
        va, vb = value_a(ra), value_b(rb)
        if math.isnan(va) or math.isnan(vb):
            continue
        moved_a |= va != full_a
        moved_b |= vb != full_b
        diffs.append(vb - va)
    if len(diffs) < resamples // 2:
        return Agreement("undecided", d, math.nan, math.nan, margin, len(sa), len(sb), "bootstrap over seeds",
                         "the value could not be computed on most resamples")
    if not (moved_a or moved_b) and len(set(sa)) > 1:
        return Agreement("undecided", d, math.nan, math.nan, margin, len(sa), len(sb), "bootstrap over seeds",
                         "the value does not depend on the resampled runs")
    lo90, hi90, lo95, hi95 = (float(q) for q in np.quantile(diffs, [ALPHA, 1 - ALPHA, ALPHA / 2, 1 - ALPHA / 2]))
    verdict, why = _classify(d, lo90, hi90, lo95, hi95, margin)
    return Agreement(verdict, d, lo90, hi90, margin, len(sa), len(sb), "bootstrap over seeds", why)


#: the seed policy of every agreement sweep: power of the equivalence test when the two
#: simulators' true means are equal, fewest and most seeds per side
POWER = 0.8
POLICY_MIN_SEEDS = 10
POLICY_MAX_SEEDS = 60


@dataclass(frozen=True)
class SeedPlan:
    """How many seeds an agreement sweep runs on each side, fixed from a pilot before it runs."""

    n: int
    needed: float  # what the power calculation asks (before the floor and the cap)
    sd_a: float
    sd_b: float
    margin: float
    capped: bool

    @property
    def text(self) -> str:
        cap = f"; capped at {POLICY_MAX_SEEDS}, the test may stay undecided" if self.capped else ""
        return (f"pilot SDs {self.sd_a:.4g} and {self.sd_b:.4g}, margin ±{self.margin:.4g}: TOST at {ALPHA:g} with "
                f"power {POWER:g} at equal means needs {self.needed:.1f} seeds per side; run n = {self.n} "
                f"(at least {POLICY_MIN_SEEDS}){cap}")


def seeds_needed(pilot_a: Sequence[float], pilot_b: Sequence[float], margin: float) -> SeedPlan:
    """The seed policy (one for every comparison in the project): from a pilot's per-seed values
    on each side, the seeds per side for which two one-sided Welch tests at :data:`ALPHA` declare
    equivalence within ``margin`` with probability :data:`POWER` when the means are equal
    (n = (t_{1-α} + t_{1-(1-power)/2})² (s_a² + s_b²) / margin², solved with the t quantiles'
    degrees of freedom), at least :data:`POLICY_MIN_SEEDS`, at most :data:`POLICY_MAX_SEEDS`.
    The number is fixed before the agreement sweep runs and never raised afterwards."""
    from scipy import stats

    xa, xb = _clean(pilot_a), _clean(pilot_b)

    def sd(xs: list[float]) -> float:
        if len(xs) < 2:
            return math.nan
        m = sum(xs) / len(xs)
        return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))

    sa, sb = sd(xa), sd(xb)
    if math.isnan(sa) or math.isnan(sb) or margin <= 0:
        return SeedPlan(POLICY_MAX_SEEDS, math.inf, sa, sb, margin, True)
    var = sa * sa + sb * sb
    n = 2.0
    for _ in range(50):  # fixed point: the t quantiles depend on n
        df = max(1.0, 2 * n - 2)
        q = float(stats.t.ppf(1 - ALPHA, df)) + float(stats.t.ppf(1 - (1 - POWER) / 2, df))
        new = q * q * var / (margin * margin)
        if abs(new - n) < 1e-6:
            break
        n = max(2.0, new)
    needed = n
    planned = max(POLICY_MIN_SEEDS, math.ceil(needed))
    return SeedPlan(min(planned, POLICY_MAX_SEEDS), needed, sa, sb, margin, planned > POLICY_MAX_SEEDS)
