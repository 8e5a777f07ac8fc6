"""ElRakabawy et al. (2008) with four or more flows through one gateway: the cross (§5.2.3,
Figs. 18-20), the random 120-node network (§5.2.4, Fig. 21) and HTTP-like flows on it
(§5.3.2, Fig. 24): builders, checks, values and figures for ``gap-cross``, ``gap-random``
and ``gap-http-random``.

Arms as in ``gap-parallel``: NewReno (main sweep), TCP-GAP without Goodput Control (side
``tcp-gap``) and the paper's TCP-GAP, with it (side ``goodput-control``). Under TCP-GAP the
wireless senders run TCP-AP and the wired ones NewReno, paced by the gateway.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import SpecError
from ...plotting import new_figure
from ...stats import Estimate, mean_ci, paired_gain
from ..registry import register

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..report import ClaimResult, Context

GOODPUT = "aggregate_goodput_bps"
JAIN = "fairness_jain"
GAP = "wired.tcp_gap.enabled"
ARMS = ("NewReno", "TCP-GAP", "TCP-GAP + Goodput Control")
#: side arms with TCP-AP's ns-2-code variant (gap-random, gap-http-random)
NS2_CODE_SIDES = {"tcp-gap-ns2-code": "TCP-GAP, ns-2 code", "goodput-control-ns2-code": "TCP-GAP + Goodput Control, ns-2 code"}
ARM_SIDES = {"tcp-gap": ARMS[1], "goodput-control": ARMS[2]}
#: gap-cross: the same two TCP-GAP arms with TCP-AP's ns-2-code variant
CODE_SIDES = {"tcp-gap-ns2-code": "TCP-GAP, ns-2 code", "goodput-control-ns2-code": "TCP-GAP + Goodput Control, ns-2 code"}

#: scenarios/gap-cross.toml: ends A1-A4, wired hosts B1-B4; wired ids start at 17.
CROSS_A = (0, 8, 9, 16)
CROSS_B = (20, 21, 22, 23)
CROSS_FIRST_WIRED = 17
#: The three direction cases, told apart by the sources of flows 0 and 1.
CROSS_CASES = {(CROSS_A[0], CROSS_A[1]): "wireless → wired (Fig. 18)",
               (CROSS_B[0], CROSS_B[1]): "wired → wireless (Fig. 19)",
               (CROSS_A[0], CROSS_B[1]): "oncoming (Fig. 20)"}
#: scenarios/gap-random.toml: 120 wireless nodes, then RT1, RT2, B3.
RANDOM_FIRST_WIRED = 120


def _flows_gap(params: Mapping[str, Any], base: Any, first_wired: int) -> dict[str, Any]:
    """TCP-GAP's senders: TCP-AP at every wireless sender, NewReno at the wired ones."""
    flows = base.document.get("flows") or []
    out: dict[str, Any] = {}
    for i, f in enumerate(flows):
        src = params.get(f"flows.{i}.src", f.get("src"))
        if not isinstance(src, int):
            raise SpecError(f"derive: flows.{i}.src = {src!r}; expected a node id")
        out[f"flows.{i}.variant"] = "tcp_ap" if src < first_wired else "newreno"
    return out


