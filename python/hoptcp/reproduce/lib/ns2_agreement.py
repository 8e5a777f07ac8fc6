"""Evidence from ns-2.35 itself: where hoptcp and ns-2.35 (same scenarios, stored runs) agree
with each other and both miss the paper's number, the difference lies between the paper's
simulator and ns-2.35 as installed, not in hoptcp."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from ..catalogue import Claim
    from ..report import Context, Evidence

#: p-value of Welch's t test below which the two simulators are taken to differ
NS2_AGREEMENT_P = 0.05


def ns2_agrees(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> "Evidence":
    """Shown when ns-2.35's value also breaks the claim's rule, on the same side of the paper's
    number as hoptcp's, and the two simulators' runs are within seed noise of each other (Welch's
    t test, p >= 0.05; for metric claims, where per-run values exist)."""
    from ...ns2.compare import welch
    from ..report import Evidence, _measure, _ns2_estimate

    if ctx.ns2 is None:
        return Evidence(None, "no stored ns-2.35 runs for these settings")
    ours, ref = _measure(claim, ctx, point)
    theirs = _ns2_estimate(claim, ctx, point)
    if theirs is None:
        return Evidence(None, "ns-2.35's runs do not give this value at this point")
    paper = claim.paper_at(point)
    holds, dev = claim.rule.evaluate(theirs.mean, ref, paper, claim.scale, claim.unit)
    target = ref if claim.rule.target == "reference" else paper
    side = target is None or (ours.mean - target) * (theirs.mean - target) > 0
    p = math.nan
    if claim.value:
        ns2_runs = ctx.ns2_runs_at(point)
        assert ns2_runs is not None
        p = welch(ctx.runs_at(point)[claim.value], ns2_runs[claim.value]).p
    same = math.isnan(p) or p >= NS2_AGREEMENT_P
    shown = holds is False and bool(side) and same
    u = f" {claim.unit}" if claim.unit else ""
    text = (f"ns-2.35 gives {theirs.mean * claim.scale:.4g}{u} over {theirs.n} runs ({dev}); hoptcp "
            f"{ours.mean * claim.scale:.4g}{u}" + ("" if math.isnan(p) else f", Welch p = {p:.2g}")
            + ("; both miss the paper on the same side and agree with each other" if shown else
               "; ns-2.35 meets the paper's number" if holds else
               "; the two simulators differ" if not same else "; they miss the paper on different sides"))
    return Evidence(shown, text)
