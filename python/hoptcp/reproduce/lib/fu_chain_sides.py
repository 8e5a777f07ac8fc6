"""Generated numbers for the notes of the Fu et al. chain entries (``fu-window``,
``fu-avgwin``, ``fu-wstar``, ``fu-vegas``, ``fu-linkdrop``), from their main and side
sweeps. Every number a note quotes comes from here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import SpecError
from ...results import per_id
from ...stats import Estimate, mean_ci, paired_gain
from ..registry import register
from .fu_chain import (
    FU_TABLE2,
    GOODPUT,
    HOPS,
    RATE,
    SIZE,
    TRACED_WINDOW,
    VARIANT,
    WIN,
    _b_c,
    _sat_udp,
    _tcp,
    _udp,
    _udp_curve,
    chain_add_linkdrop,
    chain_backlog,
    chain_best,
    chain_knees,
    chain_linkdrop_model,
    chain_means,
    chain_spearman,
    chain_variant_table,
    chain_wstar_table,
    fu_window_loss,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..report import Context


def _f(v: float, spec: str = ".1f") -> str:
    return "-" if v != v else format(v, spec)


def _per_300s(ctx: "Context") -> float:
    return 300.0 / float(ctx.resolved({})["duration_s"])


def _contention(df: "pd.DataFrame", kind: str | None = None) -> "pd.Series":
    pre = f"drops.by_kind.{kind}." if kind else "drops."
    cols = [c for c in (pre + "mac_rts_retry", pre + "mac_data_retry") if c in df.columns]
    return df[cols].fillna(0).sum(axis=1)


# --- fu-window ---------------------------------------------------------------------------

@register("values")
def fu_window_values(ctx: "Context") -> dict[str, Any]:
    """Best MaxWin and throughput lost at MaxWin 32 per segment size."""
    rows = ["| segment size | best MaxWin | throughput at best (kb/s) | lost at MaxWin 32 (%) |", "|---|---|---|---|"]
    for size in sorted(int(s) for s in ctx.runs[SIZE].unique()):
        sub = ctx.runs[ctx.runs[SIZE] == size]
        w, best, _ = chain_best(sub)
        loss = fu_window_loss(sub, 32)
        rows.append(f"| {size} B | {w} | {best / 1e3:.1f} | {loss.mean:.1f} ± {_f(loss.ci, '.1f')} |")
    return {"window_table": "\n".join(rows)}


# --- fu-avgwin ---------------------------------------------------------------------------

#: the window Table 2 averages: cwnd_ as ns-2 traces it (no fast-recovery inflation)
AVGWIN = TRACED_WINDOW

AVGWIN_SWITCHES = {
    "no-ll-delay": "no LL delay (`ip.ll_delay_us = 0`)", "standard-frames": "802.11 header sizes",
    "initial-ssthresh-2": "initial ssthresh 2", "queue-20": "queue limit 20", "eight-hops": "8-hop chain",
    "delayed-ack": "delayed ACKs",
}


@register("values")
def fu_avgwin_values(ctx: "Context") -> dict[str, Any]:
    """The Table 2 comparison and the switches tried on the average window."""
    main = ctx.runs
    out: dict[str, Any] = {}
    rows = ["| MaxWin | paper | hoptcp | deviation |", "|---|---|---|---|"]
    for w, paper in FU_TABLE2.items():
        e = mean_ci(main[main[WIN] == w][AVGWIN])
        out[f"avg_{w}"] = e.mean
        rows.append(f"| {w} | {paper:g} | {e.mean:.2f} ± {_f(e.ci, '.2f')} | {100 * (e.mean / paper - 1):+.1f}% |")
    out["table"] = "\n".join(rows)
    ref = ctx.side("delayed-ack").runs
    seeds, windows = sorted(set(ref["seed"])), sorted(int(w) for w in ref[WIN].unique())
    per = _per_300s(ctx)
    head = " | ".join(f"avg window at {w}" for w in windows)
    rows = [f"| variant | {head} | contention drops per 300 s at {windows[-1]} | timeouts per 300 s at {windows[-1]} |",
            "|---" * (3 + len(windows)) + "|"]
    closest = (math.inf, "", math.nan)
    for side, label in [("", "as the entry (the same seeds)"), *AVGWIN_SWITCHES.items()]:
        df = ctx.side(side).runs if side else main[main["seed"].isin(seeds)]
        cells = [_f(df[df[WIN] == w][AVGWIN].mean(), ".2f") for w in windows]
        top = df[df[WIN] == windows[-1]]
        side_per = 300.0 / float((ctx.side(side) if side else ctx).resolved({})["duration_s"]) if side else per
        rows.append(f"| {label} | " + " | ".join(cells) + f" | {_contention(top).mean() * side_per:.0f} | "
                    f"{top['flow.0.timeouts'].mean() * side_per:.1f} |")
        v = float(top[AVGWIN].mean())
        if side and abs(v - FU_TABLE2[32]) < closest[0]:
            closest = (abs(v - FU_TABLE2[32]), label, v)
    out["switch_table"] = "\n".join(rows)
    out["closest_label"], out["closest_value"] = closest[1], closest[2]
    eight = ctx.side("eight-hops").runs
    eight = eight[eight[WIN] == windows[-1]]
    d8 = 300.0 / float(ctx.side("eight-hops").resolved({})["duration_s"])
    out["eight_data_drops"] = _contention(eight, "tcp_data").mean() * d8
    out["eight_ack_drops"] = _contention(eight, "tcp_ack").mean() * d8
    out["retry_drops_32"] = _contention(main[main[WIN] == 32]).mean() * per
    out["timeouts_32"] = main[main[WIN] == 32]["flow.0.timeouts"].mean() * per
    return out


# --- fu-wstar ----------------------------------------------------------------------------

@register("values")
def fu_wstar_values(ctx: "Context") -> dict[str, Any]:
    """W* per chain, the plateau of windows within 2% of the best, and the cost of a too-large window."""
    t = chain_wstar_table(ctx.runs)
    rows = ["| h | h/4 | W* | windows within 2% of the best | largest tried | throughput at W* (kb/s) | "
            "lost at the largest window (%) |", "|---|---|---|---|---|---|---|"]
    losses = {}
    for r in t.itertuples(index=False):
        sub = ctx.runs[ctx.runs[HOPS] == r.hops]
        loss = fu_window_loss(sub, r.max_tried)
        losses[r.hops] = loss.mean
        rows.append(f"| {r.hops} | {r.h4:g} | {r.wstar} | {r.near_lo}..{r.near_hi} | {r.max_tried} | "
                    f"{r.best_bps / 1e3:.0f} | {loss.mean:.1f} |")
    short = t[t["hops"] <= 8]
    long_ = t[t["hops"] >= 20]
    dev = short["wstar"] - short["h4"]
    return {
        "wstar_table": "\n".join(rows),
        "short_dev_lo": float(dev.min()) if len(dev) else math.nan,
        "short_dev_hi": float(dev.max()) if len(dev) else math.nan,
        "wstar_7": int(t[t["hops"] == 7]["wstar"].iloc[0]) if (t["hops"] == 7).any() else math.nan,
        "long_near_lo_dev": ", ".join(f"{r.near_lo - r.h4:+g}" for r in long_.itertuples(index=False)) or "-",
        "long_hops": ", ".join(str(h) for h in long_["hops"]) or "-",
        "best_first": t["best_bps"].iloc[0] / 1e3, "best_last": t["best_bps"].iloc[-1] / 1e3,
        "h_first": int(t["hops"].iloc[0]), "h_last": int(t["hops"].iloc[-1]),
        "loss_long_max": max((losses[h] for h in long_["hops"]), default=math.nan),
        "loss_short_max": max((losses[h] for h in short["hops"]), default=math.nan),
    }


# --- fu-vegas ----------------------------------------------------------------------------

@register("values")
def fu_vegas_values(ctx: "Context") -> dict[str, Any]:
    """Vegas against NewReno per chain; what a clamped NewReno window costs; Vegas's equilibrium at 16 hops.
    The comparisons are paired by seed (every variant and window runs the same seeds)."""
    runs = ctx.runs
    t = chain_variant_table(runs)
    nr = runs[(runs[VARIANT] == "newreno")]
    rows = ["| h | NewReno (kb/s) | Vegas (kb/s) | Vegas vs NewReno | Vegas window | NewReno window | "
            "NewReno MaxWin 3 vs unbounded | MaxWin 4 vs unbounded |", "|---|---|---|---|---|---|---|---|"]
    for r in t.itertuples(index=False):
        g = nr[nr[HOPS] == r.hops]
        unb = g[g[WIN] == 32].set_index("seed")[GOODPUT]
        c3 = paired_gain(unb, g[g[WIN] == 3].set_index("seed")[GOODPUT]).mean
        c4 = paired_gain(unb, g[g[WIN] == 4].set_index("seed")[GOODPUT]).mean
        rows.append(f"| {r.hops} | {r.newreno_bps / 1e3:.0f} | {r.vegas_bps / 1e3:.0f} | {100 * (r.ratio - 1):+.1f}% | "
                    f"{r.vegas_win:.1f} | {r.newreno_win:.1f} | {c3:+.1f}% | {c4:+.1f}% |")
    out: dict[str, Any] = {"table": "\n".join(rows)}
    h = int(t["hops"].max())
    one = ctx.side("window-1").runs
    base_rtt = float(one[one[HOPS] == h]["flow.0.avg_rtt_s"].mean())
    ve = runs[(runs[HOPS] == h) & (runs[VARIANT] == "vegas") & (runs[WIN] == 32)]
    payload = float(ctx.resolved({})["tcp"]["payload_bytes"])
    rate = float(ve[GOODPUT].mean()) / (8 * payload)
    tcp = ctx.resolved({})["tcp"]
    out.update({"h": h, "base_rtt": base_rtt, "rate": rate, "backlog": rate * base_rtt,
                "alpha": float(tcp["vegas_alpha"]), "beta": float(tcp["vegas_beta"]),
                "eq_lo": rate * base_rtt + float(tcp["vegas_alpha"]), "eq_hi": rate * base_rtt + float(tcp["vegas_beta"]),
                "vegas_win": float(ve["flow.0.avg_cwnd"].mean())})
    short = t[t["hops"] <= 6]
    long_ = t[t["hops"] >= 9]
    out["short_max_dev"] = float(100 * (short["ratio"] - 1).abs().max()) if len(short) else math.nan
    out["long_max_deficit"] = float(100 * (1 - long_["ratio"]).max()) if len(long_) else math.nan
    return out


# --- fu-linkdrop -------------------------------------------------------------------------

@register("values")
def fu_linkdrop_values(ctx: "Context") -> dict[str, Any]:
    """TCP drop levels under several denominators, the UDP curves' knees and backlog, the model's inputs."""
    runs = ctx.runs
    out: dict[str, Any] = {}
    tcp = chain_add_linkdrop(_tcp(runs))
    level = tcp[tcp[WIN] >= 10]
    out["tcp_level"] = 100 * float(level["drop_packet"].mean()) if len(level) else math.nan
    top = tcp[tcp[WIN] == 32]
    data_sent = top["flow.0.packets_sent"]
    out["tcp_all_per_data"] = 100 * float((_contention(top) / data_sent).mean())
    out["tcp_data_per_data"] = 100 * float((_contention(top, "tcp_data") / data_sent).mean())
    out["tcp_per_hop"] = 100 * float(top["drop_hop"].mean())
    out["tcp_per_rts"] = 100 * float(top["drop_rts"].mean())
    # UDP, one flow end to end
    rnd = _udp_curve(runs)
    k1, k2, sat = chain_knees(rnd[RATE], rnd["mean"])
    i = rnd["mean"].idxmax()
    out.update({"udp_k1": k1 / 1e3, "udp_k2": k2 / 1e3, "udp_plateau": 100 * sat, "udp_peak": 100 * rnd.at[i, "mean"],
                "udp_peak_load": rnd.at[i, RATE] / 1e3, "udp_top": 100 * float(rnd["mean"].iloc[-1]),
                "udp_top_load": float(rnd[RATE].iloc[-1]) / 1e3, "udp_ratio": k2 / k1 if k1 else math.nan})
    per = _udp_curve(runs, 0.0)
    p1, p2, _ = chain_knees(per[RATE], per["mean"])
    out.update({"periodic_k1": p1 / 1e3, "periodic_k2": p2 / 1e3})
    sat_runs = _sat_udp(runs)
    recs = sat_runs.to_dict("records")
    backlog = [sum(col) / len(col) for col in zip(*[chain_backlog(r) for r in recs])] if recs else []
    out["sat_backlog"] = ", ".join(f"{b:.2f}" for b in backlog)
    out["sat_m"] = sum(backlog)
    # backlog growth with load: one flow end to end against one flow per link
    e2e = chain_add_linkdrop(_udp(runs))
    hop = chain_add_linkdrop(_udp(runs, 0.5, one_hop=True))

    def rho(df: "pd.DataFrame") -> str:
        g = df.groupby(RATE)["backlog_mean"].mean()
        return ", ".join(f"{v:.2f} at {k / 1e3:g}" for k, v in g.items())

    out["rho_e2e"], out["rho_hop"] = rho(e2e), rho(hop)
    hc = _udp_curve(runs, 0.5, one_hop=True)
    h1, h2, hsat = chain_knees(hc[RATE], hc["mean"])
    out.update({"hop_k1": h1 / 1e3, "hop_k2": h2 / 1e3, "hop_ratio": h2 / h1 if h1 else math.nan,
                "hop_plateau": 100 * hsat})
    # the model at saturation
    bs, cs = _b_c(ctx)
    printed = chain_linkdrop_model(backlog, bs, cs, "printed") if backlog else {}
    smooth = chain_linkdrop_model(backlog, bs, cs, "smooth") if backlog else {}
    out.update({"b_star": bs, "c_star": cs, "model_c": printed.get("c", math.nan),
                "model_b": printed.get("b", math.nan), "model_h": printed.get("hidden", math.nan),
                "model_pr": 100 * printed.get("p_r", math.nan), "smooth_pr": 100 * smooth.get("p_r", math.nan),
                "smooth_c": smooth.get("c", math.nan), "smooth_b": smooth.get("b", math.nan),
                "smooth_h": smooth.get("hidden", math.nan)})
    out["measured_rts"] = 100 * float(sat_runs["drop_rts"].mean())
    out["markov_rts"] = 100 * float(sat_runs["markov_rts"].mean())
    out["markov_ratio"] = out["measured_rts"] / out["markov_rts"] if out["markov_rts"] else math.nan
    nodes = sorted(per_id(sat_runs, "node", "rts_sent"))
    h = [float((sat_runs[f"node.{n}.cts_timeouts"] / sat_runs[f"node.{n}.rts_sent"]).mean()) for n in nodes]
    out["sat_h"] = ", ".join(_f(v, ".2f") for v in h)
    data_limit = sum(float(sat_runs[c].sum()) for c in sat_runs.columns if c == "drops.mac_data_retry")
    out["sat_data_limit_drops"] = data_limit
    hop_sat = _sat_udp(runs, True)
    hop_recs = hop_sat.to_dict("records")
    hb = [sum(col) / len(col) for col in zip(*[chain_backlog(r) for r in hop_recs])] if hop_recs else []
    out["hop_m"] = sum(hb)
    out["hop_measured_rts"] = 100 * float(hop_sat["drop_rts"].mean()) if len(hop_sat) else math.nan
    hop_model = chain_linkdrop_model(hb, bs, cs, "printed") if hb else {}
    out["hop_model_pr"] = 100 * hop_model.get("p_r", math.nan)
    return out


# --- fu-wstar: AODV side sweep (issue 8 item 5) -------------------------------------------

@register("values")
def fu_wstar_aodv_values(ctx: "Context") -> dict[str, Any]:
    """W* and the cost of a too-large window on the long chains with AODV (side sweep ``aodv``)."""
    side = ctx.side("aodv").runs
    t = chain_wstar_table(side)
    rows = ["| h | h/4 | W* (AODV) | windows within 2% of the best | largest tried | throughput at W* (kb/s) | "
            "lost at the largest window (%) |", "|---|---|---|---|---|---|---|"]
    losses = []
    for r in t.itertuples(index=False):
        sub = side[side[HOPS] == r.hops]
        loss = fu_window_loss(sub, r.max_tried)
        losses.append(loss.mean)
        rows.append(f"| {r.hops} | {r.h4:g} | {r.wstar} | {r.near_lo}..{r.near_hi} | {r.max_tried} | "
                    f"{r.best_bps / 1e3:.0f} | {loss.mean:.1f} |")
    return {"aodv_table": "\n".join(rows), "aodv_loss_max": max(losses, default=math.nan),
            "aodv_dev_mean": float((t["wstar"] - t["h4"]).abs().mean()) if len(t) else math.nan}


@register("evidence")
def fu_wstar_aodv_evidence(ctx: "Context", claim: Any, point: Any) -> Any:
    """Shown when the claim's rule holds on the long chains run with AODV (side sweep ``aodv``):
    routing that reacts to MAC failures, as the papers' DSR did, is then the cause."""
    from ..report import Evidence, claim_on

    est, holds, dev = claim_on(ctx.side("aodv"), claim, {})
    if holds is None:
        return Evidence(None, f"could not be measured on the side sweep 'aodv': {dev}")
    return Evidence(holds, f"with AODV on the long chains the claim's value is {est.mean:.3g} ({dev})"
                           + ("; the rule holds there" if holds else "; the rule fails there too, so routing "
                              "dynamics are not shown to be the cause"))


