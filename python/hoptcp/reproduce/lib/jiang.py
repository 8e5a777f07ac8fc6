"""Jiang, Gupta, Ravishankar, "Interactions Between TCP and the IEEE 802.11 MAC Protocol":
builders, checks, evidence and figures for the ``jiang-*`` entries.

Every run of these entries records goodput per 1 s interval (``stats.throughput_interval_s``).
The sweep frames hold scalars only, so functions that need the per-second series re-run the
point and seed (deterministic: the same run as the stored one; a 120 s run at 1 Mb/s takes
well under a second) and cache them in ``ctx.cache``. Names start with ``jiang_``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ...errors import SpecError
from ...plotting import new_figure
from ...stats import Estimate, mean_ci, paired_gain
from ..registry import register

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from ..catalogue import Claim
    from ..report import ClaimResult, Context, Evidence

HOPS = "topology.hops"
WIN = "tcp.max_window"
SIZE = "tcp.payload_bytes"
SRL = "mac.short_retry_limit"
LRL = "mac.long_retry_limit"
START2 = "flows.1.start_s"
RATE1 = "flows.0.rate_bps"
RATE2 = "flows.1.rate_bps"
#: the paper's pairs of retry limits (short/RTS, long/DATA)
LONG_FOR_SHORT = {7: 4, 14: 10}


# --- builders (derive) -----------------------------------------------------------------

@register("derive")
def jiang_chain_point(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """The flow runs end to end of the chain; the DATA retry limit goes with the RTS one as
    the paper pairs them (7/4, 14/10)."""
    hops = params.get(HOPS, (base.document.get("topology") or {}).get("hops"))
    if isinstance(hops, float) or not hasattr(hops, "__index__") or int(hops) < 1:
        raise SpecError(f"derive jiang_chain_point: topology.hops = {hops!r}; expected an integer >= 1")
    out: dict[str, Any] = {"flows.0.src": 0, "flows.0.dst": int(hops)}
    if SRL in params:
        s = int(params[SRL])
        if s not in LONG_FOR_SHORT:
            raise SpecError(f"derive jiang_chain_point: {SRL} = {s}; the paper's pairs are "
                            f"{', '.join(f'{k}/{v}' for k, v in LONG_FOR_SHORT.items())}")
        out[LRL] = LONG_FOR_SHORT[s]
    return out


@register("derive")
def jiang_capture_length_flows(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """Fig. 7: connection 2 is the 4-hop path 11 -> 14 (through node 3); both connections are
    TCP fed by CBR sources at the point's rates."""
    r1, r2 = params.get(RATE1), params.get(RATE2)
    if not (isinstance(r1, (int, float)) and isinstance(r2, (int, float))):
        raise SpecError(f"derive jiang_capture_length_flows: needs {RATE1} and {RATE2}")
    return {"flows.0.app": "cbr", "flows.1.app": "cbr", "flows.1.src": 11, "flows.1.dst": 14}


# --- per-second series -------------------------------------------------------------------

def _is_ns2(runs: "pd.DataFrame") -> bool:
    return any(str(c).startswith("ns2.") for c in runs.columns)


def jiang_series(ctx: "Context", point: Mapping[str, Any], seed: int) -> "pd.DataFrame":
    """Per-second goodput (and AODV route breaks) of one run: columns time_s, flow,
    goodput_bps, route_breaks."""
    from ...runner import run

    key = ("jiang_series", ctx.name, tuple(sorted((k, str(v)) for k, v in point.items())), int(seed))
    if key not in ctx.cache:
        ctx.cache[key] = run(ctx.scenario(point), seed=int(seed)).series
    return ctx.cache[key]


def _pkts_per_s(series: "pd.DataFrame", flow: int, payload: int) -> "pd.Series":
    s = series[series["flow"] == flow].set_index("time_s")["goodput_bps"]
    return s / (8 * payload)


def _payload(ctx: "Context", point: Mapping[str, Any]) -> int:
    return int(ctx.resolved(point)["tcp"]["payload_bytes"])


def _point_of(runs: "pd.DataFrame", ctx: "Context", where: Mapping[str, Any]) -> tuple[dict[str, Any], "pd.DataFrame"]:
    """The sweep point matching ``where`` and its runs."""
    sel = runs
    for k, v in where.items():
        if k not in sel.columns:
            raise SpecError(f"no parameter '{k}' in the runs")
        sel = sel[sel[k] == v]
    if sel.empty:
        raise SpecError(f"no runs at {dict(where)}")
    point = {k: sel.iloc[0][k] for k in ctx.params}
    point = {k: (int(v) if isinstance(v, float) and v.is_integer() and k != START2 else v) for k, v in point.items()}
    return point, sel


def _per_run(ctx: "Context", runs: "pd.DataFrame", where: Mapping[str, Any],
             f: Callable[["pd.DataFrame", Mapping[str, Any]], float]) -> Estimate:
    """Mean and CI over seeds of ``f(series, point)`` at the point ``where``."""
    return mean_ci(_per_seed(ctx, runs, where, f))


