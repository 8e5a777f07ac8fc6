"""ns-2.35 results stored with hoptcp, one file per reproduction entry, for the reports' ns-2.35 column.

``hoptcp ns2 reproduce-data ID|all`` runs an entry's full sweep (or the part ns-2.35
can express, see :data:`PLANS`) under ns-2.35 and writes
``hoptcp/reproduce/ns2data/<id>.csv`` (one row per run: the sweep parameters, the
seed and every metric ns-2 gives, under hoptcp's names) and ``<id>.json`` (what was
run). Reports read them with :func:`load`, so rendering a report never needs ns-2.

Entries whose main sweep ns-2.35 cannot express (the hybrid ``gap-*`` entries: AODV cannot
route through ns-2's base station, TCP-GAP has no ns-2 code) name side sweeps instead
(:attr:`Plan.sides`); those are stored as ``<id>@<side>.csv`` / ``.json`` and read with
:func:`load_side`, by the entry's own functions.

The frame :func:`load` returns has the same columns as the entry's hoptcp runs frame
(``params``, ``seed``, metrics), plus ``ns2.routes_ok``; reproduction check and
evidence functions see it as ``ctx.ns2`` (:mod:`hoptcp.reproduce.ns2_results`).
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..errors import SpecError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..reproduce.catalogue import Entry
    from ..sweep import SweepSpec


@dataclass(frozen=True)
class Plan:
    """Which part of an entry's full sweep runs under ns-2.35."""

    #: seeds (None: the entry's own)
    seeds: tuple[int, ...] | None = None
    #: keep a sweep point? (None: all)
    points: Callable[[Mapping[str, Any]], bool] | None = None
    #: what was left out and why (shown in the report)
    note: str = ""
    #: the entry cannot be run in ns-2.35 at all: why
    unsupported: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: side sweeps that run in ns-2.35 too (stored as ``<id>@<side>``)
    sides: tuple[str, ...] = ()
    #: whether the main sweep runs in ns-2.35
    main: bool = True
    #: the ns2/ports the sweep needs (the binary must be built with them: ``hoptcp ns2 build --with-ports``)
    ports: tuple[str, ...] = ()
    #: the points the agreement sweep runs (None: every point of the plan)
    agreement_points: Callable[[Mapping[str, Any]], bool] | None = None


_FIVE = tuple(range(1, 6))
_TEN = tuple(range(1, 11))
_GAP_NOTE = ("ns-2.35 ran the entry's side sweeps with static routes and the authors' tcp-ap.cc (an ns-2.35 "
             "built by `hoptcp ns2 build`): stock ns-2.35's AODV never forwards to a base station and it has no "
             "TCP-GAP gateway. Both now exist as our clean-room ports (ns2/ports/aodv-bs, ns2/ports/tcp-gap), "
             "compared with hoptcp in docs/validation.md (chains h = 1..8 both ways, parallel chains with and "
             "without Goodput Control); this entry's own sweeps have not been run with them yet.")


_LDM_NOTE = ("ns-2.35 ran regular and restrained TCP. LDM and adaptive pacing exist in ns-2.35 only as our "
             "clean-room ports (ns2/ports/ldm, ns2/ports/lred-pacing), compared with hoptcp in docs/validation.md; "
             "this entry's LDM and pacing arms have not been run with them yet (ldm-fig4's 7-hop chain has).")


def _plain_tcp(p: Mapping[str, Any]) -> bool:
    """A sweep point without LDM or adaptive pacing (what ns-2.35 can run)."""
    return all(str(p.get(k, False)).lower() != "true" for k in ("ip.ldm.enabled", "mac.adaptive_pacing.enabled"))
_NS2_TOPOLOGIES = {"chain6x6", "chain7x3", "cross2"}

