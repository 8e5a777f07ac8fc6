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
from ...stats import Estimate, mean_ci

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..report import ClaimResult, Context

GOODPUT = "aggregate_goodput_bps"
HOPS = "topology.hops"
VARIANT = "tcp.variant"
GAP = "wired.tcp_gap.enabled"
DOWNLINK = "wired-to-wireless"
ARMS = {("newreno", False): "NewReno", ("tcp_ap", False): "TCP-AP (no gateway)", ("tcp_ap", True): "TCP-GAP",
        ("newreno", True): "TCP-GAP"}


def _hops(params: Mapping[str, Any], base: Any) -> int:
    h = params.get(HOPS, ((base.document.get("topology") or {}).get("hops")))
    if not isinstance(h, int) or h < 1:
        raise SpecError(f"derive: topology.hops = {h!r}; expected an integer >= 1")
    return h


def gap_chain_uplink(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """FTP from A (node 0) to the wired host B (node hops + 3)."""
    return {"flows.0.src": 0, "flows.0.dst": _hops(params, base) + 3}


def gap_chain_downlink(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """FTP from the wired host B (node hops + 3) to A (node 0); the wired sender is NewReno."""
    return {"flows.0.src": _hops(params, base) + 3, "flows.0.dst": 0, "flows.0.variant": "newreno"}


def _arm(row: Any) -> str:
    return ARMS[(str(row.get(VARIANT, "newreno")), bool(row[GAP]))]


def gap_arm_table(runs: "pd.DataFrame") -> "pd.DataFrame":
    """Mean goodput, 95% CI and n per (hop count, arm)."""
    import pandas as pd

    if runs.empty:
        raise SpecError("no runs")
    r = runs.assign(arm=runs.apply(_arm, axis=1))
    rows = []
    for (h, arm), g in r.groupby([HOPS, "arm"], sort=True):
        e = mean_ci(g[GOODPUT])
        rows.append({"hops": int(h), "arm": arm, "mean": e.mean, "ci": e.ci, "n": e.n, "std": e.std})
    return pd.DataFrame(rows)


def _gains(runs: "pd.DataFrame") -> "pd.DataFrame":
    """Per hop count: TCP-GAP's goodput relative to NewReno's, in % (positive: TCP-GAP ahead)."""
    import pandas as pd

    t = gap_arm_table(runs)
    rows = []
    for h, g in t.groupby("hops", sort=True):
        nr, gp = g[g["arm"] == "NewReno"], g[g["arm"] == "TCP-GAP"]
        if nr.empty or gp.empty:
            continue
        rows.append({"hops": int(h), "newreno": float(nr["mean"].iloc[0]), "gap": float(gp["mean"].iloc[0]),
                     "gain": 100 * (float(gp["mean"].iloc[0]) / float(nr["mean"].iloc[0]) - 1)})
    if not rows:
        raise SpecError("no hop count has both NewReno and TCP-GAP runs")
    return pd.DataFrame(rows)


def _max_gain(runs: "pd.DataFrame", long: bool) -> Estimate:
    g = _gains(runs)
    g = g[g["hops"] >= 4] if long else g[g["hops"] < 4]
    if g.empty:
        raise SpecError(f"no chains with {'h >= 4' if long else 'h < 4'}")
    return Estimate(float(g["gain"].max()), math.nan, len(g), math.nan)


def gap_chain_up_gain_long(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest TCP-GAP gain over NewReno for h ≥ 4, wireless to wired (%)."""
    return _max_gain(runs, long=True)


def gap_chain_down_gain_long(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest TCP-GAP gain over NewReno for h ≥ 4, wired to wireless (%)."""
    return _max_gain(ctx.side(DOWNLINK).runs, long=True)


def gap_chain_up_short(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest TCP-GAP gain over NewReno for h < 4, wireless to wired (%; the paper: NewReno slightly ahead)."""
    return _max_gain(runs, long=False)


def gap_chain_down_short_dev(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest |TCP-GAP/NewReno − 1| for h < 4, wired to wireless (%)."""
    g = _gains(ctx.side(DOWNLINK).runs)
    g = g[g["hops"] < 4]
    if g.empty:
        raise SpecError("no chains with h < 4")
    return Estimate(float(g["gain"].abs().max()), math.nan, len(g), math.nan)


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


def gap_chain_values(ctx: "Context") -> dict[str, Any]:
    """Goodput tables of both directions."""
    up, down = ctx.runs, ctx.side(DOWNLINK).runs
    g_up, g_down = _gains(up), _gains(down)
    return {"up_table": _gain_table(up), "down_table": _gain_table(down),
            "up_best": float(g_up["gain"].max()), "up_best_h": int(g_up.loc[g_up["gain"].idxmax(), "hops"]),
            "down_best": float(g_down["gain"].max()),
            "down_best_h": int(g_down.loc[g_down["gain"].idxmax(), "hops"])}


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
