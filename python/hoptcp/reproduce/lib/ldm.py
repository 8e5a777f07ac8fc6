"""Lee et al. (2003), Low Delay Marking: checks, values and figures for the entries
``ldm-fig2``, ``ldm-fig4``, ``ldm-fig5``, ``ldm-fig6-7``, ``ldm-fig8`` and ``ldm-fig10``.

Every name starts with ``ldm_``. The schemes are set together by one zip of the sweep
(``tcp.max_window``, ``mac.adaptive_pacing.enabled``, ``ip.ldm.enabled``,
``ip.ldm.estimate``) and named by :func:`ldm_scheme`: ``regular``, ``restrained``
(``tcp.max_window = "wstar"``), ``pacing`` (adaptive pacing, every frame delayed),
``ldm-est`` and ``ldm-oracle``. The paper's LDM numbers were measured with the hop and flow
counts "known ahead of time by each router" (§V), which is hoptcp's oracle variant: the
printed LDM numbers are claimed against ``ldm-oracle``; ``ldm-est`` is shown beside it.

Checks take their arguments from the entry: ``ldm_metric`` (a measure of one scheme:
``kbps`` aggregate goodput, ``rtt_ms`` mean RTT over the flows, ``avgwin`` average window per
flow, ...), ``ldm_relative`` (the same relative to regular TCP, %: ``kbps`` is the goodput
gain, ``rts_collisions`` the RTS-collision change), ``ldm_jain_goodput``, ``ldm_rts0`` and
``ldm_marks_as_printed``; ``hops`` 0 (the default) means every run of the entry (the cross).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ...errors import SpecError
from ...plotting import new_figure
from ...results import per_id
from ...stats import Estimate, jain, mean_ci, paired_gain, paired_over_points, paired_values
from ..registry import register
from .stored_series import flow_ids, per_run_lists, pooled_distribution

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..catalogue import Claim
    from ..report import ClaimResult, Context

GOODPUT = "aggregate_goodput_bps"
HOPS = "topology.hops"
WIN = "tcp.max_window"
COUNT = "flows.0.count"
PACE_ON = "mac.adaptive_pacing.enabled"
LDM_ON = "ip.ldm.enabled"
ESTIMATE = "ip.ldm.estimate"
ROUTING = "routing.protocol"
DETECT = "routing.aodv.link_detection"
WAIT = "mac.adaptive_pacing.wait"
EXTRA = "mac.adaptive_pacing.extra"
SCHEMES = ("regular", "restrained", "pacing", "ldm-est", "ldm-oracle")
LABEL = {"regular": "regular TCP", "restrained": "restrained (printed window)", "pacing": "adaptive pacing",
         "ldm-est": "LDM (estimated)", "ldm-oracle": "LDM (oracle)"}
COLOR = {"regular": "0.25", "restrained": "C2", "pacing": "C1", "ldm-est": "C0", "ldm-oracle": "C4"}
_NAN = Estimate(math.nan, math.nan, 0, math.nan)


def _flag(v: Any) -> bool:
    if isinstance(v, str):
        return v.strip().lower() == "true"
    return bool(v) and v == v  # NaN -> False


#: Lee et al.'s restrained windows as printed (§IV-B: "a restrained window size of three", "of
#: 5", "of 7"; §IV-C: "a window size of 1", "of 2", "of 2"; App. II, the cross: 2 per flow),
#: by (flows, hops); ``tcp.max_window = "lee"`` in a sweep point asks for them
LEE_WINDOWS = {(1, 7): 3, (1, 15): 5, (1, 24): 7, (3, 7): 1, (3, 15): 2, (3, 24): 2}
LEE_CROSS_WINDOW = 2
#: Lee et al.'s regular TCP goodput (kb/s) as printed (§IV-B, §IV-C), by (flows, hops)
LEE_REGULAR_KBPS = {(1, 7): 193.0, (1, 15): 184.0, (1, 24): 176.0, (3, 7): 179.0, (3, 15): 148.0, (3, 24): 176.0}


@register("derive")
def ldm_lee_windows(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """Derive for the LDM entries: chains carry their flows end to end (as
    ``chain_flow_to_end``), and a point with ``tcp.max_window = "lee"`` gets the paper's
    printed restrained window for its flow count and chain length (the cross: 2)."""
    from .fu_chain import chain_flow_to_end

    doc = base.document
    kind = str(params.get("topology.kind", (doc.get("topology") or {}).get("kind", "chain")))
    out: dict[str, Any] = chain_flow_to_end(params, base) if kind == "chain" else {}
    if str(params.get(WIN, "")) == "lee":
        if kind != "chain":
            out[WIN] = LEE_CROSS_WINDOW
        else:
            flows = int(params.get(COUNT, ((doc.get("flows") or [{}])[0]).get("count", 1)))
            hops = int(params.get(HOPS, (doc.get("topology") or {}).get("hops", 0)))
            if (flows, hops) not in LEE_WINDOWS:
                raise SpecError(f"tcp.max_window = \"lee\": the paper prints no restrained window for "
                                f"{flows} flow(s) over {hops} hops (it has {sorted(LEE_WINDOWS)})")
            out[WIN] = LEE_WINDOWS[(flows, hops)]
    return out


def ldm_scheme(row: Mapping[str, Any]) -> str:
    """The scheme of one run from its sweep parameters ("lee": the paper's printed
    restrained windows; "wstar": each flow's W*, the earlier reading)."""
    if _flag(row.get(LDM_ON, False)):
        return "ldm-oracle" if str(row.get(ESTIMATE, "estimated")) == "oracle" else "ldm-est"
    if _flag(row.get(PACE_ON, False)):
        return "pacing"
    if str(row.get(WIN, "")) in ("wstar", "lee"):
        return "restrained"
    return "regular"


def _node_sum(row: Mapping[str, Any], suffix: str) -> float:
    return float(sum(float(row[k]) for k in per_id(row, "node", suffix).values() if row[k] == row[k]))


def _node_sum_or_nan(row: Mapping[str, Any], suffix: str) -> float:
    """As :func:`_node_sum`, NaN where the runs do not carry the counter (older or ns-2.35 runs)."""
    return _node_sum(row, suffix) if per_id(row, "node", suffix) else math.nan


def _mean_flows(row: Mapping[str, Any], metric: str) -> float:
    xs = [float(row[f"flow.{i}.{metric}"]) for i in flow_ids(row) if f"flow.{i}.{metric}" in row]
    return sum(xs) / len(xs) if xs else math.nan


def ldm_frame(runs: "pd.DataFrame") -> "pd.DataFrame":
    """The runs with ``scheme``, ``kbps``, ``rtt_ms`` (mean over flows), ``rtt_sum_ms``,
    ``rtt_flow<i>_ms`` (flow i's, i = 0..2; the only flow's in a one-flow run), ``rts_collisions`` (RTS left without CTS, all
    nodes), the other readings of Lee's undefined "RTS collisions" (``rts_collided``: RTS left
    without CTS although the receiver's medium was idle, i.e. lost to a collision rather than to
    the receiver's NAV; ``rts_retx``: RTS sent again after a CTS timeout), ``avgwin`` (mean over
    flows), ``loss`` (retransmitted share of the data segments sent, all flows), ``loss_net``
    (TCP data packets dropped in the network per data segment sent, %), ``jain_kbps`` and
    ``jain_rtt`` (Jain's index of the flows' goodputs and RTTs)."""
    df = runs.copy()
    df.attrs = {}
    recs = df.to_dict("records")
    df["scheme"] = [ldm_scheme(r) for r in recs]
    df["kbps"] = df[GOODPUT] / 1e3
    df["rtt_ms"] = [1e3 * _mean_flows(r, "avg_rtt_s") for r in recs]
    df["rtt_sum_ms"] = [1e3 * sum(float(r.get(f"flow.{i}.avg_rtt_s", math.nan)) for i in flow_ids(r)) for r in recs]
    for i in range(3):  # "the round-trip time of one of the flows" (Fig. 5); a one-flow run's is its flow's
        df[f"rtt_flow{i}_ms"] = [1e3 * float(r.get(f"flow.{i if len(flow_ids(r)) > 1 else 0}.avg_rtt_s", math.nan))
                                 for r in recs]
    df["rts_collisions"] = [_node_sum(r, "cts_timeouts") for r in recs]
    # Lee §II-A: no CTS comes back "either because its RTS packet collided with another
    # transmission at the receiver or because the receiver's NAV indicated that the network is
    # not available"; the sender then re-sends the RTS, unless the retry limit drops the packet.
    df["rts_collided"] = [_node_sum(r, "cts_timeouts") - _node_sum_or_nan(r, "cts_withheld") for r in recs]
    df["rts_retx"] = [_node_sum(r, "cts_timeouts") - _node_sum_or_nan(r, "drops_rts_retry") for r in recs]
    df["avgwin"] = [_mean_flows(r, "avg_cwnd") for r in recs]
    loss = []
    for r in recs:
        sent = sum(float(r.get(f"flow.{i}.packets_sent", 0)) for i in flow_ids(r))
        rtx = sum(float(r.get(f"flow.{i}.retransmissions", 0)) for i in flow_ids(r))
        loss.append(100 * rtx / sent if sent > 0 else math.nan)
    df["loss"] = loss
    dcols = [c for c in df.columns if str(c).startswith("drops.by_kind.tcp_data.")]
    dropped = df[dcols].fillna(0).sum(axis=1).tolist() if dcols else [math.nan] * len(df)
    net = []
    for r, d in zip(recs, dropped):
        sent = sum(float(r.get(f"flow.{i}.packets_sent", 0)) for i in flow_ids(r))
        net.append(100 * d / sent if sent > 0 else math.nan)
    df["loss_net"] = net
    df["jain_kbps"] = [jain([float(r.get(f"flow.{i}.goodput_bps", math.nan)) for i in flow_ids(r)]) for r in recs]
    df["jain_rtt"] = [jain([float(r.get(f"flow.{i}.avg_rtt_s", math.nan)) for i in flow_ids(r)]) for r in recs]
    return df


def _frame(ctx: "Context", side: str | None = None) -> "pd.DataFrame":
    """:func:`ldm_frame` of the main sweep's runs (or a side sweep's), cached for the report."""
    runs = ctx.runs if side is None else ctx.side(side).runs
    key = ("ldm_frame", id(runs))
    cache = getattr(ctx, "cache", None)
    df = cache.get(key) if cache is not None else None
    if df is None:
        df = ldm_frame(runs)
        if cache is not None:
            cache[key] = df
    return df


def _pick(df: "pd.DataFrame", scheme: str, hops: int) -> "pd.DataFrame":
    out = df[df["scheme"] == scheme]
    if hops and HOPS in out.columns:
        out = out[out[HOPS] == hops]
    if out.empty:
        raise SpecError(f"no runs of {scheme}" + (f" on the {hops}-hop chain" if hops else ""))
    return out


def _sel(ctx: "Context", scheme: str, hops: int) -> "pd.DataFrame":
    return _pick(_frame(ctx), scheme, hops)


#: what pairs two schemes' runs: the same cell (chain length, flow count) and the same seed
PAIR_KEYS = (HOPS, COUNT, "seed")


def _keyed(df: "pd.DataFrame", measure: str) -> "pd.Series":
    """``measure`` of the runs indexed by their cell and seed (:data:`PAIR_KEYS` present)."""
    if "seed" not in df.columns:
        raise SpecError("no column 'seed' in the runs (the paired comparison aligns on it)")
    keys = [k for k in PAIR_KEYS if k in df.columns]
    return df.set_index(keys)[measure]


def _ratio_pct(a: "pd.Series", b: "pd.Series") -> Estimate:
    """100·(a/b − 1) paired by cell and seed (Series from :func:`_keyed`): the mean of the
    per-run values of the runs both schemes have (same chain, flow count and seed) and its
    Student-t 95% half-width (:func:`hoptcp.stats.paired_gain`); pairs with b 0 or NaN are left out."""
    return paired_gain(b, a, "pct")


#: the per-run measures of ldm_frame that ldm_metric and ldm_relative read
MEASURES = ("kbps", "rtt_ms", "rtt_sum_ms", "rtt_flow0_ms", "rtt_flow1_ms", "rtt_flow2_ms", "avgwin", "jain_kbps",
            "jain_rtt", "rts_collisions", "rts_collided", "rts_retx", "loss", "loss_net")
#: how a reading of a measure is named in a report
MEASURE_LABEL = {"rtt_ms": "mean RTT over the flows", "rtt_sum_ms": "sum of the flows' RTTs",
                 "rtt_flow0_ms": "flow 0's RTT", "rtt_flow1_ms": "flow 1's RTT", "rtt_flow2_ms": "flow 2's RTT",
                 "rts_collisions": "RTS without CTS", "rts_collided": "RTS without CTS, receiver idle",
                 "rts_retx": "RTS re-sent", "loss": "retransmitted share", "loss_net": "data dropped per segment sent"}


def _measure_and_scheme(measure: str, scheme: str) -> None:
    if measure not in MEASURES:
        raise SpecError(f"measure = {measure!r}; allowed: {', '.join(MEASURES)}")
    if scheme not in SCHEMES:
        raise SpecError(f"scheme = {scheme!r}; allowed: {', '.join(SCHEMES)}")


@register("check")
def ldm_metric(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, measure: str, scheme: str,
               hops: int = 0) -> Estimate:
    """A per-run measure (``kbps``, ``rtt_ms``, ``avgwin``, ...) of one scheme, mean over its runs
    (on the ``hops``-hop chain; 0: every run of the scheme)."""
    _measure_and_scheme(measure, scheme)
    return mean_ci(_sel(ctx, scheme, hops)[measure])


@register("check")
def ldm_relative(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, measure: str, scheme: str,
                 hops: int = 0) -> Estimate:
    """A measure of one scheme relative to regular TCP's on the same chain, in %: 100·(x/regular − 1)
    per run, paired with regular TCP's run of the same chain, flow count and seed; mean and Student-t
    CI over the pairs."""
    _measure_and_scheme(measure, scheme)
    return _ratio_pct(_keyed(_sel(ctx, scheme, hops), measure), _keyed(_sel(ctx, "regular", hops), measure))


@register("check")
def ldm_jain_goodput(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str) -> Estimate:
    """Jain's index of the flows' goodputs under one scheme, mean over its runs."""
    _measure_and_scheme("kbps", scheme)
    df = _sel(ctx, scheme, 0)
    return mean_ci([jain([float(r[f"flow.{i}.goodput_bps"]) for i in flow_ids(r)]) for r in df.to_dict("records")])



@register("check")
def ldm_side_kbps(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, side: str,
                  hops: int) -> Estimate:
    """Regular TCP's aggregate goodput (kb/s) on the ``hops``-hop chain in a side sweep (the AODV
    link-detection sides): mean over its seeds. hoptcp only: called with
    ns-2.35's stored runs (``ns2.`` columns), which have no side sweeps, it raises."""
    if runs is not None and any(str(c).startswith("ns2.") for c in runs.columns):
        raise SpecError(f"ns-2.35 has no runs of the side sweep '{side}'")
    sel = ctx.side(side).runs
    regular = [ldm_scheme(r) == "regular" for r in sel.to_dict("records")]
    sel = sel[(sel[HOPS] == hops).to_numpy() & regular]
    if sel.empty:
        raise SpecError(f"side sweep '{side}' has no runs on the {hops}-hop chain")
    return mean_ci(sel["aggregate_goodput_bps"] / 1e3)


# --------------------------------------------------------------------------------------
# What Lee et al. leave open: the readings an entry's ``unspecified`` ranges run
# --------------------------------------------------------------------------------------

#: how AODV notices a broken link, which Lee leaves open (§IV-A: "... and AODV routing"):
#: (label, link_detection, side sweep holding every scheme with it; None: the main sweep)
ROUTINGS = (("AODV MAC detection", "mac", None), ("AODV HELLO detection", "hello", "aodv-hello"))
#: the side sweep running adaptive pacing with every reading of its extra wait, under each ROUTINGS
PACING_SIDE = "pacing-readings"
#: adaptive pacing's extra wait (Lee §II-C describes it in one sentence): (wait, extra)
PACING_READINGS = (("frozen_backoff", "exchange"), ("frozen_backoff", "data"), ("timer", "exchange"),
                   ("timer", "data"))


def ldm_settings(ctx: "Context", pacing: bool) -> list[tuple[str, "pd.DataFrame"]]:
    """The frames of every setting of Lee's open quantities: each AODV link detection (the main
    sweep, side ``aodv-hello``) and, with ``pacing``, each reading of adaptive pacing's wait in
    place of the main arm's pacing runs (side ``pacing-readings``). A setting whose runs are
    absent (a quick sweep) is left out; none at all raises."""
    import pandas as pd

    out = []
    for label, detect, side in ROUTINGS:
        try:
            base = _frame(ctx, side)
        except (KeyError, SpecError):
            continue
        if not pacing:
            out.append((label, base))
            continue
        try:
            pr = _frame(ctx, PACING_SIDE)
        except (KeyError, SpecError):
            continue
        for wait, extra in PACING_READINGS:
            if DETECT not in pr.columns or WAIT not in pr.columns or EXTRA not in pr.columns:
                break
            sel = pr[(pr[DETECT] == detect) & (pr[WAIT] == wait) & (pr[EXTRA] == extra) & (pr["scheme"] == "pacing")]
            if sel.empty:
                continue
            out.append((f"{label}, pacing {wait.replace('_', ' ')} + {extra}",
                        pd.concat([base[base["scheme"] != "pacing"], sel], ignore_index=True)))
    if not out:
        raise SpecError("no runs of any setting (side sweeps 'aodv-hello'" + (f", '{PACING_SIDE}'" if pacing else "") + ")")
    return out


@register("check")
def ldm_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, measure: str, scheme: str,
                 hops: int = 0, relative: bool = False, measures: Sequence[str] = ()) -> list[tuple[str, Estimate]]:
    """``ldm_metric`` (or, with ``relative``, ``ldm_relative``) at every setting of
    :func:`ldm_settings` (adaptive pacing's readings when ``scheme`` is ``pacing``) and every
    reading of the measure in ``measures`` (default: ``measure`` alone)."""
    ms = list(measures) or [measure]
    for m in ms:
        _measure_and_scheme(m, scheme)
    out = []
    for label, df in ldm_settings(ctx, scheme == "pacing"):
        for m in ms:
            try:
                picked = _pick(df, scheme, hops)
                est = (_ratio_pct(_keyed(picked, m), _keyed(_pick(df, "regular", hops), m)) if relative
                       else mean_ci(picked[m]))
            except SpecError:
                continue
            out.append((label if len(ms) == 1 else f"{label}; {MEASURE_LABEL.get(m, m)}", est))
    if not out:
        raise SpecError(f"no runs of {scheme} at any setting")
    return out