#: per entry: what ns-2.35 runs (entries not listed run their whole sweep with their seeds)
PLANS: dict[str, Plan] = {
    "fu-window": Plan(seeds=_FIVE),
    "fu-lred-chains": Plan(ports=("lred-pacing",)),
    "fu-lred-window": Plan(ports=("lred-pacing",)),
    "fu-lred-topologies": Plan(ports=("lred-pacing", "static-routes")),
    "lred-calibration": Plan(ports=("lred-pacing",)),
    "fu-pacing": Plan(seeds=_FIVE, ports=("lred-pacing",),
                      points=lambda p: int(p["tcp.max_window"]) == 3
                      and p["mac.adaptive_pacing.wait"] == "frozen_backoff",
                      note="ns-2.35 with our clean-room port of adaptive pacing (ns2/ports/lred-pacing) ran MaxWin 3 "
                           "(W*) with the readings the text allows (the wait on the frozen backoff); the port's "
                           "digest is named above."),
    "fu-vegas": Plan(seeds=_FIVE),
    "fu-wstar": Plan(seeds=(1, 2, 3), points=lambda p: int(p["topology.hops"]) <= 16,
                     note="ns-2.35 ran chains of up to 16 hops with 3 seeds (the longer chains take minutes per "
                          "run in ns-2)."),
    "fu-topologies": Plan(seeds=_FIVE, points=lambda p: p["name"] in _NS2_TOPOLOGIES,
                          note="ns-2.35 ran the chains and the cross. ns-2.35 has no static routing for "
                               "wireless nodes and DSDV, which stands in for it, never settles on the 13x13 "
                               "grid or the random topology (docs/validation.md), so those cases have no "
                               "ns-2.35 value."),
    "fu-queues": Plan(seeds=_FIVE),
    "fu-buffer": Plan(seeds=(1, 2, 3), note="ns-2.35 ran 3 seeds (runs with 100-200 flows take minutes in "
                                            "ns-2)."),
    "jiang-retry": Plan(seeds=_FIVE),
    "jiang-oscillation": Plan(seeds=_FIVE),
    "jiang-capture-start": Plan(seeds=_FIVE),
    "jiang-capture-length": Plan(seeds=_FIVE),
    "jiang-neighbourhood": Plan(unsupported="its claims need per-second throughput, which the stored ns-2.35 "
                                            "metrics do not give (docs/jiang-capture.md compares the scenario's "
                                            "goodputs with ns-2.35)"),
    "jiang-packet-size": Plan(seeds=(1, 2, 3)),
    "ldm-fig4": Plan(seeds=_FIVE, points=lambda p: _plain_tcp(p) or int(p["topology.hops"]) == 7,
                     ports=("ldm", "lred-pacing"), agreement_points=lambda p: int(p["topology.hops"]) == 7,
                     note="ns-2.35 ran regular and restrained TCP, and on the 7-hop chain also LDM (our clean-room "
                          "port, ns2/ports/ldm) and Lee's adaptive pacing (our port of Fu's pacing, "
                          "ns2/ports/lred-pacing, in Lee's reading); the ports' digests are named above."),
    "ldm-fig5": Plan(seeds=_FIVE, points=_plain_tcp, note=_LDM_NOTE,
                     agreement_points=lambda p: int(p["topology.hops"]) == 7),
    "ldm-fig10": Plan(seeds=_FIVE, points=_plain_tcp, note=_LDM_NOTE),
    "gap-chain": Plan(seeds=_TEN, main=False, sides=("static-ns2-code", "static-ns2-code-down"),
                      note=_GAP_NOTE),
    "gap-parallel": Plan(seeds=_TEN, main=False, sides=("static-newreno",), note=_GAP_NOTE),
    "gap-responsiveness": Plan(seeds=_TEN, main=False, sides=("static-newreno",), note=_GAP_NOTE),
    "modern-tcp": Plan(unsupported="hoptcp's own study, with no claim to judge; ns-2.35 has no BBR, and "
                                   "hoptcp's SACK and CUBIC are checked against ns-2.35's Sack1 and TCP-Linux, and "
                                   "its BBR against ns-3.37, in docs/validation.md"),
    "fu-linkdrop": Plan(unsupported="its claims divide by packets handed to each MAC and use the per-node "
                                    "backlog, which ns-2's traces give only with full MAC tracing"),
}


def data_dir() -> Path:
    return Path(str(resources.files("hoptcp.reproduce") / "ns2data"))


def _files(entry_id: str, directory: Path | None = None, side: str | None = None) -> tuple[Path, Path]:
    d = directory or data_dir()
    stem = entry_id if side is None else f"{entry_id}@{side}"
    return d / f"{stem}.csv", d / f"{stem}.json"


def plan_of(entry_id: str) -> Plan:
    return PLANS.get(entry_id, Plan())