def _per_seed(ctx: "Context", runs: "pd.DataFrame", where: Mapping[str, Any],
              f: Callable[["pd.DataFrame", Mapping[str, Any]], float]) -> "pd.Series":
    """``f(series, point)`` of each run at the point ``where``, indexed by seed."""
    import pandas as pd

    if _is_ns2(runs):
        raise SpecError("needs hoptcp's per-second series")
    point, sel = _point_of(runs, ctx, where)
    seeds = [int(s) for s in sel["seed"]]
    return pd.Series([f(jiang_series(ctx, point, s), point) for s in seeds], index=seeds, dtype=float)


def _longest_zero_run(pkts: Sequence[float], skip: int = 1) -> int:
    best = cur = 0
    for v in list(pkts)[skip:]:
        cur = cur + 1 if v <= 0 else 0
        best = max(best, cur)
    return best


def _zero_seconds(pkts: Sequence[float], skip: int = 1) -> int:
    return sum(1 for v in list(pkts)[skip:] if v <= 0)


def _cv(pkts: Sequence[float], skip: int = 1) -> float:
    xs = list(pkts)[skip:]
    m = sum(xs) / len(xs) if xs else math.nan
    if not xs or m <= 0:
        return math.nan
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs)) / m


# --- jiang-oscillation (Fig. 2, §5.1) ------------------------------------------------------

#: packets received, from the goodput (payload bytes delivered over the run / segment size):
#: hoptcp's flow.0.packets_delivered, and what ns-2.35's stored runs give too
RECEIVED = "jiang.received"


def _with_received(ctx: "Context", sel: "pd.DataFrame", point: Mapping[str, Any]) -> "pd.DataFrame":
    r = ctx.resolved(point)
    f = r["flows"][0]
    span = min(float(f.get("stop_s") or r["duration_s"]), float(r["duration_s"])) - float(f.get("start_s") or 0.0)
    out = sel.copy()
    out[RECEIVED] = (sel["flow.0.goodput_bps"] * span / (8 * int(r["tcp"]["payload_bytes"]))).round()
    return out


def _received_at(ctx: "Context", runs: "pd.DataFrame", where: Mapping[str, Any]) -> "pd.Series":
    """Packets received by flow 0 in each run at the point ``where``, indexed by seed."""
    p, sel = _point_of(runs, ctx, where)
    if "seed" not in sel.columns:
        raise SpecError("no column 'seed' in the runs (the paired comparison aligns on it)")
    return _with_received(ctx, sel, p).set_index("seed")[RECEIVED]


def _metric_at(metric: str, where: Mapping[str, Any], scale: float = 1.0) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        p, sel = _point_of(runs, ctx, where)
        if metric == RECEIVED:
            sel = _with_received(ctx, sel, p)
        if metric not in sel.columns:
            raise SpecError(f"no metric '{metric}' in the runs")
        return mean_ci(sel[metric] * scale)
    return check


def _loss_at(where: Mapping[str, Any]) -> Callable[..., Estimate]:
    """Data packets lost end to end, % of data packets sent (retransmissions included)."""
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        p, sel = _point_of(runs, ctx, where)
        sent, got = sel["flow.0.packets_sent"], _with_received(ctx, sel, p)[RECEIVED]
        return mean_ci(100.0 * (1 - got / sent))
    return check


jiang_delivered_6h_w8 = register("check", name="jiang_delivered_6h_w8")(_metric_at(RECEIVED, {HOPS: 6, WIN: 8}))
jiang_delivered_6h_w4 = register("check", name="jiang_delivered_6h_w4")(_metric_at(RECEIVED, {HOPS: 6, WIN: 4}))
jiang_delivered_12h_w4 = register("check", name="jiang_delivered_12h_w4")(_metric_at(RECEIVED, {HOPS: 12, WIN: 4}))
def _link_failures_at(where: Mapping[str, Any]) -> Callable[..., Estimate]:
    """MAC retry-limit drops of TCP packets (data and ACKs): each is a link failure that AODV
    turns into a route break (the flow's route_breaks in hoptcp); counted from the drops by
    cause, which ns-2.35's traces give too."""
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        _, sel = _point_of(runs, ctx, where)
        cols = [f"drops.by_kind.{k}.{c}" for k in ("tcp_data", "tcp_ack") for c in ("mac_rts_retry", "mac_data_retry")]
        missing = [c for c in cols if c not in sel.columns]
        if missing:
            raise SpecError(f"no metric {missing[0]} in the runs")
        return mean_ci(sel[cols].fillna(0).sum(axis=1))
    return check


jiang_breaks_6h_w8 = register("check", name="jiang_breaks_6h_w8")(_link_failures_at({HOPS: 6, WIN: 8}))
jiang_breaks_6h_w4 = register("check", name="jiang_breaks_6h_w4")(_link_failures_at({HOPS: 6, WIN: 4}))
jiang_loss_6h_w8 = register("check", name="jiang_loss_6h_w8")(_loss_at({HOPS: 6, WIN: 8}))
jiang_loss_6h_w4 = register("check", name="jiang_loss_6h_w4")(_loss_at({HOPS: 6, WIN: 4}))



# --- side sweeps: how AODV learns of a broken link (docs/aodv.md) ------------------------

#: AODV's route breaks of a run: links it found broken (MAC-detected, or with HELLO detection,
#: neighbours that fell silent)
ROUTE_BREAKS = "routing.route_breaks"


