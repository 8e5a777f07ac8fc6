"""ElRakabawy et al. (2008), TCP-GAP over hybrid wired/wireless networks: builders,
checks, values and figures for the ``gap-*`` entries.

The Fig. 3 chain (``scenarios/gap-chain.toml``): a wireless chain of ``topology.hops``
hops whose last node is the Internet gateway IG, then wired RT1 – RT2 – B (node ids
``hops + 1 .. hops + 3``). Arms: NewReno (TCP-GAP off), TCP-AP alone (the wireless
sender paces, the gateway does nothing) and TCP-GAP (gateway on; wireless senders run
TCP-AP, wired senders NewReno). Functions take plain DataFrames (one row per run).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import SpecError
from ...plotting import new_figure
from ...stats import Estimate, mean_ci, paired_gain, paired_over_points, paired_values
from ..registry import register

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..report import ClaimResult, Context, Evidence

GOODPUT = "aggregate_goodput_bps"
HOPS = "topology.hops"
VARIANT = "tcp.variant"
GAP = "wired.tcp_gap.enabled"
DOWNLINK = "wired-to-wireless"
ONE_HOP = "wired-to-wireless-one-hop"
NS2_UP, NS2_DOWN = "ns2-code", "wired-to-wireless-ns2-code"
#: side sweeps that ns-2.35 runs too (static routes, gateway off; TCP-AP: the authors' code)
STATIC_UP, STATIC_DOWN = "static-ns2-code", "static-ns2-code-down"
ARMS = {("newreno", False): "NewReno", ("tcp_ap", False): "TCP-AP (no gateway)", ("tcp_ap", True): "TCP-GAP",
        ("newreno", True): "TCP-GAP"}


def _hops(params: Mapping[str, Any], base: Any) -> int:
    h = params.get(HOPS, ((base.document.get("topology") or {}).get("hops")))
    if not isinstance(h, int) or h < 1:
        raise SpecError(f"derive: topology.hops = {h!r}; expected an integer >= 1")
    return h


@register("derive")
def gap_chain_uplink(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """FTP from A (node 0) to the wired host B (node hops + 3)."""
    return {"flows.0.src": 0, "flows.0.dst": _hops(params, base) + 3}


@register("derive")
def gap_chain_downlink(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """FTP from the wired host B (node hops + 3) to A (node 0); the wired sender is NewReno."""
    return {"flows.0.src": _hops(params, base) + 3, "flows.0.dst": 0, "flows.0.variant": "newreno"}


@register("derive")
def gap_chain_downlink_sender(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """FTP from the wired host B (node hops + 3) to A (node 0), B running the sweep's tcp.variant."""
    return {"flows.0.src": _hops(params, base) + 3, "flows.0.dst": 0}


def _arm(row: Any) -> str:
    return ARMS[(str(row.get(VARIANT, "newreno")), bool(row[GAP]))]


def gap_arm_table(runs: "pd.DataFrame") -> "pd.DataFrame":
    """Mean goodput, 95% CI and n per (hop count, arm)."""
    import pandas as pd

    if runs.empty:
        raise SpecError("no runs")
    runs = runs.copy()  # one block per dtype (the callers concatenate sweeps of other columns)
    r = runs.assign(arm=runs.apply(_arm, axis=1))
    rows = []
    for (h, arm), g in r.groupby([HOPS, "arm"], sort=True):
        e = mean_ci(g[GOODPUT])
        rows.append({"hops": int(h), "arm": arm, "mean": e.mean, "ci": e.ci, "n": e.n, "std": e.std})
    return pd.DataFrame(rows)


def _by_seed(runs: "pd.DataFrame", metric: str = GOODPUT) -> "pd.Series":
    if "seed" not in runs.columns:
        raise SpecError("no column 'seed' in the runs (the paired comparison aligns on it)")
    return runs.set_index("seed")[metric]


def _gains(runs: "pd.DataFrame") -> "pd.DataFrame":
    """Per hop count: TCP-GAP's goodput relative to NewReno's, in % (positive: TCP-GAP ahead),
    paired by seed (both arms run the same seeds): ``gain`` the mean of the per-seed gains,
    ``gain_est`` its Estimate, ``gain_seeds`` the per-seed gains; ``newreno`` and ``gap`` the
    arms' mean goodputs."""
    import pandas as pd

    if runs.empty:
        raise SpecError("no runs")
    runs = runs.copy()  # one block per dtype (the callers concatenate sweeps of other columns)
    r = runs.assign(arm=runs.apply(_arm, axis=1))
    rows = []
    for h, g in r.groupby(HOPS, sort=True):
        nr, gp = g[g["arm"] == "NewReno"], g[g["arm"] == "TCP-GAP"]
        if nr.empty or gp.empty:
            continue
        pv = paired_values(_by_seed(nr), _by_seed(gp), "pct")
        rows.append({"hops": int(h), "newreno": float(nr[GOODPUT].mean()), "gap": float(gp[GOODPUT].mean()),
                     "gain": float(pv.values.mean()) if pv.n else math.nan, "gain_est": pv.estimate(),
                     "gain_seeds": pv.values})
    if not rows:
        raise SpecError("no hop count has both NewReno and TCP-GAP runs")
    return pd.DataFrame(rows)