def ns2_spec(entry: "Entry") -> "SweepSpec":
    """The full sweep of ``entry`` restricted to what :data:`PLANS` says ns-2.35 runs."""
    from ..sweep import SweepSpec

    spec = entry.sweep_spec(False)
    plan = plan_of(entry.id)
    if plan.unsupported:
        raise SpecError(f"entry '{entry.id}' has no ns-2.35 runs: {plan.unsupported}")
    seeds = list(plan.seeds) if plan.seeds is not None else spec.seeds
    if plan.points is None:
        return SweepSpec(spec.name, spec.scenario, spec.grid, spec.zip, spec.set, seeds, spec.metrics,
                         spec.description)
    keep = [p for p in spec.points() if plan.points(p)]
    keys = spec.param_keys
    # The kept points as one zip dimension (the sweep machinery's way to list points).
    zipped = {k: [p[k] for p in keep] for k in keys}
    return SweepSpec(spec.name, spec.scenario, {}, zipped, spec.set, seeds, spec.metrics, spec.description)


def side_spec(entry: "Entry", side: str) -> "SweepSpec":
    """The full sweep of ``entry``'s side sweep ``side`` with :data:`PLANS`' seeds."""
    from ..sweep import SweepSpec

    plan = plan_of(entry.id)
    if side not in plan.sides:
        raise SpecError(f"entry '{entry.id}': side sweep '{side}' does not run in ns-2.35 (allowed: "
                        f"{', '.join(plan.sides) or 'none'})")
    spec = entry.side(side).sweep_spec(entry.id, False)
    seeds = list(plan.seeds) if plan.seeds is not None else spec.seeds
    return SweepSpec(spec.name, spec.scenario, spec.grid, spec.zip, spec.set, seeds, spec.metrics, spec.description)


def built_with(entry_id: str) -> dict[str, str]:
    """The ports the entry's plan needs, as ``name@digest`` of the binary that will run them (its
    BUILD.txt, written by ``hoptcp ns2 build``); one clear error if the binary lacks one."""
    from .run import ns_binary

    need = plan_of(entry_id).ports
    if not need:
        return {}
    ns = ns_binary()
    build = Path(ns).resolve().parent.parent / "BUILD.txt" if ns else None
    have: dict[str, str] = {}
    if build is not None and build.is_file():
        for line in build.read_text(encoding="utf-8").splitlines():
            if line.startswith("port "):
                label = line.split(" ", 1)[1].strip()
                have[label.split("@", 1)[0]] = label
    missing = [p for p in need if p not in have]
    if missing:
        raise SpecError(f"entry '{entry_id}' needs ns-2.35 built with the port(s) {', '.join(missing)}: "
                        f"`hoptcp ns2 build --with-ports` and --ns-binary DIR/src/ns (this binary: {ns})")
    return {p: have[p] for p in need}


def generate(entry_id: str, *, store: Any = None, jobs: int | None = None, progress: bool = True,
             directory: Path | None = None, side: str | None = None) -> Path:
    """Run the entry's sweep (or its side sweep ``side``) in ns-2.35 (cached in ``store``) and
    write its data files."""
    from ..reproduce.catalogue import get_entry
    from ..store import DEFAULT_STORE
    from .run import ns2_version, run_sweep

    ports = built_with(entry_id)
    entry = get_entry(entry_id)
    spec = ns2_spec(entry) if side is None else side_spec(entry, side)
    derive = entry.derive_fn() if side is None else entry.side(side).derive_fn()
    df = run_sweep(spec, store=store or DEFAULT_STORE, jobs=jobs, progress=progress, derive=derive)
    csv, meta = _files(entry_id, directory, side)
    csv.parent.mkdir(parents=True, exist_ok=True)
    params = list(df.attrs.get("params", []))
    # Wall time is not a result: leave it out so regenerated files differ only where results do.
    metrics = [m for m in df.attrs.get("metrics", []) if m not in params and m != "wall_time_s"]
    df[[*params, "seed", *metrics]].to_csv(csv, index=False)
    meta.write_text(json.dumps({
        "entry": entry_id,
        **({"side": side} if side is not None else {}),
        "set": {k: v for k, v in spec.set.items()},
        "params": params,
        "seeds": spec.seeds,
        "points": len(spec.points()),
        "runs": len(df),
        "routes_ok": int(df["ns2.routes_ok"].astype(bool).sum()) if "ns2.routes_ok" in df else None,
        "note": plan_of(entry_id).note,
        "ns2_version": ns2_version(),
        **({"ports": sorted(ports.values())} if ports else {}),
        "generated": _dt.date.today().isoformat(),
    }, indent=1) + "\n", encoding="utf-8")
    return csv


def info(entry_id: str, directory: Path | None = None, side: str | None = None) -> dict[str, Any] | None:
    """What the stored ns-2.35 runs of an entry (or its side sweep) are (None when there are none)."""
    _, meta = _files(entry_id, directory, side)
    if not meta.is_file():
        return None
    return dict(json.loads(meta.read_text(encoding="utf-8")))