# --- unspecified quantities (the claims' ``unspecified`` ranges) --------------------------
# Every reading the papers' words allow, computed from the runs the entry already holds.

@register("check")
def fu_linkdrop_tcp_high_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]
                                  ) -> list[tuple[str, Estimate]]:
    """fu-linkdrop, TCP at MaxWin 32: the contention drop probability under each denominator
    (per packet entering the chain, as the claim; per TCP data segment sent, counting all
    contention drops or the data segments' alone; per packet handed to any MAC; per RTS)."""
    top = chain_add_linkdrop(_tcp(runs))
    top = top[top[WIN] == 32]
    if top.empty:
        raise SpecError("no TCP runs at MaxWin 32")
    data_sent = top["flow.0.packets_sent"]
    return [("per packet entering the chain", mean_ci(top["drop_packet"])),
            ("all drops per data segment sent", mean_ci(_contention(top) / data_sent)),
            ("data-segment drops per data segment sent", mean_ci(_contention(top, "tcp_data") / data_sent)),
            ("per packet handed to a MAC (per hop)", mean_ci(top["drop_hop"])),
            ("per RTS sent", mean_ci(top["drop_rts"]))]


#: CBR timing: ns-2's CBR source jitters its intervals only when ``random_`` is set
CBR_READINGS = {"random CBR (jitter 0.5)": 0.5, "periodic CBR": 0.0}


