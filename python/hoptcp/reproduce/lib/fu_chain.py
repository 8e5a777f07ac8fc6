"""Fu et al. (2003), TCP on chains: builders, checks and figures for the entries
``fu-window``, ``fu-avgwin``, ``fu-wstar``, ``fu-vegas`` and ``fu-linkdrop``.

Every function that works on runs takes a plain DataFrame (one row per run, the
sweep parameters and the flat metrics as columns), so it can be tested with
hand-made frames. Names start with ``chain_`` or ``fu_``; entry functions register with
``@register`` (:mod:`hoptcp.reproduce.registry`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ...errors import SpecError
from ...models import model
from ...plotting import new_figure
from ...results import per_id
from ...stats import Estimate, mean_ci, paired_gain, paired_over_points, paired_values
from ..registry import register

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..report import ClaimResult, Context

GOODPUT = "aggregate_goodput_bps"
HOPS = "topology.hops"
WIN = "tcp.max_window"
SIZE = "tcp.payload_bytes"
VARIANT = "tcp.variant"
RATE = "flows.0.rate_bps"
JITTER = "flows.0.jitter"
TRANSPORT = "flows.0.transport"
DST = "flows.0.dst"

#: INFOCOM 2003 Table 2: average TCP window against MaxWin on the 7-hop chain
FU_TABLE2 = {1: 1.0, 2: 2.0, 4: 3.9, 8: 7.1, 16: 9.2, 32: 9.6}


# --- builders (derive) -----------------------------------------------------------------

def _hops(params: Mapping[str, Any], base: Any) -> int:
    h = params.get(HOPS, ((base.document.get("topology") or {}).get("hops")))
    if not isinstance(h, int) or h < 1:
        raise SpecError(f"derive: topology.hops = {h!r}; expected an integer >= 1")
    return h


@register("derive")
def chain_flow_to_end(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """The first flow runs from node 0 to the last node of the chain (node ``hops``)."""
    return {"flows.0.src": 0, "flows.0.dst": _hops(params, base)}


@register("derive")
def fu_linkdrop_flow(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """The flows of a ``fu-linkdrop`` point, chosen by ``flows.0.transport`` and ``flows.0.dst``.

    - TCP: one FTP flow from node 0 to the last node. The point's ``flows.0.rate_bps``
      and ``flows.0.jitter`` are placeholders (0) there: the flow is rebuilt without
      them, since the core rejects CBR keys on a TCP flow.
    - UDP with ``flows.0.dst`` = the last node: one CBR flow end to end.
    - UDP with ``flows.0.dst = 1``: one one-hop CBR flow per link (i -> i+1, i = 0..h-1),
      each at ``flows.0.rate_bps``: the setup of TR Fig. 7.
    The CBR packet size is the base flow's.
    """
    h = _hops(params, base)
    template = dict((base.document.get("flows") or [{}])[0])
    transport = params.get(TRANSPORT, template.get("transport", "udp"))
    if transport == "tcp":
        return {"flows": [{"src": 0, "dst": h, "transport": "tcp", "app": "ftp"}]}
    flow: dict[str, Any] = {"src": 0, "dst": h, "transport": "udp", "app": "cbr",
            "packet_bytes": int(template.get("packet_bytes", 1460)),
            "rate_bps": float(params.get(RATE, template.get("rate_bps", 0.0))),
            "jitter": float(params.get(JITTER, template.get("jitter", 0.0)))}
    if flow["rate_bps"] <= 0:
        raise SpecError(f"derive fu_linkdrop_flow: a UDP point needs flows.0.rate_bps > 0, got {flow['rate_bps']}")
    dst = params.get(DST, h)
    if dst == 1:
        return {"flows": [{**flow, "src": i, "dst": i + 1} for i in range(h)]}
    if dst != h:
        raise SpecError(f"derive fu_linkdrop_flow: flows.0.dst = {dst!r}; expected {h} (end to end) or 1 (one-hop flows)")
    return {"flows": [flow]}


# --- small statistics helpers ----------------------------------------------------------

def chain_means(runs: "pd.DataFrame", by: str | Sequence[str], metric: str) -> "pd.DataFrame":
    """Mean, 95% CI half-width and n of ``metric`` per value of ``by`` (sorted)."""
    import pandas as pd

    by = [by] if isinstance(by, str) else list(by)
    if metric not in runs.columns:
        raise SpecError(f"no metric '{metric}' in the runs")
    rows = []
    for key, g in runs.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        e = mean_ci(g[metric])
        rows.append({**dict(zip(by, key)), "mean": e.mean, "ci": e.ci, "n": e.n, "std": e.std})
    return pd.DataFrame(rows, columns=[*by, "mean", "ci", "n", "std"])


def chain_best(runs: "pd.DataFrame", x: str = WIN, metric: str = GOODPUT) -> tuple[Any, float, "pd.DataFrame"]:
    """(argmax of the mean of ``metric`` over ``x``, that mean, the table of means)."""
    t = chain_means(runs, x, metric)
    if t.empty:
        raise SpecError(f"no runs to find the best {x}")
    i = t["mean"].idxmax()
    return t.at[i, x], float(t.at[i, "mean"]), t


def chain_relative_loss(best: "pd.Series", other: "pd.Series") -> Estimate:
    """100·(1 − other/best) per seed (Series indexed by seed): mean and Student-t 95% half-width
    over the seeds both have (:func:`hoptcp.stats.paired_gain`, ``kind = "loss_pct"``). The
    windows (and variants) of a chain run the same seeds, so the comparison is paired; seeds in
    one series only, or with ``best`` 0 or NaN, are left out."""
    return paired_gain(best, other, "loss_pct")


def _by_seed(runs: "pd.DataFrame", metric: str = GOODPUT) -> "pd.Series":
    if "seed" not in runs.columns:
        raise SpecError("no column 'seed' in the runs (the paired comparison aligns on it)")
    return runs.set_index("seed")[metric]


def chain_spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation; NaN (undefined) with fewer than 3 points or when either
    series is constant, said here rather than by a scipy warning."""
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    from scipy import stats

    return float(stats.spearmanr(x, y).statistic)