def load_side(entry_id: str, side: str, spec: "SweepSpec | None" = None,
              directory: Path | None = None) -> "pd.DataFrame | None":
    """The stored ns-2.35 runs of an entry's side sweep (as :func:`load`), or None."""
    return load(entry_id, spec, directory, side=side)


def load(entry_id: str, spec: "SweepSpec | None" = None, directory: Path | None = None,
         side: str | None = None) -> "pd.DataFrame | None":
    """The stored ns-2.35 runs of an entry, or None when there are none.

    With ``spec``, only if they were run with the same fixed settings (``[sweep] set``,
    e.g. the run length): a quick sweep gets None. Runs in which DSDV froze other
    routes than hoptcp's are dropped.
    """
    import pandas as pd

    csv, _ = _files(entry_id, directory, side)
    meta = info(entry_id, directory, side)
    if meta is None or not csv.is_file():
        return None
    if spec is not None and {k: v for k, v in spec.set.items()} != meta.get("set"):
        return None
    df = pd.read_csv(csv)
    for col in [c for c in df.columns if c.startswith("series.")]:  # per-interval lists, stored as JSON
        df[col] = df[col].map(lambda v: json.loads(v) if isinstance(v, str) else [])
    if "ns2.routes_ok" in df.columns:
        df = df[df["ns2.routes_ok"].astype(bool)].reset_index(drop=True)
    # One block per dtype: read as one block per column, the frame made pandas warn
    # (PerformanceWarning) at every column a reproduction adds.
    df = df.copy()
    params = list(meta.get("params", []))
    df.attrs["params"] = params
    df.attrs["metrics"] = [c for c in df.columns if c not in params and c != "seed"]
    df.attrs["simulator"] = "ns-2.35"
    df.attrs["ns2"] = meta
    return df


#: the seeds of agreement sweeps start here, apart from every entry's own seeds (the pilot)
AGREEMENT_FIRST_SEED = 1001


def agreement_spec(entry: "Entry", plan: Mapping[str, Any]) -> "SweepSpec":
    """The sweep of an entry's agreement test (rule 5 of the verdicts): the points ns-2.35 runs
    for the entry (:func:`ns2_spec`) with the seeds the plan fixed in advance."""
    from ..sweep import SweepSpec

    spec = ns2_spec(entry)
    keep = plan_of(entry.id).agreement_points
    if keep is not None:
        points = [p for p in spec.points() if keep(p)]
        zipped = {k: [p[k] for p in points] for k in spec.param_keys}
        spec = SweepSpec(spec.name, spec.scenario, {}, zipped, spec.set, spec.seeds, spec.metrics, spec.description)
    return SweepSpec(f"{spec.name}@agreement", spec.scenario, spec.grid, spec.zip, spec.set,
                     [int(s) for s in plan["seeds"]], spec.metrics, spec.description)


def write_agreement(entry_id: str, plan: Mapping[str, Any], *, store: Any = None, jobs: int | None = None,
                    progress: bool = True, directory: Path | None = None) -> Path:
    """Run the agreement sweep of ``plan`` in ns-2.35 and write ``<id>@agreement.csv`` / ``.json``
    (the plan, with the seeds and each claim's n, margin and power calculation)."""
    from ..reproduce.catalogue import get_entry
    from ..store import DEFAULT_STORE
    from .run import ns2_version, run_sweep

    ports = built_with(entry_id)
    entry = get_entry(entry_id)
    spec = agreement_spec(entry, plan)
    df = run_sweep(spec, store=store or DEFAULT_STORE, jobs=jobs, progress=progress, derive=entry.derive_fn())
    csv, meta = _files(entry_id, directory, "agreement")
    params = list(df.attrs.get("params", []))
    metrics = [m for m in df.attrs.get("metrics", []) if m not in params and m != "wall_time_s"]
    df[[*params, "seed", *metrics]].to_csv(csv, index=False)
    meta.write_text(json.dumps({
        "entry": entry_id, "side": "agreement", "set": {k: v for k, v in spec.set.items()}, "params": params,
        **plan, "points": len(spec.points()), "runs": len(df),
        "routes_ok": int(df["ns2.routes_ok"].astype(bool).sum()) if "ns2.routes_ok" in df else None,
        "note": plan_of(entry_id).note, "ns2_version": ns2_version(),
        **({"ports": sorted(ports.values())} if ports else {}), "generated": _dt.date.today().isoformat(),
    }, indent=1) + "\n", encoding="utf-8")
    return csv
