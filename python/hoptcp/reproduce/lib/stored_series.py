"""Per-run lists (histograms) that the runs frame does not carry as columns: read from the
full results in the store, and pooled over runs. Shared by the Link RED and LDM entries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ...errors import SpecError
from ...results import per_id

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def per_run_lists(runs: "pd.DataFrame", column: str, pick: Callable[[dict[str, Any]], Sequence[Any]],
                  what: str) -> list[list[float]]:
    """One list per run (row order): from ``column`` if the frame has it, else ``pick(result)``
    on each run's full result in the store named by ``runs.attrs["store"]``."""
    if column in runs.columns:
        return [[float(x) for x in h] for h in runs[column]]
    path = runs.attrs.get("store")
    if path is None or "scenario_hash" not in runs.columns:
        raise SpecError(f"{what}: the runs frame names no results store")
    from ...store import Store

    out = []
    with Store(path) as db:
        for r in runs[["scenario_hash", "seed", "hoptcp_version"]].itertuples(index=False):
            res = db.result(r.scenario_hash, int(r.seed), r.hoptcp_version) or {}
            out.append([float(x) for x in pick(res) or []])
    return out


def pooled_distribution(hists: Sequence[Sequence[float]]) -> list[float]:
    """Histograms summed index by index over runs and normalised to fractions (all zeros stay)."""
    n = max((len(h) for h in hists), default=0)
    tot = [0.0] * n
    for h in hists:
        for i, v in enumerate(h):
            tot[i] += float(v)
    s = sum(tot)
    return [t / s for t in tot] if s > 0 else tot


def flow_ids(row: Mapping[str, Any]) -> list[int]:
    """The ids of the flows a run row reports a goodput for (``flow.N.goodput_bps``, not NaN)."""
    return sorted(i for i, k in per_id(row, "flow", "goodput_bps").items() if row[k] == row[k])