# --- fu-window ---------------------------------------------------------------------------

def _sized(runs: "pd.DataFrame", payload_bytes: int) -> "pd.DataFrame":
    return runs[runs[SIZE] == payload_bytes] if SIZE in runs.columns else runs


@register("check")
def fu_window_best(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, payload_bytes: int) -> Estimate:
    """MaxWin with the highest mean goodput, one segment size."""
    sub = _sized(runs, payload_bytes)
    if sub.empty:
        raise SpecError(f"no runs with {SIZE} = {payload_bytes}")
    w, _, _ = chain_best(sub)
    return Estimate(float(w), math.nan, int(sub["seed"].nunique()), math.nan)


@register("check")
def fu_window_loss32(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, payload_bytes: int) -> Estimate:
    """Goodput at MaxWin 32 below the best MaxWin, in % of the best, one segment size."""
    return fu_window_loss(_sized(runs, payload_bytes), 32)


def fu_window_loss(runs: "pd.DataFrame", window: int) -> Estimate:
    """100·(1 − goodput(window)/goodput(best window)) per seed, mean and Student-t CI over the
    seeds (paired: every window runs the same seeds); the best window is the argmax of the mean."""
    w, _, _ = chain_best(runs)
    best = _by_seed(runs[runs[WIN] == w])
    other = _by_seed(runs[runs[WIN] == window])
    if other.dropna().empty:
        raise SpecError(f"no runs at {WIN} = {window}")
    return chain_relative_loss(best, other)


def _style(ax: Any, xlabel: str, ylabel: str, title: str | None = None) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)


@register("figure")
def fu_window_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fu Fig. 2 (left): throughput (kb/s) against MaxWin, one line per packet size."""
    runs = ctx.runs
    fig = new_figure(*opts.get("size", (6.5, 4.2)))
    ax = fig.add_subplot()
    sizes = sorted(runs[SIZE].unique()) if SIZE in runs.columns else [None]
    for i, s in enumerate(sizes):
        sub = runs if s is None else runs[runs[SIZE] == s]
        t = chain_means(sub, WIN, GOODPUT)
        w, best, _ = chain_best(sub)
        ax.errorbar(t[WIN], t["mean"] / 1e3, yerr=t["ci"].fillna(0) / 1e3, marker="o", ms=3, capsize=2,
                    color=f"C{i}", label=f"{s} B (best MaxWin {w})" if s else f"best MaxWin {w}")
        ax.plot([w], [best / 1e3], "*", ms=12, color=f"C{i}", mec="k")
    ax.axvline(3, color="C3", ls="--", lw=1, label="paper: best at MaxWin 3 (all sizes)")
    ax.axvline(model("wstar", topology="chain", hops=7)["wstar"]["exact"], color="0.4", ls=":", lw=1,
               label="h/4 = 1.75")
    ax.set_xlim(0, max(runs[WIN]) + 1)
    _style(ax, "MaxWin (packets)", "Throughput (kb/s)", opts.get("title"))
    ax.legend(fontsize=8, loc="center right")
    return fig


# --- fu-avgwin ---------------------------------------------------------------------------

#: the average window the papers computed from ns-2's traced cwnd_ (no fast-recovery inflation)
TRACED_WINDOW = "flow.0.avg_cwnd_traced"
#: the usable window, inflation included
USABLE_WINDOW = "flow.0.avg_cwnd"


@register("check")
def fu_avgwin_over_wstar(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Average (traced) window at MaxWin 32 divided by W* of the formula (ceil(h/4), 2 on 7 hops)."""
    sel = runs[runs[WIN] == 32] if WIN in runs.columns else runs
    if sel.empty:
        raise SpecError("no runs at MaxWin 32")
    h = int(ctx.resolved({WIN: 32} if WIN in runs.columns else {})["topology"]["hops"])
    w = model("wstar", topology="chain", hops=h)["wstar"]["rounded"]
    e = mean_ci(sel[TRACED_WINDOW])
    return Estimate(e.mean / w, e.ci / w if e.ci == e.ci else e.ci, e.n, e.std / w if e.std == e.std else e.std)


