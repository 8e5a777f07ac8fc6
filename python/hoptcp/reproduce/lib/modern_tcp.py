"""The ``modern-tcp`` study: the papers' scenarios rerun with NewReno, NewReno + SACK, CUBIC and
BBR on the same seeds. No paper claims: every function here measures, none judges.

A run's sender ("arm") is read from its ``tcp.variant`` and ``tcp.sack`` columns; arms are
compared paired by seed (:func:`hoptcp.stats.paired_gain`), each against its baseline: SACK
against NewReno (the recovery alone), CUBIC against NewReno with SACK (the congestion controller
alone), BBR (which has its own recovery and takes no SACK) against NewReno.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import SpecError
from ...plotting import new_figure
from ...stats import Estimate, jain, mean_ci, paired_gain
from ..registry import register

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..report import ClaimResult, Context

GOODPUT = "aggregate_goodput_bps"
WIN = "tcp.max_window"
VARIANT = "tcp.variant"
SACK = "tcp.sack"
#: the senders' labels, in the order tables list them
LABELS = {("newreno", False): "NewReno", ("newreno", True): "NewReno + SACK", ("cubic", True): "CUBIC + SACK",
          ("cubic", False): "CUBIC", ("bbr", True): "BBR + SACK", ("bbr", False): "BBR", ("reno", False): "Reno",
          ("tcp_ap", False): "TCP-AP"}
ORDER = list(LABELS.values())
#: each sender's baseline: the sender that differs from it in one thing only
BASELINE = {"NewReno + SACK": "NewReno", "CUBIC + SACK": "NewReno + SACK", "BBR + SACK": "NewReno + SACK",
            "CUBIC": "NewReno", "BBR": "NewReno"}
#: MAC retry-limit drops (contention) and interface-queue overflows (buffer)
CONTENTION = ("drops.mac_rts_retry", "drops.mac_data_retry")
BUFFER = "drops.queue_overflow"


def arm_label(variant: Any, sack: Any) -> str:
    """The sender's label for a run's ``tcp.variant`` and ``tcp.sack``."""
    key = (str(variant), bool(sack) if sack == sack and sack is not None else False)
    return LABELS.get(key, f"{key[0]}{' + SACK' if key[1] else ''}")


def with_arms(runs: "pd.DataFrame", variant: str | None = None) -> "pd.DataFrame":
    """The runs with an ``arm`` column; ``variant`` for sweeps that do not vary the sender."""
    if runs.empty:
        raise SpecError("no runs")
    out = runs.copy()
    v = out[VARIANT] if VARIANT in out.columns else variant
    if v is None:
        raise SpecError(f"the runs have no '{VARIANT}' column and no sender was named")
    s = out[SACK] if SACK in out.columns else False
    out["arm"] = [arm_label(a, b) for a, b in zip(v if not isinstance(v, str) else [v] * len(out),
                                                  s if not isinstance(s, bool) else [s] * len(out))]
    return out


def arms(runs: "pd.DataFrame") -> list[str]:
    present = set(runs["arm"])
    return [a for a in ORDER if a in present] + sorted(present - set(ORDER))


def _seeded(runs: "pd.DataFrame", metric: str) -> "pd.Series":
    """One value per seed (several runs of a seed averaged)."""
    if metric not in runs.columns:
        raise SpecError(f"no metric '{metric}' in the runs")
    return runs.groupby("seed")[metric].mean()


def _kbps(e: Estimate) -> str:
    if math.isnan(e.mean):
        return "–"
    return f"{e.mean / 1e3:.1f}" + ("" if math.isnan(e.ci) else f" ± {e.ci / 1e3:.1f}")


def _pct(e: Estimate) -> str:
    if math.isnan(e.mean):
        return "–"
    return f"{e.mean:+.1f}%" + ("" if math.isnan(e.ci) else f" ± {e.ci:.1f}")


def _num(e: Estimate, digits: int = 3) -> str:
    if math.isnan(e.mean):
        return "–"
    return f"{e.mean:.{digits}g}" + ("" if math.isnan(e.ci) else f" ± {e.ci:.2g}")


def _significant(e: Estimate) -> bool:
    """The paired interval excludes zero."""
    return not math.isnan(e.ci) and abs(e.mean) > e.ci


def _sel(runs: "pd.DataFrame", **where: Any) -> "pd.DataFrame":
    out = runs
    for k, v in where.items():
        col = k.replace("__", ".")
        out = out[out[col] == v]
    return out


def gain(base: "pd.DataFrame", cure: "pd.DataFrame", metric: str = GOODPUT) -> Estimate:
    """The paired gain (%) of ``cure`` over ``base`` in ``metric``, per seed."""
    if base.empty or cure.empty:
        return Estimate(math.nan, math.nan, 0, math.nan)
    return paired_gain(_seeded(base, metric), _seeded(cure, metric), "pct")


# --- the window sweep on the chain -----------------------------------------------------------

def best_window(runs: "pd.DataFrame") -> tuple[int, float]:
    """(argmax over MaxWin of the mean goodput, that mean) of one sender's runs."""
    means = runs.groupby(WIN)[GOODPUT].mean()
    if means.empty:
        raise SpecError("no runs to find the best MaxWin")
    w = int(means.idxmax())
    return w, float(means[w])