@register("check")
def fu_linkdrop_udp_ramp_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]
                                  ) -> list[tuple[str, Estimate]]:
    """fu-linkdrop, UDP end to end: second knee over first knee of the fitted curve, with random
    and with strictly periodic CBR (both in the main sweep)."""
    out = []
    for label, jitter in CBR_READINGS.items():
        t = _udp_curve(runs, jitter)
        k1, k2, _ = chain_knees(t[RATE], t["mean"])
        out.append((label, Estimate(k2 / k1 if k1 > 0 else math.nan, math.nan, len(t), math.nan)))
    return out


# fu-queue-deviation: INFOCOM Table 1's "queue size deviation", defined nowhere, at a window not given

#: what a node's queue size counts (as fu-queues' readings)
QDEV_OCCUPANCY = ("queue + the MAC's packet", "queue only")
#: the spread of the intermediate nodes' queue sizes: over their mean, 1 + coefficient of
#: variation, or the standard deviation itself (packets)
QDEV_SPREADS = ("largest / mean", "1 + CV", "standard deviation")


def chain_queue_spread(row: Mapping[str, Any], spread: str, occupancy: str) -> float:
    """The spread of the time-average queue sizes of a chain run's intermediate nodes (1..h-1)."""
    if spread not in QDEV_SPREADS or occupancy not in QDEV_OCCUPANCY:
        raise SpecError(f"queue spread {spread!r} / occupancy {occupancy!r}; allowed: {', '.join(QDEV_SPREADS)} / "
                        f"{', '.join(QDEV_OCCUPANCY)}")
    ids = sorted(i for i, k in per_id(row, "node", "queue_avg").items() if row[k] == row[k])
    if len(ids) < 3:
        raise SpecError("queue spread: a chain of at least 2 hops is needed")
    occ = [float(row[f"node.{i}.queue_avg"])
           + (float(row[f"node.{i}.backlog_frac"]) if occupancy == QDEV_OCCUPANCY[0] else 0.0) for i in ids[1:-1]]
    mean = sum(occ) / len(occ)
    sd = math.sqrt(sum((o - mean) ** 2 for o in occ) / len(occ))
    if spread == "standard deviation":
        return sd
    if mean <= 0:
        return math.nan
    return max(occ) / mean if spread == "largest / mean" else 1 + sd / mean