def _max_gain(runs: "pd.DataFrame", long: bool, reduce: str = "max") -> Estimate:
    """The largest (``reduce = "absmax"``: largest absolute) per-hop gain paired by seed over
    the chains h ≥ 4 (``long``) or h < 4, with its bootstrap CI over seeds
    (:func:`hoptcp.stats.paired_over_points`); n = seeds."""
    g = _gains(runs)
    g = g[g["hops"] >= 4] if long else g[g["hops"] < 4]
    if g.empty:
        raise SpecError(f"no chains with {'h >= 4' if long else 'h < 4'}")
    return paired_over_points(list(g["gain_seeds"]), reduce)


@register("check")
def gap_chain_up_gain_long(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest TCP-GAP gain over NewReno for h ≥ 4, wireless to wired (%)."""
    return _max_gain(runs, long=True)


@register("check")
def gap_chain_down_gain_long(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest TCP-GAP gain over NewReno for h ≥ 4, wired to wireless (%)."""
    return _max_gain(ctx.side(DOWNLINK).runs, long=True)


@register("check")
def gap_chain_up_short(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest TCP-GAP gain over NewReno for h < 4, wireless to wired (%; the paper: NewReno slightly ahead)."""
    return _max_gain(runs, long=False)


@register("check")
def gap_chain_down_short_dev(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest |TCP-GAP/NewReno − 1| for h < 4, wired to wireless (%; per chain paired by seed,
    bootstrap CI over seeds)."""
    return _max_gain(ctx.side(DOWNLINK).runs, long=False, reduce="absmax")


@register("evidence")
def gap_chain_down_short_one_hop(ctx: "Context", claim: Any, point: Mapping[str, Any]) -> "Evidence":
    """With the gateway pacing on the one-hop delay below four hops (the authors' code's rule,
    side `wired-to-wireless-one-hop`) against the same NewReno runs, the claim holds."""
    import pandas as pd

    from ..report import Evidence

    newreno = ctx.side(DOWNLINK).runs
    newreno = newreno[~newreno[GAP].astype(bool)]
    one_hop = ctx.side(ONE_HOP).runs.assign(**{GAP: True})
    g = _gains(pd.concat([newreno, one_hop], ignore_index=True))
    g = g[g["hops"] < 4]
    if g.empty:
        return Evidence(None, "no chain with h < 4 in the one-hop side experiment")
    dev = float(g["gain"].abs().max())
    holds, text = claim.rule.evaluate(dev, None, claim.paper_at(point), claim.scale, claim.unit)
    per_h = ", ".join(f"h = {int(r.hops)}: {r.gap / 1e3:.0f} vs {r.newreno / 1e3:.0f} kb/s ({r.gain:+.1f}%)"
                      for r in g.itertuples(index=False))
    return Evidence(holds, f"gateway on the one-hop delay below four hops: {per_h}; largest deviation "
                           f"{dev:.1f}% ({text})")


def _gain_table(runs: "pd.DataFrame") -> str:
    t = gap_arm_table(runs)
    arms = [a for a in ("NewReno", "TCP-AP (no gateway)", "TCP-GAP") if a in set(t["arm"])]
    rows = ["| h | " + " | ".join(f"{a} (kb/s)" for a in arms) + " | TCP-GAP vs NewReno |",
            "|---" * (len(arms) + 2) + "|"]
    gains = {int(r.hops): r.gain for r in _gains(runs).itertuples(index=False)}
    for h, g in t.groupby("hops", sort=True):
        cells = []
        for a in arms:
            x = g[g["arm"] == a]
            cells.append(f"{x['mean'].iloc[0] / 1e3:.0f} ± {x['ci'].fillna(0).iloc[0] / 1e3:.0f}" if len(x) else "–")
        gain = f"{gains[int(h)]:+.1f}%" if int(h) in gains else "–"
        rows.append(f"| {int(h)} | " + " | ".join(cells) + f" | {gain} |")
    return "\n".join(rows)


def _code_table(ctx: "Context") -> str:
    """Per h: TCP-GAP with the ns-2-code variant in both directions, against NewReno."""
    import pandas as pd

    up_nr, down = ctx.runs, ctx.side(DOWNLINK).runs
    up_nr = up_nr[up_nr[VARIANT] == "newreno"]
    down_nr = down[~down[GAP].astype(bool)]
    rows = ["| h | wireless → wired (kb/s) | vs NewReno | wired → wireless (kb/s) | vs NewReno |", "|---|---|---|---|---|"]
    # The sides fix the arm in `set`, which is not a column of their runs.
    code = {VARIANT: "tcp_ap", GAP: True}
    gains = [_gains(pd.concat([nr, ctx.side(side).runs.assign(**arm)], ignore_index=True)).set_index("hops")
             for nr, side, arm in ((up_nr, NS2_UP, code), (down_nr, NS2_DOWN, {GAP: True}))]
    for h in sorted(set(gains[0].index) | set(gains[1].index)):
        cells = []
        for g in gains:
            cells += [f"{g.loc[h, 'gap'] / 1e3:.0f}", f"{g.loc[h, 'gain']:+.1f}%"] if h in g.index else ["–", "–"]
        rows.append(f"| {int(h)} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


#: the sentence of the paper that allows TCP-AP's ns-2-code variant as a reading (for side arms)
NS2_CODE_NOTE = ("TCP-AP's ns-2-code variant (`tcp.ap.profile = \"ns2\"`: the rules of the authors' tcp-ap.cc at "
                 "TCP-AP senders and in the gateway's pacing); the paper: 'The simulation experiments in this "
                 "paper are conducted using the network simulator ns-2' (§5.1), for which the authors published "
                 "TCP-AP's code.")


def side_arm_table(ctx: "Context", sides: Mapping[str, str]) -> str:
    """Per side sweep and point: aggregate goodput (mean ± 95% CI over the seeds), Jain's index, runs."""
    rows = ["| arm | setting | aggregate (kb/s) | Jain | runs |", "|---|---|---|---|---|"]
    for name, label in sides.items():
        sc = ctx.side(name)
        runs = sc.runs
        if runs.empty:
            rows.append(f"| {label} | – | not run | – | 0 |")
            continue
        keys = [k for k in sc.params if k in runs.columns]
        groups = runs.groupby(keys, sort=True) if keys else [((), runs)]
        for key, g in groups:
            vals = key if isinstance(key, tuple) else (key,)
            setting = ", ".join(f"{k} = {v}" for k, v in zip(keys, vals)) or "–"
            e = mean_ci(g[GOODPUT])
            jain = g["fairness_jain"].mean() if "fairness_jain" in g.columns else math.nan
            ci = "" if e.ci != e.ci else f" ± {e.ci / 1e3:.0f}"
            rows.append(f"| {label} | {setting} | {e.mean / 1e3:.0f}{ci} | {jain:.3f} | {len(g)} |")
    return "\n".join(rows)


def ns2_side_runs(ctx: "Context", side: str) -> "pd.DataFrame | None":
    """ns-2.35's stored runs of one of the entry's side sweeps (None: none stored for these settings)."""
    from ..ns2_results import load_side

    return load_side(ctx.entry, side, ctx.quick)


def authors_code_rows(ours: "pd.DataFrame", theirs: "pd.DataFrame") -> list[dict[str, Any]]:
    """Per (direction runs, variant, h): hoptcp's and ns-2.35's goodput over seeds and the
    equivalence test (TOST, margin 10% of hoptcp's mean)."""
    from ..agreement import margin_for, tost

    rows = []
    for (variant, h), g in ours.groupby([VARIANT, HOPS], sort=True):
        n = theirs[(theirs[VARIANT] == variant) & (theirs[HOPS] == h)]
        if n.empty:
            continue
        a, b = list(n[GOODPUT]), list(g[GOODPUT])
        t = tost(a, b, margin_for(None, float(g[GOODPUT].mean())))
        rows.append({"variant": str(variant), "hops": int(h), "hoptcp": mean_ci(g[GOODPUT]),
                     "ns2": mean_ci(n[GOODPUT]), "test": t})
    return rows


def _authors_table(ctx: "Context") -> str:
    names = {"newreno": "NewReno", "tcp_ap": "TCP-AP, ns-2 code"}
    out = ["| direction | arm | h | hoptcp (kb/s) | ns-2.35 (kb/s) | hoptcp − ns-2.35 | verdict |",
           "|---|---|---|---|---|---|---|"]
    for side, label in ((STATIC_UP, "wireless → wired"), (STATIC_DOWN, "wired → wireless")):
        theirs = ns2_side_runs(ctx, side)
        if theirs is None:
            out.append(f"| {label} | – | – | – | no stored ns-2.35 runs | – | – |")
            continue
        for r in authors_code_rows(ctx.side(side).runs, theirs):
            e, f, t = r["hoptcp"], r["ns2"], r["test"]
            out.append(f"| {label} | {names.get(r['variant'], r['variant'])} | {r['hops']} | "
                       f"{e.mean / 1e3:.0f} ± {e.ci / 1e3:.0f} | {f.mean / 1e3:.0f} ± {f.ci / 1e3:.0f} | "
                       f"{(e.mean - f.mean) / f.mean * 100:+.1f}% | {t.verdict} |")
    return "\n".join(out)


@register("values")
def gap_chain_values(ctx: "Context") -> dict[str, Any]:
    """Goodput tables of both directions."""
    up, down = ctx.runs, ctx.side(DOWNLINK).runs
    g_up, g_down = _gains(up), _gains(down)
    return {"up_table": _gain_table(up), "down_table": _gain_table(down), "ns2_table": _code_table(ctx),
            "ns2_authors_table": _authors_table(ctx),
            "up_best": float(g_up["gain"].max()), "up_best_h": int(g_up.loc[g_up["gain"].idxmax(), "hops"]),
            "down_best": float(g_down["gain"].max()),
            "down_best_h": int(g_down.loc[g_down["gain"].idxmax(), "hops"])}


@register("figure")
def gap_chain_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Figs. 8 and 9: goodput against the number of wireless hops, both directions."""
    fig = new_figure(*opts.get("size", (10.0, 4.0)))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, runs, title in ((axes[0], ctx.runs, "Fig. 8: wireless → wired"),
                            (axes[1], ctx.side(DOWNLINK).runs, "Fig. 9: wired → wireless")):
        t = gap_arm_table(runs)
        for i, arm in enumerate(("NewReno", "TCP-AP (no gateway)", "TCP-GAP")):
            g = t[t["arm"] == arm]
            if g.empty:
                continue
            ax.errorbar(g["hops"], g["mean"] / 1e3, yerr=g["ci"].fillna(0) / 1e3, marker="o", ms=4, capsize=2,
                        color=f"C{i}", label=arm)
        ax.set_xlabel("Number of wireless hops h")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("Goodput (kb/s)")
    return fig


# --- gap-parallel (Figs. 10-12) -----------------------------------------------------------

#: Node ids of scenarios/gap-parallel.toml: A1, A2, the wired host B; wired ids start at 11.
A1, A2, HOST_B, FIRST_WIRED = 0, 5, 13, 11
MIXES = {(A1, A2): "wireless → wired (Fig. 10)", (HOST_B, HOST_B): "wired → wireless (Fig. 11)",
         (HOST_B, A2): "oncoming (Fig. 12)"}
PAR_ARMS = ("NewReno", "TCP-GAP", "TCP-GAP + Goodput Control")


@register("derive")
def gap_parallel_flows_gap(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """TCP-GAP's senders: TCP-AP at wireless senders, NewReno at the wired one."""
    out: dict[str, Any] = {}
    for i in (0, 1):
        src = params.get(f"flows.{i}.src")
        if not isinstance(src, int):
            raise SpecError(f"derive gap_parallel_flows_gap: flows.{i}.src = {src!r}; expected a node id")
        out[f"flows.{i}.variant"] = "tcp_ap" if src < FIRST_WIRED else "newreno"
    return out


def _mix(row: Any) -> str:
    return MIXES[(int(row["flows.0.src"]), int(row["flows.1.src"]))]


def gap_parallel_runs(ctx: "Context") -> "pd.DataFrame":
    """Every run of the three arms (main sweep NewReno, sides `tcp-gap`, `goodput-control`)
    with its direction mix and arm."""
    import pandas as pd

    frames = [ctx.runs.assign(arm=PAR_ARMS[0]), ctx.side("tcp-gap").runs.assign(arm=PAR_ARMS[1]),
              ctx.side("goodput-control").runs.assign(arm=PAR_ARMS[2])]
    runs = pd.concat([f for f in frames if not f.empty], ignore_index=True).copy()
    if runs.empty:
        raise SpecError("no runs")
    return runs.assign(mix=runs.apply(_mix, axis=1))


def _par(ctx: "Context", mix: str, arm: str, metric: str) -> Estimate:
    runs = gap_parallel_runs(ctx)
    sel = runs[runs["mix"].str.startswith(mix) & (runs["arm"] == arm)]
    if sel.empty:
        raise SpecError(f"no runs of {arm} for {mix}")
    return mean_ci(sel[metric])


def _par_seeds(ctx: "Context", mix: str, arm: str, metric: str) -> "pd.Series":
    """``metric`` of the runs of ``arm`` in the direction mixes starting with ``mix``, indexed by
    (mix, seed): the key that pairs two arms' runs."""
    runs = gap_parallel_runs(ctx)
    sel = runs[runs["mix"].str.startswith(mix) & (runs["arm"] == arm)]
    if sel.empty:
        raise SpecError(f"no runs of {arm} for {mix}")
    if "seed" not in sel.columns:
        raise SpecError("no column 'seed' in the runs (the paired comparison aligns on it)")
    return sel.set_index(["mix", "seed"])[metric]


def _ratio(a: "pd.Series", b: "pd.Series") -> Estimate:
    """a/b paired by direction mix and seed (Series from :func:`_par_seeds`; every arm runs the
    same seeds): mean of the per-seed ratios and their Student-t 95% half-width."""
    return paired_gain(b, a, "ratio")


@register("check")
def gap_par_up_jain_gap(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    return _par(ctx, "wireless", "TCP-GAP", "fairness_jain")


@register("check")
def gap_par_down_jain_gap(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    return _par(ctx, "wired", "TCP-GAP", "fairness_jain")


@register("check")
def gap_par_up_jain_control(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Jain's index of TCP-GAP with Goodput Control (the paper's TCP-GAP), wireless to wired."""
    return _par(ctx, "wireless", "TCP-GAP + Goodput Control", "fairness_jain")


@register("check")
def gap_par_down_jain_control(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Jain's index of TCP-GAP with Goodput Control (the paper's TCP-GAP), wired to wireless."""
    return _par(ctx, "wired", "TCP-GAP + Goodput Control", "fairness_jain")


@register("check")
def gap_par_up_jain_newreno(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    return _par(ctx, "wireless", "NewReno", "fairness_jain")


@register("check")
def gap_par_down_jain_newreno(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    return _par(ctx, "wired", "NewReno", "fairness_jain")


@register("check")
def gap_par_up_aggregate_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Aggregate goodput of TCP-GAP over NewReno's, wireless to wired (paired by seed)."""
    return _ratio(_par_seeds(ctx, "wireless", "TCP-GAP", GOODPUT), _par_seeds(ctx, "wireless", "NewReno", GOODPUT))


@register("check")
def gap_par_down_aggregate_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Aggregate goodput of TCP-GAP over NewReno's, wired to wireless (paired by seed)."""
    return _ratio(_par_seeds(ctx, "wired", "TCP-GAP", GOODPUT), _par_seeds(ctx, "wired", "NewReno", GOODPUT))


@register("check")
def gap_par_oncoming_jain_control(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    return _par(ctx, "oncoming", "TCP-GAP + Goodput Control", "fairness_jain")


@register("check")
def gap_par_oncoming_jain_control_multiplicative(ctx: "Context", runs: "pd.DataFrame",
                                                 point: Mapping[str, Any]) -> Estimate:
    """Jain's index with Goodput Control whose caps age by a factor (side
    `goodput-control-multiplicative`), oncoming flows."""
    side = ctx.side(MULTIPLICATIVE_AGING).runs
    if side.empty:
        raise SpecError(f"no runs of side {MULTIPLICATIVE_AGING}")
    sel = side[side.apply(_mix, axis=1).str.startswith("oncoming")]
    if sel.empty:
        raise SpecError(f"no oncoming runs of side {MULTIPLICATIVE_AGING}")
    return mean_ci(sel["fairness_jain"])


@register("check")
def gap_par_oncoming_control_cost(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Aggregate goodput of TCP-GAP with Goodput Control over TCP-GAP's, oncoming flows (paired by seed)."""
    return _ratio(_par_seeds(ctx, "oncoming", "TCP-GAP + Goodput Control", GOODPUT),
                  _par_seeds(ctx, "oncoming", "TCP-GAP", GOODPUT))


@register("check")
def gap_par_oncoming_jain_gain(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Jain's index of TCP-GAP without Goodput Control minus NewReno's, oncoming flows: the
    per-seed difference (paired), mean and Student-t CI over seeds."""
    return paired_gain(_par_seeds(ctx, "oncoming", "NewReno", "fairness_jain"),
                       _par_seeds(ctx, "oncoming", "TCP-GAP", "fairness_jain"), "diff")


@register("values")
def gap_parallel_values(ctx: "Context") -> dict[str, Any]:
    """Per direction mix and arm: each flow's goodput, the aggregate and Jain's index."""
    runs = gap_parallel_runs(ctx)
    rows = ["| flows | arm | FTP 1 (kb/s) | FTP 2 (kb/s) | aggregate (kb/s) | Jain | throttles |",
            "|---|---|---|---|---|---|---|"]
    for mix in MIXES.values():
        for arm in PAR_ARMS:
            g = runs[(runs["mix"] == mix) & (runs["arm"] == arm)]
            if g.empty:
                continue
            thr = g["wired.tcp_gap.throttles"].mean() if "wired.tcp_gap.throttles" in g.columns else math.nan
            thr_s = "–" if thr != thr else f"{thr:.1f}"
            rows.append(f"| {mix} | {arm} | {g['flow.0.goodput_bps'].mean() / 1e3:.0f} | "
                        f"{g['flow.1.goodput_bps'].mean() / 1e3:.0f} | {g[GOODPUT].mean() / 1e3:.0f} | "
                        f"{g['fairness_jain'].mean():.3f} | {thr_s} |")
    down = runs[runs["mix"] == MIXES[(HOST_B, HOST_B)]]
    agg = {arm: float(down[down["arm"] == arm][GOODPUT].mean()) / 1e3 for arm in PAR_ARMS}
    return {"table": "\n".join(rows), "down_gap": agg[PAR_ARMS[1]], "down_gc": agg[PAR_ARMS[2]],
            "side_table": _par_side_table(ctx)}


#: gap-parallel's side sweeps outside the three arms, and ns-2.35's (stored) static NewReno runs
MULTIPLICATIVE_AGING = "goodput-control-multiplicative"
PAR_SIDE_ARMS = {"tcp-gap-ns2-code": "TCP-GAP, ns-2 code", "goodput-control-ns2-code": "TCP-GAP + GC, ns-2 code",
                 MULTIPLICATIVE_AGING: "TCP-GAP + GC, caps aged × 1.1",
                 "static-newreno": "NewReno, static routes"}
STATIC_NEWRENO = "static-newreno"


def _par_side_table(ctx: "Context") -> str:
    import pandas as pd

    frames = [ctx.side(side).runs.assign(arm=label) for side, label in PAR_SIDE_ARMS.items()]
    theirs = ns2_side_runs(ctx, STATIC_NEWRENO)
    if theirs is not None:
        frames.append(theirs.assign(arm="NewReno, static routes, ns-2.35"))
    runs = pd.concat([f for f in frames if not f.empty], ignore_index=True).copy()  # copy: one block per dtype
    rows = ["| flows | arm | FTP 1 (kb/s) | FTP 2 (kb/s) | aggregate (kb/s) | Jain | runs |", "|---|---|---|---|---|---|---|"]
    if runs.empty:
        return "(not run)"
    runs = runs.assign(mix=runs.apply(_mix, axis=1))
    for mix in MIXES.values():
        for arm in dict.fromkeys(runs["arm"]):
            g = runs[(runs["mix"] == mix) & (runs["arm"] == arm)]
            if not g.empty:
                rows.append(f"| {mix} | {arm} | {g['flow.0.goodput_bps'].mean() / 1e3:.0f} | "
                            f"{g['flow.1.goodput_bps'].mean() / 1e3:.0f} | {g[GOODPUT].mean() / 1e3:.0f} | "
                            f"{g['fairness_jain'].mean():.3f} | {len(g)} |")
    return "\n".join(rows)


@register("evidence")
def gap_ns2_static_agrees(ctx: "Context", claim: Any, point: Mapping[str, Any]) -> "Evidence":
    """Shown when NewReno with static routes misses the paper on the same side as the entry's
    (AODV) runs, in hoptcp and in ns-2.35 alike, and the two simulators agree on the claim's
    value (the equivalence test over seeds): the paper's starving NewReno is then not what
    ns-2.35 gives either. ns-2.35 cannot run the entry's own arm (AODV through a base station)."""
    import dataclasses

    from ..report import Evidence, _estimate, _measure, ns2_agreement, rule_holds

    theirs = ns2_side_runs(ctx, STATIC_NEWRENO)
    if theirs is None:
        return Evidence(None, f"no stored ns-2.35 runs of side experiment `{STATIC_NEWRENO}`")
    main, _ = _measure(claim, ctx, point)
    sctx = dataclasses.replace(ctx, runs=ctx.side(STATIC_NEWRENO).runs, ns2=theirs)
    ours = _estimate(claim, sctx, sctx.runs_at(point), point)
    nctx = sctx.for_ns2()
    assert nctx is not None
    other = _estimate(claim, nctx, nctx.runs_at(point), point)
    paper = claim.paper_at(point)
    held = [rule_holds(claim, c, point, e, None)[0] for c, e in ((sctx, ours), (nctx, other))]
    same_side = paper is None or all((e.mean - paper) * (main.mean - paper) > 0 for e in (ours, other))
    test = ns2_agreement(claim, sctx, point, ours, other)
    shown = held == [False, False] and same_side and test.verdict == "agree"
    return Evidence(shown, f"with static routes hoptcp gives {ours.mean:.3f} and ns-2.35 {other.mean:.3f} "
                           f"({other.n} runs; the entry's AODV runs {main.mean:.3f}, the paper {paper}); the two "
                           f"simulators {test.text}" + ("; both miss the paper on the same side" if shown else ""))


@register("figure")
def gap_parallel_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Figs. 10-12: each flow's goodput and the aggregate per arm, one panel per direction mix."""
    import numpy as np

    runs = gap_parallel_runs(ctx)
    fig = new_figure(*opts.get("size", (12.0, 4.0)))
    axes = fig.subplots(1, 3, sharey=True)
    bars = (("flow.0.goodput_bps", "FTP 1"), ("flow.1.goodput_bps", "FTP 2"), (GOODPUT, "aggregate"))
    for ax, mix in zip(axes, MIXES.values()):
        x = np.arange(len(PAR_ARMS))
        for j, (col, lab) in enumerate(bars):
            m, c = [], []
            for arm in PAR_ARMS:
                g = runs[(runs["mix"] == mix) & (runs["arm"] == arm)]
                e = mean_ci(g[col]) if len(g) else Estimate(math.nan, math.nan, 0, math.nan)
                m.append(e.mean / 1e3)
                c.append(0 if e.ci != e.ci else e.ci / 1e3)
            ax.bar(x + (j - 1) * 0.27, m, 0.27, yerr=c, capsize=2, color=f"C{j}", label=lab)
        ax.set_xticks(x, ["NewReno", "TCP-GAP", "TCP-GAP\n+ GC"], fontsize=8)
        ax.set_title(mix, fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylabel("Goodput (kb/s)")
    axes[0].legend(fontsize=7)
    return fig


# --- gap-wired-bw (Figs. 15-16) -----------------------------------------------------------

BW = "wired.bandwidth_mbps"


def gap_bw_table(runs: "pd.DataFrame") -> "pd.DataFrame":
    """Per wired bandwidth: NewReno's and TCP-GAP's mean aggregate goodput and Jain's index, and
    TCP-GAP's gain over NewReno (%) paired by seed (``gain``: mean of the per-seed gains,
    ``gain_seeds``: the per-seed gains)."""
    import pandas as pd

    rows = []
    for bw, g in runs.groupby(BW, sort=True):
        nr, gp = g[~g[GAP].astype(bool)], g[g[GAP].astype(bool)]
        if nr.empty or gp.empty:
            continue
        pv = paired_values(_by_seed(nr), _by_seed(gp), "pct")
        rows.append({"bw": float(bw), "nr": float(nr[GOODPUT].mean()), "gap": float(gp[GOODPUT].mean()),
                     "nr_jain": float(nr["fairness_jain"].mean()), "gap_jain": float(gp["fairness_jain"].mean()),
                     "gain": float(pv.values.mean()) if pv.n else math.nan, "gain_seeds": pv.values})
    if not rows:
        raise SpecError("no wired bandwidth has both NewReno and TCP-GAP runs")
    return pd.DataFrame(rows)


def _bw(runs: "pd.DataFrame", high: bool) -> "pd.DataFrame":
    t = gap_bw_table(runs)
    t = t[t["bw"] > 5] if high else t[t["bw"] <= 5]
    if t.empty:
        raise SpecError(f"no wired bandwidths {'above' if high else 'up to'} 5 Mb/s")
    return t


@register("check")
def gap_bw_achievable(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """The scenario's achievable bandwidth (Mb/s): the largest aggregate goodput over the wired
    bandwidths and both variants, with the chosen cell's t interval over seeds."""
    best: Estimate | None = None
    for _, g in runs.groupby([BW, GAP], sort=True):
        est = mean_ci(g[GOODPUT] / 1e6)
        if best is None or est.mean > best.mean:
            best = est
    if best is None:
        raise SpecError("no runs to take the achievable bandwidth from")
    return best


@register("check")
def gap_bw_gain_high(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """TCP-GAP's aggregate goodput gain over NewReno above 5 Mb/s (%): per bandwidth paired by
    seed, the mean over bandwidths; bootstrap CI over seeds, n = seeds."""
    t = _bw(runs, True)
    return paired_over_points(list(t["gain_seeds"]), "mean")


@register("check")
def gap_bw_dev_low(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest |TCP-GAP/NewReno − 1| up to 5 Mb/s (%): per bandwidth paired by seed; bootstrap CI
    over seeds, n = seeds."""
    t = _bw(runs, False)
    return paired_over_points(list(t["gain_seeds"]), "absmax")


@register("check")
def gap_bw_gap_jain_high(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    t = _bw(runs, True)
    return Estimate(float(t["gap_jain"].min()), math.nan, len(t), math.nan)


@register("check")
def gap_bw_newreno_jain_high(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    t = _bw(runs, True)
    return Estimate(float(t["nr_jain"].mean()), math.nan, len(t), math.nan)


@register("check")
def gap_bw_jain_low(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    t = _bw(runs, False)
    return Estimate(float(min(t["nr_jain"].min(), t["gap_jain"].min())), math.nan, len(t), math.nan)


def _bw_rows(runs: "pd.DataFrame") -> str:
    t = gap_bw_table(runs)
    rows = ["| wired Mb/s | NewReno (kb/s) | TCP-GAP (kb/s) | TCP-GAP vs NewReno | Jain NewReno | Jain TCP-GAP |",
            "|---|---|---|---|---|---|"]
    for r in t.itertuples(index=False):
        rows.append(f"| {r.bw:g} | {r.nr / 1e3:.0f} | {r.gap / 1e3:.0f} | {r.gain:+.1f}% | {r.nr_jain:.3f} | "
                    f"{r.gap_jain:.3f} |")
    return "\n".join(rows)


@register("values")
def gap_bw_values(ctx: "Context") -> dict[str, Any]:
    return {"table": _bw_rows(ctx.runs), "ns2g_table": _bw_rows(ctx.side("ns2-g").runs),
            "ns2code_table": _bw_rows(ctx.side("ns2-code").runs)}


@register("figure")
def gap_bw_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Figs. 15 and 16: aggregate goodput and Jain's index against the wired links' bandwidth."""
    runs = ctx.runs
    fig = new_figure(*opts.get("size", (10.0, 4.0)))
    a1, a2 = fig.subplots(1, 2)
    for i, (on, lab) in enumerate(((False, "NewReno"), (True, "TCP-GAP"))):
        g = runs[runs[GAP].astype(bool) == on]
        for ax, col, scale in ((a1, GOODPUT, 1e3), (a2, "fairness_jain", 1.0)):
            rows = [(float(bw), mean_ci(x[col])) for bw, x in g.groupby(BW, sort=True)]
            ax.errorbar([b for b, _ in rows], [e.mean / scale for _, e in rows],
                        yerr=[0 if e.ci != e.ci else e.ci / scale for _, e in rows], marker="o", ms=4, capsize=2,
                        color=f"C{i}", label=lab)
    for ax, ylab, title in ((a1, "Aggregate goodput (kb/s)", "Fig. 15"), (a2, "Jain's fairness index", "Fig. 16")):
        ax.set_xscale("log")
        ax.set_xlabel("Bandwidth of the wired links (Mb/s)")
        ax.set_ylabel(ylab)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    a2.set_ylim(0.45, 1.02)
    return fig


# --- gap-http (Figs. 22-23) ---------------------------------------------------------------

THINK = "flows.0.mean_think_s"
PAGE = "flow.{}.http.mean_page_goodput_bps"


def gap_http_table(runs: "pd.DataFrame") -> "pd.DataFrame":
    """Per mean pause time: each arm's aggregate averaged goodput (the sum over flows of their
    mean per-page goodput, §5.3.1) and Jain's index over the flows' averaged goodput; TCP-GAP's
    gain over NewReno (%) paired by seed (``gain``: the mean of the per-seed gains of the run's
    sum over flows of the mean per-page goodput, ``gain_seeds``: those gains; a run with a flow
    that completed no page has no sum and its seed is left out)."""
    import pandas as pd

    rows = []
    for think, g in runs.groupby(THINK, sort=True):
        row: dict[str, Any] = {"think": float(think)}
        per_seed: dict[str, "pd.Series"] = {}
        for on, name in ((False, "nr"), (True, "gap")):
            x = g[g[GAP].astype(bool) == on]
            if x.empty:
                break
            per_flow = [float(x[PAGE.format(i)].mean()) for i in (0, 1)]
            total = sum(per_flow)
            row[name] = total
            row[f"{name}_jain"] = total ** 2 / (2 * sum(v * v for v in per_flow)) if total > 0 else math.nan
            per_seed[name] = _by_seed(x.assign(_sum=x[PAGE.format(0)] + x[PAGE.format(1)]), "_sum")
        else:
            pv = paired_values(per_seed["nr"], per_seed["gap"], "pct")
            row["gain"] = float(pv.values.mean()) if pv.n else math.nan
            row["gain_seeds"] = pv.values
            rows.append(row)
    if not rows:
        raise SpecError("no pause time has both NewReno and TCP-GAP runs")
    return pd.DataFrame(rows)


@register("check")
def gap_http_gain_max(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest aggregate averaged goodput gain of TCP-GAP over NewReno over the pause times (%): per
    pause time paired by seed, the largest; bootstrap CI over seeds, n = seeds."""
    t = gap_http_table(runs)
    return paired_over_points(list(t["gain_seeds"]), "max")


@register("check")
def gap_http_newreno_spread(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """(max − min) / mean of NewReno's aggregate averaged goodput over the pause times, in %."""
    t = gap_http_table(runs)
    return Estimate(float(100 * (t["nr"].max() - t["nr"].min()) / t["nr"].mean()), math.nan, len(t), math.nan)


@register("check")
def gap_http_gap_trend(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """TCP-GAP's aggregate averaged goodput at the longest pause over that at the shortest."""
    t = gap_http_table(runs)
    return Estimate(float(t["gap"].iloc[-1] / t["gap"].iloc[0]), math.nan, len(t), math.nan)


@register("check")
def gap_http_jain_margin(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Smallest (Jain TCP-GAP − Jain NewReno) over the pause times. Not paired by seed: each
    Jain's index is taken over the flows' goodputs averaged over the seeds, not per run."""
    t = gap_http_table(runs)
    return Estimate(float((t["gap_jain"] - t["nr_jain"]).min()), math.nan, len(t), math.nan)


@register("values")
def gap_http_values(ctx: "Context") -> dict[str, Any]:
    return {"table": _http_rows(gap_http_table(ctx.runs)),
            "no_control_table": _http_rows(gap_http_table(ctx.side("no-goodput-control").runs)),
            "ns2_code_table": _http_rows(gap_http_table(ctx.side("ns2-code").runs))}


def _http_rows(t: "pd.DataFrame") -> str:
    rows = ["| mean pause (s) | NewReno (kb/s) | TCP-GAP (kb/s) | TCP-GAP vs NewReno | Jain NewReno | Jain TCP-GAP |",
            "|---|---|---|---|---|---|"]
    for r in t.itertuples(index=False):
        rows.append(f"| {r.think:g} | {r.nr / 1e3:.0f} | {r.gap / 1e3:.0f} | {r.gain:+.1f}% | {r.nr_jain:.3f} | "
                    f"{r.gap_jain:.3f} |")
    return "\n".join(rows)


@register("figure")
def gap_http_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Figs. 22 and 23: aggregate averaged goodput and Jain's index against the mean pause time."""
    t = gap_http_table(ctx.runs)
    fig = new_figure(*opts.get("size", (10.0, 4.0)))
    a1, a2 = fig.subplots(1, 2)
    for i, (name, lab) in enumerate((("nr", "NewReno"), ("gap", "TCP-GAP"))):
        a1.plot(t["think"], t[name] / 1e3, marker="o", ms=4, color=f"C{i}", label=lab)
        a2.plot(t["think"], t[f"{name}_jain"], marker="o", ms=4, color=f"C{i}", label=lab)
    for ax, ylab, title in ((a1, "Aggregate averaged goodput (kb/s)", "Fig. 22"), (a2, "Jain's fairness index", "Fig. 23")):
        ax.set_xlabel("Mean pause time (s)")
        ax.set_ylabel(ylab)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    a2.set_ylim(0.45, 1.02)
    return fig
