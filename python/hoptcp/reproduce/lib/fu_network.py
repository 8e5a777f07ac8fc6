"""Fu et al. (2003) network entries: ``fu-topologies``, ``fu-queues``, ``fu-buffer``.

Builders, checks and figures for the three entries; every name starts with ``net_``.
Claims about one topology case (or one node) name it as the check's argument
(``check = { fn = "net_case", measure = "best_kbps", case = "chain6x6" }``,
``check = { fn = "net_node_queue", node = "E", stat = "queue_max" }``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ...errors import SpecError
from ...plotting import new_figure
from ...results import id_table, per_id
from ...stats import Estimate, mean_ci, paired_gain
from ..registry import register

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ...scenario import Scenario
    from ..report import ClaimResult, Context

_NAN = Estimate(math.nan, math.nan, 0, math.nan)


# --------------------------------------------------------------------------------------
# Topology cases (tech report Table 2 / INFOCOM Table 3)
# --------------------------------------------------------------------------------------

def net_grid_flows(rows: int, cols: int, n_flows: int) -> list[tuple[int, int]]:
    """(src, dst) of ``n_flows`` end-to-end flows on a ``rows x cols`` grid (node r*cols+c).

    Half the flows run along rows, half along columns (Fu et al.: "half of the TCP flows
    go horizontally and the other half go vertically, spaced evenly"). The k rows (and
    k columns) used are spread evenly: index floor((i + 1/2) * m / k), i = 0..k-1, i.e.
    the centres of k equal bands of the m rows. Flow i of each half runs from the first
    to the last node of its row/column when i is even and the other way when i is odd
    (alternating directions). Row flows come first, then column flows.
    """
    if not all(isinstance(v, int) and v > 0 for v in (rows, cols, n_flows)):
        raise SpecError(f"net_grid_flows: rows, cols and n_flows must be positive integers, got "
                        f"{rows!r}, {cols!r}, {n_flows!r}")
    if n_flows % 2:
        raise SpecError(f"net_grid_flows: n_flows = {n_flows}; half go along rows and half along columns, "
                        "so it must be even")
    k = n_flows // 2
    if k > rows or k > cols:
        raise SpecError(f"net_grid_flows: {k} flows each way do not fit on a {rows}x{cols} grid")
    if rows < 2 or cols < 2:
        raise SpecError("net_grid_flows: the grid needs at least 2 rows and 2 columns")
    flows: list[tuple[int, int]] = []
    for i, r in enumerate(_spread(k, rows)):
        a, b = r * cols, r * cols + cols - 1
        flows.append((a, b) if i % 2 == 0 else (b, a))
    for i, c in enumerate(_spread(k, cols)):
        a, b = c, (rows - 1) * cols + c
        flows.append((a, b) if i % 2 == 0 else (b, a))
    return flows


def _spread(k: int, m: int) -> list[int]:
    """k indices out of 0..m-1, evenly spread (centres of k equal bands)."""
    return [int(math.floor((i + 0.5) * m / k)) for i in range(k)]


@dataclass(frozen=True)
class Case:
    """One row of Fu's Table 2: a topology, its flows, and the numbers the paper printed."""

    id: str
    label: str
    n_flows: int
    topology: Mapping[str, Any]
    endpoints: tuple[tuple[int, int, int], ...] = ()  # (src, dst, count); empty: random flows
    random_flows: int = 0
    paper_best_kbps: float = math.nan
    paper_unbounded_kbps: float = math.nan
    paper_window_printed: float = math.nan  # the "Optimal Window" column as printed
    paper_window_per_flow: float = math.nan  # its per-flow reading (see the entry's notes)
    paper_avg_window: float = math.nan  # "Average measured window" (aggregate of all flows)
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def paper_loss_pct(self) -> float:
        return 100.0 * (1.0 - self.paper_unbounded_kbps / self.paper_best_kbps)


_GRID13 = {"kind": "grid", "rows": 13, "cols": 13, "spacing_m": 200.0}

CASES: dict[str, Case] = {c.id: c for c in (
    Case("chain6x6", "6-hop chain, 6 flows", 6, {"kind": "chain", "hops": 6, "spacing_m": 200.0},
         ((0, 6, 6),), paper_best_kbps=298, paper_unbounded_kbps=272, paper_window_printed=2,
         paper_window_per_flow=2, paper_avg_window=22),
    Case("chain7x3", "7-hop chain, 3 flows", 3, {"kind": "chain", "hops": 7, "spacing_m": 200.0},
         ((0, 7, 3),), paper_best_kbps=255, paper_unbounded_kbps=215, paper_window_printed=2,
         paper_window_per_flow=2, paper_avg_window=16),
    Case("cross2", "13-node cross, 2 flows", 2, {"kind": "cross", "hops": 6, "spacing_m": 200.0},
         ((0, 6, 1), (7, 12, 1)), paper_best_kbps=248, paper_unbounded_kbps=203, paper_window_printed=4,
         paper_window_per_flow=2, paper_avg_window=12),
    Case("grid4", "13x13 grid, 4 flows", 4, _GRID13,
         tuple((s, d, 1) for s, d in net_grid_flows(13, 13, 4)), paper_best_kbps=287, paper_unbounded_kbps=241,
         paper_window_printed=8, paper_window_per_flow=2, paper_avg_window=14),
    Case("grid8", "13x13 grid, 8 flows", 8, _GRID13,
         tuple((s, d, 1) for s, d in net_grid_flows(13, 13, 8)), paper_best_kbps=957, paper_unbounded_kbps=824,
         paper_window_printed=8, paper_window_per_flow=1, paper_avg_window=19),
    Case("grid12", "13x13 grid, 12 flows", 12, _GRID13,
         tuple((s, d, 1) for s, d in net_grid_flows(13, 13, 12)), paper_best_kbps=872, paper_unbounded_kbps=690,
         paper_window_printed=8, paper_window_per_flow=2, paper_avg_window=26),
    Case("random20", "200-node random, 20 flows", 20,
         {"kind": "random", "nodes": 200, "width_m": 1000.0, "height_m": 2500.0, "require_connected": True},
         random_flows=20, paper_best_kbps=1196, paper_unbounded_kbps=1015),
)}


