"""The verdict rules a referee signs (issue #36), as pure functions over small tables.

The report code (:mod:`.report`) measures; this module decides. Each rule is here once, with
tests on hand-made values (tests/python/test_reproduce_verdict_rules.py):

1. **Readings committed before the run.** A declared range lists the readings the papers' text
   allows, with the sentence that allows them; settings matching an ``excluded`` pattern are
   readings the text excludes: shown, never counted (:func:`textual`).
2. **One reading per table.** The claims of one table or figure are judged under one reading
   that reaches all of them (:func:`table_reading`); without one, every row is judged at the
   default and those that miss are "fail".
3. **A hit must be a hit.** Over the k textual readings of a range, a setting reaches the
   paper's value when its interval at confidence 1 − 0.05/k (Bonferroni) lies inside the
   rule's band (:func:`band`, :func:`bonferroni_interval`, :func:`inside`); a hit where the same
   entry's cure claim under that reading has a gain whose upper bound is below zero does not
   count (:func:`cure_allows`).
4. **Paired statistics** live in :func:`hoptcp.stats.paired_gain` and the check functions.
5. **"differs" needs a test on the claim's own quantity** against a second implementation:
   the equivalence test of :mod:`.agreement` says "agree", its margin is smaller than half the
   gap between the paper's value and hoptcp's, and each side has at least :data:`MIN_N` seeds
   fixed in advance (:func:`differs_earned`).
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

#: family-wise error rate of the hits over a range's readings
FAMILY_ALPHA = 0.05
#: bootstrap resamples for a claim value without a t interval (fixed generator: same data, same interval)
BOOTSTRAP_RESAMPLES = 4000
BOOTSTRAP_SEED = 20261128
#: fewest seeds on either side of an agreement test that can earn "differs"
MIN_N = 10
#: evidence kinds of a second implementation (verdicts.csv's ``evidence`` column)
REFERENCES = ("ns2", "authors-code", "ns2-port")


@dataclass(frozen=True)
class Exclusion:
    """Settings of a range that the papers' text excludes: a glob on the setting's label, why,
    and the sentence that excludes them (verbatim from a paper)."""

    match: str
    why: str
    quote: str = ""


def excluded_by(label: str, exclusions: Sequence[Exclusion]) -> Exclusion | None:
    """The first exclusion whose pattern matches ``label`` (case-insensitive), or None."""
    low = label.lower()
    for e in exclusions:
        if fnmatch.fnmatchcase(low, e.match.lower()):
            return e
    return None


def textual(labels: Iterable[str], exclusions: Sequence[Exclusion]) -> list[str]:
    """The labels of the readings the text allows (those no exclusion matches), in order."""
    return [lb for lb in labels if excluded_by(lb, exclusions) is None]


# --- rule 3: bands and corrected intervals -----------------------------------------------------

def band(kind: str, a: float, b: float, target: float | None) -> tuple[float, float]:
    """The values a rule accepts, as a closed interval (±inf on an open side).

    ``kind`` is the rule's: ``rel`` (within a % of target), ``abs`` (within a of target),
    ``range`` (within a..b), ``min`` (at least target), ``max`` (at most target)."""
    if kind == "range":
        return (a, b)
    if target is None or math.isnan(target):
        return (math.nan, math.nan)
    if kind == "rel":
        d = abs(target) * a / 100
        return (target - d, target + d)
    if kind == "abs":
        return (target - a, target + a)
    if kind == "min":
        return (target, math.inf)
    if kind == "max":
        return (-math.inf, target)
    return (math.nan, math.nan)


def inside(lo: float, hi: float, band_lo: float, band_hi: float) -> bool:
    """Whether the interval [lo, hi] lies inside the band (NaN anywhere: no)."""
    if any(math.isnan(x) for x in (lo, hi, band_lo, band_hi)):
        return False
    return band_lo <= lo and hi <= band_hi


def confidence_for(k: int) -> float:
    """The per-reading confidence that keeps the family-wise error at :data:`FAMILY_ALPHA`."""
    return 1 - FAMILY_ALPHA / max(1, k)


def t_interval(values: Sequence[float], confidence: float) -> tuple[float, float, float]:
    """(mean, low, high) of a Student-t interval over per-seed values (NaN with fewer than 2)."""
    from scipy import stats

    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    if not xs:
        return (math.nan, math.nan, math.nan)
    m = math.fsum(xs) / len(xs)
    if len(xs) < 2:
        return (m, math.nan, math.nan)
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    h = float(stats.t.ppf(0.5 + confidence / 2, len(xs) - 1)) * sd / math.sqrt(len(xs))
    return (m, m - h, m + h)


def rescale_interval(mean: float, half95: float, n: int, confidence: float) -> tuple[float, float]:
    """A 95% Student-t half-width over n seeds rescaled to another confidence (same n)."""
    from scipy import stats

    if n < 2 or math.isnan(half95) or math.isnan(mean):
        return (math.nan, math.nan)
    t95 = float(stats.t.ppf(0.975, n - 1))
    tk = float(stats.t.ppf(0.5 + confidence / 2, n - 1))
    h = half95 * tk / t95
    return (mean - h, mean + h)


def bootstrap_interval(values: Sequence[float], confidence: float,
                       resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float, float]:
    """(mean, low, high): the percentile interval of the mean of per-seed values, seeds drawn
    with replacement (a fixed generator). With fewer than 3 values: NaN bounds."""
    import numpy as np

    xs = np.asarray([float(v) for v in values if v is not None and not math.isnan(float(v))])
    if len(xs) == 0:
        return (math.nan, math.nan, math.nan)
    m = float(xs.mean())
    if len(xs) < 3:
        return (m, math.nan, math.nan)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    means = xs[rng.integers(0, len(xs), (resamples, len(xs)))].mean(axis=1)
    a = (1 - confidence) / 2
    lo, hi = np.quantile(means, [a, 1 - a])
    return (m, float(lo), float(hi))


@dataclass(frozen=True)
class Setting:
    """One reading of a declared range, measured and judged."""

    label: str
    mean: float
    low: float  # the interval at the range's corrected confidence
    high: float
    method: str  # "t" (the claim's own t interval, rescaled) or "bootstrap" (over per-seed values)
    textual: bool
    excluded: Exclusion | None
    reached: bool  # the corrected interval inside the band (textual readings only)
    #: the cure claim's gain under this reading has an upper bound below zero (the hit then does not count)
    cure_loses: bool = False
    #: the upper end of the reading's plain 95% interval (for the cure check)
    high95: float = math.nan

    @property
    def counts(self) -> bool:
        return self.textual and self.reached and not self.cure_loses


def judge_setting(label: str, mean: float, half95: float, n: int, per_seed: Sequence[float] | None,
                  k: int, band_lo: float, band_hi: float, exclusions: Sequence[Exclusion]) -> Setting:
    """A reading's corrected interval and whether it reaches the band (rule 3). The claim's own
    95% t interval is rescaled to confidence 1 − 0.05/k when it has one; otherwise a bootstrap
    over its per-seed values gives the interval; with neither it cannot reach."""
    ex = excluded_by(label, exclusions)
    conf = confidence_for(k)
    if n >= 2 and not math.isnan(half95):
        lo, hi = rescale_interval(mean, half95, n, conf)
        method, high95 = "t", mean + half95
    elif per_seed is not None and len([v for v in per_seed if not math.isnan(v)]) >= 3:
        _, lo, hi = bootstrap_interval(per_seed, conf)
        method, high95 = "bootstrap", bootstrap_interval(per_seed, 0.95)[2]
    else:
        lo = hi = high95 = math.nan
        method = "none"
    return Setting(label, mean, lo, hi, method, ex is None, ex, ex is None and inside(lo, hi, band_lo, band_hi),
                   high95=high95)


def cure_allows(gain_high: float) -> bool:
    """Rule 3's last sentence: a hit counts unless the cure's gain under the same reading has an
    upper bound below zero (NaN: nothing says it loses)."""
    return math.isnan(gain_high) or gain_high >= 0


# --- rule 2: one reading per table -----------------------------------------------------------

@dataclass(frozen=True)
class TableRow:
    """One claim-point of a table: whether it holds at the default, and the readings at which it
    is reached (None: the claim has no declared range, so no reading changes it)."""

    key: str
    holds_default: bool
    reached: frozenset[str] | None


def table_reading(rows: Sequence[TableRow], order: Sequence[str]) -> str | None:
    """The first reading (in declared order) under which every row of the table holds: rows with
    a range must be reached there; rows without one hold as at the default. None: no reading does,
    and the rows are judged at the default."""
    for label in order:
        if all((r.reached is not None and label in r.reached) or (r.reached is None and r.holds_default)
               for r in rows):
            return label
    return None


# --- rule 5: "differs" -------------------------------------------------------------------------

@dataclass(frozen=True)
class DiffersTest:
    earned: bool
    why: str


def differs_earned(agreement_verdict: str | None, margin: float, paper: float | None, ours: float,
                   n_ours: int, n_ref: int, same_scenario: bool, evidence: str | None) -> DiffersTest:
    """Whether a failing claim earns "differs" (rule 5): a second implementation (``evidence`` in
    :data:`REFERENCES`) ran the claim's own scenario, the equivalence test agrees, the margin is
    below half the gap between the paper's value and hoptcp's, and both sides have ≥ MIN_N seeds."""
    if evidence not in REFERENCES or agreement_verdict is None:
        return DiffersTest(False, "no equivalence test against a second implementation on this claim")
    if not same_scenario:
        return DiffersTest(False, "the reference ran another scenario (side evidence only)")
    if paper is None or math.isnan(paper) or math.isnan(ours):
        return DiffersTest(False, "no gap to compare the margin with (the paper printed no number)")
    gap = abs(paper - ours)
    if not margin < gap / 2:
        return DiffersTest(False, f"the margin ±{margin:.4g} is not below half the gap {gap:.4g} between the "
                                  "paper and hoptcp (the test could not tell the paper from hoptcp)")
    if n_ours < MIN_N or n_ref < MIN_N:
        return DiffersTest(False, f"n = {n_ours} and {n_ref} seeds; the rule needs at least {MIN_N} on each side")
    if agreement_verdict != "agree":
        return DiffersTest(False, f"the equivalence test says {agreement_verdict}")
    return DiffersTest(True, "the second implementation agrees with hoptcp on the claim's own quantity")


def default_margin(paper: float, ours: float) -> float:
    """The margin fixed before an agreement sweep when the entry declares none: a third of the
    gap between the paper's value and hoptcp's (so that it stays below half the gap)."""
    return abs(paper - ours) / 3


def counts_of(verdicts: Mapping[str, str]) -> dict[str, int]:
    """Tally of verdicts (for tests and the index)."""
    out: dict[str, int] = {}
    for v in verdicts.values():
        out[v] = out.get(v, 0) + 1
    return out