def _max_cut(df: "pd.DataFrame", col: str, against: str, ldm: str = "ldm-oracle") -> Estimate:
    """Largest reduction of ``col`` by ``ldm`` against ``against`` over the cells (chain length ×
    flow count): per cell 100·(1 − ldm/against) per seed (paired: both schemes run the same
    seeds), its mean over seeds; the largest over cells, with a bootstrap CI over seeds
    (:func:`hoptcp.stats.paired_over_points`)."""
    cuts = []
    for count in (1, 3):
        for h in (7, 15, 24):
            g = df[(df[HOPS] == h) & (df[COUNT] == count)] if COUNT in df.columns else df[df[HOPS] == h]
            a, b = g[g["scheme"] == ldm], g[g["scheme"] == against]
            if a.empty or b.empty or col not in g.columns:
                continue
            cut = paired_values(_keyed(b, col), _keyed(a, col), "loss_pct").values
            if len(cut):
                # one cell: its values by seed alone, the unit the bootstrap draws
                cut.index = cut.index.get_level_values("seed") if cut.index.nlevels > 1 else cut.index
                cuts.append(cut)
    if not cuts:
        raise SpecError(f"no cells with both LDM and {LABEL[against]} runs")
    return paired_over_points(cuts, "max")


@register("check")
def ldm_max_cut_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, of: str, against: str,
                         measures: Sequence[str] = ()) -> list[tuple[str, Estimate]]:
    """:func:`ldm_max_cut` at every setting of :func:`ldm_settings` (adaptive pacing's readings
    when ``against`` is ``pacing``) and every reading of the measure in ``measures``."""
    if of not in _CUT_OF:
        raise SpecError(f"of = {of!r}; allowed: {', '.join(_CUT_OF)}")
    ms = list(measures) or [_CUT_OF[of]]
    for m in ms:
        _measure_and_scheme(m, against)
    out = []
    for label, df in ldm_settings(ctx, against == "pacing"):
        for m in ms:
            try:
                out.append((label if len(ms) == 1 else f"{label}; {MEASURE_LABEL.get(m, m)}", _max_cut(df, m, against)))
            except SpecError:
                continue
    if not out:
        raise SpecError(f"no cells with both LDM and {LABEL[against]} runs at any setting")
    return out


