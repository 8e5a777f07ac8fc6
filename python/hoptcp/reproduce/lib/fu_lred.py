"""Fu et al. (2003), Link RED and adaptive pacing: builders, checks and figures for the
entries ``lred-calibration``, ``fu-lred-window``, ``fu-pacing``, ``fu-lred-chains``,
``fu-lred-topologies``, ``fu-queue-deviation``, ``fu-varsize`` and
``fu-contention-throughput``.

Every name starts with ``lred_``. Functions that work on runs take a plain DataFrame
(one row per run, sweep parameters and flat metrics as columns) so they can be tested
with hand-made frames; the window histograms, which the flat metrics leave out, are read
from the results store named in the frame's ``attrs["store"]`` (or from a column
``flow.<i>.cwnd_hist`` holding lists, in tests).

Schemes are set by the sweep parameters ``mac.link_red.enabled``,
``mac.adaptive_pacing.enabled`` and ``mac.adaptive_pacing.trigger`` and named by
:func:`lred_scheme`: ``NewReno``, ``LRED``, ``pacing (TR)``, ``LRED+pacing (INFOCOM)``,
... where TR is the tech report's trigger (pacing on while the retry average is below
``min_th``) and INFOCOM the INFOCOM paper's (at or above ``min_th``).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ...errors import SpecError
from ...models import model
from ...plotting import new_figure
from ...results import per_id
from ...stats import Estimate, jain, mean_ci, paired_gain
from ..registry import register
from .fu_chain import chain_best, chain_flow_to_end, chain_link_drop, chain_means, chain_spearman
from .fu_network import Case, net_grid_flows, net_topology_case
from .stored_series import flow_ids, per_run_lists, pooled_distribution

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ...scenario import Scenario
    from ..report import ClaimResult, Context

GOODPUT = "aggregate_goodput_bps"
HOPS = "topology.hops"
WIN = "tcp.max_window"
COUNT = "flows.0.count"
LRED_ON = "mac.link_red.enabled"
ACTION = "mac.link_red.action"
MIN_TH = "mac.link_red.min_th"
MAX_TH = "mac.link_red.max_th"
MAX_P = "mac.link_red.max_p"
PACE_ON = "mac.adaptive_pacing.enabled"
TRIGGER = "mac.adaptive_pacing.trigger"
WAIT = "mac.adaptive_pacing.wait"
EXTRA = "mac.adaptive_pacing.extra"
ECN = "tcp.ecn"
CONTENTION = "contention_drops"
_NAN = Estimate(math.nan, math.nan, 0, math.nan)

#: the papers' readings of the pacing trigger, by the core's option name
READING = {"below_min_th": "TR", "at_or_above_min_th": "INFOCOM", "always": "always"}
NR = "NewReno"


# --------------------------------------------------------------------------------------
# Schemes and small helpers
# --------------------------------------------------------------------------------------

def _flag(v: Any) -> bool:
    if isinstance(v, str):
        return v.strip().lower() == "true"
    return bool(v) and v == v  # NaN -> False


#: the side experiments' active Link RED: min_th = NewReno's own failed MAC attempts per
#: packet on the 7-hop chain at MaxWin 32 (about 0.5, lred-calibration's figure), max_p =
#: RED's customary 0.1, max_th = 1.5 (the calibration grid's steeper slope)
ACTIVE = {MIN_TH: 0.5, MAX_TH: 1.5, MAX_P: 0.1}


def _is_active(row: Mapping[str, Any]) -> bool:
    try:
        return all(k in row and abs(float(row[k]) - v) < 1e-12 for k, v in ACTIVE.items() if k != MAX_TH)
    except (TypeError, ValueError):
        return False


def _param(row: Mapping[str, Any], key: str, default: str) -> str:
    v = row.get(key, default)
    return default if v is None or v != v else str(v)  # NaN (the column absent for some runs)


def pacing_wait_label(row: Mapping[str, Any]) -> str:
    """The reading of pacing's wait, as a suffix of the scheme's name: nothing for the
    default (the wait added to the frozen backoff, one whole exchange long), ", timer"
    and/or ", DATA" otherwise (``[mac.adaptive_pacing] wait`` and ``extra``)."""
    parts = [p for p, on in ((", timer", _param(row, WAIT, "frozen_backoff") == "timer"),
                             (", DATA", _param(row, EXTRA, "exchange") == "data")) if on]
    return "".join(parts)


def lred_scheme(row: Mapping[str, Any]) -> str:
    """The scheme of one run from its parameters: NewReno, LRED, LRED (drop),
    pacing (TR|INFOCOM|always), LRED+pacing (TR|INFOCOM|always); Link RED at the side
    experiments' active setting (:data:`ACTIVE`) is "LRED active", and with
    ``action = "mark_ect_only"`` "..., ECT only"."""
    red, pace = _flag(row.get(LRED_ON, False)), _flag(row.get(PACE_ON, False))
    reading = READING.get(str(row.get(TRIGGER, "below_min_th")), str(row.get(TRIGGER))) + pacing_wait_label(row)
    action = str(row.get(ACTION, "mark"))
    lred = "LRED active" if red and _is_active(row) else "LRED"
    if action == "mark_ect_only":
        lred += ", ECT only"
    if red and pace:
        return f"{lred}+pacing ({reading})"
    if pace:
        return f"pacing ({reading})"
    if red:
        return f"{lred} (drop)" if action == "drop" else lred
    return NR


def lred_with_scheme(runs: "pd.DataFrame") -> "pd.DataFrame":
    """The runs with a ``scheme`` column and ``contention_drops`` (MAC retry-limit drops)."""
    df = runs.copy()
    df.attrs = {}
    # only the columns lred_scheme reads: a row dict of a wide frame (a grid's per-node metrics) is slow
    keys = [k for k in (LRED_ON, PACE_ON, TRIGGER, ACTION, WAIT, EXTRA, MIN_TH, MAX_TH, MAX_P) if k in df.columns]
    df["scheme"] = [lred_scheme(r) for r in df[keys].to_dict("records")] if keys else [NR] * len(df)
    cols = [c for c in ("drops.mac_rts_retry", "drops.mac_data_retry") if c in df.columns]
    df[CONTENTION] = df[cols].sum(axis=1) if cols else math.nan
    return df


def lred_ratio(num: "pd.Series", den: "pd.Series") -> Estimate:
    """num/den paired by seed (Series indexed by seed, e.g. from :func:`lred_by_seed`): the mean
    of the per-seed ratios and their Student-t 95% half-width (:func:`hoptcp.stats.paired_gain`;
    seeds in one arm only, or with den 0 or NaN, are left out). Every arm of these entries runs
    the same seeds (same seed = same random draws), so a ratio is a paired comparison."""
    return paired_gain(den, num, "ratio")


def _gain_pct(num: "pd.Series", den: "pd.Series") -> Estimate:
    """100·(num/den − 1), paired by seed as :func:`lred_ratio`."""
    return paired_gain(den, num, "pct")


def lred_by_seed(df: "pd.DataFrame", col: str, what: str = "the runs") -> "pd.Series":
    """The column ``col`` of the runs indexed by seed (the key the paired comparisons align on)."""
    if df.empty:
        raise SpecError(f"no runs for {what}")
    for c in (col, "seed"):
        if c not in df.columns:
            raise SpecError(f"no column '{c}' in the runs ({what})")
    return df.set_index("seed")[col]


def _sel(df: "pd.DataFrame", scheme: str, **eq: Any) -> "pd.DataFrame":
    out = df[df["scheme"] == scheme]
    for k, v in eq.items():
        col = {"hops": HOPS, "win": WIN, "count": COUNT}.get(k, k)
        if col in out.columns:
            out = out[out[col] == v]
    return out


def _est(df: "pd.DataFrame", col: str, what: str) -> Estimate:
    if df.empty:
        raise SpecError(f"no runs for {what}")
    if col not in df.columns:
        raise SpecError(f"no metric '{col}' in the runs ({what})")
    return mean_ci(df[col])


def _node_ids(row: Mapping[str, Any], suffix: str) -> list[int]:
    """The nodes with a value (not NaN) of ``node.<id>.<suffix>``."""
    return sorted(i for i, k in per_id(row, "node", suffix).items() if row[k] == row[k])


def lred_sum_windows(row: Mapping[str, Any]) -> float:
    """Sum over the run's flows of the time-average window (aggregate window)."""
    return float(sum(row[f"flow.{i}.avg_cwnd"] for i in flow_ids(row) if f"flow.{i}.avg_cwnd" in row))


def lred_failed_per_packet(row: Mapping[str, Any]) -> float:
    """Failed MAC attempts per packet over all nodes, (retries + retry-limit drops) /
    packets taken: the long-run mean of what Link RED's retry average tracks."""
    num = sum(float(row[f"node.{i}.retries"]) + float(row[f"node.{i}.mac_drops"])
              for i in _node_ids(row, "retries") if f"node.{i}.mac_drops" in row)
    den = sum(float(row[f"node.{i}.mac_packets"]) for i in _node_ids(row, "mac_packets"))
    return num / den if den > 0 else math.nan


def _style(ax: Any, xlabel: str, ylabel: str, title: str | None = None) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=9)
    ax.grid(True, alpha=0.3)


_COLORS = {NR: "0.25", "LRED": "C0", "LRED (drop)": "C9", "pacing (TR)": "C1", "pacing (INFOCOM)": "C2",
           "pacing (always)": "C4", "LRED+pacing (TR)": "C1", "LRED+pacing (INFOCOM)": "C2",
           "LRED+pacing (always)": "C4", "LRED active": "C6", "LRED active, ECT only": "C5"}


def _color(scheme: str) -> str:
    return _COLORS.get(scheme, "C5")


# --------------------------------------------------------------------------------------
# Window histograms (from the results store)
# --------------------------------------------------------------------------------------

def lred_cwnd_hist(runs: "pd.DataFrame", flow: int = 0) -> list[list[float]]:
    """Seconds spent at each window size by ``flow``, one list per run (row order), from a
    column ``flow.<flow>.cwnd_hist`` or the full results in the store."""
    def pick(res: dict[str, Any]) -> list[Any]:
        flows = res.get("flows") or []
        return list(flows[flow].get("cwnd_hist") or []) if flow < len(flows) else []

    return per_run_lists(runs, f"flow.{flow}.cwnd_hist", pick, "window histograms")


