"""ElRakabawy et al. (2008) §5.2.2.1, Figs. 13-14: two downloads from the wired host B on the
parallel chains; FTP 2 pauses from 130 s to 160 s on the same connection (``pauses``) while
FTP 1 runs throughout. Per-second goodput comes from each run's series in the store.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import SpecError
from ...plotting import new_figure
from ...stats import Estimate, mean_ci
from ..registry import register
from .stored_series import per_run_lists

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..report import ClaimResult, Context

PAUSE, RESUME = 130, 160
ARMS = {"NewReno": None, "TCP-GAP": "tcp-gap", "TCP-GAP, ns-2 code": "tcp-gap-ns2-code",
        "NewReno, static routes": "static-newreno"}


def _series(runs: "pd.DataFrame", flow: int) -> list[list[float]]:
    """Per-second goodput (bit/s) of one flow, one list per run."""
    def pick(res: dict[str, Any]) -> list[float]:
        return list(((res.get("series") or {}).get("flows") or {}).get(str(flow)) or [])

    out = per_run_lists(runs, f"series.{flow}", pick, "per-second goodput")
    if not out or any(len(s) < RESUME + 30 for s in out):
        raise SpecError("the runs hold no per-second series reaching past the restart (stats.throughput_interval_s)")
    return out


def _arm_runs(ctx: "Context", arm: str) -> "pd.DataFrame":
    side = ARMS[arm]
    runs = ctx.runs if side is None else ctx.side(side).runs
    if runs.empty:
        raise SpecError(f"no runs of {arm}")
    return runs


def _mean(s: list[float], a: int, b: int) -> float:
    return sum(s[a:b]) / (b - a)


def _per_run(ctx: "Context", arm: str, f: Any) -> Estimate:
    runs = _arm_runs(ctx, arm)
    return mean_ci([f(a, b) for a, b in zip(_series(runs, 0), _series(runs, 1))])


@register("check")
def gap_resp_takeover(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """TCP-GAP: FTP 1's goodput while FTP 2 pauses (135-160 s) over the two flows' aggregate
    before the pause (60-130 s)."""
    return _per_run(ctx, "TCP-GAP", lambda a, b: _mean(a, PAUSE + 5, RESUME) / (_mean(a, 60, PAUSE) + _mean(b, 60, PAUSE)))


def _jain(x: float, y: float) -> float:
    return (x + y) ** 2 / (2 * (x * x + y * y)) if x + y > 0 else math.nan


@register("check")
def gap_resp_fair_gap(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """TCP-GAP: Jain's index of the two flows while both run (10-130 s and 170 s to the end)."""
    def both(a: list[float], b: list[float]) -> float:
        n = len(a)
        ga = (sum(a[10:PAUSE]) + sum(a[RESUME + 10:n])) / (PAUSE - 10 + n - RESUME - 10)
        gb = (sum(b[10:PAUSE]) + sum(b[RESUME + 10:n])) / (PAUSE - 10 + n - RESUME - 10)
        return _jain(ga, gb)
    return _per_run(ctx, "TCP-GAP", both)


def _recovery_s(b: list[float]) -> float:
    """Seconds after the restart until FTP 2 first gets half its goodput of before the pause
    (60-130 s) in a second; the rest of the run if never."""
    target = 0.5 * _mean(b, 60, PAUSE)
    for k, g in enumerate(b[RESUME:]):
        if target > 0 and g >= target:
            return float(k + 1)
    return float(len(b) - RESUME)


@register("check")
def gap_resp_recovery(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    return _per_run(ctx, "TCP-GAP", lambda a, b: _recovery_s(b))


@register("check")
def gap_resp_newreno_share(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """NewReno: FTP 2's share of the aggregate goodput while both run."""
    def share(a: list[float], b: list[float]) -> float:
        n = len(a)
        sa = sum(a[10:PAUSE]) + sum(a[RESUME + 10:n])
        sb = sum(b[10:PAUSE]) + sum(b[RESUME + 10:n])
        return sb / (sa + sb) if sa + sb > 0 else math.nan
    return _per_run(ctx, "NewReno", share)


def _resp_row(label: str, runs: "pd.DataFrame") -> str:
    A, B = _series(runs, 0), _series(runs, 1)
    n = min(len(a) for a in A)

    def m(S: list[list[float]], a: int, b: int) -> float:
        return sum(_mean(s, a, b) for s in S) / len(S) / 1e3
    rec = sum(_recovery_s(b) for b in B) / len(B)
    return (f"| {label} | {m(A, 60, PAUSE):.0f} | {m(B, 60, PAUSE):.0f} | {m(A, PAUSE + 5, RESUME):.0f} | "
            f"{m(A, RESUME + 10, n):.0f} | {m(B, RESUME + 10, n):.0f} | {rec:.1f} |")


@register("values")
def gap_resp_values(ctx: "Context") -> dict[str, Any]:
    from .gap_hybrid import STATIC_NEWRENO, ns2_side_runs

    rows = ["| arm | FTP 1 before (kb/s) | FTP 2 before | FTP 1 during the pause | FTP 1 after | FTP 2 after | FTP 2 back at half its rate after (s) |",
            "|---|---|---|---|---|---|---|"]
    for arm in ARMS:
        rows.append(_resp_row(arm, _arm_runs(ctx, arm)))
    theirs = ns2_side_runs(ctx, STATIC_NEWRENO)
    if theirs is not None and not theirs.empty:
        rows.append(_resp_row("NewReno, static routes, ns-2.35", theirs))
    return {"table": "\n".join(rows)}


@register("figure")
def gap_resp_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Figs. 13 (TCP-GAP) and 14 (NewReno): per-second goodput of both flows, mean over the seeds."""
    fig = new_figure(*opts.get("size", (11.0, 4.0)))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, arm, title in zip(axes, ("TCP-GAP", "NewReno"), ("Fig. 13: TCP-GAP", "Fig. 14: NewReno")):
        runs = _arm_runs(ctx, arm)
        for flow in (0, 1):
            S = _series(runs, flow)
            n = min(len(s) for s in S)
            ax.plot(range(1, n + 1), [sum(s[k] for s in S) / len(S) / 1e3 for k in range(n)], lw=0.9,
                    color=f"C{flow}", label=f"FTP {flow + 1}")
        ax.axvspan(PAUSE, RESUME, color="0.9")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("Time (s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("Goodput (kb/s)")
    axes[0].legend(fontsize=7)
    return fig