@register("check")
def ldm_rts0_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                      scheme: str) -> list[tuple[str, Estimate]]:
    """:func:`ldm_rts0` under each AODV link detection (the main sweep, side ``aodv-hello``)."""
    out = []
    for label, _, side in ROUTINGS:
        try:
            c = ctx if side is None else ctx.side(side)
        except (KeyError, SpecError):
            continue
        out.append((label, ldm_rts0(c, c.runs, point, scheme=scheme)))
    return out


@register("evidence")
def ldm_route_breaks(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> Any:
    """ns-2.35's stored runs agreeing with hoptcp (``ns2_agrees``) where there are some;
    otherwise what the same claim gives without AODV's route breaks, measured on the side sweep
    with static routes, never "shown": static routing is not the paper's setup (it ran AODV), so
    meeting the rule there locates the gap in the route breaks but does not show that the
    paper's AODV broke routes less often; that needs ns-2.35's AODV runs of the entry."""
    from ..report import Evidence, claim_on
    from .ns2_agreement import ns2_agrees

    if ctx.ns2 is not None:
        seen = ns2_agrees(ctx, claim, point)
        if seen.shown:
            return seen
    est, holds, dev = claim_on(ctx.side("static"), claim, point)
    if holds is None:
        return Evidence(None, f"the static-routing side could not be measured: {dev}")
    where = f"with static routes (no route breaks; not the paper's AODV) the same measure is {est.mean:.4g} {claim.unit} ({dev})"
    if not holds:
        return Evidence(False, f"{where}, still outside the rule: route breaks are not the whole cause")
    base = _ns2_baseline(ctx, claim)
    if base is None:
        return Evidence(False, f"{where}, within the rule: the gap lies in AODV's route breaks (no ns-2.35 "
                               "baseline to show that the paper's AODV broke fewer routes)")
    agreed, text = base
    return Evidence(agreed, f"{where}, within the rule; and {text}" + (
        ": both simulators' AODV breaks routes where the paper's did not, so the gap is the paper's simulator's"
        if agreed else ": the baseline does not show it"))


def _ns2_baseline(ctx: "Context", claim: "Claim") -> tuple[bool, str] | None:
    """For a scheme ns-2.35 cannot run (adaptive pacing, LDM): whether ns-2.35's regular TCP under
    AODV agrees with hoptcp's on the claim's chain (goodput per run, the equivalence test over
    seeds, with the default margin of the regular-TCP claims: 10% of the paper's printed regular
    TCP goodput there). None without ns-2.35 runs of regular TCP there."""
    from ..agreement import margin_for, tost

    nctx = ctx.for_ns2()
    hops = int(claim.check_args.get("hops", 0) or 0)
    if nctx is None:
        return None
    ours, theirs = ldm_frame(ctx.runs), ldm_frame(nctx.runs)
    if hops and HOPS in ours.columns:
        ours, theirs = ours[ours[HOPS] == hops], theirs[theirs[HOPS] == hops]
    a, b = ours[ours["scheme"] == "regular"]["kbps"], theirs[theirs["scheme"] == "regular"]["kbps"]
    if len(a) == 0 or len(b) == 0:
        return None
    flows = int(ours[COUNT].iloc[0]) if COUNT in ours.columns and len(ours) else 1
    t = tost(list(a), list(b), margin_for(LEE_REGULAR_KBPS.get((flows, hops)), float(a.mean())))
    return t.verdict == "agree", (f"ns-2.35's regular TCP under AODV gives {b.mean():.4g} kb/s against hoptcp's "
                                  f"{a.mean():.4g} ({t.text})")


# --------------------------------------------------------------------------------------
# Tables and values
# --------------------------------------------------------------------------------------

def _table(ctx: "Context", cols: Sequence[tuple[str, str, str]], side: str | None = None) -> str:
    """A markdown table: one row per (hops, scheme), the columns' means ± CI."""
    c = ctx.side(side) if side else ctx
    df = ldm_frame(c.runs)
    hops = sorted(int(h) for h in df[HOPS].unique()) if HOPS in df.columns and df[HOPS].nunique() > 1 else [0]
    head = "| hops | scheme | " + " | ".join(n for n, _, _ in cols) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 2)]
    for h in hops:
        for s in SCHEMES:
            g = df[df["scheme"] == s]
            if h:
                g = g[g[HOPS] == h]
            if g.empty:
                continue
            cells = []
            for _, col, fmt in cols:
                e = mean_ci(g[col])
                cells.append(f"{e.mean:{fmt}} ± {e.ci:{fmt}}" if e.ci == e.ci else f"{e.mean:{fmt}}")
            lines.append(f"| {h or '-'} | {LABEL[s]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


_COLS = [("goodput (kb/s)", "kbps", ".0f"), ("RTT (ms)", "rtt_ms", ".0f"), ("RTS collisions", "rts_collisions", ".0f"),
         ("loss (%)", "loss", ".2f"), ("avg window", "avgwin", ".2f")]


@register("values")
def ldm_tables(ctx: "Context") -> dict[str, Any]:
    """The main sweep's table (AODV) and the static-routing side's, for the notes."""
    out = {"aodv_table": _table(ctx, _COLS)}
    try:
        out["static_table"] = _table(ctx, _COLS, side="static")
    except (SpecError, KeyError):
        out["static_table"] = "(no static-routing side experiment)"
    return out


@register("values")
def ldm_route_share(ctx: "Context") -> dict[str, Any]:
    """How much of each scheme's goodput change over regular TCP remains with static routes."""
    lines = ["| hops | scheme | gain, AODV (%) | gain, static (%) |", "|---|---|---|---|"]
    a, s = ldm_frame(ctx.runs), ldm_frame(ctx.side("static").runs)
    hops = sorted(int(h) for h in a[HOPS].unique()) if HOPS in a.columns else [0]
    for h in hops:
        for sc in SCHEMES[1:]:
            g = []
            for df in (a, s):
                d = df[df[HOPS] == h] if HOPS in df.columns else df
                x, r = d[d["scheme"] == sc], d[d["scheme"] == "regular"]
                g.append(_ratio_pct(_keyed(x, "kbps"), _keyed(r, "kbps")) if len(x) and len(r) else _NAN)
            lines.append(f"| {h or '-'} | {LABEL[sc]} | {g[0].mean:+.1f} | {g[1].mean:+.1f} |")
    return {"route_table": "\n".join(lines)}


# --------------------------------------------------------------------------------------
# RTS retransmissions (Fig. 8)
# --------------------------------------------------------------------------------------

def ldm_rts_hists(runs: "pd.DataFrame") -> list[list[float]]:
    """Each run's ``rts_retry_hist`` (packets by RTS sent without CTS), from a column of
    that name or from the results store named by ``runs.attrs["store"]``."""
    return per_run_lists(runs, "rts_retry_hist", lambda res: res.get("rts_retry_hist") or [], "RTS histograms")


def ldm_cdf(hists: Sequence[Sequence[float]]) -> list[float]:
    """Pooled CDF over runs: P(RTS retransmissions ≤ k), k = 0, 1, ..."""
    dist = pooled_distribution(hists)
    if dist and sum(dist) == 0:
        return [math.nan] * len(dist)
    acc, out = 0.0, []
    for t in dist:
        acc += t
        out.append(acc)
    return out


def _scheme_runs(ctx: "Context", scheme: str, hops: int = 0) -> "pd.DataFrame":
    df = ctx.runs.copy()
    keep = [ldm_scheme(r) == scheme for r in df.to_dict("records")]
    out = df[keep]
    if hops and HOPS in out.columns:
        out = out[out[HOPS] == hops]
    out.attrs = {"store": ctx.runs.attrs.get("store")}
    return out


@register("check")
def ldm_rts0(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str) -> Estimate:
    """Share of packets sent with no RTS retransmission under one scheme (per run)."""
    _measure_and_scheme("kbps", scheme)
    sel = _scheme_runs(ctx, scheme)
    if sel.empty:
        raise SpecError(f"no runs of {scheme}")
    return mean_ci([h[0] / sum(h) for h in ldm_rts_hists(sel) if sum(h) > 0])


# --------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------

def _panel(ax: Any, df: "pd.DataFrame", col: str, ylabel: str, norm: bool = False) -> None:
    hops = sorted(int(h) for h in df[HOPS].unique()) if HOPS in df.columns and df[HOPS].nunique() > 1 else [0]
    width = 0.16
    for j, s in enumerate(SCHEMES):
        ys, es = [], []
        for h in hops:
            g = df[df["scheme"] == s]
            base = df[df["scheme"] == "regular"]
            if h:
                g, base = g[g[HOPS] == h], base[base[HOPS] == h]
            e = mean_ci(g[col]) if len(g) else _NAN
            b = mean_ci(base[col]).mean if norm and len(base) else 1.0
            ys.append(e.mean / b)
            es.append((e.ci if e.ci == e.ci else 0.0) / b)
        xs = [i + (j - 2) * width for i in range(len(hops))]
        ax.bar(xs, ys, width, yerr=es, capsize=2, color=COLOR[s], label=LABEL[s])
    ax.set_xticks(range(len(hops)), [f"{h} hops" if h else "cross" for h in hops])
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)


