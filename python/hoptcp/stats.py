"""Confidence intervals across replications, batch means within a run, Jain's index, and
paired comparisons of two arms run on the same seeds."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence, Union

from .errors import SpecError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd


@dataclass(frozen=True)
class Estimate:
    """A mean with the half-width of its confidence interval (NaN when n < 2)."""

    mean: float
    ci: float
    n: int
    std: float
    confidence: float = 0.95

    @property
    def low(self) -> float:
        return self.mean - self.ci

    @property
    def high(self) -> float:
        return self.mean + self.ci

    def __str__(self) -> str:
        return f"{self.mean:.6g} ± {self.ci:.3g}" if not math.isnan(self.ci) else f"{self.mean:.6g}"


def _clean(values: Iterable[Any]) -> list[float]:
    out = []
    for v in values:
        if v is None:
            continue
        f = float(v)
        if not math.isnan(f):
            out.append(f)
    return out


def t_quantile(confidence: float, dof: int) -> float:
    from scipy import stats as st

    return float(st.t.ppf(0.5 + confidence / 2, dof))


def mean_ci(values: Iterable[Any], confidence: float = 0.95) -> Estimate:
    """Mean and Student-t confidence half-width over independent replications."""
    if not 0 < confidence < 1:
        raise SpecError(f"confidence: invalid value {confidence}; expected a number between 0 and 1")
    xs = _clean(values)
    n = len(xs)
    if n == 0:
        return Estimate(math.nan, math.nan, 0, math.nan, confidence)
    mean = math.fsum(xs) / n
    if n < 2:
        return Estimate(mean, math.nan, n, math.nan, confidence)
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    return Estimate(mean, t_quantile(confidence, n - 1) * std / math.sqrt(n), n, std, confidence)


def batch_means(series: Sequence[Any], batch_size: int | None = None, n_batches: int | None = None,
                discard: int = 1, confidence: float = 0.95) -> Estimate:
    """Batch-means estimate from one long run's series.

    The series is cut into consecutive batches of ``batch_size`` observations (or
    into ``n_batches`` equal batches); the first ``discard`` batches are dropped as
    warm-up and the CI is taken over the remaining batch means. Leftover
    observations at the end that do not fill a batch are ignored.
    """
    xs = _clean(series)
    if (batch_size is None) == (n_batches is None):
        raise SpecError("batch_means: give exactly one of batch_size or n_batches")
    if n_batches is not None:
        if n_batches < 1:
            raise SpecError(f"n_batches: invalid value {n_batches}; expected >= 1")
        batch_size = len(xs) // n_batches
    assert batch_size is not None
    if batch_size < 1:
        raise SpecError(f"batch_size: invalid value {batch_size}; the series has {len(xs)} observations")
    if discard < 0:
        raise SpecError(f"discard: invalid value {discard}; expected >= 0")
    count = len(xs) // batch_size
    means = [math.fsum(xs[i * batch_size:(i + 1) * batch_size]) / batch_size for i in range(count)][discard:]
    if not means:
        raise SpecError(f"batch_means: {len(xs)} observations make {count} batches of {batch_size}; "
                        f"none left after discarding {discard}")
    return mean_ci(means, confidence)


def flow_batch_means(result: Any, flow: int = 0, discard: int = 1, confidence: float = 0.95) -> Estimate:
    """Steady-state goodput of one flow of one run by batch means.

    Needs a run with ``stats.batch_packets = k``: the core then reports the goodput
    over each batch of k delivered packets (``batch_goodput_bps``); the first
    ``discard`` batches are dropped as warm-up and the CI is taken over the rest.
    ``result`` is a RunResult or its raw dict.
    """
    raw = getattr(result, "raw", result)
    flows = raw.get("flows") or []
    if not 0 <= flow < len(flows):
        raise SpecError(f"flow_batch_means: flow {flow} does not exist (the run has {len(flows)} flows)")
    batches = flows[flow].get("batch_goodput_bps")
    if batches is None:
        raise SpecError("flow_batch_means: the run has no batch_goodput_bps; set stats.batch_packets = k "
                        "in the scenario (k delivered packets per batch)")
    return batch_means(batches, batch_size=1, discard=discard, confidence=confidence)


def jain(values: Iterable[Any]) -> float:
    """Jain's fairness index (sum x)^2 / (n * sum x^2); 1 is perfectly fair."""
    xs = _clean(values)
    if not xs:
        return math.nan
    sq = math.fsum(x * x for x in xs)
    if sq == 0:
        return math.nan
    return math.fsum(xs) ** 2 / (len(xs) * sq)