def lred_window_distribution(hists: Sequence[Sequence[float]]) -> list[float]:
    """Fraction of time at each window size, pooled over runs (index = packets)."""
    return pooled_distribution(hists)


def lred_window_mode(dist: Sequence[float]) -> int:
    """The window size with the largest share of time."""
    if not dist:
        raise SpecError("empty window distribution")
    return max(range(len(dist)), key=lambda i: dist[i])


def _runs_for_hist(ctx: "Context", df: "pd.DataFrame") -> "pd.DataFrame":
    out = df.copy()
    out.attrs = {"store": ctx.runs.attrs.get("store")}
    return out


# --------------------------------------------------------------------------------------
# lred-calibration
# --------------------------------------------------------------------------------------

#: the tie margin of the calibration's criterion (normalised goodput)
CAL_TIE = 0.005


def lred_calibration_table(runs: "pd.DataFrame", action: str = "mark") -> "pd.DataFrame":
    """One row per Link RED setting (min_th, max_th, max_p) with ``action``: goodput
    relative to NewReno without Link RED on each chain length (``ratio_<h>``, an
    Estimate paired by seed: :func:`lred_ratio`), their mean ``score``, the average window per chain (``win_<h>``) and the
    number of chains."""
    import pandas as pd

    df = lred_with_scheme(runs)
    off = df[~df[LRED_ON].map(_flag)]
    on = df[df[LRED_ON].map(_flag)]
    if ACTION in on.columns:
        on = on[on[ACTION] == action]
    if off.empty or on.empty:
        raise SpecError(f"the calibration needs runs with mac.link_red.enabled = false and = true "
                        f"(action = {action!r})")
    hops = sorted(int(h) for h in df[HOPS].unique())
    base = {h: off[off[HOPS] == h].set_index("seed")[GOODPUT] for h in hops}
    rows = []
    for key, g in on.groupby([MIN_TH, MAX_TH, MAX_P], sort=True):
        row: dict[str, Any] = dict(zip(("min_th", "max_th", "max_p"), (float(k) for k in key), strict=True))
        ratios = []
        for h in hops:
            gh = g[g[HOPS] == h]
            r = lred_ratio(gh.set_index("seed")[GOODPUT], base[h]) if len(gh) else _NAN
            row[f"ratio_{h}"] = r
            row[f"win_{h}"] = float(gh["flow.0.avg_cwnd"].mean()) if len(gh) else math.nan
            ratios.append(r.mean)
        row["score"] = sum(ratios) / len(ratios)
        row["chains"] = len(hops)
        rows.append(row)
    return pd.DataFrame(rows)


def lred_calibration_choice(table: "pd.DataFrame", tie: float = CAL_TIE) -> Mapping[str, Any]:
    """The calibration's criterion, fixed before the sweep was run: the highest score
    (mean over chain lengths of goodput / NewReno's goodput); among settings within
    ``tie`` of the best score, the largest min_th, then the smallest max_p, then the
    smallest max_th (the least intervention)."""
    if table.empty:
        raise SpecError("no Link RED settings to choose from")
    best = float(table["score"].max())
    near = table[table["score"] >= best - tie]
    near = near.sort_values(["min_th", "max_p", "max_th"], ascending=[False, True, True])
    return near.iloc[0].to_dict()


def _defaults(ctx: "Context") -> dict[str, float]:
    r = ctx.entry.scenario.with_overrides({LRED_ON: True}).resolved()["mac"]["link_red"]
    return {k: float(r[k]) for k in ("min_th", "max_th", "max_p", "weight")}