@register("derive")
def net_topology_case(params: Mapping[str, Any], base: "Scenario") -> dict[str, Any]:
    """Builder for ``fu-topologies``: topology and flows of the case named by ``name``.

    The scenario's first flow is the template (transport, app, TCP settings); the case
    gives the endpoints. The random case draws its 20 flows with ``[random_flows]``
    (pairs of connected nodes, from the run seed) and its placement from the run seed,
    so seed s is the s-th random topology, the same at every MaxWin.
    """
    doc = base.document
    case_id = params.get("name", doc.get("name"))
    if case_id not in CASES:
        raise SpecError(f"derive net_topology_case: name = {case_id!r}; expected one of {', '.join(CASES)}")
    case = CASES[case_id]
    flows = doc.get("flows") or []
    if not flows:
        raise SpecError(f"derive net_topology_case: scenario '{base.name}' has no [[flows]] to use as a template")
    template = {k: v for k, v in flows[0].items() if k not in ("src", "dst", "count", "route")}
    out: dict[str, Any] = {"topology": dict(case.topology)}
    if case.random_flows:
        rf = {k: v for k, v in template.items() if k in ("transport", "app", "start_s", "stop_s")}
        out["flows"] = []
        out["random_flows"] = {**rf, "count": case.random_flows}
    else:
        out["flows"] = [{**template, "src": s, "dst": d, **({"count": n} if n > 1 else {})}
                        for s, d, n in case.endpoints]
    return out


# --- helpers over the runs frame ----------------------------------------------------

_SLIM: dict[int, tuple[Any, "pd.DataFrame"]] = {}
_KEEP = ("aggregate_goodput_bps", "seed", "name")
_KEEP_PREFIXES = ("drops.", "tcp.", "mac.", "topology.", "flows.")
_KEEP_SUFFIXES = (".avg_cwnd", ".avg_cwnd_traced", ".goodput_bps", ".packets_sent", ".acks_sent", ".queue_max", ".queue_avg",
                  ".backlog_frac")


def _slim(runs: "pd.DataFrame") -> "pd.DataFrame":
    """The columns these functions use, as a frame without ``attrs``.

    The framework's runs frame lists every metric name in ``attrs``; pandas deep-copies
    ``attrs`` on every operation, which for the random topology's ~5000 metric names
    makes each slice cost milliseconds. Cached per frame object.
    """
    import weakref

    hit = _SLIM.get(id(runs))
    if hit is not None and hit[0]() is runs:
        return hit[1]
    cols = [c for c in runs.columns
            if c in _KEEP or c.startswith(_KEEP_PREFIXES) or c.endswith(_KEEP_SUFFIXES)]
    saved = runs.attrs
    runs.attrs = {}
    try:
        slim = runs[cols].copy()
    finally:
        runs.attrs = saved
    try:
        _SLIM[id(runs)] = (weakref.ref(runs), slim)
    except TypeError:  # pragma: no cover - frames are weak-referenceable
        pass
    return slim


def _col(df: "pd.DataFrame", key: str) -> "pd.Series":
    import pandas as pd

    return df[key] if key in df.columns else pd.Series([math.nan] * len(df), index=df.index, dtype=float)


_CASE_CACHE: dict[tuple[int, str], tuple[Any, "pd.DataFrame"]] = {}


def _case_runs(runs: "pd.DataFrame", case: str) -> "pd.DataFrame":
    """One case's runs as a small frame: tcp.max_window, seed, kbps, window (cached)."""
    import weakref

    import pandas as pd

    hit = _CASE_CACHE.get((id(runs), case))
    if hit is not None and hit[0]() is runs:
        return hit[1]
    df = runs[runs["name"] == case] if "name" in runs.columns else runs.iloc[0:0]
    small = pd.DataFrame({"tcp.max_window": _col(df, "tcp.max_window"), "seed": _col(df, "seed"),
                          "kbps": _col(df, "aggregate_goodput_bps") / 1e3, "window": _agg_window(df)})
    _CASE_CACHE[(id(runs), case)] = (weakref.ref(runs), small)
    return small


def _windows(df: "pd.DataFrame") -> list[int]:
    if "tcp.max_window" not in df.columns:
        return []
    return sorted(int(w) for w in df["tcp.max_window"].dropna().unique())


def _agg_window(df: "pd.DataFrame") -> "pd.Series":
    """Aggregate (sum over flows) time-average window of each run: the traced cwnd (no
    fast-recovery inflation), as the paper computed it from ns-2's traces."""
    if not per_id(df, "flow", "avg_cwnd_traced"):
        return _col(df, "__none__")
    return id_table(df, "flow", "avg_cwnd_traced").sum(axis=1, min_count=1)


def _curve(df: "pd.DataFrame") -> dict[int, Estimate]:
    """Aggregate goodput (kb/s) per MaxWin: mean and CI over seeds."""
    return {int(w): mean_ci(g) for w, g in df.groupby("tcp.max_window")["kbps"]} if len(df) else {}


def _best_window(df: "pd.DataFrame") -> int | None:
    curve = {w: e for w, e in _curve(df).items() if not math.isnan(e.mean)}
    return max(curve, key=lambda w: curve[w].mean) if curve else None


def net_best_kbps(case: str, runs: "pd.DataFrame") -> Estimate:
    """Largest mean aggregate goodput over MaxWin (kb/s), with that window's CI."""
    df = _case_runs(runs, case)
    w = _best_window(df)
    return _curve(df)[w] if w is not None else _NAN