def _no_ns2_side(runs: "pd.DataFrame | None", side: str) -> None:
    """Side checks are called with ns-2.35's stored runs too; those have no side sweeps."""
    if runs is not None and _is_ns2(runs):
        raise SpecError(f"ns-2.35 has no runs of the side sweep '{side}'")


@register("check")
def jiang_side_received(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, side: str, hops: int,
                        win: int) -> Estimate:
    """Packets received in the run at (hops, W) on the side sweep ``side`` (hoptcp only:
    ns-2.35 has no runs of the side sweeps)."""
    _no_ns2_side(runs, side)
    s = ctx.side(side)
    return _metric_at(RECEIVED, {HOPS: hops, WIN: win})(s, s.runs, point)


@register("check")
def jiang_side_route_failures(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, side: str,
                              hops: int, win: int) -> Estimate:
    """Route failures at (hops, W) on the side sweep ``side``: the links AODV found broken
    (``routing.route_breaks``), whichever way it detects them (hoptcp only)."""
    _no_ns2_side(runs, side)
    s = ctx.side(side)
    return _metric_at(ROUTE_BREAKS, {HOPS: hops, WIN: win})(s, s.runs, point)



# --- what Jiang et al. leave open: the readings an entry's ``unspecified`` ranges run --------

#: whether AODV repairs a broken link locally, which Jiang leaves open ("The routing protocol
#: used in the simulation is AODV [16]"; how it learns of a break is said, §5.2: "the packet is
#: dropped and link breakage reported"): (label, side sweep with it; None: the main sweep)
REPAIRS = (("AODV with local repair", None), ("AODV without local repair", "no-local-repair"))
#: the readings of a count the paper prints: name -> (label, check at a point ``where``)
_READINGS: dict[str, tuple[str, Callable[[Mapping[str, Any]], Callable[..., Estimate]]]] = {
    "received": ("packets received", lambda w: _metric_at(RECEIVED, w)),
    "loss": ("data lost", lambda w: _loss_at(w)),
    "link_failures": ("MAC retry-limit drops of TCP packets", lambda w: _link_failures_at(w)),
    "route_breaks": ("the flow's AODV route breaks", lambda w: _metric_at("flow.0.route_breaks", w)),
    "route_discoveries": ("the source's route discoveries", lambda w: _metric_at("flow.0.route_discoveries", w)),
    "retry_gain": ("gain from 14/10", lambda w: _gain(w)),
    "best_size": ("best packet size", lambda w: _best_size(int(w[HOPS]))),
}


@register("check")
def jiang_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, measures: Sequence[str],
                   hops: int, win: int = 0) -> list[tuple[str, Estimate]]:
    """Each of ``measures`` (names of ``_READINGS``) at (hops, W; ``win`` 0: a sweep that does not
    vary W) with AODV's local repair on (the main sweep) and off (side ``no-local-repair``); a
    side not run (or without that point) is left out, none at all raises."""
    bad = [m for m in measures if m not in _READINGS]
    if bad or not measures:
        raise SpecError(f"measures = {list(measures)!r}; allowed: {', '.join(_READINGS)}")
    out = []
    for label, side in REPAIRS:
        try:
            c = ctx if side is None else ctx.side(side)
        except (KeyError, SpecError):
            continue
        for m in measures:
            name, check = _READINGS[m]
            try:
                est = check({HOPS: hops, **({WIN: win} if win else {})})(c, c.runs, point)
            except SpecError:
                continue
            out.append((label if len(measures) == 1 else f"{label}; {name}", est))
    if not out:
        raise SpecError(f"no runs at {hops} hops, W = {win} in any setting")
    return out


# --- §5.1: simultaneous transmissions on the string, from the air trace ---------------------

def successful_data_transmissions(air: Mapping[str, Any]) -> list[tuple[int, int]]:
    """(start, end) in ns of every unicast DATA frame its addressee received, from a run's air
    trace (``RunResult.air``): from the first bit sent to the last bit received."""
    f, rx = air["frames"], air["rx"]
    data, ok = air["frame_kinds"].index("data"), air["fates"].index("received")
    return [(int(f["start_ns"][fr]), int(t)) for fr, node, fate, t in zip(rx["frame"], rx["node"], rx["fate"], rx["t_ns"])
            if fate == ok and f["kind"][fr] == data and f["ra"][fr] == node]


def max_simultaneous_transmissions(spans: Sequence[tuple[int, int]]) -> int:
    """The largest number of the ``spans`` (start, end) on the air at once; one ending at the
    instant another starts does not overlap it."""
    edges = [e for a, b in spans for e in ((a, 1), (b, -1))]
    best = cur = 0
    for _, d in sorted(edges):  # an end (-1) before a start (+1) at the same instant
        cur += d
        best = max(best, cur)
    return best


@register("check")
def jiang_simultaneous_tx(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, hops: int,
                          win: int) -> Estimate:
    """The most successful DATA transmissions on the air at once in a run of the ``hops``-hop
    string at max window ``win`` (each seed rerun with its air trace); mean over seeds."""
    from ...runner import run

    if _is_ns2(runs):
        raise SpecError("needs hoptcp's air traces")
    p, sel = _point_of(runs, ctx, {HOPS: hops, WIN: win})
    out = []
    for seed in sel["seed"]:
        key = ("jiang_simultaneous_tx", ctx.name, hops, win, int(seed))
        if key not in ctx.cache:
            res = run(ctx.scenario(p).with_overrides({"stats.series": ["air"]}), seed=int(seed))
            ctx.cache[key] = max_simultaneous_transmissions(successful_data_transmissions(res.air))
        out.append(ctx.cache[key])
    return mean_ci(out)


