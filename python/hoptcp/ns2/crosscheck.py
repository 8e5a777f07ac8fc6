"""``hoptcp crosscheck``: the same scenario and seeds in hoptcp and in ns-2.35, compared.

Both sides are sweeps over the seeds, cached in the results store (hoptcp's runs
under its version, ns-2's under :func:`hoptcp.ns2.run.ns2_version`), so a second
crosscheck of the same scenario costs nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..scenario import Scenario
from ..store import DEFAULT_STORE, Store
from . import run as ns2run
from .compare import DEFAULT_METRICS, MetricComparison, compare

#: columns of a sweep frame that are not metrics
_NOT_METRICS = {"sweep", "seed", "scenario_hash", "hoptcp_version"}


@dataclass
class Crosscheck:
    """Results of a crosscheck: flat metrics per seed on each side, and their comparison."""

    scenario: Scenario
    seeds: list[int]
    hoptcp: list[dict[str, Any]]
    ns2: list[dict[str, Any]] = field(default_factory=list)
    comparisons: list[MetricComparison] = field(default_factory=list)
    #: seed -> differences between hoptcp's routes and those DSDV froze
    route_problems: dict[int, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: ns-2 time of the scenario's time 0 in the exported script (routing and ARP warm up before it)
    t0: float | None = None

    @property
    def ns2_ran(self) -> bool:
        return bool(self.ns2)

    @property
    def routes_ok(self) -> bool:
        return not any(self.route_problems.values())


def _rows(df: Any) -> list[dict[str, Any]]:
    metric_cols = [c for c in df.attrs.get("metrics", df.columns) if c not in _NOT_METRICS]
    return [{c: r[c] for c in metric_cols} | {"seed": int(r["seed"])} for _, r in df.iterrows()]


def crosscheck(scenario: Scenario, seeds: Sequence[int], *, store: str | Path | Store = DEFAULT_STORE,
               jobs: int | None = None, progress: bool = True, metrics: Sequence[str] | None = None,
               name: str | None = None, run_ns2: bool = True) -> Crosscheck:
    """Run ``scenario`` for ``seeds`` in hoptcp and, when ``ns`` is installed, in ns-2.35."""
    from ..sweep import SweepSpec, run_sweep

    # Fail on what ns-2 cannot express before running anything.
    from .exporter import export

    ns2_possible = run_ns2 and ns2run.available()
    if ns2_possible:
        export(scenario, seeds[0])
    spec = SweepSpec.build(scenario, seeds=list(seeds), name=name or f"crosscheck-{scenario.name}")
    own = not isinstance(store, Store)
    db = store if isinstance(store, Store) else Store(store)
    try:
        h = run_sweep(spec, store=db, jobs=jobs, progress=progress)
        cc = Crosscheck(scenario, list(seeds), _rows(h))
        if not ns2_possible:
            cc.notes.append("ns-2 is not installed (no `ns` on PATH; Debian/Ubuntu: apt-get install ns2): "
                            "hoptcp only" if run_ns2 else "ns-2 not run: hoptcp only")
            return cc
        n = ns2run.run_sweep(spec, store=db, jobs=jobs, progress=progress)
        cc.ns2 = _rows(n)
        version = ns2run.ns2_version()
        for _, r in n.iterrows():
            raw = db.result(r["scenario_hash"], int(r["seed"]), version) or {}
            info = raw.get("ns2", {})
            cc.route_problems[int(r["seed"])] = list(info.get("route_problems", []))
            if info.get("t0") is not None:
                cc.t0 = float(info["t0"])
            for note in info.get("notes", []):
                if note not in cc.notes:
                    cc.notes.append(note)
        cc.comparisons = compare(cc.ns2, cc.hoptcp, metrics or DEFAULT_METRICS)
        return cc
    finally:
        if own:
            db.close()


#: the per-metric verdict's rule, for the table's header
VERDICT_RULE = ("within noise: Welch's t per metric, p Holm-corrected over the {n} metrics compared "
                "(family-wise 5%); --check uses aggregate goodput's own Welch p >= 0.05")
#: what "DSDV froze hoptcp's routes" means, in plain words
STATIC_ROUTES = ("ns-2.35 has no static routing for wireless nodes, so the exported script runs DSDV until "
                 "its tables settle and then stops its updates (its routes are frozen for the run)")


def summary_lines(cc: Crosscheck) -> list[str]:
    """Plain lines under the table: routes, the time offset, one verdict per metric, notes."""
    lines = []
    bad = {s: p for s, p in cc.route_problems.items() if p}
    static = cc.ns2_ran and cc.scenario.resolved()["routing"]["protocol"] == "static"
    how, froze, read = STATIC_ROUTES, "froze", "read back from ns-2's trace"
    if static:
        from .port_static_routes import AGENT_ROUTES, mode

        if mode(cc.scenario.resolved()) == "agent":  # ns2/ports/static-routes
            how, froze, read = AGENT_ROUTES, "held", "recorded by the agents at time 0"
    if bad:
        seed, probs = next(iter(bad.items()))
        lines.append(f"ROUTES DIFFER in {len(bad)} of {len(cc.route_problems)} seeds: {how}, and the "
                     f"routes it {froze} are not hoptcp's, so the packets take other paths (not like for like). "
                     f"Seed {seed}: {probs[0]}")
    elif static:
        lines.append(f"Routes: the same paths in both simulators. {how}; in every seed those routes are "
                     f"hoptcp's static routes ({read}).")
    if cc.ns2_ran and cc.t0 is not None:
        lines.append(f"Times: the exported script starts the scenario at ns-2 time {cc.t0:g} s, after routing and "
                     "ARP have warmed up (a ping on every link a flow uses, so no packet waits for ARP); ns-2's "
                     "results are read from there on, so they compare to hoptcp's from time 0.")
    lines += [c.sentence() for c in cc.comparisons]
    lines += [f"note: {n}" for n in cc.notes]
    return [x for x in lines if x]


def to_json(cc: Crosscheck) -> str:
    return json.dumps({
        "scenario": cc.scenario.name, "overrides": dict(cc.scenario.overrides), "seeds": cc.seeds,
        "hoptcp": cc.hoptcp, "ns2": cc.ns2, "route_problems": {str(k): v for k, v in cc.route_problems.items()},
        "notes": cc.notes, "t0": cc.t0,
        "correction": "holm",
        "comparisons": [{"metric": c.metric, **vars(c.test), "p_holm": c.p_holm, "within_noise": c.within_noise,
                         "welch_within_noise": c.test.within_noise,
                         "equivalence": None if c.agreement is None else vars(c.agreement)}
                        for c in cc.comparisons],
    }, default=float)