def _window_values(ctx: "Context") -> dict[str, Any]:
    runs = with_arms(ctx.runs)
    wins = sorted(int(w) for w in runs[WIN].unique())
    out: dict[str, Any] = {}
    head = "| sender | " + " | ".join(f"{w}" for w in wins) + " |"
    rows = [head, "|---|" + "---|" * len(wins)]
    best_rows = ["| sender | best MaxWin | goodput there (kb/s) | at MaxWin 32 (kb/s) | lost at 32 (paired) |",
                 "|---|---|---|---|---|"]
    sentences = []
    for a in arms(runs):
        sub = runs[runs["arm"] == a]
        cells = [_kbps(mean_ci(_sel(sub, **{"tcp__max_window": w})[GOODPUT])) for w in wins]
        rows.append(f"| {a} | " + " | ".join(cells) + " |")
        w, _ = best_window(sub)
        top = max(wins)
        at_best, at_top = _sel(sub, **{"tcp__max_window": w}), _sel(sub, **{"tcp__max_window": top})
        lost = paired_gain(_seeded(at_best, GOODPUT), _seeded(at_top, GOODPUT), "loss_pct")
        best_rows.append(f"| {a} | {w} | {_kbps(mean_ci(at_best[GOODPUT]))} | {_kbps(mean_ci(at_top[GOODPUT]))} | "
                         f"{_pct(lost)} |")
        out[f"best_{_slug(a)}"] = w
        sentences.append(f"{a}'s best MaxWin is {w}; the unbounded window loses {_pct(lost)} against it"
                         + (" (the interval excludes 0)" if _significant(lost) else " (the interval includes 0)"))
    out["window_table"] = "\n".join(rows)
    out["best_table"] = "\n".join(best_rows)
    out["window_sentence"] = "; ".join(sentences) + "."
    vs = ["| sender | baseline | " + " | ".join(f"MaxWin {w}" for w in wins) + " |",
          "|---|---|" + "---|" * len(wins)]
    for a in arms(runs):
        b = BASELINE.get(a)
        if b is None or b not in set(runs["arm"]):
            continue
        cells = [_pct(gain(_sel(runs[runs["arm"] == b], **{"tcp__max_window": w}),
                           _sel(runs[runs["arm"] == a], **{"tcp__max_window": w}))) for w in wins]
        vs.append(f"| {a} | {b} | " + " | ".join(cells) + " |")
    out["window_vs_base"] = "\n".join(vs)
    return out


def _slug(label: str) -> str:
    return label.lower().replace(" + ", "_").replace(" ", "_").replace("-", "_")


# --- the cross and the grids -------------------------------------------------------------------

def drop_split(runs: "pd.DataFrame") -> tuple[Estimate, Estimate]:
    """(MAC retry-limit drops, queue-overflow drops) per run: mean and CI over the seeds."""
    contention = sum(runs[c].fillna(0) if c in runs.columns else 0 * runs[GOODPUT] for c in CONTENTION)
    buffer = runs[BUFFER].fillna(0) if BUFFER in runs.columns else 0 * runs[GOODPUT]
    return mean_ci(contention), mean_ci(buffer)