def net_unbounded_kbps(case: str, runs: "pd.DataFrame") -> Estimate:
    """Aggregate goodput at the largest MaxWin of the sweep (32: "unbounded")."""
    df = _case_runs(runs, case)
    ws = _windows(df)
    return mean_ci(df[df["tcp.max_window"] == ws[-1]]["kbps"]) if ws else _NAN


def net_best_window(case: str, runs: "pd.DataFrame") -> Estimate:
    """Per-flow MaxWin with the largest mean aggregate goodput (no CI: an argmax)."""
    df = _case_runs(runs, case)
    w = _best_window(df)
    n = int((df["tcp.max_window"] == w).sum()) if w is not None else 0
    return Estimate(float(w), math.nan, n, math.nan) if w is not None else _NAN


def net_avg_window(case: str, runs: "pd.DataFrame") -> Estimate:
    """Aggregate (all flows) time-average congestion window at the largest MaxWin."""
    df = _case_runs(runs, case)
    ws = _windows(df)
    return mean_ci(df[df["tcp.max_window"] == ws[-1]]["window"]) if ws else _NAN


def net_loss_pct(case: str, runs: "pd.DataFrame") -> Estimate:
    """Throughput lost by leaving the window unbounded: 100 (1 - T(32) / T(W_best)).

    Paired by seed (same seed = same random topology and flows): per seed the ratio of
    the goodput at the largest MaxWin to the goodput at the best window (best on the
    mean curve); mean and CI over seeds (:func:`hoptcp.stats.paired_gain`; a seed missing at
    either window, or with nothing at the best, is left out).
    """
    df = _case_runs(runs, case)
    ws = _windows(df)
    w = _best_window(df)
    if w is None:
        return _NAN
    at_best = df[df["tcp.max_window"] == w].set_index("seed")["kbps"]
    at_max = df[df["tcp.max_window"] == ws[-1]].set_index("seed")["kbps"]
    return paired_gain(at_best, at_max, "loss_pct")


_CASE_CHECKS: dict[str, Callable[[str, "pd.DataFrame"], Estimate]] = {
    "best_kbps": net_best_kbps, "unbounded_kbps": net_unbounded_kbps, "best_window": net_best_window,
    "avg_window": net_avg_window, "loss_pct": net_loss_pct,
}


@register("check")
def net_case(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, measure: str,
             case: str) -> Estimate:
    """One of Table 2's measures (``best_kbps``, ``unbounded_kbps``, ``best_window``,
    ``avg_window``, ``loss_pct``) for one of its topologies (``case``)."""
    if measure not in _CASE_CHECKS:
        raise SpecError(f"measure = {measure!r}; allowed: {', '.join(_CASE_CHECKS)}")
    if case not in CASES:
        raise SpecError(f"case = {case!r}; allowed: {', '.join(CASES)}")
    return _CASE_CHECKS[measure](case, _slim(runs))


# --- figures ---------------------------------------------------------------------------