@register("check")
def lred_cal_defaults_match(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """1 if the core's default [mac.link_red] thresholds are the calibration's choice, else 0."""
    c = lred_calibration_choice(lred_calibration_table(ctx.runs))
    d = _defaults(ctx)
    same = all(abs(d[k] - float(c[k])) < 1e-9 for k in ("min_th", "max_th", "max_p"))
    return Estimate(1.0 if same else 0.0, math.nan, 1, math.nan)


def _cal_score(ctx: "Context", action: str) -> Estimate:
    c = lred_calibration_choice(lred_calibration_table(ctx.runs, action))
    rs = [c[k] for k in sorted(c) if k.startswith("ratio_")]
    cis = [r.ci for r in rs]
    ci = math.sqrt(sum(x * x for x in cis)) / len(cis) if all(x == x for x in cis) else math.nan
    return Estimate(float(c["score"]), ci, min(r.n for r in rs), math.nan)


@register("check")
def lred_cal_score(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """The chosen setting's mean normalised goodput (mean of per-chain ratios; CI from
    the per-chain CIs as independent), RFC 3168 marking."""
    return _cal_score(ctx, "mark")


@register("check")
def lred_cal_score_ect_only(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """As lred_cal_score, for the side experiment: marking that spares non-ECT packets."""
    return _cal_score(ctx, "mark_ect_only")


def lred_cal_best_of(action: str, what: str) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        table = lred_calibration_table(ctx.runs, action)
        i = int(table["score"].idxmax())
        row = table.loc[i]
        if what == "score":
            return Estimate(float(row["score"]), math.nan, 1, math.nan)
        return Estimate(float(row[f"win_{what}"]), math.nan, 1, math.nan)

    quantity = "score" if what == "score" else f"average window on the {what}-hop chain"
    check.__doc__ = f"The best-scoring setting's {quantity} (action {action})."

    return check


lred_cal_window7_ect_only = lred_cal_best_of("mark_ect_only", "7")


@register("values")
def lred_calibration_values(ctx: "Context") -> dict[str, Any]:
    """The chosen setting, its score and per-chain ratios, and the best score among the settings
    with the smallest min_th, for the notes (RFC 3168 marking)."""
    table = lred_calibration_table(ctx.runs)
    c = lred_calibration_choice(table)
    ratios = ", ".join(f"{k.split('_')[1]} hops {c[k].mean:.3f}" for k in sorted(c, key=lambda k: (len(k), k))
                       if k.startswith("ratio_"))
    lo = table[table["min_th"] == table["min_th"].min()]
    return {"cal_choice": f"min_th {c['min_th']:g}, max_th {c['max_th']:g}, max_p {c['max_p']:g}",
            "cal_score": f"{c['score']:.3f}", "cal_ratios": ratios,
            "cal_top_min_th": f"{table['min_th'].max():g}",
            "cal_low_best": f"{lo['score'].max():.3f}", "cal_low_min_th": f"{lo['min_th'].iloc[0]:g}"}


@register("figure")
def lred_calibration_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"],
                            opts: Mapping[str, Any]) -> "Figure":
    """Left (one panel per max_th): the score of every (min_th, max_p), the choice
    starred. Right: goodput relative to NewReno on each chain against min_th at the
    chosen max_th and max_p, with NewReno's mean failed attempts per packet (what the
    retry average tracks) marked on the x axis."""
    df = lred_with_scheme(ctx.runs)
    actions = [a for a in ("mark", "mark_ect_only")
               if ACTION not in df.columns or (df[df[LRED_ON].map(_flag)][ACTION] == a).any()]
    tables = {a: lred_calibration_table(ctx.runs, a) for a in actions}
    max_ths = sorted(tables[actions[0]]["max_th"].unique())
    fig = new_figure(4.2 * len(max_ths) + 5.0, 4.4 * len(actions))
    grid = fig.subplots(len(actions), len(max_ths) + 1, width_ratios=[1.0] * len(max_ths) + [1.3], squeeze=False)
    for axes, action in zip(grid, actions, strict=True):
        _calibration_row(fig, axes, ctx, tables[action], action)
    return fig


def _calibration_row(fig: Any, axes: Any, ctx: "Context", table: "pd.DataFrame", action: str) -> None:
    import numpy as np

    choice = lred_calibration_choice(table)
    max_ths = sorted(table["max_th"].unique())
    mins, ps = sorted(table["min_th"].unique()), sorted(table["max_p"].unique())
    lo, hi = float(table["score"].min()), float(table["score"].max())
    vmax = max(abs(lo - 1), abs(hi - 1), 0.02)
    what = "RFC 3168 marking (defaults)" if action == "mark" else "side experiment: non-ECT packets spared"
    im = None
    for ax, mth in zip(axes, max_ths, strict=False):
        grid = np.full((len(mins), len(ps)), np.nan)
        for r in table[table["max_th"] == mth].itertuples(index=False):
            grid[mins.index(r.min_th), ps.index(r.max_p)] = r.score
        im = ax.imshow(grid, origin="lower", cmap="RdBu", vmin=1 - vmax, vmax=1 + vmax, aspect="auto")
        for i in range(len(mins)):
            for j in range(len(ps)):
                if grid[i, j] == grid[i, j]:
                    ax.text(j, i, f"{grid[i, j]:.3f}", ha="center", va="center", fontsize=6.5)
        if abs(choice["max_th"] - mth) < 1e-12:
            ax.plot([ps.index(choice["max_p"])], [mins.index(choice["min_th"])], "*", ms=16, mfc="none",
                    mec="k", mew=1.5)
        ax.set_xticks(range(len(ps)), [f"{p:g}" for p in ps])
        ax.set_yticks(range(len(mins)), [f"{m:g}" for m in mins])
        ax.set_xlabel("max_p")
        ax.set_ylabel("min_th (average retries per packet)")
        ax.set_title(f"action {action}, max_th = {mth:g}:\ngoodput / NewReno (mean over chains)", fontsize=8)
    if im is not None:
        fig.colorbar(im, ax=axes[len(max_ths) - 1], shrink=0.8)
    ax = axes[-1]
    sub = table[(table["max_th"] == choice["max_th"]) & (table["max_p"] == choice["max_p"])].sort_values("min_th")
    df = lred_with_scheme(ctx.runs)
    off = df[~df[LRED_ON].map(_flag)]
    hops = sorted(int(h) for h in df[HOPS].unique())
    for i, h in enumerate(hops):
        rs = list(sub[f"ratio_{h}"])
        ax.errorbar(sub["min_th"], [r.mean for r in rs], yerr=[0 if r.ci != r.ci else r.ci for r in rs],
                    marker="o", ms=4, capsize=2, color=f"C{i}", label=f"{h}-hop chain")
        fpp = [lred_failed_per_packet(r) for r in off[off[HOPS] == h].to_dict("records")]
        if fpp:
            ax.axvline(float(np.mean(fpp)), color=f"C{i}", ls=":", lw=1)
    ax.plot(sub["min_th"], sub["score"], "k-", lw=2, label="score (mean over chains)")
    ax.axhline(1.0, color="0.5", lw=1)
    ax.axvline(choice["min_th"], color="k", ls="--", lw=1, label=f"chosen min_th = {choice['min_th']:g}")
    ax.plot([], [], ":", color="0.4", label="NewReno's failed attempts per packet")
    _style(ax, "min_th", "Goodput relative to NewReno without LRED",
           f"{what}: max_th = {choice['max_th']:g}, max_p = {choice['max_p']:g}")
    ax.legend(fontsize=7)


# --------------------------------------------------------------------------------------
# fu-lred-window: window distribution with and without LRED (TR Fig. 8 / INFOCOM Fig. 7)
# --------------------------------------------------------------------------------------

#: W* on the 7-hop chain: Fu et al.'s text and Fig. 2 (and hoptcp's fu-window)
WSTAR_7 = 3


def _at32(df: "pd.DataFrame") -> "pd.DataFrame":
    return df[df[WIN] == 32] if WIN in df.columns else df


def _scheme_runs(ctx: "Context", scheme: str) -> "pd.DataFrame":
    df = _at32(lred_with_scheme(ctx.runs))
    out = df[df["scheme"] == scheme]
    if out.empty:
        raise SpecError(f"no runs of scheme '{scheme}' at MaxWin 32")
    return out


def lred_window_mode_of(scheme: str) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        sel = _scheme_runs(ctx, scheme)
        dist = lred_window_distribution(lred_cwnd_hist(_runs_for_hist(ctx, sel)))
        return Estimate(float(lred_window_mode(dist)), math.nan, len(sel), math.nan)

    check.__doc__ = f"Window size with the largest share of time, {scheme} at MaxWin 32 (all seeds pooled)."
    return check


def lred_avg_window_of(scheme: str) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        return _est(_scheme_runs(ctx, scheme), "flow.0.avg_cwnd", scheme)

    check.__doc__ = f"Time-average window, {scheme} at MaxWin 32."
    return check


def lred_drop_ratio_of(scheme: str) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        return lred_ratio(lred_by_seed(_scheme_runs(ctx, scheme), CONTENTION, scheme),
                          lred_by_seed(_scheme_runs(ctx, NR), CONTENTION, NR))

    check.__doc__ = f"Contention (MAC retry-limit) drops of {scheme} over NewReno's, both at MaxWin 32 (paired by seed)."
    return check


def lred_goodput_gain_low_of(scheme: str) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        g = _gain_pct(lred_by_seed(_scheme_runs(ctx, scheme), GOODPUT, scheme),
                      lred_by_seed(_scheme_runs(ctx, NR), GOODPUT, NR))
        up = g.mean + (g.ci if g.ci == g.ci else 0.0)
        return Estimate(up, math.nan, g.n, math.nan)

    check.__doc__ = (f"Upper end of the 95% CI of {scheme}'s goodput gain over NewReno at MaxWin 32 (%; paired "
                     "by seed): at least 0 means not significantly lower.")
    return check


def lred_vs_best_fixed_of(scheme: str) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        df = lred_with_scheme(ctx.runs)
        nr = df[df["scheme"] == NR]
        w, _, _ = chain_best(nr)
        best = lred_by_seed(nr[nr[WIN] == w], GOODPUT, f"NewReno at MaxWin {w}")
        g = _gain_pct(lred_by_seed(_scheme_runs(ctx, scheme), GOODPUT, scheme), best)
        up = g.mean + (g.ci if g.ci == g.ci else 0.0)
        return Estimate(up, math.nan, g.n, math.nan)

    check.__doc__ = (f"Upper end of the 95% CI of {scheme}'s goodput (MaxWin 32) relative to NewReno at its best "
                     "fixed MaxWin (%; paired by seed): at least 0 means as good within the CI.")
    return check


_WINDOW_SCHEMES = [NR, "LRED", "LRED (drop)", "LRED+pacing (TR)", "LRED+pacing (INFOCOM)", "LRED+pacing (always)",
                   "LRED active", "LRED active, ECT only"]


@register("check")
def lred_most_time_window(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                          scheme: str) -> Estimate:
    """The window size where ``scheme`` spends most time at MaxWin 32 (packets)."""
    return lred_window_mode_of(scheme)(ctx, runs, point)


@register("check")
def lred_avg_window(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str) -> Estimate:
    """The average window of ``scheme`` at MaxWin 32 (packets)."""
    return lred_avg_window_of(scheme)(ctx, runs, point)


@register("check")
def lred_drop_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str) -> Estimate:
    """Contention drops of ``scheme`` over NewReno's at MaxWin 32."""
    return lred_drop_ratio_of(scheme)(ctx, runs, point)


@register("check")
def lred_goodput_gain_low(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                          scheme: str) -> Estimate:
    """Upper end of the 95% CI of ``scheme``'s goodput gain over NewReno at MaxWin 32 (%)."""
    return lred_goodput_gain_low_of(scheme)(ctx, runs, point)


@register("check")
def lred_vs_best_fixed(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str) -> Estimate:
    """Upper end of the 95% CI of ``scheme``'s goodput (MaxWin 32) relative to NewReno at its best fixed MaxWin (%)."""
    return lred_vs_best_fixed_of(scheme)(ctx, runs, point)


@register("figure")
def lred_window_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """TR Fig. 8 / INFOCOM Fig. 7. Left: fraction of time at each window size (MaxWin 32),
    NewReno and the LRED schemes. Middle: contention drops per scheme. Right: goodput per
    scheme at MaxWin 32, and NewReno against a fixed MaxWin (the best fixed window)."""
    df = lred_with_scheme(ctx.runs)
    at32 = _at32(df)
    schemes = [s for s in _WINDOW_SCHEMES if (at32["scheme"] == s).any()]
    fig = new_figure(*opts.get("size", (14.0, 4.3)))
    a1, a2, a3 = fig.subplots(1, 3, width_ratios=[1.4, 1.0, 1.2])
    for s in schemes:
        sel = at32[at32["scheme"] == s]
        dist = lred_window_distribution(lred_cwnd_hist(_runs_for_hist(ctx, sel)))
        a1.plot(range(len(dist)), [100 * d for d in dist], marker="o", ms=3, color=_color(s),
                ls="--" if "drop" in s else "-", label=f"{s} (avg {sel['flow.0.avg_cwnd'].mean():.1f})")
    a1.axvline(WSTAR_7, color="C3", ls=":", lw=1.2, label="paper: LRED's mass near W* ≈ 3")
    a1.axvline(10, color="0.4", ls=":", lw=1.0, label="paper: NewReno averages ≈ 10")
    a1.set_xlim(0, 33)
    _style(a1, "Congestion window (packets)", "Time at this window (%)", "Window distribution, MaxWin 32")
    a1.legend(fontsize=7)
    x = range(len(schemes))
    m = [mean_ci(at32[at32["scheme"] == s][CONTENTION]) for s in schemes]
    a2.bar(x, [e.mean for e in m], yerr=[0 if e.ci != e.ci else e.ci for e in m], capsize=3,
           color=[_color(s) for s in schemes])
    a2.set_xticks(list(x), schemes, rotation=35, ha="right", fontsize=7)
    _style(a2, "", "Contention drops in the run (MAC retry limit)", "Contention drops (TR Fig. 8 right)")
    nr = df[df["scheme"] == NR]
    t = chain_means(nr, WIN, GOODPUT)
    a3.errorbar(t[WIN], t["mean"] / 1e3, yerr=t["ci"].fillna(0) / 1e3, marker="o", ms=4, capsize=2, color="0.25",
                label="NewReno, fixed MaxWin")
    for s in schemes:
        if s == NR:
            continue
        e = mean_ci(at32[at32["scheme"] == s][GOODPUT])
        a3.axhspan((e.mean - (e.ci if e.ci == e.ci else 0)) / 1e3, (e.mean + (e.ci if e.ci == e.ci else 0)) / 1e3,
                   color=_color(s), alpha=0.25, label=f"{s}, MaxWin 32 (95% CI)")
    a3.set_xscale("log", base=2)
    ws = sorted(int(w) for w in t[WIN])
    a3.set_xticks(ws, [str(w) for w in ws])
    _style(a3, "MaxWin (packets)", "Throughput (kb/s)", "Goodput")
    a3.legend(fontsize=6.5, loc="lower center")
    return fig


# --------------------------------------------------------------------------------------
# fu-pacing: adaptive pacing alone (TR Fig. 9 / INFOCOM Fig. 8)
# --------------------------------------------------------------------------------------

def _pacing_vs_nr(ctx: "Context", scheme: str, window: int, metric: str) -> tuple["pd.Series", "pd.Series"]:
    """``metric`` of ``scheme`` and of NewReno at MaxWin ``window``, each indexed by seed."""
    df = lred_with_scheme(ctx.runs)
    a, b = _sel(df, scheme, win=window), _sel(df, NR, win=window)
    return lred_by_seed(a, metric, f"{scheme} at MaxWin {window}"), lred_by_seed(b, metric, f"NewReno at MaxWin {window}")


def lred_pacing_gain_of(scheme: str, window: int) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        return _gain_pct(*_pacing_vs_nr(ctx, scheme, window, GOODPUT))

    check.__doc__ = f"Goodput gain of {scheme} over NewReno at MaxWin {window} (%; paired by seed)."
    return check


def lred_pacing_rtt_ratio_of(scheme: str, window: int) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        return lred_ratio(*_pacing_vs_nr(ctx, scheme, window, "flow.0.avg_rtt_s"))

    check.__doc__ = f"Average RTT of {scheme} over NewReno's at MaxWin {window} (paired by seed)."
    return check


def lred_pacing_drop_ratio_of(scheme: str) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        """Contention drops per delivered packet of a pacing scheme over NewReno's at the
        same average window: NewReno's drops per packet interpolated (linearly in the
        average window) at each MaxWin's average window of the scheme, for MaxWin ≥ 4;
        the mean ratio over those points. Not paired by seed: the reference is NewReno's mean
        curve interpolated between MaxWins, not a run of the same seed; the CI is over the
        scheme's MaxWins."""
        df = lred_with_scheme(ctx.runs)
        df = df.assign(dpp=df[CONTENTION] / df["flow.0.packets_delivered"].clip(lower=1))
        nr = chain_means(df[df["scheme"] == NR], WIN, "dpp")
        nw = chain_means(df[df["scheme"] == NR], WIN, "flow.0.avg_cwnd")
        sc = df[df["scheme"] == scheme]
        if sc.empty or nr.empty:
            raise SpecError(f"no runs of {scheme} or NewReno")
        pw = chain_means(sc, WIN, "flow.0.avg_cwnd")
        pd_ = chain_means(sc, WIN, "dpp")
        xs, ys = list(nw["mean"]), list(nr["mean"])
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        xs, ys = [xs[i] for i in order], [ys[i] for i in order]
        ratios = []
        for w, aw, d in zip(pw[WIN], pw["mean"], pd_["mean"], strict=True):
            if w < 4 or aw < xs[0] or aw > xs[-1]:
                continue
            j = next(k for k in range(1, len(xs)) if xs[k] >= aw)
            f = (aw - xs[j - 1]) / (xs[j] - xs[j - 1]) if xs[j] > xs[j - 1] else 0.0
            ref = ys[j - 1] + f * (ys[j] - ys[j - 1])
            if ref > 0:
                ratios.append(d / ref)
        if not ratios:
            raise SpecError(f"{scheme}: no MaxWin whose average window NewReno also reaches")
        return mean_ci(ratios)

    check.__doc__ = (f"Contention drops per delivered packet of {scheme} over NewReno's at the same average window "
                     "(mean over MaxWin ≥ 4 inside NewReno's range).")
    return check


@register("check")
def lred_pacing_gain(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str,
                     window: int) -> Estimate:
    """Goodput gain of ``scheme`` over NewReno at MaxWin ``window`` (%)."""
    return lred_pacing_gain_of(scheme, window)(ctx, runs, point)


@register("check")
def lred_pacing_rtt_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str,
                          window: int) -> Estimate:
    """Average RTT of ``scheme`` over NewReno's at MaxWin ``window``."""
    return lred_pacing_rtt_ratio_of(scheme, window)(ctx, runs, point)


