"""ElRakabawy et al. (2008) Table 2: link-layer drops of TCP data and ACKs on every wireless
link of the parallel chains (``scenarios/gap-parallel.toml``), oncoming flows under TCP-GAP
without Goodput Control: FTP 1 from the wired host B to A1 (data down the upper chain, ACKs
up), FTP 2 from A2 to B (data up the lower chain, ACKs down). Counts come from the core's
``link_drops`` (retry-limit drops per transmitter → next hop), flattened to
``link_drop.<from>-<to>.<kind>``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import SpecError
from ...plotting import new_figure
from ...stats import Estimate
from ..registry import register

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..report import ClaimResult, Context

#: Node ids of scenarios/gap-parallel.toml.
NAMES = {0: "A1", 1: "RL1", 2: "RL2", 3: "RL3", 4: "RL4", 5: "A2", 6: "RL5", 7: "RL6", 8: "RL7", 9: "RL8", 10: "IG"}
#: Table 2, row by row: (packet kind, [(from, to, drops in 1000 s)]).
TABLE2 = (
    ("tcp_ack", [(0, 1, 8), (1, 2, 146), (2, 3, 112), (3, 4, 12), (4, 10, 40)]),
    ("tcp_data", [(5, 6, 11), (6, 7, 128), (7, 8, 147), (8, 9, 141), (9, 10, 102)]),
    ("tcp_data", [(1, 0, 1), (2, 1, 54), (3, 2, 90), (4, 3, 8), (10, 4, 40)]),
    ("tcp_ack", [(6, 5, 7), (7, 6, 118), (8, 7, 127), (9, 8, 50), (10, 9, 14)]),
)


def _per_1000s(runs: "pd.DataFrame", a: int, b: int, kind: str) -> float:
    """Mean drops on link a → b per 1000 s of simulated time (a link without drops in a run
    has no column entry there: 0)."""
    col = f"link_drop.{a}-{b}.{kind}"
    if runs.empty:
        raise SpecError("no runs")
    per_run = runs[col].fillna(0) if col in runs.columns else runs["duration_s"] * 0
    return float((per_run * 1000 / runs["duration_s"]).mean())


def _drops(runs: "pd.DataFrame", a: int, b: int, kind: str) -> Estimate:
    return Estimate(_per_1000s(runs, a, b, kind), math.nan, len(runs), math.nan)


@register("check")
def gap_links_lower_rl7_rl8(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Drops of FTP 2's data on RL7 → RL8 per 1000 s (the paper's 12 times RL3 → RL4's)."""
    return _drops(runs, 8, 9, "tcp_data")


@register("check")
def gap_links_lower_rl8_ig(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Drops of FTP 2's data on RL8 → IG per 1000 s (the paper's 2.5 times RL4 → IG's)."""
    return _drops(runs, 9, 10, "tcp_data")


@register("check")
def gap_links_total(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Drops of TCP data and ACKs on all the table's links per 1000 s."""
    total = sum(_per_1000s(runs, a, b, kind) for kind, links in TABLE2 for a, b, _ in links)
    return Estimate(total, math.nan, len(runs), math.nan)


@register("check")
def gap_links_goodput_ratio(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """FTP 1's goodput over FTP 2's."""
    return Estimate(float(runs["flow.0.goodput_bps"].mean() / runs["flow.1.goodput_bps"].mean()), math.nan,
                    len(runs), math.nan)


@register("values")
def gap_links_values(ctx: "Context") -> dict[str, Any]:
    """Table 2 beside hoptcp's drops per 1000 s (mean over the seeds), TCP-GAP and NewReno."""
    newreno = ctx.side("newreno").runs
    rows = ["| packets | link | paper (1000 s) | hoptcp TCP-GAP | hoptcp NewReno |", "|---|---|---|---|---|"]
    for kind, links in TABLE2:
        for a, b, paper in links:
            nr = f"{_per_1000s(newreno, a, b, kind):.0f}" if not newreno.empty else "–"
            rows.append(f"| {kind.replace('tcp_', 'TCP ')} | {NAMES[a]} → {NAMES[b]} | {paper} | "
                        f"{_per_1000s(ctx.runs, a, b, kind):.0f} | {nr} |")
    g = ctx.runs
    code = ctx.side("ns2-code").runs
    return {"table": "\n".join(rows), "ftp1": g["flow.0.goodput_bps"].mean() / 1e3,
            "ftp2": g["flow.1.goodput_bps"].mean() / 1e3,
            "code_ftp1": code["flow.0.goodput_bps"].mean() / 1e3 if not code.empty else math.nan,
            "code_ftp2": code["flow.1.goodput_bps"].mean() / 1e3 if not code.empty else math.nan,
            "code_drops": (sum(_per_1000s(code, a, b, kind) for kind, links in TABLE2 for a, b, _ in links)
                           if not code.empty else math.nan)}


@register("figure")
def gap_links_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Table 2 as bars: the paper's drops and hoptcp's per 1000 s for each link, one panel per row."""
    import numpy as np

    fig = new_figure(*opts.get("size", (12.0, 6.5)))
    axes = fig.subplots(2, 2).ravel()
    titles = ("FTP 1's ACKs, upper chain", "FTP 2's data, lower chain", "FTP 1's data, upper chain",
              "FTP 2's ACKs, lower chain")
    for ax, (kind, links), title in zip(axes, TABLE2, titles):
        x = np.arange(len(links))
        ax.bar(x - 0.2, [p for _, _, p in links], 0.4, color="C7", label="paper (ns-2)")
        ax.bar(x + 0.2, [_per_1000s(ctx.runs, a, b, kind) for a, b, _ in links], 0.4, color="C0", label="hoptcp")
        ax.set_xticks(x, [f"{NAMES[a]}→{NAMES[b]}" for a, b, _ in links], fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylabel("Drops per 1000 s")
    axes[2].set_ylabel("Drops per 1000 s")
    axes[0].legend(fontsize=7)
    return fig