def flow_jain(runs: "pd.DataFrame") -> "pd.Series":
    """Jain's index over each run's flows (from the per-flow goodputs)."""
    cols = sorted((c for c in runs.columns if c.startswith("flow.") and c.endswith(".goodput_bps")),
                  key=lambda c: int(c.split(".")[1]))
    if not cols:
        raise SpecError("the runs hold no per-flow goodput (flow.*.goodput_bps)")
    return runs[cols].apply(lambda r: jain([v for v in r if v == v]), axis=1)


def _topology_values(ctx: "Context") -> dict[str, Any]:
    side = ctx.side("topologies")
    runs = with_arms(side.runs)
    runs = runs.assign(jain_flows=flow_jain(runs))
    rows = ["| case | MaxWin | sender | goodput (kb/s) | vs baseline (paired) | Jain | MAC retry-limit drops | "
            "queue overflows | overflow share |", "|---|---|---|---|---|---|---|---|---|"]
    overflow_shares = []
    for case in [c for c in ("cross2", "grid4", "grid8", "grid12") if c in set(runs["name"])]:
        for w in sorted(int(x) for x in runs[WIN].unique()):
            at = _sel(runs, name=case, **{"tcp__max_window": w})
            for a in arms(at):
                sub = at[at["arm"] == a]
                b = BASELINE.get(a)
                g = gain(at[at["arm"] == b], sub) if b else Estimate(math.nan, math.nan, 0, math.nan)
                mac, buf = drop_split(sub)
                share = buf.mean / (mac.mean + buf.mean) if mac.mean + buf.mean > 0 else math.nan
                overflow_shares.append((share, case, w, a))
                rows.append(f"| {case} | {w} | {a} | {_kbps(mean_ci(sub[GOODPUT]))} | {_pct(g) if b else '–'} | "
                            f"{_num(mean_ci(sub['jain_flows']))} | {mac.mean:.0f} | {buf.mean:.0f} | "
                            f"{'–' if math.isnan(share) else f'{share:.1%}'} |")
    shares = [s for s in overflow_shares if not math.isnan(s[0])]
    if shares and max(shares)[0] == 0:
        sentence = (f"In none of the {len(shares)} cases, senders and windows did a queue overflow: every drop "
                    "is a MAC retry-limit drop.")
    elif shares:
        hi = max(shares)
        sentence = (f"Across the {len(shares)} cases, senders and windows, queue overflows are at most "
                    f"{hi[0]:.2%} of the drops ({hi[3]} on {hi[1]} at MaxWin {hi[2]}).")
    else:
        sentence = "No run dropped a packet."
    return {"topology_table": "\n".join(rows), "topology_sentence": sentence}


# --- pacing ------------------------------------------------------------------------------------

CURES = (("Link RED", True, False), ("adaptive pacing", False, True), ("Link RED + adaptive pacing", True, True))


def _mac_arm(runs: "pd.DataFrame", lred: bool, pacing: bool) -> "pd.DataFrame":
    return runs[(runs["mac.link_red.enabled"] == lred) & (runs["mac.adaptive_pacing.enabled"] == pacing)]


def _rtt_ms(runs: "pd.DataFrame") -> Estimate:
    col = "flow.0.avg_rtt_s"
    if col not in runs.columns or runs.empty:
        return Estimate(math.nan, math.nan, 0, math.nan)
    e = mean_ci(runs[col])
    return Estimate(e.mean * 1e3, e.ci * 1e3, e.n, e.std * 1e3)


def pacing_gains(ctx: "Context") -> list[tuple[str, str, Estimate]]:
    """(sender, cure, paired goodput gain %) of every MAC cure and of TCP-GAP."""
    out = []
    mac = with_arms(ctx.side("pacing-mac").runs)
    for a in arms(mac):
        sub = mac[mac["arm"] == a]
        plain = _mac_arm(sub, False, False)
        for name, lred, pacing in CURES:
            out.append((a, name, gain(plain, _mac_arm(sub, lred, pacing))))
    gw = with_arms(ctx.side("pacing-gateway").runs)
    for a in arms(gw):
        sub = gw[gw["arm"] == a]
        for h in sorted(int(x) for x in sub["topology.hops"].unique()):
            at = _sel(sub, **{"topology__hops": h})
            out.append((a, f"TCP-GAP, h = {h}", gain(at[at["wired.tcp_gap.enabled"] == False],  # noqa: E712
                                                     at[at["wired.tcp_gap.enabled"] == True])))  # noqa: E712
    return out


