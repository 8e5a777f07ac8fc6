"""Agreement sweeps (rule 5 of the verdicts): which claims of an entry get one, and with how
many seeds, fixed from a pilot before the sweep runs.

A claim that misses the paper's value can be "differs" only if a second implementation agrees
with hoptcp on the claim's own quantity and scenario. :func:`plan` looks at the entry's runs
(hoptcp's, and the stored ns-2.35 runs: the pilot), takes every counted claim whose rule fails
somewhere and that ns-2.35's runs can measure, fixes its margin (the entry's
``agreement_margin`` when it is below half the gap between the paper and hoptcp, else a third
of that gap) and the seeds per side (:func:`hoptcp.reproduce.agreement.seeds_needed`), and
returns the plan; ``hoptcp ns2 agreement-data ID`` runs it in ns-2.35 (seeds from 1001 on,
apart from the pilot's) and stores it beside the pilot. The report then runs hoptcp on the same
seeds and tests only the first n of them for each claim — never more, whatever the result.
"""

from __future__ import annotations

import math
from typing import Any

from .agreement import margin_for, seeds_needed


def plan(entry_id: str, *, store: Any = None, jobs: int | None = None, progress: bool = True,
         max_seeds: int | None = None) -> dict[str, Any]:
    """The agreement plan of an entry: ``{"seeds": [...], "claims": {name: {n, margin, text}}}``.
    With ``max_seeds``, a claim whose planned n exceeds it is left out of the sweep (listed under
    ``"not_run"`` with its n): its test is not run rather than run on fewer seeds than planned."""
    from ..errors import SpecError
    from ..ns2 import stored
    from ..store import DEFAULT_STORE
    from . import ns2_results
    from .catalogue import get_entry
    from .report import _measure, _run, rule_holds, seed_values

    entry = get_entry(entry_id)
    kw = {"store": store or DEFAULT_STORE, "jobs": jobs, "dask": None, "progress": progress}
    ctx = _run(entry, entry.sweep_spec(False), entry.derive_fn(), False, None, kw)
    for side in entry.sides:
        ctx.sides[side.name] = _run(entry, side.sweep_spec(entry.id, False), side.derive_fn(), False, side.name, kw)
    for side_ctx in ctx.sides.values():
        side_ctx.sides = ctx.sides
    ctx.ns2 = ns2_results.load(entry, False)
    nctx = ctx.for_ns2()
    if nctx is None:
        raise SpecError(f"entry '{entry_id}': no stored ns-2.35 runs to take a pilot from "
                        f"(`hoptcp ns2 reproduce-data {entry_id}` first)")
    claims: dict[str, dict[str, Any]] = {}
    for c in entry.claims:
        if not c.counted:
            continue
        for point in (ctx.spec.points() if c.per_point else [{}]):
            try:
                est, ref = _measure(c, ctx, point)
            except (SpecError, ValueError, KeyError):
                continue
            holds, _ = rule_holds(c, ctx, point, est, ref)
            paper = c.paper_at(point)
            if holds is not False or paper is None or math.isnan(est.mean):
                continue
            pilot_ref = [v for v in seed_values(c, nctx, point) if not math.isnan(v)]
            if len(pilot_ref) < 2:
                continue
            pilot_ours = seed_values(c, ctx, point)
            gap = abs(paper - est.mean)
            declared = c.agreement_margin
            if isinstance(declared, (int, float)):
                declared = float(declared) / c.scale
            m = margin_for(paper, est.mean, declared) if declared is not None else math.inf
            if not m < gap / 2:
                m = gap / 3
            sp = seeds_needed(pilot_ours, pilot_ref, m)
            old = claims.get(c.name)
            if old is None or sp.n > old["n"]:
                claims[c.name] = {"n": sp.n, "margin": m, "text": sp.text, "capped": sp.capped,
                                  "point": {k: str(v) for k, v in point.items()}}
    not_run = {}
    if max_seeds is not None:
        not_run = {k: v for k, v in claims.items() if v["n"] > max_seeds}
        claims = {k: v for k, v in claims.items() if v["n"] <= max_seeds}
    if not claims:
        return {"seeds": [], "claims": {}, "not_run": not_run}
    n = max(v["n"] for v in claims.values())
    first = stored.AGREEMENT_FIRST_SEED
    return {"seeds": list(range(first, first + n)), "claims": claims, "not_run": not_run}