@register("check")
def lred_pacing_drop_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                           scheme: str) -> Estimate:
    """Contention drops per delivered packet of ``scheme`` over NewReno's at the same average window."""
    return lred_pacing_drop_ratio_of(scheme)(ctx, runs, point)


@register("figure")
def lred_pacing_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """TR Fig. 9 / INFOCOM Fig. 8: throughput against MaxWin, contention drops against the
    average window, RTT against MaxWin, and the average window against MaxWin, NewReno
    and the three pacing readings."""
    df = lred_with_scheme(ctx.runs)
    df = df.assign(dpp=100 * df[CONTENTION] / df["flow.0.packets_delivered"].clip(lower=1))
    fig = new_figure(*opts.get("size", (13.0, 7.5)))
    (a1, a2), (a3, a4) = fig.subplots(2, 2)
    for s in [NR, "pacing (TR)", "pacing (INFOCOM)", "pacing (always)"]:
        g = df[df["scheme"] == s]
        if g.empty:
            continue
        kw: dict[str, Any] = dict(marker="o", ms=3.5, capsize=2, color=_color(s), label=s)
        t = chain_means(g, WIN, GOODPUT)
        a1.errorbar(t[WIN], t["mean"] / 1e3, yerr=t["ci"].fillna(0) / 1e3, **kw)
        w = chain_means(g, WIN, "flow.0.avg_cwnd")
        d = chain_means(g, WIN, "dpp")
        a2.errorbar(w["mean"], d["mean"], yerr=d["ci"].fillna(0), **kw)
        r = chain_means(g, WIN, "flow.0.avg_rtt_s")
        a3.errorbar(r[WIN], 1e3 * r["mean"], yerr=1e3 * r["ci"].fillna(0), **kw)
        a4.errorbar(w[WIN], w["mean"], yerr=w["ci"].fillna(0), **kw)
    a4.plot([32], [26], "s", fillstyle="none", ms=10, color="C3", label="paper: pacing, avg 26 at MaxWin 32")
    a4.plot([32], [9.6], "D", fillstyle="none", ms=8, color="0.3", label="paper: NewReno 9.6 (INFOCOM Table 2)")
    a1.axvline(WSTAR_7, color="C3", ls=":", lw=1, label="W* = 3: paper's gain up to 10%")
    for ax in (a1, a3, a4):
        ax.set_xscale("log", base=2)
        ws = sorted(int(v) for v in df[WIN].unique())
        ax.set_xticks(ws, [str(v) for v in ws])
    _style(a1, "MaxWin (packets)", "Throughput (kb/s)", "Throughput (Fig. left)")
    _style(a2, "Average window (packets)", "Contention drops per 100 delivered packets", "Contention drops (middle)")
    _style(a3, "MaxWin (packets)", "Average RTT (ms)", "RTT (right)")
    _style(a4, "MaxWin (packets)", "Average window (packets)", "Average window")
    for ax in (a1, a2, a3, a4):
        ax.legend(fontsize=6.5)
    return fig


@register("figure")
def lred_pacing_readings_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"],
                                opts: Mapping[str, Any]) -> "Figure":
    """The four readings of pacing's wait (frozen backoff or timer; one exchange or the DATA
    frame), one column per trigger reading: throughput (top) and average RTT (bottom)
    against MaxWin, NewReno in every panel."""
    df = lred_with_scheme(ctx.runs)
    prefix = str(opts.get("prefix", "pacing"))
    triggers = [r for r in ("TR", "INFOCOM", "always") if df["scheme"].str.startswith(f"{prefix} ({r}").any()]
    if not triggers:
        raise SpecError(f"no runs of {prefix} in this entry")
    fig = new_figure(*opts.get("size", (4.3 * len(triggers), 7.0)))
    axes = fig.subplots(2, len(triggers), squeeze=False)
    styles = {"": ("C1", "-"), ", timer": ("C4", "-"), ", DATA": ("C1", "--"), ", timer, DATA": ("C4", "--")}
    ws = sorted(int(v) for v in df[WIN].unique())
    for j, trig in enumerate(triggers):
        top, bottom = axes[0][j], axes[1][j]
        for name, (color, ls) in [(NR, ("0.25", "-")),
                                  *[(f"{prefix} ({trig}{w})", st) for w, st in styles.items()]]:
            g = df[df["scheme"] == name]
            if g.empty:
                continue
            label = name if name == NR else ("frozen backoff" if ", timer" not in name else "timer") + \
                (", DATA" if ", DATA" in name else ", exchange")
            kw: dict[str, Any] = dict(marker="o", ms=3, capsize=2, color=color, ls=ls, label=label)
            t = chain_means(g, WIN, GOODPUT)
            top.errorbar(t[WIN], t["mean"] / 1e3, yerr=t["ci"].fillna(0) / 1e3, **kw)
            r = chain_means(g, WIN, "flow.0.avg_rtt_s")
            bottom.errorbar(r[WIN], 1e3 * r["mean"], yerr=1e3 * r["ci"].fillna(0), **kw)
        top.axvline(WSTAR_7, color="C3", ls=":", lw=1)
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.set_xticks(ws, [str(v) for v in ws])
            ax.legend(fontsize=6.5)
        _style(top, "MaxWin (packets)", "Throughput (kb/s)", f"{prefix}, trigger {trig}")
        _style(bottom, "MaxWin (packets)", "Average RTT (ms)")
    return fig


def _readings_rows(df: "pd.DataFrame", group: str | None, label: Callable[[Any], str],
                   rtt: str | None) -> list[str]:
    """Markdown rows: per group value and pacing scheme, goodput (kb/s, 95% CI), its gain
    over NewReno in the same group (%, paired by seed), Jain's index and (optionally) the RTT ratio."""
    rows = []
    groups = [None] if group is None else sorted(df[group].unique(), key=str)
    for g in groups:
        d = df if g is None else df[df[group] == g]
        nr = d[d["scheme"] == NR]
        if nr.empty:
            continue
        for sc in [NR, *sorted(x for x in d["scheme"].unique() if x != NR)]:
            a = d[d["scheme"] == sc]
            k = mean_ci(a[GOODPUT] / 1e3)
            gain = _gain_pct(a.set_index("seed")[GOODPUT], nr.set_index("seed")[GOODPUT])
            fair = mean_ci(_fairness(a))
            r = lred_ratio(a.set_index("seed")[rtt], nr.set_index("seed")[rtt]) if rtt and rtt in a.columns else _NAN
            ci = "" if k.ci != k.ci else f" ± {k.ci:.1f}"
            gci = "" if gain.ci != gain.ci else f" ± {gain.ci:.1f}"
            rows.append(f"| {label(g)} | {sc} | {k.mean:.1f}{ci} | {'—' if sc == NR else f'{gain.mean:+.1f}{gci}'} | "
                        f"{fair.mean:.3f} | {'—' if sc == NR or r.mean != r.mean else f'{r.mean:.3f}'} |")
    return rows


#: the readings of pacing's wait (``wait``, ``extra``; docs/model.md) as scheme-name suffixes
WAIT_READINGS = {"frozen backoff, exchange": "", "timer, exchange": ", timer", "frozen backoff, DATA": ", DATA",
                 "timer, DATA": ", timer, DATA"}
TRIGGERS = {"TR": "TR", "INFOCOM": "INFOCOM", "always": "always"}


def _readings(prefix: str, trigger: str) -> list[tuple[str, str]]:
    if trigger not in TRIGGERS:
        raise SpecError(f"trigger {trigger!r}: one of {', '.join(TRIGGERS)}")
    return [(label, f"{prefix} ({trigger}{suffix})") for label, suffix in WAIT_READINGS.items()]


@register("check")
def lred_pacing_gain_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, trigger: str,
                              window: int, prefix: str = "pacing") -> list[tuple[str, Estimate]]:
    """The unspecified range of pacing's wait: the goodput gain over NewReno at MaxWin ``window`` of
    each reading of the wait with the given trigger reading."""
    return [(label, lred_pacing_gain_of(sc, window)(ctx, runs, point)) for label, sc in _readings(prefix, trigger)]


