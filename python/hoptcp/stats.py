"""Confidence intervals across replications, batch means within a run, Jain's index."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from .errors import SpecError

if TYPE_CHECKING:  # pragma: no cover
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