@register("derive")
def gap_cross_flows_gap(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    return _flows_gap(params, base, CROSS_FIRST_WIRED)


@register("derive")
def gap_random_flows_gap(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    return _flows_gap(params, base, RANDOM_FIRST_WIRED)


def _arm_runs(ctx: "Context") -> "pd.DataFrame":
    """Every run of the three arms, with its arm."""
    import pandas as pd

    frames = [ctx.runs.assign(arm=ARMS[0])] + [ctx.side(s).runs.assign(arm=a) for s, a in ARM_SIDES.items()]
    runs = pd.concat([f for f in frames if not f.empty], ignore_index=True).copy()
    if runs.empty:
        raise SpecError("no runs")
    return runs


def _n_flows(runs: "pd.DataFrame") -> int:
    n = 0
    while f"flow.{n}.goodput_bps" in runs.columns:
        n += 1
    return n


def _est(x: float, n: int) -> Estimate:
    return Estimate(float(x), math.nan, n, math.nan)


# --- gap-cross (Figs. 18-20) --------------------------------------------------------------

def gap_cross_runs(ctx: "Context") -> "pd.DataFrame":
    runs = _arm_runs(ctx)
    return runs.assign(case=[CROSS_CASES[(int(a), int(b))] for a, b in zip(runs["flows.0.src"], runs["flows.1.src"])])


def _cross(ctx: "Context", case: str, arm: str) -> "pd.DataFrame":
    runs = gap_cross_runs(ctx)
    sel = runs[runs["case"].str.startswith(case) & (runs["arm"] == arm)]
    if sel.empty:
        raise SpecError(f"no runs of {arm} for the {case} case")
    return sel


def _jain(ctx: "Context", case: str, arm: str) -> Estimate:
    return mean_ci(_cross(ctx, case, arm)[JAIN])


def _keyed(sel: "pd.DataFrame", metric: str, keys: tuple[str, ...] = ("seed",)) -> "pd.Series":
    """``metric`` of the runs indexed by ``keys`` (the seed, and the case where one arm spans several)."""
    if "seed" not in sel.columns:
        raise SpecError("no column 'seed' in the runs (the paired comparison aligns on it)")
    return sel.set_index(list(keys))[metric]


def _agg_ratio(ctx: "Context", case: str, arm: str) -> Estimate:
    """Aggregate goodput of ``arm`` over NewReno's in the cases starting with ``case``, paired by
    case and seed (every arm runs the same seeds): mean of the per-seed ratios, Student-t CI."""
    a, b = _cross(ctx, case, arm), _cross(ctx, case, ARMS[0])
    return paired_gain(_keyed(b, GOODPUT, ("case", "seed")), _keyed(a, GOODPUT, ("case", "seed")), "ratio")


#: the direction mixes of gap-cross (Fig. 10-12)
DIRECTIONS = ("wireless", "wired", "oncoming")


def _case(case: str) -> str:
    if case not in DIRECTIONS:
        raise SpecError(f"case = {case!r}; allowed: {', '.join(DIRECTIONS)}")
    return case


@register("check")
def gap_cross_jain(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, case: str) -> Estimate:
    """Jain's index of the four flows with TCP-GAP, one direction mix (``case``)."""
    return _jain(ctx, _case(case), ARMS[2])


@register("check")
def gap_cross_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, case: str) -> Estimate:
    """Aggregate goodput with TCP-GAP over NewReno's, one direction mix (``case``)."""
    return _agg_ratio(ctx, _case(case), ARMS[2])


@register("check")
def gap_cross_oncoming_first_two(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """TCP-GAP without Goodput Control, oncoming case: goodput of FTP 1 + FTP 2 over FTP 3 + FTP 4."""
    g = _cross(ctx, "oncoming", ARMS[1])
    first = g["flow.0.goodput_bps"].mean() + g["flow.1.goodput_bps"].mean()
    last = g["flow.2.goodput_bps"].mean() + g["flow.3.goodput_bps"].mean()
    return _est(first / last if last else math.nan, len(g))


def _flow_table(runs: "pd.DataFrame", groups: list[tuple[str, "pd.DataFrame"]],
                arms: tuple[str, ...] = ARMS) -> str:
    n = _n_flows(runs)
    head = "| case | arm | " + " | ".join(f"FTP {i + 1}" for i in range(n)) + " | aggregate | Jain |"
    rows = [head, "|" + "---|" * (n + 4)]
    for label, g in groups:
        for arm in arms:
            x = g[g["arm"] == arm]
            if x.empty:
                continue
            cells = " | ".join(f"{x[f'flow.{i}.goodput_bps'].mean() / 1e3:.0f}" for i in range(n))
            rows.append(f"| {label} | {arm} | {cells} | {x[GOODPUT].mean() / 1e3:.0f} | {x[JAIN].mean():.3f} |")
    return "\n".join(rows)


@register("values")
def gap_cross_values(ctx: "Context") -> dict[str, Any]:
    import pandas as pd

    runs = gap_cross_runs(ctx)
    code = pd.concat([ctx.side(s).runs.assign(arm=a) for s, a in CODE_SIDES.items()], ignore_index=True).copy()
    code = code.assign(case=[CROSS_CASES[(int(a), int(b))] for a, b in zip(code["flows.0.src"], code["flows.1.src"])])
    return {"table": _flow_table(runs, [(c, runs[runs["case"] == c]) for c in CROSS_CASES.values()]),
            "code_table": _flow_table(code, [(c, code[code["case"] == c]) for c in CROSS_CASES.values()],
                                      tuple(CODE_SIDES.values()))}


def _flow_bars(ax: Any, runs: "pd.DataFrame", n: int) -> None:
    import numpy as np

    x = np.arange(n + 1)
    for j, arm in enumerate(ARMS):
        g = runs[runs["arm"] == arm]
        cols = [f"flow.{i}.goodput_bps" for i in range(n)] + [GOODPUT]
        est = [mean_ci(g[c]) if len(g) else Estimate(math.nan, math.nan, 0, math.nan) for c in cols]
        ax.bar(x + (j - 1) * 0.27, [e.mean / 1e3 for e in est], 0.27,
               yerr=[0 if e.ci != e.ci else e.ci / 1e3 for e in est], capsize=2, color=f"C{j}", label=arm)
    ax.set_xticks(x, [f"FTP {i + 1}" for i in range(n)] + ["sum"], fontsize=8)
    ax.grid(alpha=0.3, axis="y")


@register("figure")
def gap_cross_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Figs. 18-20: each flow's goodput and the aggregate per arm, one panel per direction case."""
    runs = gap_cross_runs(ctx)
    fig = new_figure(*opts.get("size", (13.0, 4.0)))
    axes = fig.subplots(1, 3, sharey=True)
    for ax, case in zip(axes, CROSS_CASES.values()):
        _flow_bars(ax, runs[runs["case"] == case], _n_flows(runs))
        ax.set_title(case, fontsize=9)
    axes[0].set_ylabel("Goodput (kb/s)")
    axes[0].legend(fontsize=7)
    return fig


# --- gap-random (Fig. 21) -----------------------------------------------------------------

def _random(ctx: "Context", arm: str) -> "pd.DataFrame":
    runs = _arm_runs(ctx)
    sel = runs[runs["arm"] == arm]
    if sel.empty:
        raise SpecError(f"no runs of {arm}")
    return sel


def _starving(g: "pd.DataFrame") -> Estimate:
    """Flows per run below a tenth of the equal share of that run's aggregate goodput."""
    n = _n_flows(g)
    counts = [sum(1 for i in range(n) if r[f"flow.{i}.goodput_bps"] < 0.1 * r[GOODPUT] / n)
              for _, r in g.iterrows()]
    return mean_ci(counts)


@register("check")
def gap_random_starving_newreno(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    return _starving(_random(ctx, ARMS[0]))


@register("check")
def gap_random_starving_gap(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    return _starving(_random(ctx, ARMS[2]))


@register("check")
def gap_random_jain_gain(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Jain's index with TCP-GAP + Goodput Control minus NewReno's: the per-seed difference (same seed
    = same placement in every arm), mean and Student-t CI over seeds."""
    a, b = _random(ctx, ARMS[2]), _random(ctx, ARMS[0])
    return paired_gain(_keyed(b, JAIN), _keyed(a, JAIN), "diff")


@register("check")
def gap_random_aggregate_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Aggregate goodput with TCP-GAP + Goodput Control over NewReno's, per seed (paired), mean and
    Student-t CI over seeds."""
    a, b = _random(ctx, ARMS[2]), _random(ctx, ARMS[0])
    return paired_gain(_keyed(b, GOODPUT), _keyed(a, GOODPUT), "ratio")


def _ns2_code_table(ctx: "Context") -> str:
    from .gap_hybrid import side_arm_table

    return side_arm_table(ctx, NS2_CODE_SIDES)


@register("values")
def gap_random_values(ctx: "Context") -> dict[str, Any]:
    runs = _arm_runs(ctx)
    seeds = [(f"seed {s}", runs[runs["seed"] == s]) for s in sorted(runs["seed"].unique())]
    return {"table": _flow_table(runs, [("mean", runs)]), "per_seed": _flow_table(runs, seeds),
            "ns2_code_table": _ns2_code_table(ctx)}


@register("figure")
def gap_random_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 21: each flow's goodput and the aggregate per arm, mean over the seeds (each seed is
    another placement, so a flow's path length varies from seed to seed)."""
    runs = _arm_runs(ctx)
    fig = new_figure(*opts.get("size", (10.0, 4.0)))
    ax = fig.subplots(1, 1)
    _flow_bars(ax, runs, _n_flows(runs))
    ax.set_ylabel("Goodput (kb/s)")
    ax.legend(fontsize=7)
    return fig


# --- gap-http-random (Fig. 24) ------------------------------------------------------------

PAGE = "flow.{}.http.mean_page_goodput_bps"


def _http_arm(ctx: "Context", arm: str) -> tuple[list[float], int]:
    """Per-flow averaged goodput (mean per-page goodput, mean over the seeds) of one arm."""
    g = _random(ctx, arm)
    n = _n_flows(g)
    return [float(g[PAGE.format(i)].mean()) for i in range(n)], len(g)


def _jain_of(v: list[float]) -> float:
    s = sum(v)
    return s * s / (len(v) * sum(x * x for x in v)) if s > 0 else math.nan


@register("check")
def gap_http_random_jain_newreno(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    v, n = _http_arm(ctx, ARMS[0])
    return _est(_jain_of(v), n)


@register("check")
def gap_http_random_jain_gain(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Jain's index of TCP-GAP's per-flow averaged goodputs minus NewReno's. Not paired by seed:
    the index is taken over each flow's goodput averaged over the pages and the seeds (the
    paper's "averaged goodput"), so there is no per-seed value; no CI."""
    (a, n), (b, m) = _http_arm(ctx, ARMS[2]), _http_arm(ctx, ARMS[0])
    return _est(_jain_of(a) - _jain_of(b), min(n, m))


@register("check")
def gap_http_random_gain(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Aggregate averaged goodput (sum over flows of the mean per-page goodput) of TCP-GAP over
    NewReno's, in %, paired by seed: per seed 100·(sum_GAP/sum_NewReno − 1) of the run's sums over
    flows (same seed = same placement), mean and Student-t CI over seeds; a run with a flow that
    completed no page has no sum and its seed is left out."""
    a, b = _random(ctx, ARMS[2]), _random(ctx, ARMS[0])

    def total(g: "pd.DataFrame") -> "pd.Series":
        cols = [PAGE.format(i) for i in range(_n_flows(g))]
        return _keyed(g.assign(_sum=g[cols].sum(axis=1, min_count=len(cols))), "_sum")

    return paired_gain(total(b), total(a), "pct")


@register("values")
def gap_http_random_values(ctx: "Context") -> dict[str, Any]:
    rows = ["| arm | " + " | ".join(f"HTTP {i + 1}" for i in range(4)) + " | aggregate | Jain |", "|---|---|---|---|---|---|---|"]
    for arm in ARMS:
        try:
            v, _ = _http_arm(ctx, arm)
        except SpecError:
            continue
        rows.append(f"| {arm} | " + " | ".join(f"{x / 1e3:.0f}" for x in v) + f" | {sum(v) / 1e3:.0f} | {_jain_of(v):.3f} |")
    return {"table": "\n".join(rows), "ns2_code_table": _ns2_code_table(ctx)}


@register("figure")
def gap_http_random_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 24: each HTTP flow's averaged goodput and their sum per arm."""
    import numpy as np

    fig = new_figure(*opts.get("size", (9.0, 4.0)))
    ax = fig.subplots(1, 1)
    for j, arm in enumerate(ARMS):
        try:
            v, _ = _http_arm(ctx, arm)
        except SpecError:
            continue
        x = np.arange(len(v) + 1)
        ax.bar(x + (j - 1) * 0.27, [y / 1e3 for y in v + [sum(v)]], 0.27, color=f"C{j}", label=arm)
        ax.set_xticks(x, [f"HTTP {i + 1}" for i in range(len(v))] + ["sum"], fontsize=8)
    ax.set_ylabel("Averaged goodput (kb/s)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    return fig