@register("check")
def lred_pacing_rtt_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, trigger: str,
                             window: int) -> list[tuple[str, Estimate]]:
    """As :func:`lred_pacing_gain_readings`, for the RTT over NewReno's."""
    return [(label, lred_pacing_rtt_ratio_of(sc, window)(ctx, runs, point)) for label, sc in _readings("pacing", trigger)]


@register("check")
def lred_chain_gain_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, trigger: str,
                             flows: int, long: bool) -> list[tuple[str, Estimate]]:
    """The unspecified range of pacing's wait for LRED+pacing on chains: the mean gain of each reading."""
    return [(label, lred_chain_gain_of(sc, flows, long)(ctx, runs, point))
            for label, sc in _readings("LRED+pacing", trigger)]


@register("check")
def lred_topo_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, case: str, trigger: str,
                       measure: str) -> list[tuple[str, Estimate]]:
    """The unspecified range of pacing's wait for LRED+pacing on a topology case (``measure`` as
    :func:`lred_topo`'s quantity)."""
    return [(label, lred_topo_check(case, sc, measure)(ctx, runs, point))
            for label, sc in _readings("LRED+pacing", trigger)]


@register("values")
def lred_pacing_values(ctx: "Context") -> dict[str, Any]:
    """fu-pacing's notes: the gain at W* = 3 and at MaxWin 1 of every pacing reading, the best reading
    at W*, and the readings' spread."""
    df = lred_with_scheme(ctx.runs)
    schemes = sorted(x for x in df["scheme"].unique() if x.startswith("pacing ("))
    rows, gains, best = [], [], None
    for sc in schemes:
        g3 = lred_pacing_gain_of(sc, 3)(ctx, ctx.runs, {})
        g1 = lred_pacing_gain_of(sc, 1)(ctx, ctx.runs, {}) if (df[WIN] == 1).any() else _NAN
        r3 = lred_pacing_rtt_ratio_of(sc, 3)(ctx, ctx.runs, {})
        rows.append(f"| {sc} | {g3.mean:+.1f} ± {g3.ci:.1f} | {r3.mean:.3f} | {g1.mean:+.1f} |")
        gains.append(g3.mean)
        if best is None or g3.mean > best[1].mean:
            best = (sc, g3)
    if best is None:
        raise SpecError("no pacing runs")
    return {"pacing_table": "\n".join(["| reading | gain at W* = 3 (%) | RTT ÷ NewReno's at W* | gain at MaxWin 1 (%) |",
                                        "|---|---|---|---|", *rows]),
            "pacing_best": f"{best[0]} ({best[1].mean:+.1f} ± {best[1].ci:.1f}%)",
            "pacing_spread": f"{min(gains):+.1f}% to {max(gains):+.1f}%"}


def _const(text: str, _: Any) -> str:
    return text


_READINGS_HEAD = ("| {what} | scheme | goodput (kb/s) | gain over NewReno (%) | Jain's index | RTT ÷ NewReno's |\n"
                  "|---|---|---|---|---|---|")


@register("values")
def lred_readings_tables(ctx: "Context") -> dict[str, Any]:
    """``readings_table``: every pacing reading of the entry beside NewReno, per MaxWin (fu-pacing),
    per case (fu-lred-topologies) or per chain length and flow count (fu-lred-chains)."""
    df = lred_with_scheme(ctx.runs)
    label: Callable[[Any], str] = str
    if "name" in df.columns:
        group, what = "name", "case"
    elif HOPS in df.columns:
        df = df.assign(_g=[f"{int(h)} hops, {int(n) if n == n else 1} flow(s)"
                           for h, n in zip(df[HOPS], df[COUNT] if COUNT in df.columns else [1] * len(df))])
        group, what = "_g", "chain"
    else:
        group, what = WIN, "MaxWin"

        def label(w: Any) -> str:
            return str(int(w))
    # the RTT ratio for the one-flow chain of fu-pacing only (several flows have several RTTs)
    rtt = "flow.0.avg_rtt_s" if group == WIN and "flow.0.avg_rtt_s" in df.columns else None
    if group == "_g":
        order = sorted(df["_g"].unique(), key=lambda t: (int(t.split()[0]), t))
        rows = []
        for g in order:
            rows += _readings_rows(df[df["_g"] == g], None, functools.partial(_const, str(g)), rtt)
    else:
        rows = _readings_rows(df, group, label, rtt)
    return {"readings_table": "\n".join([_READINGS_HEAD.format(what=what), *rows])}


# --------------------------------------------------------------------------------------
# fu-lred-chains: LRED + pacing on chains of 3..48 hops (TR Fig. 10 / INFOCOM Fig. 9)
# --------------------------------------------------------------------------------------

def lred_chain_gains(runs: "pd.DataFrame", scheme: str, flows: int) -> "pd.DataFrame":
    """Per hop count: goodput gain (%) of ``scheme`` over NewReno with ``flows`` flows (paired
    by seed: :func:`_gain_pct`), and both schemes' average window per flow."""
    import pandas as pd

    df = lred_with_scheme(runs)
    if COUNT in df.columns:
        df = df[df[COUNT] == flows]
    # the per-flow columns lred_sum_windows reads (row dicts of every metric are slow)
    keep = [c for c in df.columns if c.startswith("flow.") and c.endswith((".goodput_bps", ".avg_cwnd"))]
    df = df[[*[c for c in df.columns if not c.startswith(("flow.", "node.", "drops."))], *keep]]
    rows = []
    for h in sorted(int(x) for x in df[HOPS].unique()):
        a, b = df[(df[HOPS] == h) & (df["scheme"] == scheme)], df[(df[HOPS] == h) & (df["scheme"] == NR)]
        if a.empty or b.empty:
            continue
        wa = mean_ci([lred_sum_windows(r) / flows for r in a.to_dict("records")])
        wb = mean_ci([lred_sum_windows(r) / flows for r in b.to_dict("records")])
        rows.append({"hops": h, "gain": _gain_pct(a.set_index("seed")[GOODPUT], b.set_index("seed")[GOODPUT]),
                     "win": wa, "win_nr": wb, "kbps": mean_ci(a[GOODPUT] / 1e3), "kbps_nr": mean_ci(b[GOODPUT] / 1e3)})
    if not rows:
        raise SpecError(f"no hop count with both {scheme} and NewReno runs ({flows} flows)")
    return pd.DataFrame(rows)


def _pooled(ests: Sequence[Estimate]) -> Estimate:
    cis = [e.ci for e in ests]
    ci = math.sqrt(sum(c * c for c in cis)) / len(cis) if all(c == c for c in cis) else math.nan
    return Estimate(sum(e.mean for e in ests) / len(ests), ci, len(ests), math.nan)


def lred_chain_gain_of(scheme: str, flows: int, long: bool) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        t = lred_chain_gains(ctx.runs, scheme, flows)
        t = t[t["hops"] > 15] if long else t[t["hops"] <= 15]
        if t.empty:
            raise SpecError("no chains in that range")
        return _pooled(list(t["gain"]))

    check.__doc__ = (f"Mean goodput gain (%) of {scheme} over NewReno, {flows} flow(s), chains of "
                     f"{'more than' if long else 'at most'} 15 hops: the mean over chains of the per-chain gains "
                     "paired by seed; CI from the per-chain paired CIs, the chains taken as independent.")
    return check


def lred_chain_trend_of(scheme: str, flows: int) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        t = lred_chain_gains(ctx.runs, scheme, flows)
        return Estimate(chain_spearman(list(t["hops"]), [g.mean for g in t["gain"]]), math.nan, len(t), math.nan)

    check.__doc__ = f"Spearman rank correlation of hop count and {scheme}'s gain over NewReno ({flows} flow(s))."
    return check


def lred_chain_window_of(scheme: str, flows: int) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        t = lred_chain_gains(ctx.runs, scheme, flows)
        d = []
        for r in t.itertuples(index=False):
            w = model("wstar", topology="chain", hops=int(r.hops))["wstar"]["exact"] / flows
            d.append(abs(r.win_nr.mean - w) - abs(r.win.mean - w))
        return Estimate(sum(d) / len(d), math.nan, len(d), math.nan)

    check.__doc__ = (f"Mean over hop counts of |NewReno's window − W*| − |{scheme}'s window − W*| per flow "
                     f"(W* = h/4 shared by {flows} flow(s)): positive = {scheme} is closer to W*.")
    return check


@register("check")
def lred_chain_gain(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str, flows: int,
                    long: bool) -> Estimate:
    """Mean goodput gain (%) of ``scheme`` over NewReno with ``flows`` flows, on chains of at most 15
    hops (``long = false``) or more (``long = true``)."""
    return lred_chain_gain_of(scheme, flows, long)(ctx, runs, point)


@register("check")
def lred_chain_trend(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str,
                     flows: int) -> Estimate:
    """Spearman rank correlation of hop count and ``scheme``'s gain over NewReno."""
    return lred_chain_trend_of(scheme, flows)(ctx, runs, point)


@register("check")
def lred_chain_window(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str,
                      flows: int) -> Estimate:
    """Mean over hop counts of |NewReno's window − W*| − |``scheme``'s window − W*| per flow."""
    return lred_chain_window_of(scheme, flows)(ctx, runs, point)