def _pacing_values(ctx: "Context") -> dict[str, Any]:
    mac = with_arms(ctx.side("pacing-mac").runs)
    rows = ["| sender | goodput, no cure (kb/s) | RTT, no cure (ms) | " + " | ".join(f"{n}: gain" for n, _, _ in CURES)
            + " | RTT with adaptive pacing (ms) |", "|---|---|---|" + "---|" * len(CURES) + "---|"]
    gains = {(a, c): e for a, c, e in pacing_gains(ctx)}
    for a in arms(mac):
        sub = mac[mac["arm"] == a]
        plain = _mac_arm(sub, False, False)
        rows.append(f"| {a} | {_kbps(mean_ci(plain[GOODPUT]))} | {_num(_rtt_ms(plain))} | "
                    + " | ".join(_pct(gains[(a, n)]) for n, _, _ in CURES)
                    + f" | {_num(_rtt_ms(_mac_arm(sub, False, True)))} |")
    # BBR's own pacing and TCP-AP's against NewReno on the same chain (main sweep, MaxWin 32)
    main = with_arms(ctx.runs)
    nr = _sel(main[main["arm"] == "NewReno"], **{"tcp__max_window": 32})
    ap = with_arms(ctx.side("pacing-sender").runs, "tcp_ap")
    g_ap = gain(nr, ap)
    tcp_ap = (f"{_kbps(mean_ci(ap[GOODPUT]))} kb/s, {_pct(g_ap)} against NewReno at MaxWin 32 (paired), "
              f"mean RTT {_num(_rtt_ms(ap))} ms against NewReno's {_num(_rtt_ms(nr))} ms.")
    gw = with_arms(ctx.side("pacing-gateway").runs)
    grows = ["| sender | h | goodput, gateway off (kb/s) | with TCP-GAP (kb/s) | TCP-GAP's gain (paired) |",
             "|---|---|---|---|---|"]
    for a in arms(gw):
        sub = gw[gw["arm"] == a]
        for h in sorted(int(x) for x in sub["topology.hops"].unique()):
            at = _sel(sub, **{"topology__hops": h})
            off = at[at["wired.tcp_gap.enabled"] == False]  # noqa: E712
            on = at[at["wired.tcp_gap.enabled"] == True]  # noqa: E712
            grows.append(f"| {a} | {h} | {_kbps(mean_ci(off[GOODPUT]))} | {_kbps(mean_ci(on[GOODPUT]))} | "
                         f"{_pct(gains[(a, f'TCP-GAP, h = {h}')])} |")
    return {"pacing_table": "\n".join(rows), "tcp_ap_sentence": tcp_ap, "gateway_table": "\n".join(grows)}


# --- Jiang's retry limits -------------------------------------------------------------------

def _retry_values(ctx: "Context") -> dict[str, Any]:
    runs = with_arms(ctx.side("retry").runs)
    rows = ["| sender | hops, W | 7/4 (kb/s) | 14/10 (kb/s) | gain of 14/10 (paired) |", "|---|---|---|---|---|"]
    sig = []
    for a in arms(runs):
        sub = runs[runs["arm"] == a]
        for h in sorted(int(x) for x in sub["topology.hops"].unique()):
            at = _sel(sub, **{"topology__hops": h})
            w = int(at[WIN].iloc[0])
            lo, hi = _sel(at, **{"mac__short_retry_limit": 7}), _sel(at, **{"mac__short_retry_limit": 14})
            g = gain(lo, hi)
            rows.append(f"| {a} | {h}, {w} | {_kbps(mean_ci(lo[GOODPUT]))} | {_kbps(mean_ci(hi[GOODPUT]))} | {_pct(g)} |")
            sig.append(f"{a} at {h} hops: {_pct(g)}" + (" (interval excludes 0)" if _significant(g) else ""))
    return {"retry_table": "\n".join(rows),
            "retry_sentence": "The higher retry limits' paired gain: " + "; ".join(sig) + "."}