@register("figure")
def ldm_bars(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Figs. 4, 5 and 10 as drawn in the paper: throughput normalised to regular TCP, RTT,
    RTS collisions and loss, per chain length (or the cross), the five schemes as bars."""
    c = ctx.side(opts["side"]) if opts.get("side") else ctx
    df = ldm_frame(c.runs)
    fig = new_figure(*opts.get("size", (12.0, 7.0)))
    (a1, a2), (a3, a4) = fig.subplots(2, 2)
    _panel(a1, df, "kbps", "Throughput (normalised to regular TCP)", norm=True)
    _panel(a2, df, opts.get("rtt", "rtt_ms"), "Round-trip time (ms)")
    _panel(a3, df, "rts_collisions", "RTS collisions (RTS without CTS)")
    _panel(a4, df, "loss", "Loss rate (% of segments retransmitted)")
    a1.legend(fontsize=7)
    return fig


@register("figure")
def ldm_window_curves(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 2: throughput and RTT against the maximum window (regular TCP, 7 hops)."""
    df = ldm_frame(ctx.runs)
    fig = new_figure(*opts.get("size", (11.0, 4.0)))
    a1, a2 = fig.subplots(1, 2)
    for col, ax, lab in (("kbps", a1, "Throughput (kb/s)"), ("rtt_ms", a2, "Round-trip time (ms)")):
        g = df.groupby(WIN)[col]
        ws = sorted(int(w) for w in g.groups)
        es = [mean_ci(df[df[WIN] == w][col]) for w in ws]
        ax.errorbar(ws, [e.mean for e in es], yerr=[e.ci if e.ci == e.ci else 0 for e in es], marker="o", capsize=2)
        ax.set_xlabel("Maximum TCP window (packets)")
        ax.set_ylabel(lab)
        ax.grid(True, alpha=0.3)
    return fig


@register("figure")
def ldm_rts_cdf_figure(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 8: CDF of RTS retransmissions per packet, per scheme."""
    fig = new_figure(*opts.get("size", (6.5, 4.5)))
    ax = fig.subplots()
    for s in SCHEMES:
        sel = _scheme_runs(ctx, s)
        if sel.empty:
            continue
        cdf = ldm_cdf(ldm_rts_hists(sel))
        ax.step(range(len(cdf)), cdf, where="post", color=COLOR[s], label=LABEL[s])
    ax.axhline(0.85, color="C3", ls=":", label="paper: over 85% with none")
    ax.set_xlabel("RTS retransmissions per packet")
    ax.set_ylabel("CDF")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return fig


@register("values")
def ldm_rts0_values(ctx: "Context") -> dict[str, Any]:
    """Fig. 8's table: share of packets with no RTS retransmission, per scheme."""
    lines = ["", "", "| scheme | no RTS retransmission | ≤ 1 | ≤ 2 |", "|---|---|---|---|"]
    for s in SCHEMES:
        sel = _scheme_runs(ctx, s)
        if sel.empty:
            continue
        cdf = ldm_cdf(ldm_rts_hists(sel)) + [1.0, 1.0, 1.0]
        lines.append(f"| {LABEL[s]} | {cdf[0]:.3f} | {cdf[1]:.3f} | {cdf[2]:.3f} |")
    return {"rts0_table": "\n".join(lines)}


# --------------------------------------------------------------------------------------
# Fig. 2: regular TCP against the maximum window
# --------------------------------------------------------------------------------------

def _by_window(ctx: "Context", col: str) -> list[tuple[int, Estimate]]:
    df = ldm_frame(ctx.runs)
    return [(int(w), mean_ci(df[df[WIN] == w][col])) for w in sorted(int(x) for x in df[WIN].unique())]


@register("check")
def ldm_best_window(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> float:
    """The maximum window with the highest mean goodput."""
    return float(max(_by_window(ctx, "kbps"), key=lambda t: t[1].mean)[0])


@register("check")
def ldm_rtt_trend(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> float:
    """Spearman's rank correlation of the mean RTT with the maximum window."""
    from scipy import stats

    t = _by_window(ctx, "rtt_ms")
    return float(stats.spearmanr([w for w, _ in t], [e.mean for _, e in t]).statistic)


@register("values")
def ldm_window_values(ctx: "Context") -> dict[str, Any]:
    k, r = dict(_by_window(ctx, "kbps")), dict(_by_window(ctx, "rtt_ms"))
    lines = ["", "", "| max window | goodput (kb/s) | RTT (ms) |", "|---|---|---|"]
    lines += [f"| {w} | {k[w].mean:.0f} | {r[w].mean:.0f} |" for w in sorted(k)]
    return {"window_table": "\n".join(lines)}


# --------------------------------------------------------------------------------------
# Figs. 6 and 7: LDM against regular TCP and adaptive pacing, as '+', '0', '-'
# --------------------------------------------------------------------------------------

#: the paper's categories: (row name, column of ldm_frame, higher is better)
CATEGORIES = (("Throughput", "kbps", True), ("RTS Collisions", "rts_collisions", False),
              ("Round-Trip Time", "rtt_ms", False), ("Loss Rate", "loss", False))
#: the printed tables, columns: 1 flow at 7/15/24 hops, then 3 flows at 7/15/24 hops
PAPER_SIGNS = {
    "regular": {"Throughput": "+00++0", "RTS Collisions": "0++0++", "Round-Trip Time": "++++++",
                "Loss Rate": "++++++"},
    "pacing": {"Throughput": "0--0--", "RTS Collisions": "++++++", "Round-Trip Time": "++++++",
               "Loss Rate": "000+++"},
}


def ldm_sign(ldm: float, ref: float, higher_better: bool) -> str:
    """The paper's mark: '+' where LDM is better by more than 10%, '-' worse by more
    than 10%, '0' within 10% (relative to the compared scheme)."""
    if not ref or ref != ref or ldm != ldm:
        return "?"
    rel = (ldm - ref) / abs(ref)
    if not higher_better:
        rel = -rel
    return "+" if rel > 0.10 else "-" if rel < -0.10 else "0"


def ldm_signs(runs: "pd.DataFrame", ldm: str, ref: str) -> dict[str, str]:
    """Per category, the six marks (1 flow at each hop count, then 3 flows)."""
    df = ldm_frame(runs)
    out = {}
    for name, col, hb in CATEGORIES:
        marks = ""
        for count in (1, 3):
            for h in (7, 15, 24):
                g = df[(df[HOPS] == h) & (df[COUNT] == count)] if COUNT in df.columns else df[df[HOPS] == h]
                a, b = g[g["scheme"] == ldm][col], g[g["scheme"] == ref][col]
                marks += ldm_sign(mean_ci(a).mean, mean_ci(b).mean, hb) if len(a) and len(b) else "?"
        out[name] = marks
    return out


@register("check")
def ldm_marks_as_printed(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, against: str,
                         category: str, ldm: str = "ldm-oracle") -> float:
    """Cells of a row of Fig. 6 (``against = "regular"``) or Fig. 7 (``"pacing"``) where LDM's
    mark against that scheme is the paper's (of 6)."""
    if against not in PAPER_SIGNS:
        raise SpecError(f"against = {against!r}; allowed: {', '.join(PAPER_SIGNS)}")
    if category not in PAPER_SIGNS[against]:
        raise SpecError(f"category = {category!r}; allowed: {', '.join(PAPER_SIGNS[against])}")
    got = ldm_signs(ctx.runs, ldm, against)[category]
    return float(sum(a == b for a, b in zip(got, PAPER_SIGNS[against][category], strict=True)))


#: the quantities whose reduction by LDM Lee §V sums up
_CUT_OF = {"rtt": "rtt_ms", "loss": "loss"}


@register("check")
def ldm_max_cut(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, of: str, against: str) -> Estimate:
    """Largest reduction (%) of ``of`` (rtt or loss) by LDM (oracle) against the scheme ``against``
    (regular or pacing) over the six cells (1 and 3 flows, 7/15/24 hops; means over seeds).
    Lee §V's summary: "up to a 57.6% reduction" of RTT and "up to a 59.5% reduction" of loss against
    regular TCP; "up to a 67.2% reduction" and "up to a 33.8% reduction" against pacing."""
    if of not in _CUT_OF:
        raise SpecError(f"of = {of!r}; allowed: {', '.join(_CUT_OF)}")
    if against not in ("regular", "pacing"):
        raise SpecError(f"against = {against!r}; allowed: regular, pacing")
    return _max_cut(ldm_frame(ctx.runs), _CUT_OF[of], against)


@register("values")
def ldm_sign_tables(ctx: "Context") -> dict[str, Any]:
    """Figs. 6 and 7 as tables: the paper's marks and hoptcp's (oracle and estimated LDM)."""
    out = {}
    for ref, key in (("regular", "fig6_table"), ("pacing", "fig7_table")):
        lines = ["", "", "| category | paper | LDM (oracle) | LDM (estimated) |", "|---|---|---|---|"]
        ora, est = ldm_signs(ctx.runs, "ldm-oracle", ref), ldm_signs(ctx.runs, "ldm-est", ref)
        for name, _, _ in CATEGORIES:
            lines.append(f"| {name} | `{PAPER_SIGNS[ref][name]}` | `{ora[name]}` | `{est[name]}` |")
        out[key] = "\n".join(lines)
    return out