@register("figure")
def lred_chains_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """TR Fig. 10 / INFOCOM Fig. 9: throughput against hop count, NewReno and LRED+pacing
    (both readings); left one flow, middle six flows (aggregate); right the average
    window per flow against h/4."""
    df = lred_with_scheme(ctx.runs)
    fig = new_figure(*opts.get("size", (14.0, 4.3)))
    axes = fig.subplots(1, 3)
    counts = sorted(int(c) for c in df[COUNT].unique()) if COUNT in df.columns else [1]
    for ax, n in zip(axes[:2], counts, strict=False):
        d = df[df[COUNT] == n] if COUNT in df.columns else df
        for s in [NR, "LRED+pacing (TR)", "LRED+pacing (INFOCOM)"]:
            g = d[d["scheme"] == s]
            if g.empty:
                continue
            t = chain_means(g, HOPS, GOODPUT)
            ax.errorbar(t[HOPS], t["mean"] / 1e3, yerr=t["ci"].fillna(0) / 1e3, marker="o", ms=4, capsize=2,
                        color=_color(s), label=s)
        ax.set_xscale("log")
        hs = sorted(int(h) for h in d[HOPS].unique())
        ax.set_xticks(hs, [str(h) for h in hs])
        ax.minorticks_off()
        _style(ax, "Hop count h", "Aggregate throughput (kb/s)", f"{n} flow{'s' if n > 1 else ''}")
        ax.legend(fontsize=7)
    ax = axes[2]
    for n, ls in zip(counts, ("-", "--"), strict=False):
        for s in [NR, "LRED+pacing (TR)", "LRED+pacing (INFOCOM)"]:
            try:
                t = lred_chain_gains(ctx.runs, s if s != NR else "LRED+pacing (TR)", n)
            except SpecError:
                continue
            col = "win_nr" if s == NR else "win"
            if s == NR and ls == "--" and n != counts[-1]:
                continue
            ax.plot(t["hops"], [e.mean for e in t[col]], marker="o", ms=3, ls=ls, color=_color(s),
                    label=f"{s}, {n} flow{'s' if n > 1 else ''}")
    hh = sorted(int(h) for h in df[HOPS].unique())
    ax.plot(hh, [h / 4 for h in hh], "k:", label="h/4 (one flow's W*)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(hh, [str(h) for h in hh])
    yt = [0.5, 1, 2, 5, 10, 20, 50]
    ax.set_yticks(yt, [f"{v:g}" for v in yt])
    ax.minorticks_off()
    _style(ax, "Hop count h", "Average window per flow (packets)", "Average window")
    ax.legend(fontsize=6)
    return fig


# --------------------------------------------------------------------------------------
# fu-lred-topologies: cross and 13x13 grid (TR Tables 4-6 / INFOCOM Tables 5-7)
# --------------------------------------------------------------------------------------

_GRID13 = {"kind": "grid", "rows": 13, "cols": 13, "spacing_m": 200.0}
#: the 2-flow grid of TR Table 6 (one row and one column flow, the grids' layout rule)
GRID2 = Case("grid2", "13x13 grid, 2 flows", 2, _GRID13, tuple((s, d, 1) for s, d in net_grid_flows(13, 13, 2)))

#: printed numbers: (NewReno aggregate kb/s, NewReno fairness, LRED+ aggregate, LRED+ fairness)
TOPO_PAPER = {
    "cross2": (244.0, 0.5, 319.0, 0.9983),
    "grid2": (203.0, 0.502, 252.0, 0.921),
    "grid4": (241.0, 0.508, 294.0, 0.952),
    "grid8": (824.0, 0.524, 963.0, 0.527),
    "grid12": (690.0, 0.455, 880.0, 0.56),
}
#: per-flow goodputs (kb/s) printed for the cross (TR Table 4) and the 4-flow grid (TR Table 5, bps there)
TOPO_PER_FLOW: dict[str, dict[str, tuple[float, ...]]] = {
    "cross2": {NR: (244.0, 0.0), "LRED+": (166.0, 153.0)},
    "grid4": {NR: (0.532, 126.229, 115.554, 1.608), "LRED+": (85.512, 90.459, 70.334, 47.946)},
}


@register("derive")
def lred_topology_case(params: Mapping[str, Any], base: "Scenario") -> dict[str, Any]:
    """Builder: ``net_topology_case`` (fu-topologies' cases), plus ``grid2``."""
    name = params.get("name", base.document.get("name"))
    if name != "grid2":
        return net_topology_case(params, base)
    flows = base.document.get("flows") or []
    if not flows:
        raise SpecError(f"derive lred_topology_case: scenario '{base.name}' has no [[flows]] to use as a template")
    template = {k: v for k, v in flows[0].items() if k not in ("src", "dst", "count", "route")}
    flows_out = [{**template, "src": s, "dst": d} for s, d, _ in GRID2.endpoints]
    return {"topology": dict(GRID2.topology), "flows": flows_out}


def _case(df: "pd.DataFrame", case: str, scheme: str) -> "pd.DataFrame":
    out = df[(df["name"] == case) & (df["scheme"] == scheme)] if "name" in df.columns else df.iloc[0:0]
    if out.empty:
        raise SpecError(f"no runs of {scheme} on {case}")
    return out


def _goodput_rows(df: "pd.DataFrame") -> list[dict[str, Any]]:
    """The runs' per-flow goodput columns as row dicts (the other columns of a wide frame are slow to copy)."""
    return df[[c for c in df.columns if c.startswith("flow.") and c.endswith(".goodput_bps")]].to_dict("records")


def _fairness(df: "pd.DataFrame") -> list[float]:
    return [jain([r[f"flow.{i}.goodput_bps"] for i in flow_ids(r)]) for r in _goodput_rows(df)]


def lred_topo_check(case: str, scheme: str, what: str) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        d = _case(lred_with_scheme(ctx.runs), case, scheme)
        if what == "kbps":
            return mean_ci(d[GOODPUT] / 1e3)
        if what == "fairness":
            return mean_ci(_fairness(d))
        if what == "gain":
            nr = _case(lred_with_scheme(ctx.runs), case, NR)
            return _gain_pct(lred_by_seed(d, GOODPUT, f"{scheme} on {case}"),
                             lred_by_seed(nr, GOODPUT, f"NewReno on {case}"))
        if what == "fairgain":
            import pandas as pd

            nr = _case(lred_with_scheme(ctx.runs), case, NR)
            a = pd.Series(_fairness(d), index=lred_by_seed(d, GOODPUT, f"{scheme} on {case}").index, dtype=float)
            b = pd.Series(_fairness(nr), index=lred_by_seed(nr, GOODPUT, f"NewReno on {case}").index, dtype=float)
            return paired_gain(b, a, "diff")
        raise SpecError(f"lred_topo_check: unknown quantity {what!r}")

    check.__doc__ = {"kbps": "Aggregate goodput (kb/s)", "fairness": "Jain's index over the flows' goodputs",
                     "gain": "Aggregate goodput gain over NewReno (%, paired by seed)",
                     "fairgain": "Jain's index minus NewReno's (paired by seed)"}[what] + f" of {scheme} on {case}."
    return check


def lred_topo_flows(df: "pd.DataFrame") -> list[list[float]]:
    """Per run, the flows' goodputs (kb/s) sorted from the largest."""
    return [sorted((r[f"flow.{i}.goodput_bps"] / 1e3 for i in flow_ids(r)), reverse=True) for r in _goodput_rows(df)]


def lred_topo_flow_rank(case: str, scheme: str, rank: int) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        d = _case(lred_with_scheme(ctx.runs), case, scheme)
        return mean_ci([f[rank] for f in lred_topo_flows(d) if len(f) > rank])

    check.__doc__ = f"Goodput (kb/s) of the flow ranked {rank + 1} by goodput in each run, {scheme} on {case}."
    return check


@register("check")
def lred_topo(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, case: str, scheme: str,
              quantity: str) -> Estimate:
    """A quantity of ``scheme`` on a topology case: ``kbps`` (aggregate goodput), ``fairness`` (Jain's
    index), ``gain`` (aggregate goodput gain over NewReno, %), ``fairgain`` (Jain's index minus NewReno's)."""
    return lred_topo_check(case, scheme, quantity)(ctx, runs, point)


@register("values")
def lred_topologies_values(ctx: "Context") -> dict[str, Any]:
    """``tr_fair_lo`` / ``tr_fair_hi``: the range of Jain's index with the TR reading of pacing on the
    cross, the 2-flow and the 4-flow grid (the cases the notes' fairness sentence is about)."""
    cases = [c for c in ("cross2", "grid2", "grid4") if "name" in ctx.runs.columns and (ctx.runs["name"] == c).any()]
    fair = [lred_topo(ctx, ctx.runs, {}, case=c, scheme="LRED+pacing (TR)", quantity="fairness").mean for c in cases]
    fair = [f for f in fair if f == f]
    # NewReno's aggregate against Table 6, per case: the cases more than 15% (the claims' tolerance) away
    present = [c for c in TOPO_PAPER if "name" in ctx.runs.columns and (ctx.runs["name"] == c).any()]
    off = [c for c in present
           if abs(lred_topo(ctx, ctx.runs, {}, case=c, scheme=NR, quantity="kbps").mean / TOPO_PAPER[c][0] - 1) > 0.15]
    return {"tr_fair_lo": min(fair, default=math.nan), "tr_fair_hi": max(fair, default=math.nan),
            "nr_agg_off": ", ".join(off) or "none"}


@register("check")
def lred_topo_rank(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, case: str, scheme: str,
                   rank: int) -> Estimate:
    """Goodput (kb/s) of the flow ranked ``rank`` (1 = the largest) in each run of ``scheme`` on a case."""
    return lred_topo_flow_rank(case, scheme, rank - 1)(ctx, runs, point)


@register("figure")
def lred_topologies_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"],
                           opts: Mapping[str, Any]) -> "Figure":
    """TR Tables 4-6 side by side. Left: aggregate throughput per case and scheme, paper
    (hatched) and hoptcp (95% CI). Middle: Jain's fairness index. Right: per-flow
    goodputs, sorted, on the cross and the 4-flow grid (paper: open markers)."""
    import numpy as np

    df = lred_with_scheme(ctx.runs)
    cases = [c for c in TOPO_PAPER if "name" in df.columns and (df["name"] == c).any()]
    schemes = [NR, "LRED+pacing (TR)", "LRED+pacing (INFOCOM)"]
    fig = new_figure(*opts.get("size", (15.0, 4.6)))
    a1, a2, a3 = fig.subplots(1, 3, width_ratios=[1.3, 1.3, 1.0])
    x = np.arange(len(cases))
    wdt = 0.16
    for ax, what, col in ((a1, "kbps", 0), (a2, "fairness", 1)):
        ax.bar(x - 2 * wdt, [TOPO_PAPER[c][col] for c in cases], wdt, color="0.6", hatch="//", label="paper: NewReno")
        ax.bar(x - wdt, [TOPO_PAPER[c][col + 2] for c in cases], wdt, color="C3", alpha=0.5, hatch="//",
               label="paper: LRED+pacing")
        for k, s in enumerate(schemes):
            es = []
            for c in cases:
                try:
                    es.append(lred_topo_check(c, s, what)(ctx, ctx.runs, {}))
                except SpecError:
                    es.append(_NAN)
            ax.bar(x + k * wdt, [0 if e.mean != e.mean else e.mean for e in es], wdt,
                   yerr=[0 if e.ci != e.ci else e.ci for e in es], capsize=2, color=_color(s), label=f"hoptcp: {s}")
        ax.set_xticks(x, cases)
        _style(ax, "", "Aggregate throughput (kb/s)" if what == "kbps" else "Jain's fairness index",
               "Aggregate throughput" if what == "kbps" else "Fairness")
        ax.legend(fontsize=6.5)
    a2.set_ylim(0, 1.1)
    pos = 0.0
    ticks: list[float] = []
    labels: list[str] = []
    for c in ("cross2", "grid4"):
        if c not in cases:
            continue
        for s, key in ((NR, NR), ("LRED+pacing (TR)", "LRED+"), ("LRED+pacing (INFOCOM)", "LRED+")):
            flows = lred_topo_flows(_case(df, c, s))
            n = len(TOPO_PER_FLOW[c][key])
            means = [float(np.mean([f[i] for f in flows if len(f) > i])) for i in range(n)]
            xs = pos + np.arange(n) * 0.18
            a3.plot(xs, means, "o-", color=_color(s), ms=4, label=f"{s}" if c == "cross2" else None)
            paper = sorted(TOPO_PER_FLOW[c][key], reverse=True)
            a3.plot(xs, paper, "s", fillstyle="none", color=_color(s), ms=7)
            ticks.append(pos + 0.09 * (n - 1))
            labels.append(f"{c}\n{s.replace('LRED+pacing', 'L+P')}")
            pos += 0.18 * n + 0.3
    a3.plot([], [], "s", fillstyle="none", color="0.3", label="paper (sorted)")
    a3.set_xticks(ticks, labels, fontsize=6)
    _style(a3, "", "Per-flow goodput, largest first (kb/s)", "Per-flow goodput (TR Tables 4, 5)")
    a3.legend(fontsize=6.5)
    return fig