@register("figure")
def fu_avgwin_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Average window against MaxWin: hoptcp's traced-cwnd average (mean, CI) and its usable
    window (fast-recovery inflation included), ns-2.35's traced cwnd_ where stored, and
    INFOCOM Table 2."""
    fig = new_figure(*opts.get("size", (6.5, 4.2)))
    ax = fig.add_subplot()
    runs = ctx.runs
    side = [c for c in ctx.params if c != WIN]
    groups = [((), runs)] if not side else list(runs.groupby(side, sort=False))
    for i, (key, g) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        label = "hoptcp" + (" (" + ", ".join(f"{k} = {v}" for k, v in zip(side, key)) + ")" if side else "")
        t = chain_means(g, WIN, TRACED_WINDOW)
        ax.errorbar(t[WIN], t["mean"], yerr=t["ci"].fillna(0), marker="o", ms=4, capsize=3, color=f"C{i}",
                    label=f"{label}, cwnd (as traced)")
        if USABLE_WINDOW in g.columns:
            u = chain_means(g, WIN, USABLE_WINDOW)
            ax.plot(u[WIN], u["mean"], "--", marker=".", color=f"C{i}", alpha=0.6,
                    label=f"{label}, usable window (with fast-recovery inflation)")
    ns2 = ctx.ns2
    if ns2 is not None and TRACED_WINDOW in ns2.columns and WIN in ns2.columns and not side:
        t = chain_means(ns2, WIN, TRACED_WINDOW)
        ax.errorbar(t[WIN], t["mean"], yerr=t["ci"].fillna(0), marker="^", ms=5, capsize=3, color="C2",
                    linestyle="none", label="ns-2.35, cwnd_ (traced)")
    px, py = zip(*sorted(FU_TABLE2.items()))
    ax.plot(px, py, "s", fillstyle="none", ms=8, color="C3", label="paper (INFOCOM Table 2)")
    ax.plot(px, px, ":", color="0.5", lw=1, label="avg window = MaxWin")
    ax.set_xscale("log", base=2)
    ax.set_xticks(px, [str(p) for p in px])
    ax.set_ylim(0, 14)
    _style(ax, "MaxWin (packets)", "Average TCP window (packets)", opts.get("title"))
    ax.legend(fontsize=8, loc="upper left")
    return fig


# --- fu-wstar ----------------------------------------------------------------------------

def chain_wstar_table(runs: "pd.DataFrame", near: float = 0.02) -> "pd.DataFrame":
    """Per hop count: the best MaxWin W*, its mean goodput, h/4, and the range of
    windows whose mean goodput is within ``near`` (fraction) of the best."""
    import pandas as pd

    rows = []
    for h, g in runs.groupby(HOPS, sort=True):
        w, best, t = chain_best(g)
        close = t.loc[t["mean"] >= (1 - near) * best, WIN]
        ci = float(t.loc[t[WIN] == w, "ci"].iloc[0])
        rows.append({"hops": int(h), "wstar": int(w), "best_bps": best, "best_ci": ci,
                     "h4": model("wstar", topology="chain", hops=int(h))["wstar"]["exact"],
                     "near_lo": int(close.min()), "near_hi": int(close.max()),
                     "max_tried": int(t[WIN].max())})
    return pd.DataFrame(rows)


def _wstar(runs: "pd.DataFrame") -> "pd.DataFrame":
    t = chain_wstar_table(runs)
    t["dev"] = t["wstar"] - t["h4"]
    return t


@register("check")
def fu_wstar_max_dev(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest |W* − h/4| over all hop counts."""
    t = _wstar(runs)
    return Estimate(float(t["dev"].abs().max()), math.nan, len(t), math.nan)