@register("figure")
def net_topologies_throughput_vs_window(ctx: "Context", claims: Mapping[str, "ClaimResult"],
                                        opts: Mapping[str, Any]) -> "Figure":
    """Aggregate TCP throughput (Kbps) against MaxWin, one panel per topology (Fu Fig. 2 axes).

    hoptcp: mean and 95% CI over seeds (random case: over the 10 topologies). Paper
    (Table 2): the optimal throughput as a dashed line and the measured (MaxWin 32)
    throughput as a square at the largest window.
    """
    cases = [c for c in opts.get("cases", list(CASES))]
    ncol = 4
    nrow = math.ceil(len(cases) / ncol)
    fig = new_figure(3.2 * ncol, 2.8 * nrow)
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for ax in axes.flat[len(cases):]:
        ax.set_visible(False)
    for ax, cid in zip(axes.flat, cases):
        case = CASES[cid]
        df = _case_runs(_slim(ctx.runs), cid)
        curve = _curve(df)
        ws = list(curve)
        tops = [case.paper_best_kbps, case.paper_unbounded_kbps]
        if ws:
            m = [curve[w].mean for w in ws]
            e = [0.0 if math.isnan(curve[w].ci) else curve[w].ci for w in ws]
            ax.errorbar(ws, m, yerr=e, marker="o", capsize=3, label="hoptcp (mean, 95% CI)")
            best = _best_window(df)
            if best is not None:
                ax.plot([best], [curve[best].mean], "*", ms=12, color="C1", label="hoptcp best")
            tops += [a + b for a, b in zip(m, e)]
            xmax = ws[-1]
        else:
            ax.text(0.5, 0.5, "no runs", transform=ax.transAxes, ha="center")
            xmax = 32
        ax.axhline(case.paper_best_kbps, ls="--", color="C3", lw=1, label="paper: optimal")
        ax.plot([xmax], [case.paper_unbounded_kbps], "s", fillstyle="none", color="C3", ms=8,
                label="paper: measured (MaxWin 32)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(ws or [1, 2, 4, 8, 16, 32])
        ax.set_xticklabels([str(w) for w in (ws or [1, 2, 4, 8, 16, 32])], fontsize=7)
        finite = [t for t in tops if t == t]
        ax.set_ylim(0, 1.15 * max(finite) if finite else None)
        ax.set_title(case.label, fontsize=9)
        ax.set_xlabel("MaxWin per flow (packets)", fontsize=8)
        ax.set_ylabel("Aggregate throughput (Kbps)", fontsize=8)
        ax.grid(True, alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if len(cases) < nrow * ncol:
        spare = axes.flat[len(cases)]
        spare.set_visible(True)
        spare.axis("off")
        spare.legend(handles, labels, loc="center", fontsize=8)
    else:
        axes.flat[0].legend(fontsize=6, loc="lower right")
    return fig


@register("figure")
def net_topologies_table(ctx: "Context", claims: Mapping[str, "ClaimResult"],
                         opts: Mapping[str, Any]) -> "Figure":
    """Table 2 side by side, paper against hoptcp.

    Left: hoptcp's throughput against the paper's (best MaxWin: filled; MaxWin 32: open),
    log axes, with the identity line and the claims' ±15% band. Middle: throughput lost at
    MaxWin 32 (the paper's 4–30% shaded). Right: the average aggregate window at MaxWin 32.
    Error bars are 95% CIs over seeds.
    """
    import numpy as np

    runs = _slim(ctx.runs)
    cases = [c for c in opts.get("cases", list(CASES))]
    fig = new_figure(14.0, 4.4)
    ax1, ax2, ax3 = fig.subplots(1, 3, width_ratios=[1.3, 1.2, 1.2])
    best = [net_best_kbps(c, runs) for c in cases]
    unb = [net_unbounded_kbps(c, runs) for c in cases]
    lo, hi = 150.0, 3000.0
    ax1.plot([lo, hi], [lo, hi], "-", color="0.4", lw=1, label="hoptcp = paper")
    ax1.fill_between([lo, hi], [0.85 * lo, 0.85 * hi], [1.15 * lo, 1.15 * hi], color="0.85", label="±15%")
    for i, c in enumerate(cases):
        col = f"C{i}"
        for est, pv, mk, fill in ((best[i], CASES[c].paper_best_kbps, "o", "full"),
                                  (unb[i], CASES[c].paper_unbounded_kbps, "s", "none")):
            if est.mean == est.mean:
                ax1.errorbar([pv], [est.mean], yerr=[0 if est.ci != est.ci else est.ci], fmt=mk, color=col,
                             fillstyle=fill, capsize=2, ms=7)
        ax1.plot([], [], "o", color=col, label=CASES[c].label)
    ax1.plot([], [], "o", color="0.3", label="best MaxWin")
    ax1.plot([], [], "s", color="0.3", fillstyle="none", label="MaxWin 32")
    ticks = [200, 300, 500, 1000, 2000, 3000]
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlim(lo, hi)
    ax1.set_ylim(lo, hi)
    ax1.set_xticks(ticks, [str(t) for t in ticks])
    ax1.set_yticks(ticks, [str(t) for t in ticks])
    ax1.minorticks_off()
    ax1.set_xlabel("Paper: aggregate throughput (Kbps)")
    ax1.set_ylabel("hoptcp: aggregate throughput (Kbps)")
    ax1.legend(fontsize=6, loc="upper left")
    ax1.grid(True, which="both", alpha=0.3)
    x = np.arange(len(cases))
    loss, loss_e = _est_lists([net_loss_pct(c, runs) for c in cases])
    ax2.axhspan(4, 30, color="0.88", zorder=0, label="paper's range 4–30%")
    ax2.bar(x - 0.2, [CASES[c].paper_loss_pct for c in cases], 0.4, color="C3", alpha=0.5, label="paper (Table 2)")
    ax2.bar(x + 0.2, _nan0(loss), 0.4, yerr=loss_e, capsize=2, color="C0", label="hoptcp")
    ax2.axhline(0, color="0.3", lw=0.8)
    ax2.set_ylim(-15, 40)
    ax2.set_xticks(x, cases, fontsize=7, rotation=45)
    ax2.set_ylabel("Throughput lost at MaxWin 32 vs best (%)")
    ax2.legend(fontsize=7)
    win, win_e = _est_lists([net_avg_window(c, runs) for c in cases])
    wcases = [i for i, c in enumerate(cases) if CASES[c].paper_avg_window == CASES[c].paper_avg_window]
    xw = np.arange(len(wcases))
    ax3.bar(xw - 0.2, [CASES[cases[i]].paper_avg_window for i in wcases], 0.4, color="C3", alpha=0.5,
            label="paper (Table 2)")
    ax3.bar(xw + 0.2, _nan0([win[i] for i in wcases]), 0.4, yerr=[win_e[i] for i in wcases], capsize=2,
            color="C0", label="hoptcp")
    ax3.set_xticks(xw, [cases[i] for i in wcases], fontsize=7, rotation=45)
    tops = [CASES[cases[i]].paper_avg_window for i in wcases] + [w for w in (win[i] for i in wcases) if w == w]
    ax3.set_ylim(0, 1.4 * max(tops) if tops else None)
    ax3.set_ylabel("Average aggregate window at MaxWin 32 (packets)")
    ax3.legend(fontsize=7)
    return fig


def _est_lists(ests: Sequence[Estimate]) -> tuple[list[float], list[float]]:
    return [e.mean for e in ests], [0.0 if math.isnan(e.ci) else e.ci for e in ests]


def _nan0(vals: Sequence[float]) -> list[float]:
    return [0.0 if v != v else v for v in vals]


# --------------------------------------------------------------------------------------
# Queues on the chain (tech report Table 3 / INFOCOM Table 4) and drop causes
# --------------------------------------------------------------------------------------

#: Table 3 / Table 4 (nodes A..I of the 8-hop chain, buffer 30)
PAPER_QUEUE_MAX = (9, 11, 13, 14, 16, 15, 12, 10, 6)
PAPER_QUEUE_AVG = (0.4, 0.8, 1.0, 1.9, 1.9, 1.0, 0.9, 0.7, 0.3)
NODE_LETTERS = "ABCDEFGHI"

CONTENTION = ("drops.mac_rts_retry", "drops.mac_data_retry")
OVERFLOW = "drops.queue_overflow"


def _select(runs: "pd.DataFrame", **where: Any) -> "pd.DataFrame":
    """Runs whose parameter columns equal the given values (keys with '__' for '.')."""
    df = runs
    for k, v in where.items():
        col = k.replace("__", ".")
        if col not in df.columns:
            return df.iloc[0:0]
        df = df[df[col] == v]
    return df


def _contention(df: "pd.DataFrame") -> "pd.Series":
    return sum((_col(df, c).fillna(0) for c in CONTENTION), start=_col(df, OVERFLOW) * 0)


def _overflow(df: "pd.DataFrame") -> "pd.Series":
    return _col(df, OVERFLOW)


def _table_runs(runs: "pd.DataFrame") -> "pd.DataFrame":
    """The run of Table 3 / Table 4: 8-hop chain, buffer 30, one flow."""
    return _select(runs, topology__hops=8, mac__queue_limit=30)


def net_queue_stat(node: int, stat: str, runs: "pd.DataFrame") -> Estimate:
    """Per-node queue statistic (``queue_max`` / ``queue_avg``) on the 8-hop chain, buffer 30."""
    return mean_ci(_col(_table_runs(runs), f"node.{node}.{stat}"))


@register("check")
def net_node_queue(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, node: str,
                   stat: str) -> Estimate:
    """The maximum (``stat = "queue_max"``) or time-average (``"queue_avg"``) queue at a node of
    Table 3/4 (``node`` = "A" .. "I"), 8-hop chain, buffer 30."""
    if stat not in ("queue_max", "queue_avg"):
        raise SpecError(f"stat = {stat!r}; allowed: queue_max, queue_avg")
    if not (isinstance(node, str) and len(node) == 1 and node in NODE_LETTERS):
        raise SpecError(f"node = {node!r}; allowed: {', '.join(NODE_LETTERS)}")
    return net_queue_stat(NODE_LETTERS.index(node), stat, _slim(runs))


def _largest_over_nodes(df: "pd.DataFrame", stat: str) -> "pd.Series":
    return id_table(df, "node", stat).max(axis=1) if per_id(df, "node", stat) else _col(df, "__none__")


def net_largest_queue_max(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest per-node maximum queue of a run (mean over seeds), at the point."""
    runs = _slim(runs)
    return mean_ci(_largest_over_nodes(runs, "queue_max"))


def net_largest_queue_avg(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest per-node time-average queue of a run (mean over seeds), at the point."""
    runs = _slim(runs)
    return mean_ci(_largest_over_nodes(runs, "queue_avg"))


@register("check")
def net_largest_queue_max_table(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Largest queue at any node in one run of Table 3 (8-hop chain, buffer 30); mean over seeds."""
    runs = _slim(runs)
    return mean_ci(_largest_over_nodes(_table_runs(runs), "queue_max"))


@register("check")
def net_contention_share(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Fraction of all drops that are MAC contention drops (retry limits), pooled over seeds."""
    runs = _slim(runs)
    total = _col(runs, "drops.total").sum()
    if not total:
        return _NAN
    return Estimate(float(_contention(runs).sum() / total), math.nan, len(runs), math.nan)


def _duration_label(ctx: "Context") -> str:
    try:
        return f"{float(ctx.resolved({})['duration_s']):g} s"
    except (KeyError, TypeError, ValueError):
        return "the run"


def _per_300s(ctx: "Context") -> float:
    """Factor from the sweep's duration to the paper's 300 s (quick runs are shorter)."""
    try:
        return 300.0 / float(ctx.resolved({})["duration_s"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return math.nan


def _contention_of(df: "pd.DataFrame", kind: str) -> "pd.Series":
    return sum(_col(df, f"drops.by_kind.{kind}.{c.split('.')[-1]}").fillna(0) for c in CONTENTION)


@register("check")
def net_contention_drops_data_table(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Contention drops of TCP data segments in the run of Table 3 (8-hop, buffer 30), per 300 s."""
    runs = _slim(runs)
    return mean_ci(_contention_of(_table_runs(runs), "tcp_data") * _per_300s(ctx))


@register("check")
def net_contention_drops_all_table(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Contention drops of all packets (TCP data and ACKs) in the run of Table 3, per 300 s."""
    runs = _slim(runs)
    return mean_ci(_contention(_table_runs(runs)) * _per_300s(ctx))


@register("check")
def net_tcp_transmissions_table(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """TCP packets sent (data segments incl. retransmissions + ACKs) in the run of Table 3, per 300 s."""
    runs = _slim(runs)
    df = _table_runs(runs)
    return mean_ci((_col(df, "flow.0.packets_sent") + _col(df, "flow.0.acks_sent")) * _per_300s(ctx))


@register("figure")
def net_queue_per_node(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Table 3 / Table 4 as a figure: per-node maximum and average queue (packets).

    hoptcp: mean and 95% CI over seeds at buffer 30, 8-hop chain (nodes A..I) and the
    7-hop chain (nodes A..H); the paper's printed values overlaid.
    """
    fig = new_figure(10.0, 3.8)
    ax1, ax2 = fig.subplots(1, 2)
    for ax, stat, paper, lab in ((ax1, "queue_max", PAPER_QUEUE_MAX, "Maximum queue (packets)"),
                                 (ax2, "queue_avg", PAPER_QUEUE_AVG, "Average queue (packets)")):
        for hops, off, color in ((8, -0.15, "C0"), (7, 0.15, "C2")):
            df = _select(_slim(ctx.runs), topology__hops=hops, mac__queue_limit=30)
            ests = [mean_ci(_col(df, f"node.{i}.{stat}")) for i in range(hops + 1)]
            m, e = _est_lists(ests)
            if any(v == v for v in m):
                ax.errorbar([i + off for i in range(hops + 1)], m, yerr=e, marker="o", ls="-", capsize=3,
                            color=color, label=f"hoptcp {hops}-hop chain")
            if stat == "queue_avg" and hops == 8:
                # the same, counting the packet the MAC holds (queue + fraction of time the MAC is busy)
                held = [mean_ci(_col(df, f"node.{i}.queue_avg") + _col(df, f"node.{i}.backlog_frac")).mean
                        for i in range(hops + 1)]
                if any(v == v for v in held):
                    ax.plot(range(hops + 1), held, "--", marker=".", color=color, alpha=0.7,
                            label="hoptcp 8-hop, counting the packet in the MAC")
        ax.plot(range(9), paper, "s", fillstyle="none", color="C3", ms=8, label="paper (Table 3/4)")
        if stat == "queue_max":
            ax.axhline(17, ls=":", color="C3", lw=1, label="paper: never exceeds 17")
        ax.set_xticks(range(9), list(NODE_LETTERS))
        ax.set_xlabel("Node (A = TCP source)")
        ax.set_ylabel(lab)
        ax.set_ylim(0, 1.45 * max(paper) if stat == "queue_avg" else None)
        ax.grid(True, alpha=0.3)
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=7, loc="upper left")
    return fig


@register("figure")
def net_drops_by_buffer_chain(ctx: "Context", claims: Mapping[str, "ClaimResult"],
                              opts: Mapping[str, Any]) -> "Figure":
    """Drops by cause for the 7- and 8-hop chains at each buffer size (fu-queues)."""
    import numpy as np

    fig = new_figure(6.5, 3.8)
    ax = fig.add_subplot()
    labels, cont, cont_e, ovf, ovf_e = [], [], [], [], []
    for hops in (7, 8):
        for q in sorted(int(v) for v in _col(_slim(ctx.runs), "mac.queue_limit").dropna().unique()):
            df = _select(_slim(ctx.runs), topology__hops=hops, mac__queue_limit=q)
            if not len(df):
                continue
            c, o = mean_ci(_contention(df)), mean_ci(_overflow(df))
            labels.append(f"{hops} hops\nbuffer {q}")
            cont.append(c.mean)
            cont_e.append(0 if c.ci != c.ci else c.ci)
            ovf.append(o.mean)
            ovf_e.append(0 if o.ci != o.ci else o.ci)
    x = np.arange(len(labels))
    ax.bar(x - 0.2, _nan0(cont), 0.4, yerr=cont_e, capsize=2, label="MAC contention drops")
    ax.bar(x + 0.2, _nan0(ovf), 0.4, yerr=ovf_e, capsize=2, color="C3", label="buffer overflow drops")
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel(f"Packets dropped (in {_duration_label(ctx)})")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return fig


# --------------------------------------------------------------------------------------
# Buffer size and number of flows (INFOCOM §7, Fig. 10)
# --------------------------------------------------------------------------------------

def _single(runs: "pd.DataFrame") -> "pd.DataFrame":
    return _select(runs, flows__0__count=1)


def _multi(runs: "pd.DataFrame") -> "pd.DataFrame":
    if "flows.0.count" not in runs.columns:
        return runs.iloc[0:0]
    return runs[runs["flows.0.count"] > 1]


def _share_over(df: "pd.DataFrame", key: str, lo: float, hi: float, of: str) -> Estimate:
    """Per seed: drops of kind ``of`` / (overflow + contention), pooled over key in [lo, hi]."""
    if key not in df.columns:
        return _NAN
    sub = df[(df[key] >= lo) & (df[key] <= hi)]
    if not len(sub):
        return _NAN
    sub = sub.assign(_c=_contention(sub), _o=_overflow(sub))
    g = sub.groupby("seed")[["_c", "_o"]].sum()
    tot = g["_c"] + g["_o"]
    share = (g["_o"] if of == "overflow" else g["_c"]) / tot
    return mean_ci(share[tot > 0])


def _crossover(xs: Sequence[float], overflow_share: Sequence[float], falling: bool) -> float:
    """First x where the overflow share crosses 1/2 (linear interpolation between points).

    ``falling``: the share falls with x (buffer sweep); otherwise it rises (flow sweep).
    When the share is already past 1/2 at the first x the crossover lies below the range
    (−inf); when it never gets there, beyond the range (+inf).
    """
    pts = [(x, s) for x, s in zip(xs, overflow_share) if s == s]
    if not pts:
        return math.nan

    def past(v: float) -> bool:
        return v <= 0.5 if falling else v >= 0.5

    if past(pts[0][1]):
        return -math.inf
    for (x0, s0), (x1, s1) in zip(pts, pts[1:]):
        if past(s1):
            return x0 + (0.5 - s0) * (x1 - x0) / (s1 - s0) if s1 != s0 else x1
    return math.inf


def _crossover_per_seed(df: "pd.DataFrame", key: str, falling: bool) -> Estimate:
    if key not in df.columns or not len(df):
        return _NAN
    df = df.assign(_c=_contention(df), _o=_overflow(df))
    vals = []
    for _, g in df.groupby("seed"):
        g = g.groupby(key)[["_c", "_o"]].sum().sort_index()
        tot = g["_c"] + g["_o"]
        share = (g["_o"] / tot.where(tot > 0)).tolist()
        vals.append(_crossover([float(x) for x in g.index], share, falling))
    return mean_ci(vals)


#: fu-buffer's two experiments, by the parameter they vary: (the runs of that experiment, whether
#: the share of contention drops falls as the parameter grows)
_BUFFER_SWEEPS: dict[str, tuple[Callable[["pd.DataFrame"], "pd.DataFrame"], bool]] = {
    "mac.queue_limit": (_single, True),  # one flow, buffers of 2..19 packets
    "flows.0.count": (_multi, False),  # many flows, 50-packet buffers
}
_DROP_KINDS = ("overflow", "contention")


def _buffer_sweep(over: str) -> tuple[Callable[["pd.DataFrame"], "pd.DataFrame"], bool]:
    if over not in _BUFFER_SWEEPS:
        raise SpecError(f"over = {over!r}; allowed: {', '.join(_BUFFER_SWEEPS)}")
    return _BUFFER_SWEEPS[over]


@register("check")
def net_drop_share(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, over: str, lo: float,
                   hi: float, of: str) -> Estimate:
    """Per seed: drops of kind ``of`` (overflow or contention) / (overflow + contention drops), pooled
    over the runs whose ``over`` (``mac.queue_limit``: one flow; ``flows.0.count``: buffer 50) is in [lo, hi]."""
    if of not in _DROP_KINDS:
        raise SpecError(f"of = {of!r}; allowed: {', '.join(_DROP_KINDS)}")
    select, _ = _buffer_sweep(over)
    return _share_over(select(_slim(runs)), over, lo, hi, of)


@register("check")
def net_drop_crossover(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, over: str) -> Estimate:
    """The value of ``over`` where contention drops overtake overflow drops (buffer sizes, one flow) or
    overflow drops overtake contention drops (concurrent flows, buffer 50): per seed, interpolated."""
    select, falling = _buffer_sweep(over)
    return _crossover_per_seed(select(_slim(runs)), over, falling=falling)


@register("check")
def net_largest_queue_at_buffer(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, stat: str,
                                buffer: int) -> Estimate:
    """One flow, one buffer size: the largest per-node ``stat`` (queue_avg or queue_max) of a run."""
    if stat not in ("queue_avg", "queue_max"):
        raise SpecError(f"stat = {stat!r}; allowed: queue_avg, queue_max")
    return mean_ci(_largest_over_nodes(_select(_single(_slim(runs)), mac__queue_limit=buffer), stat))


def _drops_vs(ax: Any, df: "pd.DataFrame", key: str) -> list[float]:
    xs = sorted(float(v) for v in df[key].dropna().unique()) if key in df.columns else []
    tops = []
    for label, fn, color, marker in (("buffer overflow", _overflow, "C3", "s"),
                                     ("link-layer contention", _contention, "C0", "o")):
        ests = [mean_ci(fn(df[df[key] == x])) for x in xs]
        m, e = _est_lists(ests)
        ax.errorbar(xs, m, yerr=e, marker=marker, color=color, capsize=3, label=label)
        tops += [a + b for a, b in zip(m, e) if a == a]
    return tops


@register("figure")
def net_fig10_buffer(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """INFOCOM Fig. 10 (left): number of drops of each type against the buffer size (one flow).

    The paper prints no numbers; its statements are drawn as bands: overflow dominates
    below 5 packets, contention above 15, both about equal near 10.
    """
    fig = new_figure(6.0, 4.0)
    ax = fig.add_subplot()
    _drops_vs(ax, _single(_slim(ctx.runs)), "mac.queue_limit")
    ax.axvspan(1.5, 5, color="C3", alpha=0.08, label="paper: overflow dominates (< 5)")
    ax.axvspan(15, 19.5, color="C0", alpha=0.08, label="paper: contention dominates (≥ 15)")
    ax.axvline(10, ls="--", color="0.4", lw=1, label="paper: crossover ≈ 10")
    ax.set_xlabel("Buffer size at each node (packets)")
    ax.set_ylabel(f"Number of packet drops (in {_duration_label(ctx)})")
    ax.set_ylim(0, None)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return fig


@register("figure")
def net_fig10_occupancy(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """INFOCOM Fig. 10 (middle): buffer occupancy against buffer size (one flow).

    Largest per-node average and largest per-node maximum queue (mean and CI over seeds);
    the paper's "about 1.2 packets at most" at buffer 20 as a marker.
    """
    df = _single(_slim(ctx.runs))
    xs = sorted(int(v) for v in _col(df, "mac.queue_limit").dropna().unique())
    fig = new_figure(6.0, 4.0)
    ax = fig.add_subplot()
    for stat, label, color in (("queue_avg", "largest per-node average", "C0"),
                               ("queue_max", "largest per-node maximum", "C2")):
        ests = [mean_ci(_largest_over_nodes(df[df["mac.queue_limit"] == x], stat)) for x in xs]
        m, e = _est_lists(ests)
        ax.errorbar(xs, m, yerr=e, marker="o", capsize=3, color=color, label=f"hoptcp: {label}")
    ax.plot([20], [1.2], "s", fillstyle="none", color="C3", ms=8, label="paper: average ≈ 1.2 at most (buffer 20)")
    ax.plot(xs, [x - 1 for x in xs], ":", color="0.5", label="packets that can wait (buffer − 1)")
    ax.set_xlabel("Buffer size at each node (packets)")
    ax.set_ylabel("Buffer occupancy (packets)")
    ax.set_ylim(0, None)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return fig


@register("figure")
def net_fig10_flows(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """INFOCOM Fig. 10 (right): drops of each type against the number of concurrent flows (buffer 50)."""
    fig = new_figure(6.0, 4.0)
    ax = fig.add_subplot()
    _drops_vs(ax, _multi(_slim(ctx.runs)), "flows.0.count")
    ax.axvspan(0, 80, color="C0", alpha=0.08, label="paper: contention dominates (< 80)")
    ax.axvspan(100, 210, color="C3", alpha=0.08, label="paper: overflow dominates (> 100)")
    ax.set_xlim(0, 210)
    ax.set_xlabel("Number of concurrent TCP flows")
    ax.set_ylabel(f"Number of packet drops (in {_duration_label(ctx)})")
    ax.set_ylim(0, None)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return fig


# --- Fu TR §4.3 / INFOCOM §5.2: losses in the cross, the grids and the random networks ----------

#: the "more complex topologies" of TR §4.3 and INFOCOM §5.2 among fu-topologies' cases
COMPLEX_CASES = ("cross2", "grid4", "grid8", "grid12", "random20")
#: the chain their loss/load curves are compared with (INFOCOM Fig. 4 is a 7-hop chain)
CHAIN_CASE = "chain7x3"


def _columns(runs: "pd.DataFrame", want: Callable[[str], bool]) -> "pd.DataFrame":
    """The columns ``want`` accepts (plus name, seed and MaxWin), without copying ``attrs``."""
    keep = [c for c in runs.columns if c in ("name", "seed", "tcp.max_window") or want(c)]
    saved = runs.attrs
    runs.attrs = {}
    try:
        return runs[keep].copy()
    finally:
        runs.attrs = saved


def _node_ids(df: "pd.DataFrame", field: str) -> list[int]:
    return sorted({int(c.split(".")[1]) for c in df.columns if c.startswith("node.") and c.endswith("." + field)})


def _contention_probability(df: "pd.DataFrame") -> "pd.Series":
    """Per run: MAC retry-limit drops over packets the MACs handled, all nodes."""
    nodes = _node_ids(df, "mac_packets")
    if not nodes:
        raise SpecError("no metric node.N.mac_packets in the runs")
    drops = sum(df[f"node.{n}.mac_drops"].fillna(0) for n in nodes)
    handled = sum(df[f"node.{n}.mac_packets"].fillna(0) for n in nodes)
    return drops / handled.where(handled > 0)


@register("check")
def net_overflow_share(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                       cases: Sequence[str] = COMPLEX_CASES) -> Estimate:
    """Buffer-overflow drops as a % of all packet drops (overflow and MAC retry limits), pooled
    over every run of a case (all MaxWin); the largest share over ``cases`` (n = cases)."""
    df = _columns(runs, lambda c: c in (OVERFLOW, *CONTENTION))
    shares = []
    for case in cases:
        d = df[df["name"] == case] if "name" in df.columns else df.iloc[0:0]
        if d.empty:
            raise SpecError(f"no runs of case '{case}'")
        over, cont = float(_overflow(d).fillna(0).sum()), float(_contention(d).sum())
        shares.append(100.0 * over / (over + cont) if over + cont > 0 else 0.0)
    return Estimate(max(shares), math.nan, len(shares), math.nan)


def _spearman(x: Sequence[float], y: Sequence[float]) -> float:
    import pandas as pd

    if len(x) < 3 or pd.Series(x).nunique() < 2 or pd.Series(y).nunique() < 2:
        return math.nan
    return float(pd.Series(x).rank().corr(pd.Series(y).rank()))


def active_neighbours_vs_drops(row: Mapping[str, Any], tx_range_m: float) -> tuple[list[int], list[float]]:
    """For every node whose MAC handled packets in one run: its active neighbours (other nodes
    within ``tx_range_m`` that sent DATA frames) and its drop probability (MAC retry-limit
    drops over packets handled)."""
    ids = sorted({int(k.split(".")[1]) for k in row if k.startswith("node.") and k.endswith(".x")})
    pos = {i: (float(row[f"node.{i}.x"]), float(row[f"node.{i}.y"])) for i in ids}
    active = [i for i in ids if (row.get(f"node.{i}.data_sent") or 0) > 0]
    ks, ps = [], []
    for i in ids:
        handled = row.get(f"node.{i}.mac_packets") or 0
        if handled <= 0:
            continue
        (xi, yi) = pos[i]
        ks.append(sum(1 for j in active if j != i and math.hypot(pos[j][0] - xi, pos[j][1] - yi) <= tx_range_m))
        ps.append(float(row.get(f"node.{i}.mac_drops") or 0) / handled)
    return ks, ps


@register("check")
def net_neighbour_drop_correlation(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                                   cases: Sequence[str] = COMPLEX_CASES, window: int = 32) -> Estimate:
    """Spearman's rank correlation, over the nodes of one run, between a node's active
    neighbours and its drop probability at MaxWin ``window`` (the overloaded end, where the
    drop probability has reached its maximum); mean over the runs of ``cases``."""
    df = _columns(runs, lambda c: c.startswith("node.") and c.rsplit(".", 1)[-1] in
                  ("x", "y", "data_sent", "mac_packets", "mac_drops"))
    df = df[df["name"].isin(list(cases)) & (df["tcp.max_window"] == window)] if "name" in df.columns else df.iloc[0:0]
    if df.empty:
        raise SpecError(f"no runs of {', '.join(cases)} at MaxWin {window}")
    if not _node_ids(df, "mac_packets"):
        raise SpecError("no metric node.N.mac_packets in the runs")
    rng = float(ctx.resolved(point)["radio"]["tx_range_m"])
    return mean_ci([_spearman(*active_neighbours_vs_drops(r, rng)) for r in df.to_dict("records")])


@register("check")
def net_loss_load_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                        cases: Sequence[str] = COMPLEX_CASES, window: int = 32) -> Estimate:
    """The contention drop probability at MaxWin ``window`` of each case over the 7-hop chain's
    (chain7x3), means over seeds; the ratio farthest from 1 (by its log), n = cases."""
    df = _columns(runs, lambda c: c.startswith("node.") and c.rsplit(".", 1)[-1] in ("mac_packets", "mac_drops"))
    df = df[df["tcp.max_window"] == window] if "tcp.max_window" in df.columns else df.iloc[0:0]

    def level(case: str) -> float:
        d = df[df["name"] == case]
        if d.empty:
            raise SpecError(f"no runs of case '{case}' at MaxWin {window}")
        return float(_contention_probability(d).mean())

    chain = level(CHAIN_CASE)
    ratios = [level(c) / chain for c in cases]
    worst = max(ratios, key=lambda r: abs(math.log(r)) if r > 0 else math.inf)
    return Estimate(worst, math.nan, len(ratios), math.nan)


@register("check")
def net_loss_load_rises(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                        cases: Sequence[str] = (*COMPLEX_CASES, CHAIN_CASE)) -> Estimate:
    """Spearman's rank correlation between MaxWin (the load) and the mean contention drop
    probability at that MaxWin, per case; the smallest over ``cases`` (n = cases)."""
    df = _columns(runs, lambda c: c.startswith("node.") and c.rsplit(".", 1)[-1] in ("mac_packets", "mac_drops"))
    rhos = []
    for case in cases:
        d = df[df["name"] == case] if "name" in df.columns else df.iloc[0:0]
        if d.empty:
            raise SpecError(f"no runs of case '{case}'")
        curve = _contention_probability(d).groupby(d["tcp.max_window"]).mean()
        rhos.append(_spearman(list(curve.index), list(curve.values)))
    return Estimate(min(rhos), math.nan, len(rhos), math.nan)