def summarize(df: "pd.DataFrame", by: Sequence[str] | str | None = None, metrics: Sequence[str] | str | None = None,
              confidence: float = 0.95) -> "pd.DataFrame":
    """Mean and CI of ``metrics`` across replications, one row per group of ``by``.

    Columns per metric ``m``: ``m`` (mean), ``m_ci`` (half-width), ``m_lo``, ``m_hi``,
    ``m_std``; plus ``n`` (runs in the group). ``by`` defaults to the sweep's
    parameters (and ``hoptcp_version`` when several are present); ``metrics`` to all.
    """
    import pandas as pd

    from .store import select_metrics

    if isinstance(by, str):
        by = [by]
    if isinstance(metrics, str):
        metrics = [metrics]
    params = list(df.attrs.get("params", []))
    if by is None:
        by = [p for p in params if p in df.columns]
        if "hoptcp_version" in df.columns and df["hoptcp_version"].nunique() > 1:
            by.append("hoptcp_version")
    for col in by:
        if col not in df.columns:
            raise SpecError(f"by: no column '{col}'; columns: {', '.join(map(str, df.columns))}")
    known = list(df.attrs.get("metrics", [])) or [
        c for c in df.columns if c not in {*by, *params, "seed", "sweep", "scenario_hash", "hoptcp_version"}
        and pd.api.types.is_numeric_dtype(df[c])]
    if metrics is None:
        chosen = [m for m in known if m not in by]
    else:
        chosen = select_metrics([c for c in df.columns if c not in by], metrics)
    rows = []
    groups = df.groupby(list(by), sort=False, dropna=False) if by else [((), df)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        row: dict[str, Any] = dict(zip(by, key))
        row["n"] = len(g)
        for m in chosen:
            est = mean_ci(pd.to_numeric(g[m], errors="coerce"), confidence)
            row[m] = est.mean
            row[f"{m}_ci"] = est.ci
            row[f"{m}_lo"] = est.low
            row[f"{m}_hi"] = est.high
            row[f"{m}_std"] = est.std
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs.update(by=list(by), metrics=chosen, confidence=confidence)
    return out


# --------------------------------------------------------------------------------------
# Paired comparisons: a cure against its baseline on the same seeds
# --------------------------------------------------------------------------------------

#: what :func:`paired_gain` computes per seed from the baseline b and the cure c
PAIRED_KINDS = {
    "pct": "100·(c/b − 1)",
    "ratio": "c/b",
    "loss_pct": "100·(1 − c/b)",
    "diff": "c − b",
}

#: an arm: a Series indexed by the pairing key (the seed), or a frame with the key column(s)
Arm = Union["pd.Series", "pd.DataFrame"]

#: bootstrap resamples over seeds for a value taken over several points, and the generator's
#: fixed seed (the same data give the same interval)
PAIRED_RESAMPLES = 2000
PAIRED_BOOTSTRAP_SEED = 20261128


@dataclass(frozen=True)
class Paired:
    """The per-seed values of a paired comparison and the seeds left out of it.

    ``values`` is indexed by the pairing key (the seed); ``only_base`` / ``only_cure`` are the
    keys present in one arm alone; ``dropped`` the keys both arms have whose value is undefined
    (a baseline of 0 or NaN for a ratio, NaN in either arm)."""

    values: "pd.Series"
    kind: str
    only_base: tuple[Any, ...] = ()
    only_cure: tuple[Any, ...] = ()
    dropped: tuple[Any, ...] = ()

    @property
    def n(self) -> int:
        return len(self.values)

    def estimate(self, confidence: float = 0.95) -> Estimate:
        """Mean of the per-seed values and the Student-t half-width over them."""
        return mean_ci(self.values, confidence)


def _arm_series(arm: Arm, on: str | Sequence[str], value: str | None, what: str) -> "pd.Series":
    """One arm as a float Series indexed by the pairing key, several rows of one key averaged."""
    import pandas as pd

    keys = [on] if isinstance(on, str) else list(on)
    if isinstance(arm, pd.DataFrame):
        if value is None:
            raise SpecError(f"paired comparison: the {what} arm is a frame; name its column with value=")
        missing = [k for k in [*keys, value] if k not in arm.columns]
        if missing:
            raise SpecError(f"paired comparison: the {what} arm has no column {', '.join(map(repr, missing))} "
                            "(pairing needs the seed of every run)")
        s = pd.to_numeric(arm[value], errors="coerce")
        s.index = pd.MultiIndex.from_frame(arm[keys]) if len(keys) > 1 else pd.Index(arm[keys[0]])
    elif isinstance(arm, pd.Series):
        s = pd.to_numeric(arm, errors="coerce")
    else:
        raise SpecError(f"paired comparison: the {what} arm is a {type(arm).__name__}; expected a pandas "
                        "Series indexed by seed or a frame with a seed column")
    s = s.astype(float)
    if not s.index.is_unique:
        s = s.groupby(level=list(range(s.index.nlevels))).mean()
    return s


def paired_values(base: Arm, cure: Arm, kind: str = "pct", *, value: str | None = None,
                  on: str | Sequence[str] = "seed") -> Paired:
    """The per-seed values of ``cure`` against ``base`` (see :func:`paired_gain`)."""
    if kind not in PAIRED_KINDS:
        raise SpecError(f"kind = {kind!r}; allowed: {', '.join(PAIRED_KINDS)}")
    b = _arm_series(base, on, value, "base")
    c = _arm_series(cure, on, value, "cure")
    common = b.index.intersection(c.index)
    only_b = tuple(k for k in b.index if k not in common)
    only_c = tuple(k for k in c.index if k not in common)
    b, c = b.loc[common], c.loc[common]
    if kind == "diff":
        ok = b.notna() & c.notna()
    else:
        ok = b.notna() & c.notna() & (b != 0)
    b, c = b[ok], c[ok]
    dropped = tuple(k for k, good in ok.items() if not good)
    if kind == "pct":
        v = 100.0 * (c / b - 1.0)
    elif kind == "ratio":
        v = c / b
    elif kind == "loss_pct":
        v = 100.0 * (1.0 - c / b)
    else:
        v = c - b
    return Paired(v.sort_index(), kind, only_b, only_c, dropped)


def paired_gain(base: Arm, cure: Arm, kind: str = "pct", *, value: str | None = None,
                on: str | Sequence[str] = "seed", confidence: float = 0.95) -> Estimate:
    """A cure against its baseline, both run on the same seeds, as a paired comparison.

    ``base`` and ``cure`` are pandas Series indexed by seed, or frames with a ``seed`` column
    and the column ``value``; ``on`` names another pairing key (or several columns, e.g.
    ``("topology.hops", "seed")`` for arms that span several points). Several rows of one key in
    an arm are averaged first. The arms are aligned on the keys both have; per key the value is
    (b the baseline, c the cure):

    - ``"pct"``: 100·(c/b − 1), the gain in %;
    - ``"ratio"``: c/b;
    - ``"loss_pct"``: 100·(1 − c/b), what the cure loses against the baseline in %;
    - ``"diff"``: c − b (e.g. one Jain's index minus another).

    Left out, and counted by :func:`paired_values` (``only_base``, ``only_cure``, ``dropped``):
    keys present in one arm only, keys where either arm is NaN, and for the three ratio kinds
    keys where the baseline is 0 (the ratio is undefined there).

    The result's mean is the mean of the per-seed values, its ci the Student-t half-width over
    them (``confidence``, 95% by default), n the number of paired seeds and std their standard
    deviation. Same seed = same topology and random draws in both arms, so the seed's own effect
    cancels in each per-seed value: the interval is that of the comparison, not of two
    independent means (a ratio of means with a delta-method interval assumes independence and,
    with seed effects shared by both arms, is much wider). No pairs: NaN, n = 0; one pair: NaN ci.
    """
    return paired_values(base, cure, kind, value=value, on=on).estimate(confidence)


def _reducer(reduce: str | Callable[["np.ndarray"], float]) -> Callable[["np.ndarray"], float]:
    import numpy as np

    if callable(reduce):
        return reduce
    named: dict[str, Callable[[np.ndarray], float]] = {
        "max": lambda m: float(np.max(m)), "min": lambda m: float(np.min(m)),
        "mean": lambda m: float(np.mean(m)), "absmax": lambda m: float(np.max(np.abs(m))),
    }
    if reduce not in named:
        raise SpecError(f"reduce = {reduce!r}; allowed: {', '.join(named)} or a function")
    return named[reduce]


def paired_over_points(points: Mapping[Any, "pd.Series"] | Sequence["pd.Series"],
                       reduce: str | Callable[["np.ndarray"], float] = "max", *, confidence: float = 0.95,
                       resamples: int = PAIRED_RESAMPLES, rng_seed: int = PAIRED_BOOTSTRAP_SEED) -> Estimate:
    """A value taken over several points of paired per-seed values, e.g. the largest gain over
    hop counts: ``points`` holds, per point, the per-seed values (``Paired.values``, a Series
    indexed by seed). The value is ``reduce`` ("max", "min", "mean", "absmax": the largest
    absolute value, or a function of the array of per-point means) of the per-point means.

    Its interval is a bootstrap over seeds: the seeds (the union over the points) are drawn with
    replacement ``resamples`` times by a generator with the fixed seed ``rng_seed`` (the same
    data give the same interval); each draw recomputes every point's mean over its drawn seeds
    and the reduced value. The half-width is the larger distance from the value to the
    percentile interval's ends (so value ± ci covers it; a max over points is biased upwards,
    and its percentile interval is not symmetric). n is the number of seeds, std NaN. With
    fewer than 2 seeds the ci is NaN."""
    import numpy as np
    import pandas as pd

    if not 0 < confidence < 1:
        raise SpecError(f"confidence: invalid value {confidence}; expected a number between 0 and 1")
    series = list(points.values()) if isinstance(points, Mapping) else list(points)
    series = [pd.to_numeric(s, errors="coerce").dropna().astype(float) for s in series]
    series = [s.groupby(level=list(range(s.index.nlevels))).mean() if not s.index.is_unique else s for s in series]
    series = [s for s in series if len(s)]
    if not series:
        return Estimate(math.nan, math.nan, 0, math.nan, confidence)
    f = _reducer(reduce)
    value = f(np.array([float(s.mean()) for s in series]))
    union: set[Any] = set().union(*(set(s.index) for s in series))
    try:
        seeds = sorted(union)
    except TypeError:  # keys of mixed types
        seeds = sorted(union, key=str)
    n = len(seeds)
    if n < 2 or resamples < 1:
        return Estimate(value, math.nan, n, math.nan, confidence)
    pos = {k: i for i, k in enumerate(seeds)}
    vals = np.zeros((len(series), n))
    have = np.zeros((len(series), n))
    for p, s in enumerate(series):
        for k, v in s.items():
            vals[p, pos[k]] = v
            have[p, pos[k]] = 1.0
    rng = np.random.default_rng(rng_seed)
    draws = rng.integers(0, n, size=(resamples, n))
    counts = np.zeros((resamples, n))
    np.add.at(counts, (np.repeat(np.arange(resamples), n), draws.ravel()), 1.0)
    sums, ns = counts @ vals.T, counts @ have.T
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / ns  # resamples x points; NaN where a point drew none of its seeds
    stats = []
    for row in means:
        row = row[~np.isnan(row)]
        if len(row):
            stats.append(f(row))
    if len(stats) < 2:
        return Estimate(value, math.nan, n, math.nan, confidence)
    lo, hi = (float(q) for q in np.quantile(stats, [(1 - confidence) / 2, (1 + confidence) / 2]))
    return Estimate(value, max(value - lo, hi - value, 0.0), n, math.nan, confidence)
