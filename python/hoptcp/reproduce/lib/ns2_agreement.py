"""Evidence from ns-2.35 itself: where hoptcp and ns-2.35 (same scenarios, stored runs) agree
with each other, tested over seeds, and both miss the paper's number on the same side, the
difference lies between the paper's simulator and ns-2.35 as installed, not in hoptcp."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..registry import register

if TYPE_CHECKING:  # pragma: no cover
    from ..catalogue import Claim
    from ..report import Context, Evidence


@register("evidence")
def ns2_agrees(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> "Evidence":
    """Shown when ns-2.35's value also breaks the claim's rule, on the same side of the paper's
    number as hoptcp's, and the two simulators agree: the equivalence test over seeds of
    :mod:`hoptcp.reproduce.agreement` says "agree" (not merely "no significant difference")."""
    from ..report import Evidence, _measure, _ns2_estimate, ns2_agreement, rule_holds

    nctx = ctx.for_ns2()
    if nctx is None:
        return Evidence(None, "no stored ns-2.35 runs for these settings")
    ours, ref = _measure(claim, ctx, point)
    theirs = _ns2_estimate(claim, ctx, point)
    if theirs is None:
        return Evidence(None, "ns-2.35's runs do not give this value at this point")
    paper = claim.paper_at(point)
    holds, dev = rule_holds(claim, nctx, point, theirs, ref)
    target = ref if claim.rule.target == "reference" else paper
    side = target is None or (ours.mean - target) * (theirs.mean - target) > 0
    test = ns2_agreement(claim, ctx, point, ours, theirs)
    agree = test.verdict == "agree"
    shown = holds is False and bool(side) and agree
    u = f" {claim.unit}" if claim.unit else ""
    text = (f"ns-2.35 gives {theirs.mean * claim.scale:.4g}{u} over {theirs.n} runs ({dev}); hoptcp "
            f"{ours.mean * claim.scale:.4g}{u}; the two simulators {test.text}"
            + ("; both miss the paper on the same side and agree with each other" if shown else
               "; ns-2.35 meets the paper's number" if holds else
               "; they miss the paper on different sides" if not side else
               "; without agreement ns-2.35 does not explain the difference"))
    return Evidence(shown, text)