# --------------------------------------------------------------------------------------
# fu-queue-deviation: INFOCOM Table 1
# --------------------------------------------------------------------------------------

#: INFOCOM Table 1: queue size deviation by chain length
QDEV_PAPER = {4: 1.45, 7: 1.31, 10: 1.23, 16: 1.10, 48: 1.05}


@register("derive")
def lred_wstar_window(params: Mapping[str, Any], base: "Scenario") -> dict[str, Any]:
    """Builder: the flow from node 0 to the chain's end; MaxWin = ceil(h/4) (the W*
    formula) when the point's ``tcp.max_window`` is 0 or absent, else the point's."""
    out = chain_flow_to_end(params, base)
    h = int(out["flows.0.dst"])
    w = params.get(WIN) or model("wstar", topology="chain", hops=h)["wstar"]["rounded"]
    out["tcp.max_window"] = int(w)
    return out


def _qdev_runs(runs: "pd.DataFrame", hops: int, window: int) -> "pd.DataFrame":
    """Runs on the ``hops`` chain at MaxWin ``window`` (0: the ceil(h/4) reading)."""
    sel = runs[runs[HOPS] == hops]
    if WIN in sel.columns:
        sel = sel[sel[WIN].fillna(0) == window]
    elif window:
        sel = sel.iloc[0:0]
    if sel.empty:
        raise SpecError(f"no runs on the {hops}-hop chain at MaxWin {window or 'ceil(h/4)'}")
    return sel


def lred_occupancy(row: Mapping[str, Any], nodes: Sequence[int]) -> list[float]:
    """Time-average packets at each node: waiting in the queue plus the one the MAC holds."""
    return [float(row[f"node.{i}.queue_avg"]) + float(row[f"node.{i}.backlog_frac"]) for i in nodes]


def lred_queue_deviation(row: Mapping[str, Any], reading: str = "max_over_mean") -> float:
    """Unevenness of the packets' spread over the intermediate nodes (1..h-1) of a chain
    run. ``max_over_mean``: the largest node's time-average occupancy over the mean (1 =
    even); ``one_plus_cv``: 1 + standard deviation / mean of the occupancies."""
    ids = [i for i in _node_ids(row, "queue_avg")]
    if len(ids) < 3:
        raise SpecError("queue deviation: a chain of at least 2 hops is needed")
    occ = lred_occupancy(row, ids[1:-1])
    mean = sum(occ) / len(occ)
    if mean <= 0:
        return math.nan
    if reading == "max_over_mean":
        return max(occ) / mean
    if reading == "one_plus_cv":
        sd = math.sqrt(sum((o - mean) ** 2 for o in occ) / len(occ))
        return 1 + sd / mean
    raise SpecError(f"queue deviation: reading {reading!r}; expected 'max_over_mean' or 'one_plus_cv'")


def lred_qdev_at(hops: int, reading: str = "max_over_mean", window: int = 0) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        sel = _qdev_runs(ctx.runs, hops, window)
        return mean_ci([lred_queue_deviation(r, reading) for r in sel.to_dict("records")])

    at = f"MaxWin {window}" if window else "MaxWin ceil(h/4)"
    check.__doc__ = f"Queue size deviation ({reading}) on the {hops}-hop chain at {at}."
    return check


@register("check")
def lred_qdev(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, hops: int,
              window: int = 0) -> Estimate:
    """Queue size deviation on the ``hops``-hop chain at MaxWin ``window`` (0: ceil(h/4))."""
    return lred_qdev_at(hops, window=window)(ctx, runs, point)


def _qdev_trend(ctx: "Context", window: int) -> Estimate:
    hs = sorted(int(h) for h in ctx.runs[HOPS].unique())
    ys = [lred_qdev_at(h, window=window)(ctx, ctx.runs, {}).mean for h in hs]
    return Estimate(chain_spearman(hs, ys), math.nan, len(hs), math.nan)