@register("check")
def fu_wstar_short_excess(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Mean of W* − h/4 over the short chains (h ≤ 8)."""
    t = _wstar(runs)
    t = t[t["hops"] <= 8]
    if t.empty:
        raise SpecError("no chains of 8 hops or fewer")
    return Estimate(float(t["dev"].mean()), math.nan, len(t), math.nan)


@register("check")
def fu_wstar_long_dev(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Mean of |W* − h/4| over the long chains (h > 20)."""
    t = _wstar(runs)
    t = t[t["hops"] > 20]
    if t.empty:
        raise SpecError("no chains longer than 20 hops")
    return Estimate(float(t["dev"].abs().mean()), math.nan, len(t), math.nan)


@register("check")
def fu_wstar_h7(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """W* measured on the 7-hop chain."""
    t = _wstar(runs)
    t = t[t["hops"] == 7]
    if t.empty:
        raise SpecError("no 7-hop chain in the sweep")
    return Estimate(float(t["wstar"].iloc[0]), math.nan, 1, math.nan)


@register("check")
def fu_wstar_trend(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Spearman rank correlation between hop count and the best throughput."""
    t = _wstar(runs)
    return Estimate(chain_spearman(t["hops"], t["best_bps"]), math.nan, len(t), math.nan)


@register("figure")
def fu_wstar_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fu Fig. 2 (middle, right): W* against hop count with h/4, and the best throughput."""
    t = _wstar(ctx.runs)
    fig = new_figure(*opts.get("size", (10.0, 4.0)))
    a1, a2 = fig.subplots(1, 2)
    hs = list(t["hops"])
    a1.vlines(hs, t["near_lo"], t["near_hi"], color="C0", alpha=0.35, lw=6,
              label="windows within 2% of the best")
    a1.plot(hs, t["wstar"], "o", color="C0", label="hoptcp W* (best mean over seeds)")
    hh = list(range(1, max(hs) + 1))
    a1.plot(hh, [model("wstar", topology="chain", hops=h)["wstar"]["exact"] for h in hh], "-", color="0.3",
            label="h/4 (model wstar)")
    a1.plot(hh, [h / 4 + 2 for h in hh], ":", color="0.6", lw=1, label="h/4 ± 2 (TR: never more than 2 off)")
    a1.plot(hh, [max(h / 4 - 2, 0) for h in hh], ":", color="0.6", lw=1)
    a1.plot([7], [3], "s", fillstyle="none", ms=9, color="C3", label="paper, 7 hops: 3 (text) / 2 (Table)")
    a1.plot([7], [2], "s", fillstyle="none", ms=9, color="C3")
    _style(a1, "Hop count h", "Optimal window W* (packets)", "TCP optimal window")
    a1.legend(fontsize=7, loc="upper left")
    a2.errorbar(hs, t["best_bps"] / 1e3, yerr=t["best_ci"].fillna(0) / 1e3, marker="o", capsize=3, color="C0",
                label="hoptcp, at W* (mean, 95% CI)")
    a2.set_ylim(0, 1.1 * t["best_bps"].max() / 1e3)
    _style(a2, "Hop count h", "Best throughput (kb/s)", "Best throughput vs hop count")
    a2.legend(fontsize=8)
    return fig


# --- fu-vegas ----------------------------------------------------------------------------

def window_column(runs: "pd.DataFrame") -> str:
    """The average window as ns-2 traces it (``cwnd_``, without NewReno's fast-recovery
    inflation) where the frame has it, so hoptcp and ns-2.35 runs compare like with like."""
    return "flow.0.avg_cwnd_traced" if "flow.0.avg_cwnd_traced" in runs.columns else "flow.0.avg_cwnd"


def chain_variant_table(runs: "pd.DataFrame") -> "pd.DataFrame":
    """Per hop count: NewReno and Vegas mean goodput and window at MaxWin 32, Vegas/NewReno
    (``ratio``: the mean of the per-seed ratios, ``ratio_est`` its Estimate) and Vegas's deficit
    (``deficit``, 100·(1 − Vegas/NewReno)), both paired by seed (both variants run the same seeds)."""
    import pandas as pd

    win = window_column(runs)

    sub = runs[runs[WIN] == 32] if WIN in runs.columns else runs
    rows = []
    for h, g in sub.groupby(HOPS, sort=True):
        nr, ve = g[g[VARIANT] == "newreno"], g[g[VARIANT] == "vegas"]
        if nr.empty or ve.empty:
            continue
        a, b = _by_seed(nr), _by_seed(ve)
        ratio = paired_values(a, b, "ratio")
        rows.append({"hops": int(h), "newreno_bps": float(a.mean()), "vegas_bps": float(b.mean()),
                     "ratio": float(ratio.values.mean()) if ratio.n else math.nan, "ratio_est": ratio.estimate(),
                     "ratio_seeds": ratio.values, "deficit": chain_relative_loss(a, b),
                     "newreno_win": nr[win].mean(), "vegas_win": ve[win].mean()})
    if not rows:
        raise SpecError("no hop count has both NewReno and Vegas runs at MaxWin 32")
    return pd.DataFrame(rows)


@register("check")
def fu_vegas_short_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Vegas/NewReno goodput ratio farthest from 1 over the short chains (h ≤ 6): per chain the
    mean of the per-seed ratios (paired), the one farthest from 1; its CI by a bootstrap over
    seeds (:func:`hoptcp.stats.paired_over_points`), n = seeds."""
    t = chain_variant_table(runs)
    t = t[t["hops"] <= 6]
    if t.empty:
        raise SpecError("no chains of 6 hops or fewer")
    return paired_over_points(list(t["ratio_seeds"]), _farthest_from_one)


def _farthest_from_one(means: Any) -> float:
    import numpy as np

    return float(means[int(np.argmax(np.abs(means - 1)))])


@register("check")
def fu_vegas_long_deficit(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Mean over h ≥ 9 of Vegas's goodput deficit relative to NewReno, in %: per chain the deficit
    paired by seed (:func:`chain_relative_loss`), the CI from the per-chain paired CIs with the
    chains taken as independent."""
    t = chain_variant_table(runs)
    t = t[t["hops"] >= 9]
    if t.empty:
        raise SpecError("no chains of 9 hops or more")
    d = [e.mean for e in t["deficit"]]
    cis = [e.ci for e in t["deficit"]]
    ci = math.sqrt(sum(c * c for c in cis)) / len(cis) if all(c == c for c in cis) else math.nan
    return Estimate(float(sum(d) / len(d)), ci, len(d), math.nan)


@register("check")
def fu_vegas_window_16(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Vegas's average window on the 16-hop chain (MaxWin 32)."""
    sel = runs[(runs[HOPS] == 16) & (runs[VARIANT] == "vegas")]
    if WIN in runs.columns:
        sel = sel[sel[WIN] == 32]
    if sel.empty:
        raise SpecError("no Vegas runs on the 16-hop chain")
    return mean_ci(sel[window_column(sel)])


@register("figure")
def fu_vegas_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Goodput and average window against hop count: NewReno, Vegas (MaxWin 32) and the
    side experiment NewReno clamped to MaxWin 3 and 4."""
    runs = ctx.runs
    fig = new_figure(*opts.get("size", (10.0, 4.0)))
    a1, a2 = fig.subplots(1, 2)
    arms = runs[[VARIANT, WIN]].drop_duplicates().sort_values([VARIANT, WIN], ascending=[True, False])
    for i, (v, w) in enumerate(arms.itertuples(index=False)):
        g = runs[(runs[VARIANT] == v) & (runs[WIN] == w)]
        lab = f"{'Vegas' if v == 'vegas' else 'NewReno'}, MaxWin {w}"
        ls = "-" if w == 32 else "--"
        t = chain_means(g, HOPS, GOODPUT)
        a1.errorbar(t[HOPS], t["mean"] / 1e3, yerr=t["ci"].fillna(0) / 1e3, marker="o", ms=4, capsize=2, ls=ls,
                    color=f"C{i}", label=lab)
        t = chain_means(g, HOPS, window_column(g))
        a2.errorbar(t[HOPS], t["mean"], yerr=t["ci"].fillna(0), marker="o", ms=4, capsize=2, ls=ls,
                    color=f"C{i}", label=lab)
    a2.plot([16], [3], "s", fillstyle="none", ms=9, color="C3", label="paper: Vegas ≈ 3 at 16 hops")
    a1.axvspan(8.5, max(runs[HOPS]) + 0.5, color="C3", alpha=0.06, label="paper: Vegas 10–20% worse (h ≥ 9)")
    _style(a1, "Hop count h", "Throughput (kb/s)", "Throughput")
    _style(a2, "Hop count h", "Average window (packets)", "Average window")
    a1.legend(fontsize=7)
    a2.legend(fontsize=7)
    return fig


# --- fu-linkdrop -------------------------------------------------------------------------

def _node_ids(row: Mapping[str, Any], suffix: str) -> list[int]:
    return sorted(per_id(row, "node", suffix))


def _sum_nodes(row: Mapping[str, Any], suffix: str) -> float:
    return float(sum(row[f"node.{i}.{suffix}"] for i in _node_ids(row, suffix)))


def _flow_count(row: Mapping[str, Any]) -> int:
    n = 0
    while f"flow.{n}.src" in row and row[f"flow.{n}.src"] == row[f"flow.{n}.src"]:  # present, not NaN
        n += 1
    return n


def chain_link_drop(row: Mapping[str, Any], per: str = "packet") -> float:
    """Contention (MAC retry-limit) drop probability of one run.

    ``per = "packet"``: drops per packet injected into the chain (packets taken by the
    MAC of the flow's source, plus those of its destination, i.e. TCP ACKs): the
    end-to-end probability that a packet is lost to contention, each packet counted
    once. ``"hop"``: drops per packet handed to any MAC (per hop). ``"rts"``: drops per
    RTS sent (per initiation: the Markov model's p_r).
    """
    drops = _sum_nodes(row, "mac_drops")
    if per == "hop":
        den = _sum_nodes(row, "mac_packets")
    elif per == "rts":
        den = _sum_nodes(row, "rts_sent")
    elif per == "packet" and _flow_count(row) > 1:
        # several flows (the one-hop flows): every packet crosses one hop, per packet = per hop
        den = _sum_nodes(row, "mac_packets")
    elif per == "packet":
        src, dst = int(row["flow.0.src"]), int(row["flow.0.dst"])
        den = float(row[f"node.{src}.mac_packets"]) + float(row[f"node.{dst}.mac_packets"])
    else:
        raise SpecError(f"chain_link_drop: per = {per!r}; expected 'packet', 'hop' or 'rts'")
    return drops / den if den > 0 else math.nan


def chain_backlog(row: Mapping[str, Any]) -> list[float]:
    """Per-node fraction of time the MAC held a packet, by node id."""
    return [float(row[f"node.{i}.backlog_frac"]) for i in _node_ids(row, "backlog_frac")]


def chain_markov_drop(hidden: float, r: int = 7) -> float:
    """p_r of the retry Markov chain (TR appendix 9.1): (1−H)·H^r / (1 − H^(r+1))."""
    if hidden <= 0:
        return 0.0
    return 1.0 / sum(hidden ** (-j) for j in range(0, r + 1)) if hidden < 1 else 1.0 / (r + 1)


def chain_markov_prediction(row: Mapping[str, Any], r: int = 7) -> float:
    """Drops per RTS predicted by the Markov chain alone, node by node, from each node's
    measured failure probability H_i = CTS timeouts / RTSs (weighted by RTSs sent)."""
    num = den = 0.0
    for i in _node_ids(row, "rts_sent"):
        rts = float(row[f"node.{i}.rts_sent"])
        if rts <= 0:
            continue
        h = float(row[f"node.{i}.cts_timeouts"]) / rts
        num += rts * chain_markov_drop(h, r)
        den += rts
    return num / den if den > 0 else math.nan


def chain_linkdrop_model(backlog: Sequence[float], b_star: float, c_star: float, load: str = "printed") -> dict:
    """The core's link-drop model at the measured per-node backlog (its ``point``: m, c, b,
    hidden, p_r, per_flow_loss, aggregate_loss)."""
    return model("linkdrop", b_star=b_star, c_star=c_star, load=load, backlog=list(backlog))["point"]


def chain_add_linkdrop(runs: "pd.DataFrame") -> "pd.DataFrame":
    """The runs with columns drop_packet, drop_hop, drop_rts, backlog_mean, markov_rts."""
    df = runs.copy()
    recs = df.to_dict("records")
    df["drop_packet"] = [chain_link_drop(r, "packet") for r in recs]
    df["drop_hop"] = [chain_link_drop(r, "hop") for r in recs]
    df["drop_rts"] = [chain_link_drop(r, "rts") for r in recs]
    df["backlog_sum"] = [sum(chain_backlog(r)) for r in recs]
    df["backlog_mean"] = [sum(chain_backlog(r)) / max(len(chain_backlog(r)), 1) for r in recs]
    df["markov_rts"] = [chain_markov_prediction(r) for r in recs]
    return df


def _tcp(runs: "pd.DataFrame") -> "pd.DataFrame":
    return runs[runs[TRANSPORT] == "tcp"] if TRANSPORT in runs.columns else runs


def _udp(runs: "pd.DataFrame", jitter: float = 0.5, one_hop: bool = False) -> "pd.DataFrame":
    """UDP runs with this jitter: the end-to-end flow, or (``one_hop``) the one-hop flows."""
    u = runs[runs[TRANSPORT] == "udp"] if TRANSPORT in runs.columns else runs
    if DST in u.columns:
        u = u[(u[DST] == 1) if one_hop else (u[DST] != 1)]
    elif one_hop:
        return u.iloc[0:0]
    return u[(u[JITTER] - jitter).abs() < 1e-9] if JITTER in u.columns else u


def _at(runs: "pd.DataFrame", col: str, value: Any, what: str) -> Estimate:
    sel = runs[runs[col] == value]
    if sel.empty:
        raise SpecError(f"no runs at {col} = {value}")
    return mean_ci(chain_add_linkdrop(sel)[what])


@register("check")
def fu_linkdrop_tcp_low(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Contention drops per packet, TCP at MaxWin 2 (W* of the formula)."""
    return _at(_tcp(runs), WIN, 2, "drop_packet")


@register("check")
def fu_linkdrop_tcp_high(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Contention drops per packet, TCP at MaxWin 32."""
    return _at(_tcp(runs), WIN, 32, "drop_packet")


@register("check")
def fu_linkdrop_tcp_trend(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Spearman rank correlation of MaxWin and the mean drop probability per packet (TCP)."""
    t = chain_means(chain_add_linkdrop(_tcp(runs)), WIN, "drop_packet")
    return Estimate(chain_spearman(t[WIN], t["mean"]), math.nan, len(t), math.nan)


def chain_knees(x: Sequence[float], y: Sequence[float]) -> tuple[float, float, float]:
    """Fit y = 0 for x ≤ k1, linear from 0 to s on [k1, k2], s for x ≥ k2 (least squares
    over k1 < k2 on a fine grid between the data's x values, s by least squares).
    Returns (k1, k2, s)."""
    import numpy as np

    o = np.argsort(np.asarray(x, float))
    x, y = np.asarray(x, float)[o], np.asarray(y, float)[o]  # type: ignore[assignment]
    grid = np.linspace(x[0], x[-1], 201)
    best = (math.inf, x[0], x[-1], 0.0)
    for i, k1 in enumerate(grid):
        for k2 in grid[i + 1:]:
            f = np.clip((x - k1) / (k2 - k1), 0.0, 1.0)
            ff = float(f @ f)
            if ff == 0:
                continue
            s = float(f @ y) / ff
            err = float(((y - s * f) ** 2).sum())
            if err < best[0] - 1e-18:
                best = (err, float(k1), float(k2), s)
    return best[1], best[2], best[3]


def _udp_curve(runs: "pd.DataFrame", jitter: float = 0.5, one_hop: bool = False) -> "pd.DataFrame":
    u = _udp(runs, jitter, one_hop)
    if u.empty:
        raise SpecError(f"no UDP runs with {JITTER} = {jitter}" + (" (one-hop flows)" if one_hop else ""))
    return chain_means(chain_add_linkdrop(u), RATE, "drop_packet")


@register("check")
def fu_linkdrop_udp_saturation(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Saturated drop probability per packet (random CBR end to end): the fitted plateau;
    the CI is that of the runs above the second knee."""
    t = _udp_curve(runs)
    k1, k2, s = chain_knees(t[RATE], t["mean"])
    above = chain_add_linkdrop(_udp(runs))
    above = above[above[RATE] >= k2]
    e = mean_ci(above["drop_packet"]) if len(above) else Estimate(math.nan, math.nan, 0, math.nan)
    return Estimate(s, e.ci, e.n, e.std)


@register("check")
def fu_linkdrop_udp_low(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest mean drop probability per packet below the first knee (random CBR end to end)."""
    t = _udp_curve(runs)
    k1, _, _ = chain_knees(t[RATE], t["mean"])
    below = t[t[RATE] < k1]
    if below.empty:
        raise SpecError("no offered load below the first knee")
    return Estimate(float(below["mean"].max()), math.nan, len(below), math.nan)


def _ramp(runs: "pd.DataFrame", one_hop: bool) -> Estimate:
    t = _udp_curve(runs, 0.5, one_hop)
    k1, k2, _ = chain_knees(t[RATE], t["mean"])
    return Estimate(k2 / k1 if k1 > 0 else math.nan, math.nan, len(t), math.nan)


@register("check")
def fu_linkdrop_udp_ramp(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Second knee over first knee (fitted), random CBR end to end: 1 is a step."""
    return _ramp(runs, False)


def fu_linkdrop_1hop_ramp(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Second knee over first knee (fitted), one one-hop CBR flow per link."""
    return _ramp(runs, True)


def _sat_udp(runs: "pd.DataFrame", one_hop: bool = False) -> "pd.DataFrame":
    """The random-CBR runs at or above the fitted second knee."""
    t = _udp_curve(runs, 0.5, one_hop)
    _, k2, _ = chain_knees(t[RATE], t["mean"])
    u = chain_add_linkdrop(_udp(runs, 0.5, one_hop))
    return u[u[RATE] >= k2]


@register("check")
def fu_linkdrop_sat_rts(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Measured drops per RTS initiation in the saturated region (random CBR end to end)."""
    return mean_ci(_sat_udp(runs)["drop_rts"])


@register("check")
def fu_linkdrop_1hop_sat_rts(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Measured drops per RTS initiation in the saturated region (one-hop CBR flows)."""
    return mean_ci(_sat_udp(runs, True)["drop_rts"])


def _b_c(ctx: "Context") -> tuple[float, float]:
    for f in ctx.entry.figures:
        if "b_star" in f.options:
            return float(f.options["b_star"]), float(f.options["c_star"])
    return 2.0, 3.0


def _model_sat(ctx: "Context", one_hop: bool) -> float:
    import numpy as np

    sat = _sat_udp(ctx.runs, one_hop)
    b = np.mean([chain_backlog(r) for r in sat.to_dict("records")], axis=0)
    bs, cs = _b_c(ctx)
    return float(chain_linkdrop_model(list(b), bs, cs)["p_r"])


@register("reference")
def fu_linkdrop_model_sat(ctx: "Context", point: Mapping[str, Any]) -> float:
    """The core's link-drop model's p_r (drops per initiation; printed reading; B*, C* from
    the entry's model figure) at the mean measured per-node backlog of the saturated
    random-CBR end-to-end runs."""
    return _model_sat(ctx, False)


@register("reference")
def fu_linkdrop_1hop_model_sat(ctx: "Context", point: Mapping[str, Any]) -> float:
    """As fu_linkdrop_model_sat, for the saturated one-hop-flow runs (TR Fig. 7's setup)."""
    return _model_sat(ctx, True)


@register("reference")
def fu_linkdrop_markov_sat(ctx: "Context", point: Mapping[str, Any]) -> float:
    """The retry Markov chain alone with each node's measured H_i (saturated random CBR end to end)."""
    return float(_sat_udp(ctx.runs)["markov_rts"].mean())


@register("figure")
def fu_linkdrop_tcp_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """INFOCOM Fig. 4 (left): contention drop probability against the TCP window."""
    d = chain_add_linkdrop(_tcp(ctx.runs))
    fig = new_figure(*opts.get("size", (6.5, 4.2)))
    ax = fig.add_subplot()
    for i, (col, lab) in enumerate([("drop_packet", "per packet entering the chain (claims)"),
                                    ("drop_hop", "per packet per hop (per MAC packet)")]):
        t = chain_means(d, WIN, col)
        ax.errorbar(t[WIN], 100 * t["mean"], yerr=100 * t["ci"].fillna(0), marker="o", ms=4, capsize=2,
                    color=f"C{i}", label=f"hoptcp, {lab}")
    ax.axhline(5, color="C3", ls="--", lw=1, label="paper: rises from 0 to about 5%")
    _style(ax, "TCP window size MaxWin (packets)", "Link drop probability (%)", opts.get("title"))
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    return fig


@register("figure")
def fu_linkdrop_udp_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """INFOCOM Fig. 4 (right): contention drop probability against CBR offered load. Left:
    one flow end to end, random (jitter 0.5) and strictly periodic CBR, with the fitted
    knees of the random one. Right (side experiment, TR Fig. 7 setup): one CBR flow per
    link, each at the offered load on the x axis."""
    runs = ctx.runs
    u_all = runs[runs[TRANSPORT] == "udp"] if TRANSPORT in runs.columns else runs
    one = _udp(u_all, 0.5, one_hop=True)
    fig = new_figure(*opts.get("size", (11.0, 4.2) if len(one) else (6.5, 4.2)))
    axes = fig.subplots(1, 2) if len(one) else [fig.add_subplot()]
    ax = axes[0]
    e2e = u_all[u_all[DST] != 1] if DST in u_all.columns else u_all
    for i, j in enumerate(sorted(e2e[JITTER].unique(), reverse=True)):
        t = chain_means(chain_add_linkdrop(_udp(u_all, j)), RATE, "drop_packet")
        lab = "random CBR (jitter 0.5, ns-2 random_ 1)" if j > 0 else f"periodic CBR (jitter {j:g})"
        ax.errorbar(t[RATE] / 1e3, 100 * t["mean"], yerr=100 * t["ci"].fillna(0), marker="o" if j else "x",
                    ms=4, capsize=2, color=f"C{i}", ls="-" if j else "--", label=lab)
        if j > 0:
            k1, k2, sat = chain_knees(t[RATE], t["mean"])
            ax.plot([t[RATE].min() / 1e3, k1 / 1e3, k2 / 1e3, t[RATE].max() / 1e3], [0, 0, 100 * sat, 100 * sat],
                    ":", color="0.3", lw=1, label=f"3-segment fit: knees {k1 / 1e3:.0f} and {k2 / 1e3:.0f} kb/s")
    ax.axhline(10, color="C3", ls="--", lw=1, label="paper: saturates near 10%")
    _style(ax, "Offered load (kb/s, CBR payload)", "Link drop probability (%)",
           opts.get("title", "One CBR flow, node 0 to node 7"))
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="upper left")
    if len(one):
        ax = axes[1]
        d = chain_add_linkdrop(one)
        for i, (col, lab) in enumerate([("drop_packet", "per packet (= per hop)"), ("drop_rts", "per RTS initiation")]):
            t = chain_means(d, RATE, col)
            ax.errorbar(t[RATE] / 1e3, 100 * t["mean"], yerr=100 * t["ci"].fillna(0), marker="os"[i], ms=4,
                        capsize=2, color=f"C{i + 2}", label=f"hoptcp, {lab}")
        t = chain_means(d, RATE, "drop_packet")
        k1, k2, sat = chain_knees(t[RATE], t["mean"])
        ax.plot([t[RATE].min() / 1e3, k1 / 1e3, k2 / 1e3, t[RATE].max() / 1e3], [0, 0, 100 * sat, 100 * sat],
                ":", color="0.3", lw=1, label=f"3-segment fit: knees {k1 / 1e3:.0f} and {k2 / 1e3:.0f} kb/s")
        _style(ax, "Offered load per flow (kb/s, CBR payload)", "Link drop probability (%)",
               "Side experiment: 7 one-hop CBR flows (TR Fig. 7 setup)")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7, loc="upper left")
    return fig


@register("figure")
def fu_linkdrop_model_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """TR Fig. 7 style: drops per RTS initiation against the mean backlog probability,
    measured (UDP and TCP runs), the load model (B*, C* fixed a priori) and the Markov
    chain alone with each node's measured failure probability."""
    import numpy as np

    bs, cs = float(opts.get("b_star", 2)), float(opts.get("c_star", 3))
    d = chain_add_linkdrop(ctx.runs)
    n_nodes = len(chain_backlog(d.iloc[0].to_dict())) if len(d) else 8
    fig = new_figure(*opts.get("size", (6.5, 4.2)))
    ax = fig.add_subplot()
    groups: list[tuple[str, Any, str, str]] = [("udp", 0.5, "o", "random CBR"), ("udp", 0.0, "x", "periodic CBR"), ("tcp", None, "^", "TCP"),
              ("1hop", 0.5, "D", "7 one-hop CBR flows")]
    for i, (tr, j, mk, lab) in enumerate(groups):
        if tr == "1hop":
            g = _udp(d, j, one_hop=True)
        elif tr == "udp":
            g = _udp(d, j)
        else:
            g = _tcp(d)
        if g.empty:
            continue
        ax.plot(g["backlog_mean"], 100 * g["drop_rts"], mk, ms=4, color=f"C{i}", alpha=0.7,
                label=f"hoptcp {lab} (one mark per run)")
        ax.plot(g["backlog_mean"], 100 * g["markov_rts"], mk, ms=4, color=f"C{i}", mfc="none", alpha=0.3)
    rho = np.linspace(0.01, 1.0, 200)
    for load, ls in (("printed", "-"), ("smooth", "--")):
        p = [model("linkdrop", b_star=bs, c_star=cs, load=load, m=float(n_nodes * r))["p_r"] for r in rho]
        ax.plot(rho, 100 * np.asarray(p), ls, color="0.2", lw=1.2,
                label=f"load model ({load} c(m), b(m)), B* = {bs:g}, C* = {cs:g}, m = {n_nodes}·ρ̄")
    ax.plot([], [], "o", mfc="none", color="0.4", label="Markov chain alone, measured H per node")
    _style(ax, "Average backlog probability of all nodes ρ̄", "Drops per RTS initiation (%)", opts.get("title"))
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="upper left")
    return fig