def _qdev_settings(runs: "pd.DataFrame") -> list[tuple[str, int, str, str]]:
    """(label, window, spread, occupancy) of every setting; window 0 stands for ceil(h/4)."""
    windows = sorted({int(w) for w in runs[WIN].fillna(0)}) if WIN in runs.columns else [0]
    return [(f"{sp}, {occ}, MaxWin {w or 'ceil(h/4)'}", w, sp, occ)
            for w in windows for occ in QDEV_OCCUPANCY for sp in QDEV_SPREADS]


def _qdev_value(runs: "pd.DataFrame", hops: int, window: int, spread: str, occupancy: str) -> Estimate:
    sel = runs[runs[HOPS] == hops]
    if WIN in sel.columns:
        sel = sel[sel[WIN].fillna(0) == window]
    return mean_ci([chain_queue_spread(r, spread, occupancy) for r in sel.to_dict("records")])


@register("check")
def fu_qdev_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, hops: int
                     ) -> list[tuple[str, Estimate]]:
    """fu-queue-deviation: the deviation on the ``hops``-hop chain under every reading (spread ×
    what a queue counts × MaxWin of the sweep)."""
    runs = ctx.runs
    return [(label, _qdev_value(runs, hops, w, sp, occ)) for label, w, sp, occ in _qdev_settings(runs)]