@register("check")
def lred_qdev_trend(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Spearman rank correlation of hop count and the mean queue size deviation (MaxWin ceil(h/4))."""
    return _qdev_trend(ctx, 0)


@register("check")
def lred_qdev_trend32(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """As lred_qdev_trend, at MaxWin 32 (side experiment)."""
    return _qdev_trend(ctx, 32)


@register("figure")
def lred_qdev_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """INFOCOM Table 1: queue size deviation against chain length (two readings), and the
    per-node occupancy profile of each chain."""
    hs = sorted(int(h) for h in ctx.runs[HOPS].unique())
    windows = sorted({int(w) for w in ctx.runs[WIN].fillna(0)}) if WIN in ctx.runs.columns else [0]
    fig = new_figure(*opts.get("size", (11.0, 4.2)))
    a1, a2 = fig.subplots(1, 2)
    for i, (reading, window) in enumerate((r, w) for w in windows for r in ("max_over_mean", "one_plus_cv")):
        es = [lred_qdev_at(h, reading, window)(ctx, ctx.runs, {}) for h in hs]
        at = f"MaxWin {window}" if window else "MaxWin ceil(h/4)"
        a1.errorbar(hs, [e.mean for e in es], yerr=[0 if e.ci != e.ci else e.ci for e in es], marker="o",
                    capsize=3, color=f"C{i}", ls="-" if not window else "--",
                    label=f"hoptcp: {reading.replace('_', ' ')}, {at}")
    a1.plot(list(QDEV_PAPER), list(QDEV_PAPER.values()), "s", fillstyle="none", ms=9, color="C3",
            label="paper (INFOCOM Table 1)")
    a1.set_xscale("log")
    a1.set_xticks(hs, [str(h) for h in hs])
    a1.minorticks_off()
    _style(a1, "Chain length (hops)", "Queue size deviation", "Deviation against chain length")
    a1.legend(fontsize=7)
    for i, h in enumerate(hs):
        sel = _qdev_runs(ctx.runs, h, 0).to_dict("records")
        ids = _node_ids(sel[0], "queue_avg")
        occ = [sum(v) / len(v) for v in zip(*[lred_occupancy(r, ids) for r in sel], strict=True)]
        mean_mid = sum(occ[1:-1]) / max(len(occ) - 2, 1)
        a2.plot([j / h for j in ids], [o / mean_mid for o in occ], marker=".", color=f"C{i}", label=f"{h} hops")
    _style(a2, "Position along the chain (node / h)", "Occupancy / mean over intermediate nodes",
           "Where the packets wait, MaxWin ceil(h/4)")
    a2.legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------------------
# fu-varsize: the optimal window with two packet sizes (INFOCOM §7)
# --------------------------------------------------------------------------------------

def lred_byte_window(row: Mapping[str, Any], sizes: Sequence[int]) -> float:
    """Aggregate time-average window in bytes: sum over flows of avg_cwnd × (payload + 40)."""
    return float(sum(float(row[f"flow.{i}.avg_cwnd"]) * (s + 40) for i, s in enumerate(sizes)))


def _sizes(ctx: "Context") -> list[int]:
    flows = ctx.resolved(ctx.spec.points()[0])["flows"]
    tcp = ctx.resolved(ctx.spec.points()[0])["tcp"]
    return [int(f.get("payload_bytes") or tcp["payload_bytes"]) for f in flows]


def lred_varsize_table(ctx: "Context") -> "pd.DataFrame":
    """Per MaxWin: mean goodput (bytes/s of payload, all flows), the byte window
    offered (MaxWin × packet sizes) and the measured average byte window."""
    import pandas as pd

    sizes = _sizes(ctx)
    rows = []
    for w, g in ctx.runs.groupby(WIN, sort=True):
        recs = g.to_dict("records")
        rows.append({"win": int(w), "goodput": mean_ci(g[GOODPUT]),
                     "offered_bytes": int(w) * sum(s + 40 for s in sizes),
                     "avg_bytes": mean_ci([lred_byte_window(r, sizes) for r in recs])})
    return pd.DataFrame(rows)


@register("check")
def lred_varsize_loss(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Goodput lost at MaxWin 32 (the largest) against the best MaxWin (%), both flows together:
    100·(1 − goodput(32)/goodput(best)) per seed (every MaxWin runs the same seeds), mean and
    Student-t CI over seeds; the best MaxWin is the one of the largest mean goodput."""
    t = lred_varsize_table(ctx)
    i = max(range(len(t)), key=lambda k: t.iloc[k]["goodput"].mean)
    runs = ctx.runs
    best = lred_by_seed(runs[runs[WIN] == t.iloc[i]["win"]], GOODPUT, "the best MaxWin")
    last = lred_by_seed(runs[runs[WIN] == t.iloc[-1]["win"]], GOODPUT, "the largest MaxWin")
    return paired_gain(best, last, "loss_pct")


@register("check")
def lred_varsize_overshoot(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Average byte window at MaxWin 32 (the largest) over the byte window W* of the best MaxWin:
    the ratio per seed (every MaxWin runs the same seeds), mean and Student-t CI over seeds."""
    t = lred_varsize_table(ctx)
    i = max(range(len(t)), key=lambda k: t.iloc[k]["goodput"].mean)
    sizes = _sizes(ctx)

    def windows(w: Any) -> "pd.Series":
        import pandas as pd

        g = ctx.runs[ctx.runs[WIN] == w]
        seeds = lred_by_seed(g, GOODPUT, f"MaxWin {w}").index
        return pd.Series([lred_byte_window(r, sizes) for r in g.to_dict("records")], index=seeds, dtype=float)

    return paired_gain(windows(t.iloc[i]["win"]), windows(t.iloc[-1]["win"]), "ratio")


def lred_varsize_best(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """The best MaxWin (packets per flow)."""
    t = lred_varsize_table(ctx)
    i = max(range(len(t)), key=lambda k: t.iloc[k]["goodput"].mean)
    return Estimate(float(t.iloc[i]["win"]), math.nan, 1, math.nan)


@register("figure")
def lred_varsize_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Goodput against the average window in bytes (two flows, two packet sizes), with
    the per-flow goodputs."""
    t = lred_varsize_table(ctx)
    sizes = _sizes(ctx)
    fig = new_figure(*opts.get("size", (11.0, 4.2)))
    a1, a2 = fig.subplots(1, 2)
    xs = [e.mean / 1e3 for e in t["avg_bytes"]]
    a1.errorbar(xs, [e.mean / 1e3 for e in t["goodput"]],
                yerr=[0 if e.ci != e.ci else e.ci / 1e3 for e in t["goodput"]],
                xerr=[0 if e.ci != e.ci else e.ci / 1e3 for e in t["avg_bytes"]], marker="o", capsize=2, color="C0",
                label="hoptcp (MaxWin 1..32 per flow)")
    for x, y, w in zip(xs, [e.mean / 1e3 for e in t["goodput"]], t["win"], strict=True):
        a1.annotate(str(w), (x, y), textcoords="offset points", xytext=(3, 3), fontsize=7)
    i = max(range(len(t)), key=lambda k: t.iloc[k]["goodput"].mean)
    a1.axvline(xs[i], color="C3", ls="--", lw=1, label=f"W* = {xs[i]:.1f} kB (MaxWin {t.iloc[i]['win']})")
    a1.set_xscale("log")
    ticks = [v for v in (1, 2, 3, 4, 6, 8, 10, 15, 20, 30, 50) if min(xs) / 1.2 <= v <= max(xs) * 1.2]
    a1.set_xticks(ticks, [str(v) for v in ticks])
    a1.minorticks_off()
    _style(a1, "Average window of both flows (kB in flight)", "Aggregate throughput (kb/s)",
           f"Two flows, {sizes[0]} B and {sizes[1]} B segments")
    a1.legend(fontsize=7)
    for k, s in enumerate(sizes):
        col = f"flow.{k}.goodput_bps"
        tt = chain_means(ctx.runs, WIN, col)
        a2.errorbar(tt[WIN], tt["mean"] / 1e3, yerr=tt["ci"].fillna(0) / 1e3, marker="o", ms=4, capsize=2,
                    color=f"C{k + 1}", label=f"flow {k}: {s} B segments")
    a2.set_xscale("log", base=2)
    ws = sorted(int(w) for w in t["win"])
    a2.set_xticks(ws, [str(w) for w in ws])
    _style(a2, "MaxWin (packets, each flow)", "Throughput (kb/s)", "Per flow")
    a2.legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------------------
# fu-contention-throughput: TR Fig. 5 (right)
# --------------------------------------------------------------------------------------

RATE = "flows.0.rate_bps"
TRANSPORT = "flows.0.transport"


def _with_drop_frac(runs: "pd.DataFrame") -> "pd.DataFrame":
    """Contention drops per packet entering the chain (fu-linkdrop's definition)."""
    return runs.assign(drop_frac=[chain_link_drop(r, "packet") for r in runs.to_dict("records")])


def _udp_curve(runs: "pd.DataFrame") -> "pd.DataFrame":
    u = runs[runs[TRANSPORT] == "udp"] if TRANSPORT in runs.columns else runs
    if u.empty:
        raise SpecError("no UDP runs")
    return _with_drop_frac(u)


@register("check")
def lred_udp_peak_drop(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Delivered CBR throughput at the largest offered load below its peak (% of the peak):
    100·(1 − goodput(largest load)/goodput(load of the peak mean)) per seed (every load runs the
    same seeds), mean and Student-t CI over seeds."""
    u = _udp_curve(ctx.runs)
    t = chain_means(u, RATE, GOODPUT)
    i = int(t["mean"].idxmax())
    peak = lred_by_seed(u[u[RATE] == t.at[i, RATE]], GOODPUT, "the peak load")
    last = lred_by_seed(u[u[RATE] == t[RATE].max()], GOODPUT, "the largest load")
    return paired_gain(peak, last, "loss_pct")


@register("check")
def lred_udp_peak_drop_prob(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Contention drops per packet entering the chain at the offered load of peak throughput (%)."""
    u = _udp_curve(ctx.runs)
    t = chain_means(u, RATE, GOODPUT)
    i = int(t["mean"].idxmax())
    return mean_ci(100 * u[u[RATE] == t.at[i, RATE]]["drop_frac"])


@register("check")
def lred_udp_top_drop_prob(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Contention drops per packet entering the chain at the largest offered load (%)."""
    u = _udp_curve(ctx.runs)
    return mean_ci(100 * u[u[RATE] == u[RATE].max()]["drop_frac"])


@register("values")
def fu_contention_values(ctx: "Context") -> dict[str, Any]:
    """Numbers quoted in fu-contention-throughput's notes: the UDP curve's peak and fall, the drop
    probability at and one load step below the peak, TCP's best MaxWin."""
    u = _udp_curve(ctx.runs)
    t = chain_means(u, RATE, GOODPUT)
    d = chain_means(u, RATE, "drop_frac").set_index(RATE)["mean"]
    i = int(t["mean"].idxmax())
    loads = list(t[RATE])
    below = loads[i - 1] if i > 0 else math.nan
    tc = ctx.runs[ctx.runs[TRANSPORT] == "tcp"] if TRANSPORT in ctx.runs.columns else ctx.runs.iloc[0:0]
    return {
        "udp_peak": float(t.at[i, "mean"]) / 1e3, "udp_peak_load": float(t.at[i, RATE]) / 1e3,
        "udp_fall": lred_udp_peak_drop(ctx, ctx.runs, {}).mean,
        "udp_top_load": float(t[RATE].max()) / 1e3, "udp_top_drop": 100 * float(d[t[RATE].max()]),
        "udp_peak_drop": 100 * float(d[t.at[i, RATE]]),
        "udp_below_peak_drop": 100 * float(d[below]) if below == below else math.nan,
        "tcp_best_window": chain_best(tc)[0] if len(tc) else "-",
    }


@register("figure")
def lred_contention_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"],
                           opts: Mapping[str, Any]) -> "Figure":
    """TR Fig. 5 (right): delivered throughput and contention drop probability against
    the offered load (one CBR flow, 7-hop chain); right: the same for TCP against MaxWin."""
    u = _udp_curve(ctx.runs)
    fig = new_figure(*opts.get("size", (11.0, 4.2)))
    a1, a3 = fig.subplots(1, 2)
    t = chain_means(u, RATE, GOODPUT)
    d = chain_means(u, RATE, "drop_frac")
    a1.errorbar(t[RATE] / 1e3, t["mean"] / 1e3, yerr=t["ci"].fillna(0) / 1e3, marker="o", ms=4, capsize=2,
                color="C0", label="delivered throughput")
    a1.plot(t[RATE] / 1e3, t[RATE] / 1e3, ":", color="0.5", lw=1, label="delivered = offered")
    _style(a1, "Offered load (kb/s, CBR payload)", "Throughput (kb/s)", "UDP/CBR, 7-hop chain")
    top = float(t["mean"].max() / 1e3)
    a1.set_ylim(0, 1.3 * top)
    a2 = a1.twinx()
    a2.errorbar(d[RATE] / 1e3, 100 * d["mean"], yerr=100 * d["ci"].fillna(0), marker="s", ms=3, capsize=2,
                color="C3", ls="--", label="contention drops per packet (%)")
    a2.set_ylabel("Contention drop probability (%)", color="C3")
    h1, l1 = a1.get_legend_handles_labels()
    h2, l2 = a2.get_legend_handles_labels()
    a1.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
    tc = ctx.runs[ctx.runs[TRANSPORT] == "tcp"] if TRANSPORT in ctx.runs.columns else ctx.runs.iloc[0:0]
    if len(tc):
        tc = _with_drop_frac(tc)
        t = chain_means(tc, WIN, GOODPUT)
        d = chain_means(tc, WIN, "drop_frac")
        a3.errorbar(t[WIN], t["mean"] / 1e3, yerr=t["ci"].fillna(0) / 1e3, marker="o", ms=4, capsize=2,
                    color="C0", label="TCP throughput")
        a4 = a3.twinx()
        a4.errorbar(d[WIN], 100 * d["mean"], yerr=100 * d["ci"].fillna(0), marker="s", ms=3, capsize=2, color="C3",
                    ls="--", label="contention drops per packet (%)")
        a4.set_ylabel("Contention drop probability (%)", color="C3")
        a3.set_xscale("log", base=2)
        ws = sorted(int(w) for w in t[WIN])
        a3.set_xticks(ws, [str(w) for w in ws])
        a3.set_ylim(0, 1.3 * float(t["mean"].max() / 1e3))
        _style(a3, "MaxWin (packets)", "Throughput (kb/s)", "TCP NewReno, 7-hop chain")
        h1, l1 = a3.get_legend_handles_labels()
        h2, l2 = a4.get_legend_handles_labels()
        a3.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower right")
    return fig


