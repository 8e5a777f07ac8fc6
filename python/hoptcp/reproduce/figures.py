"""One plotting function per paper figure: ``f(ctx, claims, options) -> Figure``.

Axes are labelled as in the paper; where the paper prints numbers, entries give
them as ``paper_points = [[x, y], ...]`` and they are overlaid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..errors import SpecError
from ..plotting import new_figure
from .registry import register

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .report import ClaimResult, Context


def _sim_vs_reference(claim: "ClaimResult", x: str, opts: Mapping[str, Any]) -> "Figure":
    """hoptcp's mean with 95% CI per point against the claim's reference curve."""
    rows = [r for r in claim.rows if x in r.point]
    if not rows:
        raise SpecError(f"figure: claim '{claim.claim.name}' has no points with parameter '{x}'")
    rows.sort(key=lambda r: r.point[x])
    scale = float(opts.get("scale", claim.claim.scale))
    xs = [r.point[x] for r in rows]
    fig = new_figure(*opts.get("size", (6.0, 4.0)))
    ax = fig.add_subplot()
    ax.errorbar(xs, [r.estimate.mean * scale for r in rows],
                yerr=[0.0 if r.estimate.ci != r.estimate.ci else r.estimate.ci * scale for r in rows],
                marker="o", capsize=3, linestyle="none", label=opts.get("sim_label", "hoptcp (mean, 95% CI)"))
    refs = [(r.point[x], r.reference) for r in rows if r.reference is not None]
    if refs:
        ax.plot([p for p, _ in refs], [v * scale for _, v in refs], "-", color="0.3",
                label=opts.get("reference_label", "model"))
    if opts.get("paper_points"):
        px, py = zip(*opts["paper_points"])
        ax.plot(px, py, "s", fillstyle="none", color="C3", label=opts.get("paper_label", "paper"))
    ax.set_xlabel(opts.get("xlabel", x))
    ax.set_ylabel(opts.get("ylabel", claim.claim.name))
    if opts.get("ylim"):
        ax.set_ylim(*opts["ylim"])
    else:
        tops = [(r.estimate.mean + (0.0 if r.estimate.ci != r.estimate.ci else r.estimate.ci)) * scale for r in rows]
        tops += [v * scale for _, v in refs] + [y for _, y in opts.get("paper_points") or []]
        finite = [t for t in tops if t == t]
        ax.set_ylim(0, 1.12 * max(finite) if finite and max(finite) > 0 else None)
    if opts.get("title"):
        ax.set_title(opts["title"])
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


@register("figure")
def bianchi_throughput_vs_n(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Bianchi (2000), Fig. 6 style: saturation throughput against the number of stations."""
    claim = claims[opts.get("claim", next(iter(claims)))]
    return _sim_vs_reference(claim, opts.get("x", "topology.leaves"), {
        "xlabel": "Number of stations", "ylabel": "Saturation throughput (Mb/s)", "scale": 1e-6,
        "reference_label": "Bianchi model", **opts})