@register("check")
def fu_qdev_trend_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]
                           ) -> list[tuple[str, Estimate]]:
    """fu-queue-deviation: Spearman rank correlation of the chain length and the deviation under
    every reading of :func:`fu_qdev_readings`."""
    runs = ctx.runs
    hs = sorted(int(h) for h in runs[HOPS].unique())
    out = []
    for label, w, sp, occ in _qdev_settings(runs):
        ys = [_qdev_value(runs, h, w, sp, occ).mean for h in hs]
        out.append((label, Estimate(chain_spearman(hs, ys), math.nan, len(hs), math.nan)))
    return out


@register("check")
def fu_udp_peak_drop_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]
                              ) -> list[tuple[str, Estimate]]:
    """fu-contention-throughput, random CBR end to end: the contention drop probability (%) at
    the offered load of peak throughput (the claim) or at the largest load below the fitted
    first knee of the drop curve (INFOCOM: "before the first knee point"), per packet entering
    the chain (the claim) or per packet handed to a MAC (per hop)."""
    u = chain_add_linkdrop(_udp(runs, 0.5))
    if u.empty:
        raise SpecError("no random-CBR runs to the chain's end")
    t = chain_means(u, RATE, GOODPUT)
    peak = float(t.at[int(t["mean"].idxmax()), RATE])
    curve = chain_means(u, RATE, "drop_packet")
    k1, _, _ = chain_knees(curve[RATE], curve["mean"])
    below = [float(r) for r in curve[RATE] if r < k1]
    out = []
    for where, load in (("at peak throughput", peak), ("below the first knee", max(below) if below else math.nan)):
        sel = u[u[RATE] == load]
        for per, col in (("per packet entering the chain", "drop_packet"), ("per hop", "drop_hop")):
            out.append((f"{per}, {where}", mean_ci(100 * sel[col]) if len(sel) else Estimate(math.nan, math.nan, 0,
                                                                                                 math.nan)))
    return out