@register("evidence")
def jiang_capture_explains_concurrency(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> "Evidence":
    """Shown when the claim's bound holds on the side sweep ``no-capture`` (the same runs with
    capture off): §5.1's count assumes that any transmission within the interference range
    destroys a reception, which capture (ns-2.35's CPThresh_, 10 dB) does not."""
    from ..report import Evidence, claim_on

    est, holds, dev = claim_on(ctx.side("no-capture"), claim, point)
    if holds is None:
        return Evidence(None, f"could not be measured on the side sweep 'no-capture': {dev}")
    return Evidence(bool(holds), f"with capture off (radio.capture_db = 1000) the same measure gives {est.mean:.3g} "
                                 f"over {est.n} runs ({dev})" + ("; the bound holds there" if holds else
                                                                 "; the bound fails there too"))


@register("check")
def jiang_longest_pause_12h_w4(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Longest run of seconds with no packet received (after the first second), 12 hops, W = 4."""
    return _per_run(ctx, runs, {HOPS: 12, WIN: 4},
                    lambda s, p: float(_longest_zero_run(_pkts_per_s(s, 0, _payload(ctx, p)))))


@register("check")
def jiang_zero_seconds_6h_w8(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Seconds with no packet received (after the first), 6 hops, W = 8."""
    return _per_run(ctx, runs, {HOPS: 6, WIN: 8},
                    lambda s, p: float(_zero_seconds(_pkts_per_s(s, 0, _payload(ctx, p)))))


@register("check")
def jiang_zero_seconds_3h_w4(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Seconds with no packet received (after the first), 3 hops, W = 4."""
    return _per_run(ctx, runs, {HOPS: 3, WIN: 4},
                    lambda s, p: float(_zero_seconds(_pkts_per_s(s, 0, _payload(ctx, p)))))


@register("check")
def jiang_cv_ratio_3h(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Coefficient of variation of the per-second throughput, 3 hops: W = 16 over W = 4, per seed
    (both windows run the same seeds), mean and Student-t CI over the seeds (a seed whose CV at
    W = 4 is 0 or undefined is left out)."""
    def cv(w: int) -> "pd.Series":
        return _per_seed(ctx, runs, {HOPS: 3, WIN: w}, lambda s, p: _cv(_pkts_per_s(s, 0, _payload(ctx, p))))
    return paired_gain(cv(4), cv(16), "ratio")


@register("values")
def jiang_oscillation_values(ctx: "Context") -> dict[str, Any]:
    runs = ctx.runs
    rows = []
    for (h, w), g in runs.groupby([HOPS, WIN], sort=True):
        point, _ = _point_of(runs, ctx, {HOPS: h, WIN: w})
        pay = _payload(ctx, point)
        series = [_pkts_per_s(jiang_series(ctx, point, int(s)), 0, pay) for s in g["seed"]]
        rows.append(
            f"| {h} | {w} | {g['flow.0.packets_delivered'].mean():.0f} | {g['flow.0.route_breaks'].mean():.1f} | "
            f"{g['flow.0.route_discoveries'].mean():.1f} | "
            f"{(100 * (1 - g['flow.0.packets_delivered'] / g['flow.0.packets_sent'])).mean():.1f} | "
            f"{sum(_cv(x) for x in series) / len(series):.2f} | "
            f"{sum(_zero_seconds(x) for x in series) / len(series):.1f} | "
            f"{sum(_longest_zero_run(x) for x in series) / len(series):.1f} | {len(g)} |")
    table = ("| hops | W | packets received | route breaks | route discoveries | data lost (%) | CV of pkts/s | "
             "zero seconds | longest pause (s) | runs |\n|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows))
    return {"oscillation_table": table}


def _series_panels(ctx: "Context", panels: Sequence[Mapping[str, Any]], title: str, opts: Mapping[str, Any],
                   flows: Sequence[int] = (0,)) -> "Figure":
    """One panel per point: packets received per second against time, seed of the first run,
    with the AODV route breaks of the flow's packets marked below the axis."""
    fig = new_figure(*opts.get("size", (7.0, 2.1 * len(panels))))
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, where in zip(axes, panels):
        point, sel = _point_of(ctx.runs, ctx, where)
        seed = int(sorted(sel["seed"])[0])
        s = jiang_series(ctx, point, seed)
        pay = _payload(ctx, point)
        for k, fl in enumerate(flows):
            pk = _pkts_per_s(s, fl, pay)
            ax.plot(pk.index, pk.values, drawstyle="steps-post", lw=1, color=f"C{k}",
                    label=f"connection {fl + 1}" if len(flows) > 1 else None)
            if "route_breaks" in s.columns:
                br = s[(s["flow"] == fl) & (s["route_breaks"] > 0)]
                ax.plot(br["time_s"], [-2] * len(br), "|", color=f"C{k}", ms=6)
        label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in where.items())
        ax.set_title(f"{label} (seed {seed}; ticks below 0: route breaks)", fontsize=8)
        ax.set_ylabel("pkts/s")
        ax.grid(True, alpha=0.3)
        if len(flows) > 1:
            ax.legend(fontsize=7)
    axes[-1].set_xlabel("Time (s)")
    fig.suptitle(title, fontsize=9)
    return fig


@register("figure")
def jiang_fig2(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 2 a-d: throughput per second, 3 hops W=4 and 16, 6 hops W=8, 12 hops W=4."""
    return _series_panels(ctx, [{HOPS: 3, WIN: 4}, {HOPS: 3, WIN: 16}, {HOPS: 6, WIN: 8}, {HOPS: 12, WIN: 4}],
                          "Jiang Fig. 2: throughput at 1 s granularity (hoptcp, AODV)", opts)


# --- jiang-retry (Fig. 4, §5.2) -----------------------------------------------------------

def _gain(where: Mapping[str, Any]) -> Callable[..., Estimate]:
    """100·(received at 14/10 / received at 7/4 − 1) per seed (both retry limits run the same
    seeds), mean and Student-t CI over the seeds (:func:`hoptcp.stats.paired_gain`; a seed with
    nothing received at 7/4 is left out)."""
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        return paired_gain(_received_at(ctx, runs, {**where, SRL: 7}), _received_at(ctx, runs, {**where, SRL: 14}),
                           "pct")
    check.__doc__ = (f"Gain in packets received from retry limits 14/10 over 7/4 at {dict(where)} (%), paired "
                     "by seed.")
    return check


jiang_retry_gain_6h = register("check", name="jiang_retry_gain_6h")(_gain({HOPS: 6, WIN: 8}))
jiang_retry_gain_12h = register("check", name="jiang_retry_gain_12h")(_gain({HOPS: 12, WIN: 4}))
jiang_retry_delivered_6h_1410 = register("check", name="jiang_retry_delivered_6h_1410")(_metric_at(RECEIVED, {HOPS: 6, WIN: 8, SRL: 14}))
jiang_retry_delivered_12h_1410 = register("check", name="jiang_retry_delivered_12h_1410")(_metric_at(RECEIVED, {HOPS: 12, WIN: 4, SRL: 14}))
jiang_retry_delivered_6h_74 = register("check", name="jiang_retry_delivered_6h_74")(_metric_at(RECEIVED, {HOPS: 6, WIN: 8, SRL: 7}))
jiang_retry_delivered_12h_74 = register("check", name="jiang_retry_delivered_12h_74")(_metric_at(RECEIVED, {HOPS: 12, WIN: 4, SRL: 7}))


def _oscillation_ratio(where: Mapping[str, Any], stat: str) -> Callable[..., Estimate]:
    """§5.2's "much lower throughput oscillation" with retry limits 14/10: the statistic of the
    per-second packet counts at 14/10 over the same at 7/4, per seed (both retry limits run the
    same seeds), mean and Student-t CI over the seeds; ``stat`` is "zero" (seconds with nothing
    received) or "cv" (coefficient of variation). A seed whose statistic at 7/4 is 0 (no second
    without delivery) or undefined has no ratio and is left out."""
    f = _zero_seconds if stat == "zero" else _cv

    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        def at(srl: int) -> "pd.Series":
            return _per_seed(ctx, runs, {**where, SRL: srl}, lambda s, p: float(f(_pkts_per_s(s, 0, _payload(ctx, p)))))
        return paired_gain(at(7), at(14), "ratio")

    what = "seconds with no packet received" if stat == "zero" else "coefficient of variation of packets per second"
    check.__doc__ = (f"{what.capitalize()} with retry limits 14/10 over 7/4 at {dict(where)} (per-seed ratios, "
                     "paired; mean over seeds).")
    return check


jiang_retry_zero_ratio_6h = register("check", name="jiang_retry_zero_ratio_6h")(_oscillation_ratio({HOPS: 6, WIN: 8}, "zero"))
jiang_retry_zero_ratio_12h = register("check", name="jiang_retry_zero_ratio_12h")(_oscillation_ratio({HOPS: 12, WIN: 4}, "zero"))
jiang_retry_cv_ratio_6h = register("check", name="jiang_retry_cv_ratio_6h")(_oscillation_ratio({HOPS: 6, WIN: 8}, "cv"))
jiang_retry_cv_ratio_12h = register("check", name="jiang_retry_cv_ratio_12h")(_oscillation_ratio({HOPS: 12, WIN: 4}, "cv"))


@register("values")
def jiang_retry_values(ctx: "Context") -> dict[str, Any]:
    rows = []
    for (h, w, s), g in ctx.runs.groupby([HOPS, WIN, SRL], sort=True):
        rows.append(f"| {h} | {w} | {s}/{LONG_FOR_SHORT[int(s)]} | {g['flow.0.packets_delivered'].mean():.0f} | "
                    f"{g['flow.0.route_breaks'].mean():.1f} | {g['flow.0.timeouts'].mean():.1f} | {len(g)} |")
    table = ("| hops | W | retry limits | packets received | route breaks | TCP timeouts | runs |\n"
             "|---|---|---|---|---|---|---|\n" + "\n".join(rows))
    ns2 = "no stored ns-2.35 runs for these settings"
    if ctx.ns2 is not None and not ctx.ns2.empty:
        nrows = []
        for (h, w, s), g in ctx.ns2.groupby([HOPS, WIN, SRL], sort=True):
            g = _with_received(ctx, g, {HOPS: int(h), WIN: int(w), SRL: int(s)})
            nrows.append(f"| {h} | {w} | {s}/{LONG_FOR_SHORT[int(s)]} | {g[RECEIVED].mean():.0f} | "
                         f"{g['flow.0.timeouts'].mean():.1f} | {len(g)} |")
        ns2 = ("| hops | W | retry limits | ns-2.35 packets received | TCP timeouts | runs |\n"
               "|---|---|---|---|---|---|\n"
               + "\n".join(nrows))
    return {"retry_table": table, "retry_ns2_table": ns2}


@register("figure")
def jiang_fig4(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 4 a/b beside Fig. 2 c/d: throughput per second with retry limits 7/4 and 14/10."""
    return _series_panels(ctx, [{HOPS: 6, WIN: 8, SRL: 7}, {HOPS: 6, WIN: 8, SRL: 14},
                                {HOPS: 12, WIN: 4, SRL: 7}, {HOPS: 12, WIN: 4, SRL: 14}],
                          "Jiang Fig. 4 (14/10) beside Fig. 2 c/d (7/4), hoptcp", opts)


@register("evidence")
def jiang_ns2_agrees(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> "Evidence":
    from .ns2_agreement import ns2_agrees

    return ns2_agrees(ctx, claim, point)


# --- capture entries (Fig. 6, 7, 9) -------------------------------------------------------

def _received_by(runs: "pd.DataFrame", flow: int, duration: float, payload: int) -> "pd.Series":
    """Packets received by a flow over the run, from its goodput (counted from its start to the
    end): what hoptcp's packets_delivered gives, and what ns-2.35's stored runs give too."""
    start = runs[f"flows.{flow}.start_s"] if f"flows.{flow}.start_s" in runs.columns else 0.0
    return (runs[f"flow.{flow}.goodput_bps"] * (duration - start) / (8 * payload)).round()


def _wins(runs: "pd.DataFrame", duration: float = 120.0, payload: int = 1460) -> "pd.Series":
    return (_received_by(runs, 1, duration, payload) > _received_by(runs, 0, duration, payload)).astype(float)


@register("check")
def jiang_conn2_wins(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Fraction of runs (every start time and seed) in which connection 2 receives more packets
    than connection 1."""
    return mean_ci(_wins(runs))


def _wins_at(key: str, value: Any) -> Callable[..., Estimate]:
    """As jiang_conn2_wins over the runs with ``key`` = ``value`` (all runs of a sweep that
    does not vary ``key``, such as the FTP side sweep)."""
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        return mean_ci(_wins(runs[runs[key] == value] if key in runs.columns else runs))
    return check


jiang_conn2_wins_fig7a = register("check", name="jiang_conn2_wins_fig7a")(_wins_at(RATE2, 50_000.0))
jiang_conn2_wins_fig7b = register("check", name="jiang_conn2_wins_fig7b")(_wins_at(RATE2, 10_000.0))


@register("derive")
def jiang_capture_length_ftp(params: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """Fig. 7's paths (connection 2: 11 -> 14) with both sources saturated (FTP)."""
    return {"flows.1.src": 11, "flows.1.dst": 14}


@register("evidence")
def jiang_saturated_sources(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> "Evidence":
    """Shown when the claim's rule holds on the side sweep ``saturated`` (the same paths and
    start times with FTP sources: the paper's 'TCP has packets to send at all times'), or when
    ns-2.35's stored runs of the same rate-limited scenario agree with hoptcp's."""
    from ..report import Evidence, claim_on
    from .ns2_agreement import ns2_agrees

    est, holds, dev = claim_on(ctx.side("saturated"), claim, {})
    side = (f"could not be measured on the side sweep 'saturated': {dev}" if holds is None else
            f"with saturated (FTP) sources on the same paths the 4-hop connection is ahead in {est.mean:.0%} of "
            f"{est.n} runs ({dev})" + ("; the rule holds there" if holds else "; the rule fails there too"))
    ns2 = ns2_agrees(ctx, claim, point)
    shown = True if (holds or ns2.shown) else (None if holds is None and ns2.shown is None else False)
    return Evidence(shown, f"{side}. ns-2.35 on the same scenario: {ns2.text}")


@register("values")
def jiang_capture_values(ctx: "Context") -> dict[str, Any]:
    by = [c for c in ctx.params if c != "seed"]
    rows = []
    for key, g in ctx.runs.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        label = " | ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in key)
        a, b = g["flow.0.packets_delivered"], g["flow.1.packets_delivered"]
        rows.append(f"| {label} | {a.mean():.0f} | {b.mean():.0f} | {int(_wins(g).sum())} of {len(g)} |")
    head = " | ".join(by)
    table = (f"| {head} | conn. 1 packets | conn. 2 packets | runs conn. 2 > conn. 1 |\n"
             f"|{'---|' * (len(by) + 3)}\n" + "\n".join(rows))
    return {"capture_table": table}


def _capture_bars(ctx: "Context", subset: "pd.DataFrame", ax: Any, title: str) -> None:
    t = subset.groupby(START2, sort=True)
    xs = sorted(subset[START2].unique())
    for k, col in enumerate(["flow.0.packets_delivered", "flow.1.packets_delivered"]):
        m = [t.get_group(x)[col].mean() for x in xs]
        lo = [t.get_group(x)[col].min() for x in xs]
        hi = [t.get_group(x)[col].max() for x in xs]
        pos = [i + (k - 0.5) * 0.38 for i in range(len(xs))]
        ax.bar(pos, m, width=0.38, color=f"C{k}", label=f"connection {k + 1}")
        ax.vlines(pos, lo, hi, color="k", lw=1)
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_xlabel("connection 2 starts at (s)")
    ax.set_ylabel("packets received")
    ax.set_title(title, fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)


@register("figure")
def jiang_fig6(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 6: packets received by each connection against connection 2's start time."""
    fig = new_figure(*opts.get("size", (7.0, 3.6)))
    _capture_bars(ctx, ctx.runs, fig.add_subplot(), "Capture vs start time (hoptcp; bars: mean, lines: range over seeds)")
    return fig


@register("figure")
def jiang_fig7(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 7 a/b: 6-hop connection 1 and 4-hop connection 2, at 50/50 and 20/10 kb/s."""
    fig = new_figure(*opts.get("size", (7.0, 6.4)))
    axes = fig.subplots(2, 1)
    for ax, r2, t in zip(axes, [50_000.0, 10_000.0], ["(a) 6-hop and 4-hop, 50 kb/s each",
                                                        "(b) 6-hop 20 kb/s and 4-hop 10 kb/s"]):
        _capture_bars(ctx, ctx.runs[ctx.runs[RATE2] == r2], ax, t)
    return fig


def _share(ctx: "Context", runs: "pd.DataFrame", during: tuple[float, float], before: tuple[float, float],
           point: Mapping[str, Any] | None = None) -> Estimate:
    """Connection 1's packets per second in ``during`` over those in ``before``, per run (of the
    sweep point ``point``; default: the sweep's only point)."""
    p = dict(point or {})

    def f(s: "pd.DataFrame") -> float:
        pk = _pkts_per_s(s, 0, _payload(ctx, p))
        a = pk[(pk.index > during[0]) & (pk.index <= during[1])].mean()
        b = pk[(pk.index > before[0]) & (pk.index <= before[1])].mean()
        return float(a / b) if b > 0 else math.nan
    if _is_ns2(runs):
        raise SpecError("needs hoptcp's per-second series")
    return mean_ci([f(jiang_series(ctx, p, int(s))) for s in runs["seed"]])


def _window(ctx: "Context", point: Mapping[str, Any] | None = None) -> tuple[float, float]:
    f1 = ctx.resolved(dict(point or {}))["flows"][1]
    return float(f1["start_s"]), float(f1["stop_s"])


@register("check")
def jiang_neigh_during(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Connection 1's throughput while connection 2 runs (from 2 s after its start), as a
    fraction of connection 1's throughput alone before (from 5 s to connection 2's start)."""
    a, b = _window(ctx)
    return _share(ctx, runs, (a + 2, b), (5.0, a))


@register("check")
def jiang_neigh_after(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Connection 1's throughput from 5 s after connection 2 stops to the end, as a fraction of
    its throughput alone before connection 2 started."""
    a, b = _window(ctx)
    end = float(ctx.resolved({})["duration_s"])
    return _share(ctx, runs, (b + 5, end), (5.0, a))


STOP2 = "flows.1.stop_s"


@register("check")
def jiang_neigh_after_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *,
                               side: str) -> list[tuple[str, Estimate]]:
    """:func:`jiang_neigh_after` for every stop time of connection 2: the main sweep's and each
    of the side sweep ``side`` (which varies ``flows.1.stop_s``), in order of the stop time."""
    a, b = _window(ctx)
    end = float(ctx.resolved({})["duration_s"])
    got = {b: _share(ctx, runs, (b + 5, end), (5.0, a))}
    try:
        sc = ctx.side(side)
    except (KeyError, SpecError):
        sc = None
    if sc is not None:
        for stop, sel in sc.runs.groupby(STOP2, sort=True):
            p = {STOP2: float(stop)}
            a2, b2 = _window(sc, p)
            end2 = float(sc.resolved(p)["duration_s"])
            got[b2] = _share(sc, sel, (b2 + 5, end2), (5.0, a2), p)
    return [(f"connection 2 stops at {t:g} s", got[t]) for t in sorted(got)]


@register("figure")
def jiang_fig9(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 9 a/b: per-second throughput of the 6-hop connection and of the 2-hop one."""
    fig = new_figure(*opts.get("size", (7.0, 4.4)))
    axes = fig.subplots(2, 1, sharex=True)
    seed = int(sorted(ctx.runs["seed"])[0])
    s = jiang_series(ctx, {}, seed)
    pay = _payload(ctx, {})
    for ax, fl, t in zip(axes, [0, 1], ["(a) 6-hop connection, node 0 to node 6",
                                        "(b) 2-hop connection, node 13 to node 15"]):
        pk = _pkts_per_s(s, fl, pay)
        ax.plot(pk.index, pk.values, drawstyle="steps-post", lw=1, color=f"C{fl}")
        ax.set_title(f"{t} (hoptcp, seed {seed})", fontsize=8)
        ax.set_ylabel("pkts/s")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("Time (s)")
    return fig


# --- jiang-packet-size (Fig. 10, §5.4) ----------------------------------------------------

def _sized(ctx: "Context", runs: "pd.DataFrame") -> "pd.DataFrame":
    """Runs with bytes and packets received computed from the goodput (what ns-2.35's stored
    runs give too): ``jiang.bytes`` and ``jiang.delivered_frac`` (received / sent)."""
    duration = float(ctx.resolved(ctx.points[0] if ctx.points else {})["duration_s"])
    out = runs.copy()
    out["jiang.bytes"] = out["flow.0.goodput_bps"] * duration / 8
    out["jiang.delivered_frac"] = (out["jiang.bytes"] / out[SIZE]).round() / out["flow.0.packets_sent"]
    return out


def _best_size(hops: int) -> Callable[..., Estimate]:
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        sub = _sized(ctx, runs[runs[HOPS] == hops])
        if sub.empty:
            raise SpecError(f"no runs with {HOPS} = {hops}")
        means = sub.groupby(SIZE)["jiang.bytes"].mean()
        return Estimate(float(means.idxmax()), math.nan, len(sub), math.nan)
    return check


jiang_best_size_6h = register("check", name="jiang_best_size_6h")(_best_size(6))
jiang_best_size_9h = register("check", name="jiang_best_size_9h")(_best_size(9))
jiang_best_size_12h = register("check", name="jiang_best_size_12h")(_best_size(12))



def rts_per_delivered_frame(row: Mapping[str, Any]) -> float:
    """The largest, over the nodes of one run, of RTS frames sent per DATA frame delivered (MAC
    ACK received): how many RTSs the most exposed node needs to get one frame across."""
    ids = sorted({int(k.split(".")[1]) for k in row if k.startswith("node.") and k.endswith(".rts_sent")})
    ratios = [float(row[f"node.{i}.rts_sent"]) / float(row[f"node.{i}.packets_acked"]) for i in ids
              if (row.get(f"node.{i}.packets_acked") or 0) > 0]
    return max(ratios) if ratios else math.nan


@register("check")
def jiang_rts_per_frame(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, hops: int,
                        size: int) -> Estimate:
    """RTS frames sent per DATA frame delivered at the most exposed node, on the ``hops``-hop
    string with ``size``-byte segments; mean over seeds."""
    _, sel = _point_of(runs, ctx, {HOPS: hops, SIZE: size})
    if not any(str(c).endswith(".rts_sent") for c in sel.columns):
        raise SpecError("no metric node.N.rts_sent in the runs")
    return mean_ci([rts_per_delivered_frame(r) for r in sel.to_dict("records")])


@register("check")
def jiang_delivery_trend(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """Spearman correlation of packet size with the fraction of data packets delivered
    (received / sent, mean per size), per string; the mean over the strings."""
    from .fu_chain import chain_spearman

    cors = []
    for _, g in _sized(ctx, runs).groupby(HOPS):
        frac = g.groupby(SIZE)["jiang.delivered_frac"].mean()
        cors.append(chain_spearman(list(frac.index), list(frac.values)))
    return Estimate(sum(cors) / len(cors), math.nan, len(cors), math.nan)


@register("values")
def jiang_size_values(ctx: "Context") -> dict[str, Any]:
    rows = []
    for (h, s), g in _sized(ctx, ctx.runs).groupby([HOPS, SIZE], sort=True):
        rows.append(f"| {h} | {s} | {g['jiang.bytes'].mean() / 1e3:.0f} | {g['jiang.delivered_frac'].mean():.3f} | "
                    f"{g['flow.0.route_breaks'].mean():.1f} | {len(g)} |")
    return {"size_table": "| hops | segment (B) | kB received | fraction delivered | route breaks | runs |\n"
                          "|---|---|---|---|---|---|\n" + "\n".join(rows)}


@register("figure")
def jiang_fig10(ctx: "Context", claims: Mapping[str, "ClaimResult"], opts: Mapping[str, Any]) -> "Figure":
    """Fig. 10 a/b/c: bytes received and bytes sent against packet size, 6, 9 and 12 hops."""
    fig = new_figure(*opts.get("size", (7.0, 7.0)))
    hops = sorted(ctx.runs[HOPS].unique())
    axes = fig.subplots(len(hops), 1, sharex=True, squeeze=False)[:, 0]
    for ax, h in zip(axes, hops):
        g = _sized(ctx, ctx.runs[ctx.runs[HOPS] == h])
        sizes = sorted(g[SIZE].unique())
        got = [mean_ci(g[g[SIZE] == s]["jiang.bytes"] / 1e3) for s in sizes]
        sent = [(g[g[SIZE] == s]["flow.0.packets_sent"] * s / 1e3).mean() for s in sizes]
        ax.errorbar(sizes, [e.mean for e in got], yerr=[0 if math.isnan(e.ci) else e.ci for e in got],
                    marker="o", ms=3, capsize=2, label="received")
        ax.plot(sizes, sent, "s--", ms=3, color="C1", label="sent")
        ax.axvline(1000, color="C3", ls=":", lw=1, label="paper: threshold near 1000 B")
        ax.set_title(f"{h}-hop connection", fontsize=8)
        ax.set_ylabel("kB in 120 s")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    axes[-1].set_xlabel("TCP packet size (bytes)")
    return fig