@register("values")
def modern_values(ctx: "Context") -> dict[str, Any]:
    """Every table and sentence of the modern-tcp report."""
    out: dict[str, Any] = {}
    for part in (_window_values, _topology_values, _pacing_values, _retry_values):
        out.update(part(ctx))
    counts = {"main": len(ctx.runs), **{name: len(side.runs) for name, side in ctx.sides.items()}}
    out["runs_total"] = sum(counts.values())
    out["runs_line"] = ", ".join(f"{k} {v}" for k, v in counts.items())
    return out


# --- figures -------------------------------------------------------------------------------------

@register("figure")
def modern_window_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Goodput against MaxWin on the 7-hop chain, one line per sender."""
    runs = with_arms(ctx.runs)
    fig = new_figure(*opts.get("size", (6.5, 4.2)))
    ax = fig.add_subplot()
    for i, a in enumerate(arms(runs)):
        sub = runs[runs["arm"] == a]
        g = sub.groupby(WIN)[GOODPUT]
        ws = sorted(g.groups)
        est = [mean_ci(g.get_group(w)) for w in ws]
        ax.errorbar(ws, [e.mean / 1e3 for e in est], yerr=[0 if math.isnan(e.ci) else e.ci / 1e3 for e in est],
                    marker="o", ms=3, capsize=2, color=f"C{i}", label=a)
        w, best = best_window(sub)
        ax.plot([w], [best / 1e3], "*", ms=12, color=f"C{i}", mec="k")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("MaxWin (packets)")
    ax.set_ylabel("Goodput (kb/s)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


@register("figure")
def modern_topology_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """The cross and the grids at the largest MaxWin: goodput and the two kinds of drops per sender."""
    import numpy as np

    runs = with_arms(ctx.side("topologies").runs)
    top = int(runs[WIN].max())
    runs = runs[runs[WIN] == top]
    cases = [c for c in ("cross2", "grid4", "grid8", "grid12") if c in set(runs["name"])]
    senders = arms(runs)
    fig = new_figure(*opts.get("size", (11.0, 4.2)))
    ax1, ax2 = fig.subplots(1, 2)
    x = np.arange(len(cases))
    width = 0.8 / max(len(senders), 1)
    for i, a in enumerate(senders):
        sub = runs[runs["arm"] == a]
        gp = [mean_ci(sub[sub["name"] == c][GOODPUT]) for c in cases]
        ax1.bar(x + i * width, [e.mean / 1e3 for e in gp], width, yerr=[0 if math.isnan(e.ci) else e.ci / 1e3 for e in gp],
                color=f"C{i}", label=a, capsize=2)
        split = [drop_split(sub[sub["name"] == c]) for c in cases]
        ax2.bar(x + i * width, [m.mean for m, _ in split], width, color=f"C{i}", label=f"{a}: MAC retry limit")
        ax2.bar(x + i * width, [b.mean for _, b in split], width, bottom=[m.mean for m, _ in split], color=f"C{i}",
                hatch="///", alpha=0.5, label=f"{a}: queue overflow")
    ax1.set_ylim(bottom=0)
    for ax, ylabel in ((ax1, "Aggregate goodput (kb/s)"), (ax2, "Drops per run")):
        ax.set_xticks(x + 0.4 - width / 2, cases)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, axis="y")
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=6, ncol=2)
    return fig


@register("figure")
def modern_pacing_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Each pacing cure's paired goodput gain over the same sender without it."""
    import numpy as np

    gains = pacing_gains(ctx)
    cures = list(dict.fromkeys(c for _, c, _ in gains))
    senders = [a for a in ORDER if any(g[0] == a for g in gains)]
    fig = new_figure(*opts.get("size", (9.0, 4.2)))
    ax = fig.add_subplot()
    x = np.arange(len(cures))
    width = 0.8 / max(len(senders), 1)
    table = {(a, c): e for a, c, e in gains}
    for i, a in enumerate(senders):
        est = [table.get((a, c), Estimate(math.nan, math.nan, 0, math.nan)) for c in cures]
        ax.bar(x + i * width, [e.mean for e in est], width, yerr=[0 if math.isnan(e.ci) else e.ci for e in est],
               color=f"C{i}", label=a, capsize=2)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(x + 0.4 - width / 2, cures, fontsize=8)
    ax.set_ylabel("Goodput gain over the same sender (%)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return fig