#: INFOCOM Table 1, chain length -> printed deviation
QDEV_TABLE1 = {4: 1.45, 7: 1.31, 10: 1.23, 16: 1.10, 48: 1.05}


@register("values")
def fu_qdev_values(ctx: "Context") -> dict[str, Any]:
    """fu-queue-deviation's notes: every reading of the deviation on every chain, with Table 1,
    and the readings that put all five chains within 15% of Table 1 (``qdev_whole_table``)."""
    runs = ctx.runs
    hs = sorted(int(h) for h in runs[HOPS].unique())
    rows = ["| reading | " + " | ".join(f"{h} hops" for h in hs) + " | Spearman (h, deviation) |",
            "|---|" + "---|" * (len(hs) + 1),
            "| **INFOCOM Table 1** | " + " | ".join(_f(QDEV_TABLE1.get(h, math.nan), ".2f") for h in hs) + " | -1 |"]
    whole = []
    for label, w, sp, occ in _qdev_settings(runs):
        ys = [_qdev_value(runs, h, w, sp, occ).mean for h in hs]
        rho = chain_spearman(hs, ys)
        rows.append(f"| {label} | " + " | ".join(_f(y, ".2f") for y in ys) + f" | {_f(rho, '.2f')} |")
        if all(h in QDEV_TABLE1 and abs(y / QDEV_TABLE1[h] - 1) <= 0.15 for h, y in zip(hs, ys)):
            whole.append(label)
    return {"qdev_table": "\n".join(rows), "qdev_whole_table": "; ".join(whole) if whole else "none"}
