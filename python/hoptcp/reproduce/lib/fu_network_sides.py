"""Side experiments of the Fu et al. network entries (``fu-queues``, ``fu-buffer``,
``fu-topologies``): builders of their variants, the evidence functions that read them, and
the values that fill the entries' notes. Every number a note quotes comes from here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ...errors import SpecError
from ...results import per_id
from ...stats import Estimate, mean_ci
from ..registry import register
from ..report import Evidence, claim_on
from .fu_network import (
    CASES,
    NODE_LETTERS,
    PAPER_QUEUE_AVG,
    _col,
    _contention,
    _contention_of,
    _crossover,
    _largest_over_nodes,
    _overflow,
    _per_300s,
    _select,
    _slim,
    _table_runs,
    net_topology_case,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...scenario import Scenario
    from ..catalogue import Claim
    from ..report import Context


def _point_runs(ctx: "Context", point: Mapping[str, Any], side: str | None = None) -> "pd.DataFrame":
    c = ctx.side(side) if side else ctx
    return _slim(c.runs_at(point))


def _by_seed(df: "pd.DataFrame", values: "pd.Series") -> dict[int, float]:
    return {int(s): float(v) for s, v in zip(df["seed"], values)}


def _fmt(v: float, spec: str = ".0f") -> str:
    return "-" if v != v else format(v, spec)


# --------------------------------------------------------------------------------------
# fu-queues: the first slow start (side sweeps "first-10s" and "ssthresh-20")
# --------------------------------------------------------------------------------------

def _early_overflow(ctx: "Context", point: Mapping[str, Any]) -> tuple[int, int, int, float]:
    """(runs compared, runs whose overflow drops by the end equal those after the first seconds,
    runs with any overflow, first seconds): the main runs against the same seeds of side sweep
    ``first-10s``."""
    end = _point_runs(ctx, point)
    early = _point_runs(ctx, point, "first-10s")
    a, b = _by_seed(end, _overflow(end)), _by_seed(early, _overflow(early))
    seeds = sorted(set(a) & set(b))
    same = sum(1 for s in seeds if a[s] == b[s])
    hit = sum(1 for s in seeds if a[s] > 0)
    return len(seeds), same, hit, float(ctx.side("first-10s").resolved({})["duration_s"])


@register("evidence")
def net_overflow_in_first_slow_start(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> Evidence:
    """Overflow drops (the only non-contention drops) all happen in the first seconds of a run,
    and with the initial ssthresh at 20 (ns-2.35 as the papers' scripts ran it) the claim holds."""
    end = _point_runs(ctx, point)
    early = _point_runs(ctx, point, "first-10s")
    n, same, hit, d = _early_overflow(ctx, point)
    est, holds, dev = claim_on(ctx.side("ssthresh-20"), claim, point)
    early_all = n > 0 and same == n
    shown = None if holds is None else (early_all and holds)
    total = int(_overflow(end).sum())
    text = (f"{total} overflow drop{'' if total == 1 else 's'}, in {hit} of {len(end)} runs; "
            f"{int(_overflow(early).sum())} of them by {d:g} s (the same runs stopped there: "
            f"{'all' if early_all else f'{same} of {n}'} runs identical); with tcp.initial_ssthresh = 20 the claim "
            f"gives {est.mean * claim.scale:.4g} ({dev})")
    return Evidence(shown, text)


@register("evidence")
def net_largest_queue_in_first_slow_start(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> Evidence:
    """Runs whose largest queue exceeds 17 packets reach it in the first seconds (first slow
    start), and with the initial ssthresh at 20 the claim holds."""
    table = {"topology.hops": 8, "flows.0.dst": 8, "mac.queue_limit": 30}
    end = _point_runs(ctx, table)
    early = _point_runs(ctx, table, "first-10s")
    a = _by_seed(end, _largest_over_nodes(end, "queue_max"))
    b = _by_seed(early, _largest_over_nodes(early, "queue_max"))
    high = [s for s in sorted(set(a) & set(b)) if a[s] > 17]
    reached_early = [s for s in high if b[s] == a[s]]
    d = float(ctx.side("first-10s").resolved({})["duration_s"])
    est, holds, dev = claim_on(ctx.side("ssthresh-20"), claim, point)
    text = (f"{len(high)} of {len(a)} runs exceed 17 packets, {len(reached_early)} of them within the first {d:g} s; "
            f"with tcp.initial_ssthresh = 20: {est.mean:.3g} packets ({dev})")
    shown = None if holds is None else (len(reached_early) == len(high) and holds)
    return Evidence(shown, text)


@register("values")
def net_queues_values(ctx: "Context") -> dict[str, Any]:
    """Numbers quoted in fu-queues' notes."""
    runs = _slim(ctx.runs)
    t = _table_runs(runs)
    avg = [mean_ci(_col(t, f"node.{i}.queue_avg")).mean for i in range(9)]
    held = [mean_ci(_col(t, f"node.{i}.queue_avg") + _col(t, f"node.{i}.backlog_frac")).mean for i in range(9)]
    rest = [avg[i] for i in range(9) if NODE_LETTERS[i] not in "DE"]
    rows = ["| chain | buffer | overflow drops by the end | of them in the first {d:g} s | runs with any | "
            "with initial ssthresh 20 |", "|---|---|---|---|---|---|"]
    d = float(ctx.side("first-10s").resolved({})["duration_s"])
    rows[0] = rows[0].format(d=d)
    for hops in (7, 8):
        for q in sorted(int(v) for v in _col(runs, "mac.queue_limit").dropna().unique()):
            p = {"topology.hops": hops, "flows.0.dst": hops, "mac.queue_limit": q}
            end, early, ss = (_point_runs(ctx, p), _point_runs(ctx, p, "first-10s"),
                              _point_runs(ctx, p, "ssthresh-20"))
            rows.append(f"| {hops}-hop | {q} | {int(_overflow(end).sum())} in {len(end)} runs | "
                        f"{int(_overflow(early).sum())} | {int((_overflow(end) > 0).sum())} | "
                        f"{int(_overflow(ss).sum())} in {len(ss)} runs |")
    tot = early_tot = ss_tot = 0
    for hops in (7, 8):
        for q in sorted(int(v) for v in _col(runs, "mac.queue_limit").dropna().unique()):
            p = {"topology.hops": hops, "flows.0.dst": hops, "mac.queue_limit": q}
            tot += int(_overflow(_point_runs(ctx, p)).sum())
            early_tot += int(_overflow(_point_runs(ctx, p, "first-10s")).sum())
            ss_tot += int(_overflow(_point_runs(ctx, p, "ssthresh-20")).sum())
    ss = f"{ss_tot} remain with the threshold at 20"
    transient = (("no run overflowed a queue, with either initial threshold" if ss_tot == 0 else
                  f"no run overflowed a queue, but {ss_tot} overflow drops happened with the threshold at 20")
                 if tot == 0 else
                 f"all {tot} overflow drops happened in the first {d:g} s, and {ss}" if early_tot == tot
                 else f"{early_tot} of the {tot} overflow drops happened in the first {d:g} s, and {ss}")
    order = sorted(range(9), key=lambda i: -avg[i])
    ss_t = _table_runs(_slim(ctx.side("ssthresh-20").runs))
    high = lambda df: int((_largest_over_nodes(df, "queue_max") > 17).sum())  # noqa: E731
    per = _per_300s(ctx)
    data = (_col(t, "drops.by_kind.tcp_data.mac_rts_retry").fillna(0)
            + _col(t, "drops.by_kind.tcp_data.mac_data_retry").fillna(0)).mean() * per
    ack = (_col(t, "drops.by_kind.tcp_ack.mac_rts_retry").fillna(0)
           + _col(t, "drops.by_kind.tcp_ack.mac_data_retry").fillna(0)).mean() * per
    sent = ((_col(t, "flow.0.packets_sent") + _col(t, "flow.0.acks_sent")) * per).mean()
    return {
        "avg_d": avg[3], "avg_e": avg[4], "avg_rest_lo": min(rest), "avg_rest_hi": max(rest), "avg_max": max(avg),
        "avg_peak": f"{NODE_LETTERS[order[0]]} and {NODE_LETTERS[order[1]]}",
        "transient": transient, "ss20_overflow": ss_tot,
        "held_profile": ", ".join(f"{v:.2f}" for v in held),
        "held_dev": max(abs(h - p) for h, p in zip(held, PAPER_QUEUE_AVG)),
        "overflow_table": "\n".join(rows),
        "high_runs": high(t), "table_runs": len(t), "high_runs_ss20": high(ss_t), "ss20_runs": len(ss_t),
        "data_drops": data, "ack_drops": ack,
        "rts_limit_drops": _col(t, "drops.mac_rts_retry").mean() * per,
        "data_limit_drops": _col(t, "drops.mac_data_retry").mean() * per,
        "transmissions": sent, "transmissions_dev": 100 * (sent / 12349 - 1),
        "duration": float(ctx.resolved({})["duration_s"]),
    }


# --------------------------------------------------------------------------------------
# fu-buffer: run length and switches of the concurrent-flow experiment
# --------------------------------------------------------------------------------------

BUFFER_SWITCHES = {
    "delayed-ack": "delayed ACKs", "initial-window-1": "initial window 1", "min-rto-1s": "minimum RTO 1 s",
    "initial-ssthresh-2": "initial ssthresh 2", "standard-frames": "standard 802.11 header sizes",
    "no-ll-delay": "no LL delay", "basic-access": "basic access (no RTS/CTS)",
}


def _flows_runs(df: "pd.DataFrame") -> "pd.DataFrame":
    return df[df["flows.0.count"] > 1] if "flows.0.count" in df.columns else df.iloc[0:0]


def _pooled_share(df: "pd.DataFrame") -> tuple[list[float], list[float]]:
    """Flow counts and the overflow share of drops pooled over seeds at each."""
    xs, shares = [], []
    for n, g in df.groupby("flows.0.count"):
        o, c = float(_overflow(g).sum()), float(_contention(g).sum())
        xs.append(float(n))
        shares.append(o / (o + c) if o + c else math.nan)
    return xs, shares


def _shares(xs: Sequence[float], shares: Sequence[float]) -> str:
    return ", ".join(f"{x:g}: {_fmt(v, '.2f')}" for x, v in zip(xs, shares))


def _durations(ctx: "Context") -> list[float]:
    return sorted(float(v) for v in ctx.side("run-length").runs["duration_s"].unique())


@register("evidence")
def net_flows_by_run_length(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> Evidence:
    """fu-buffer, concurrent flows: the claim holds in the shortest runs of side sweep
    ``run-length`` (the paper gives no run length for this experiment), and the overflow share
    falls as runs get longer (overflow is a start-up burst, contention accrues steadily)."""
    main_d = float(ctx.resolved({})["duration_s"])
    ds = _durations(ctx)
    shares = {d: _pooled_share(_flows_runs(_slim(ctx.side("run-length").runs_at({"duration_s": d}))))
              for d in ds}
    shares[main_d] = _pooled_share(_flows_runs(_slim(ctx.runs)))
    top = {d: s[1][-1] if s[1] else math.nan for d, s in shares.items()}  # share at the largest flow count
    falling = all(top[a] > top[b] for a, b in zip(sorted(top), sorted(top)[1:]))
    est, holds, dev = claim_on(ctx.side("run-length"), claim, {**point, "duration_s": ds[0]})
    cross = {d: _crossover(xs, sh, falling=False) for d, (xs, sh) in shares.items()}
    text = (f"in {ds[0]:g} s runs the claim gives {est.mean * claim.scale:.3g} ({dev}); crossover "
            + ", ".join(f"{_fmt(cross[d])} flows in {d:g} s runs" for d in sorted(cross))
            + "; overflow share at the largest flow count " + ", ".join(f"{top[d]:.2f}" for d in sorted(top))
            + (" (falling with run length)" if falling else " (not falling with run length)"))
    return Evidence(None if holds is None else (holds and falling), text)


@register("values")
def net_buffer_values(ctx: "Context") -> dict[str, Any]:
    """Numbers quoted in fu-buffer's notes."""
    runs = _slim(ctx.runs)
    one = _select(runs, flows__0__count=1)
    many = _flows_runs(runs)
    main_d = float(ctx.resolved({})["duration_s"])

    def share(df: "pd.DataFrame", lo: float, hi: float, key: str, of: str) -> float:
        sub = df[(df[key] >= lo) & (df[key] <= hi)]
        o, c = float(_overflow(sub).sum()), float(_contention(sub).sum())
        return (o if of == "overflow" else c) / (o + c) if o + c else math.nan

    out: dict[str, Any] = {
        "ovf_2_4": 100 * share(one, 2, 4, "mac.queue_limit", "overflow"),
        "cont_15_19": 100 * share(one, 15, 19, "mac.queue_limit", "contention"),
        "cont_20_60": 100 * share(many, 20, 60, "flows.0.count", "contention"),
        "avg_19": mean_ci(_largest_over_nodes(_select(one, mac__queue_limit=19), "queue_avg")).mean,
        "max_19": mean_ci(_largest_over_nodes(_select(one, mac__queue_limit=19), "queue_max")).mean,
        "duration": main_d,
    }
    xs, sh = _pooled_share(many)
    shares = dict(zip(xs, sh))
    out["ovf_100"] = 100 * shares.get(100.0, math.nan)
    out["ovf_200"] = 100 * shares.get(200.0, math.nan)
    rows = ["| run length | crossover (flows) | overflow share at each flow count |", "|---|---|---|"]
    for d in _durations(ctx) + [main_d]:
        df = many if d == main_d else _flows_runs(_slim(ctx.side("run-length").runs_at({"duration_s": d})))
        dx, dsh = _pooled_share(df)
        rows.append(f"| {d:g} s | {_fmt(_crossover(dx, dsh, falling=False))} | {_shares(dx, dsh)} |")
    out["run_length_table"] = "\n".join(rows)
    # Start-up burst: drops per second over the whole run, at the largest flow count, by run length
    top = max(xs) if xs else math.nan
    rates = []
    for d in _durations(ctx) + [main_d]:
        df = many if d == main_d else _flows_runs(_slim(ctx.side("run-length").runs_at({"duration_s": d})))
        g = df[df["flows.0.count"] == top]
        rates.append((d, float(_overflow(g).mean()), float(_contention(g).mean())))
    out["burst_table"] = "\n".join(
        [f"| run length | overflow drops per run ({top:g} flows) | contention drops per run |", "|---|---|---|"]
        + [f"| {d:g} s | {o:.0f} | {c:.0f} |" for d, o, c in rates])
    (d0, o0, c0), (d1, o1, c1) = rates[-2], rates[-1]
    out["late_overflow_rate"] = (o1 - o0) / (d1 - d0)
    out["late_contention_rate"] = (c1 - c0) / (d1 - d0)
    sw = ["| switch | crossover (flows) | overflow share at each flow count |", "|---|---|---|"]
    in_range = []
    for name, label in BUFFER_SWITCHES.items():
        df = _flows_runs(_slim(ctx.side(name).runs))
        dx, dsh = _pooled_share(df)
        x = _crossover(dx, dsh, falling=False)
        if 80 <= x <= 100:
            in_range.append(label)
        sw.append(f"| {label} | {_fmt(x)} | {_shares(dx, dsh)} |")
        if name == "basic-access":
            out["basic_share_low"] = dsh[0] if dsh else math.nan
    out["switch_table"] = "\n".join(sw)
    one_switch = ctx.side(next(iter(BUFFER_SWITCHES)))
    out["switch_duration"] = float(one_switch.resolved({})["duration_s"])
    out["switch_seeds"] = len(set(one_switch.runs["seed"]))
    out["switch_in_range"] = ", ".join(in_range) if in_range else "none of them"
    basic = _flows_runs(_slim(ctx.side("basic-access").runs))
    out["basic_contention_top"] = float(_contention(basic[basic["flows.0.count"] == top]).mean())
    out["rts_contention_top"] = float(_contention(many[many["flows.0.count"] == top]).mean())
    # where the drops happen at the largest flow count (per-node columns: the full frame)
    node_rows = ["| node | overflow drops | contention drops | average queue | maximum queue |", "|---|---|---|---|---|"]
    full = ctx.runs[ctx.runs["flows.0.count"] == top] if "flows.0.count" in ctx.runs.columns else ctx.runs.iloc[0:0]
    for i, letter in enumerate(NODE_LETTERS):
        o = _col(full, f"node.{i}.drops.queue_overflow").mean()
        c = (_col(full, f"node.{i}.drops.mac_rts_retry").fillna(0)
             + _col(full, f"node.{i}.drops.mac_data_retry").fillna(0)).mean()
        node_rows.append(f"| {letter} | {_fmt(o)} | {_fmt(c)} | {_fmt(_col(full, f'node.{i}.queue_avg').mean(), '.1f')} "
                         f"| {_fmt(_col(full, f'node.{i}.queue_max').mean())} |")
    out["node_table"] = "\n".join(node_rows)
    out["top_flows"] = top
    return out


# --------------------------------------------------------------------------------------
# fu-topologies: variants of the flow layout (builders) and the evidence they give
# --------------------------------------------------------------------------------------

def _expand(flows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Replicated flows (``count``) as separate flows."""
    out = []
    for f in flows:
        out += [{k: v for k, v in f.items() if k != "count"} for _ in range(int(f.get("count", 1)))]
    return out


@register("derive")
def net_topology_case_staggered(params: Mapping[str, Any], base: "Scenario") -> dict[str, Any]:
    """fu-topologies side sweep: flow i starts at i seconds instead of all at t = 0."""
    over = net_topology_case(params, base)
    if not over["flows"]:
        raise SpecError("net_topology_case_staggered: not for the random case (its flows are drawn by the core)")
    over["flows"] = [{**f, "start_s": float(i)} for i, f in enumerate(_expand(over["flows"]))]
    return over


@register("derive")
def net_topology_case_both_directions(params: Mapping[str, Any], base: "Scenario") -> dict[str, Any]:
    """fu-topologies side sweep, chain cases: the second half of the flows run from the last node to node 0."""
    over = net_topology_case(params, base)
    fl = _expand(over["flows"])
    half = len(fl) // 2
    over["flows"] = fl[:len(fl) - half] + [{**f, "src": f["dst"], "dst": f["src"]} for f in fl[len(fl) - half:]]
    return over


@register("derive")
def net_topology_case_compact_grid(params: Mapping[str, Any], base: "Scenario") -> dict[str, Any]:
    """fu-topologies side sweep, grid cases: the n/2 row flows and n/2 column flows on rows and
    columns 2 apart (400 m), centred on the 13x13 grid, instead of spread evenly."""
    over = net_topology_case(params, base)
    case = CASES[params.get("name", base.document.get("name"))]
    if case.topology.get("kind") != "grid":
        raise SpecError(f"net_topology_case_compact_grid: case {case.id} is not a grid")
    k, mid = case.n_flows // 2, int(case.topology["rows"]) // 2
    lines = [mid - (k - 1) + 2 * i for i in range(k)]
    cols = int(case.topology["cols"])
    pairs = [((r * cols, r * cols + cols - 1) if i % 2 == 0 else (r * cols + cols - 1, r * cols))
             for i, r in enumerate(lines)]
    pairs += [((c, (cols - 1) * cols + c) if i % 2 == 0 else ((cols - 1) * cols + c, c)) for i, c in enumerate(lines)]
    template = {k2: v for k2, v in over["flows"][0].items() if k2 not in ("src", "dst", "count")}
    over["flows"] = [{**template, "src": s, "dst": d} for s, d in pairs]
    return over


def _min_hops_builder(min_hops: int) -> Any:
    def build(params: Mapping[str, Any], base: "Scenario") -> dict[str, Any]:
        over = net_topology_case(params, base)
        if "random_flows" not in over:
            raise SpecError(f"net_topology_case_min_hops_{min_hops}: only for the random case")
        over["random_flows"] = {**over["random_flows"], "min_hops": min_hops}
        return over

    build.__name__ = f"net_topology_case_min_hops_{min_hops}"
    build.__doc__ = (f"fu-topologies side sweep, random case: the 20 flows drawn between nodes at least {min_hops} "
                     "hops apart (same placements).")
    return build


net_topology_case_min_hops_2 = register("derive", name="net_topology_case_min_hops_2")(_min_hops_builder(2))
net_topology_case_min_hops_3 = register("derive", name="net_topology_case_min_hops_3")(_min_hops_builder(3))

TOPOLOGY_SWITCHES = {
    "delayed-ack": "delayed ACKs", "staggered-starts": "flow i starts at i s",
    "basic-rate-2": "control frames at 2 Mb/s", "min-rto-20ms": "min RTO 20 ms (ns-2 before 2004)",
    "chains-both-directions": "chains: half the flows in the other direction",
    "grid-compact": "grids: rows/columns 2 apart, centred",
}


def _layout_evidence(ctx: "Context", claim: "Claim", side: str, what: str) -> Evidence:
    est, holds, dev = claim_on(ctx.side(side), claim, {})
    return Evidence(holds, f"{what}: {est.mean * claim.scale:.4g} {claim.unit} ({dev})")


@register("evidence")
def net_grid4_compact_layout(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> Evidence:
    """Grid, 4 flows: 'spaced evenly' read as rows and columns 2 apart in the middle of the grid."""
    return _layout_evidence(ctx, claim, "grid-compact", "with the row and column flows 2 apart in the middle")


@register("evidence")
def net_random_pairs_two_hops_apart(ctx: "Context", claim: "Claim", point: Mapping[str, Any]) -> Evidence:
    """Random networks: the 20 flows drawn between nodes at least 2 hops apart (same placements)."""
    return _layout_evidence(ctx, claim, "random-min-hops-2", "with flows between nodes at least 2 hops apart")


def _summary(df: "pd.DataFrame") -> dict[str, float]:
    """Best and MaxWin-32 throughput (Kbps), best MaxWin, paired loss (%), window and fairness at 32."""
    if not len(df):
        return {k: math.nan for k in ("best", "best_w", "t32", "loss", "win", "fair")}
    df = df.assign(kbps=df["aggregate_goodput_bps"] / 1e3)
    curve = df.groupby("tcp.max_window")["kbps"].mean()
    best_w = int(curve.idxmax())
    top = int(curve.index.max())
    at_best = df[df["tcp.max_window"] == best_w].set_index("seed")["kbps"]
    at_top = df[df["tcp.max_window"] == top].set_index("seed")["kbps"]
    loss = float((1 - at_top / at_best).mean() * 100)
    cw = list(per_id(df, "flow", "avg_cwnd").values())
    last = df[df["tcp.max_window"] == top]
    fair = float(last["fairness_jain"].mean()) if "fairness_jain" in last.columns else math.nan
    return {"best": float(curve.max()), "best_w": best_w, "t32": float(curve.loc[top]), "loss": loss,
            "win": float(last[cw].sum(axis=1, min_count=1).mean()) if cw else math.nan, "fair": fair}


def _case_rows(df: "pd.DataFrame", cid: str, windows: Sequence[int] | None = None,
               seeds: Sequence[int] | None = None) -> "pd.DataFrame":
    if "name" not in df.columns:
        return df.iloc[0:0]
    sel = df[df["name"] == cid]
    if windows is not None:
        sel = sel[sel["tcp.max_window"].isin(windows)]
    if seeds is not None:
        sel = sel[sel["seed"].isin(seeds)]
    return sel


def _stop_and_wait_bound(ctx: "Context", hops: int) -> dict[str, float]:
    """What one TCP segment in flight allows on ``hops`` hops with the scenario's MAC timing: per hop
    one DATA exchange and one TCP ACK exchange, each a saturation cycle of the core's single-hop model."""
    from ...models import model
    from ..checks import _DATA_OVERHEAD, _UDP_IP_BYTES

    r = ctx.resolved(ctx.points[0])
    radio, mac = r["radio"], r["mac"]
    fmt = mac.get("frame_format", "ns2")
    payload = int(r["tcp"]["payload_bytes"])

    def cycle_s(ip_bytes: int) -> float:
        frame = ip_bytes + _DATA_OVERHEAD.get(fmt, 34)
        access = "rts_cts" if frame >= int(mac.get("rts_threshold_bytes", 0)) else "basic"
        got = model("single_hop", payload_bytes=ip_bytes - _UDP_IP_BYTES, distance_m=1.0, standard=radio["standard"],
                    data_rate_mbps=radio["data_rate_mbps"], basic_rate_mbps=radio["basic_rate_mbps"],
                    frame_format=fmt, access=access)
        return float(got["cycle_s"])

    per_hop = cycle_s(payload + 40) + cycle_s(40)  # TCP/IP headers: 40 bytes
    return {"segment_bytes": payload, "hop_exchange_ms": 1e3 * per_hop,
            "maxwin1_kbps": payload * 8 / (hops * per_hop) / 1e3}


@register("values")
def net_topologies_values(ctx: "Context") -> dict[str, Any]:
    """Numbers quoted in fu-topologies' notes: the main sweep per case beside Table 2, every
    side sweep summarised per case, and the random networks' flow draws."""
    out: dict[str, Any] = {}
    main = ctx.runs
    rows = ["| case | best (Kbps) | paper | MaxWin 32 (Kbps) | paper | loss (%) | paper | avg window at 32 | paper | "
            "Jain at MaxWin 1 | Jain at 32 |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for cid, c in CASES.items():
        df = _case_rows(main, cid)
        s = _summary(df)
        for k, v in s.items():
            out[f"{cid}_{k}"] = v
        j1 = float(df[df["tcp.max_window"] == 1]["fairness_jain"].mean()) if len(df) else math.nan
        out[f"{cid}_fair1"] = j1
        rows.append(f"| {cid} | {_fmt(s['best'])} | {c.paper_best_kbps:g} | {_fmt(s['t32'])} | "
                    f"{c.paper_unbounded_kbps:g} | {_fmt(s['loss'], '.1f')} | {c.paper_loss_pct:.1f} | "
                    f"{_fmt(s['win'], '.1f')} | {_fmt(c.paper_avg_window, 'g')} | {_fmt(j1, '.2f')} | "
                    f"{_fmt(s['fair'], '.2f')} |")
    out["main_table"] = "\n".join(rows)
    ref = ctx.side("delayed-ack").runs
    windows = sorted(int(w) for w in ref["tcp.max_window"].unique())
    seeds = sorted(int(x) for x in ref["seed"].unique())
    out["side_windows"] = ", ".join(map(str, windows))
    out["side_seeds"] = f"{seeds[0]}..{seeds[-1]}" if seeds else "-"
    rows = ["| case | variant | best (Kbps) | best MaxWin | MaxWin 32 (Kbps) | loss (%) | avg window at 32 | "
            "Jain at 32 |", "|---|---|---|---|---|---|---|---|"]
    side_loss: dict[str, list[float]] = {}
    side_best: dict[str, list[float]] = {}
    for cid in [c for c in CASES if c not in ("grid12", "random20")]:
        for side, label in [("", "as the entry"), *TOPOLOGY_SWITCHES.items()]:
            df = _case_rows(ctx.side(side).runs if side else main, cid, windows, seeds)
            if not len(df):
                continue
            s = _summary(df)
            if side:
                side_loss.setdefault(cid, []).append(s["loss"])
                side_best.setdefault(cid, []).append(s["best"])
            rows.append(f"| {cid} | {label} | {_fmt(s['best'])} | {s['best_w']} | {_fmt(s['t32'])} | "
                        f"{_fmt(s['loss'], '.1f')} | {_fmt(s['win'], '.1f')} | {_fmt(s['fair'], '.2f')} |")
    out["switch_table"] = "\n".join(rows)
    others = [v for cid, vs in side_loss.items() if cid != "chain7x3" for v in vs if v == v]
    out["side_loss_max"] = max(others, default=math.nan)
    out["chain6x6_side_best_max"] = max((v for v in side_best.get("chain6x6", []) if v == v), default=math.nan)
    compact = ctx.side("grid-compact").runs
    for cid in ("grid4", "grid8"):
        for k, v in _summary(_case_rows(compact, cid)).items():
            out[f"{cid}_compact_{k}"] = v
    rand = ["| flows drawn between | best (Kbps) | best MaxWin | MaxWin 32 (Kbps) | loss (%) | 1-hop flows per draw | "
            "their share of the aggregate at 32 |", "|---|---|---|---|---|---|---|"]
    c = CASES["random20"]
    rand.append(f"| **paper** | {c.paper_best_kbps:g} | - | {c.paper_unbounded_kbps:g} | {c.paper_loss_pct:.1f} | - | - |")
    for side, label, key in (("", "any two nodes (as the entry)", "random"),
                             ("random-min-hops-2", "nodes at least 2 hops apart", "random_min2"),
                             ("random-min-hops-3", "nodes at least 3 hops apart", "random_min3")):
        df = ctx.side(side).runs if side else _case_rows(main, "random20")
        s = _summary(df)
        top = df[df["tcp.max_window"] == df["tcp.max_window"].max()] if len(df) else df
        hops, goodput = per_id(top, "flow", "hops"), per_id(top, "flow", "goodput_bps")
        n_one = sum(float((top[k] == 1).sum()) for k in hops.values()) / max(len(top), 1)
        one = sum(float((top[goodput[i]] * (top[k] == 1)).sum()) for i, k in hops.items())
        total = float(top["aggregate_goodput_bps"].sum()) if len(top) else math.nan
        out[f"{key}_best"], out[f"{key}_t32"] = s["best"], s["t32"]
        out[f"{key}_one_hop_flows"] = n_one
        out[f"{key}_one_hop_share"] = 100 * one / total if total else math.nan
        rand.append(f"| {label} | {_fmt(s['best'])} | {s['best_w']} | {_fmt(s['t32'])} | {_fmt(s['loss'], '.1f')} | "
                    f"{n_one:.1f} | {_fmt(out[f'{key}_one_hop_share'], '.0f')}% |")
    out["random_table"] = "\n".join(rand)
    bound = _stop_and_wait_bound(ctx, 12)
    out.update({f"sw12_{k}": v for k, v in bound.items()})
    out["sw12_eight_flows_kbps"] = 8 * bound["maxwin1_kbps"]
    out["runs"] = len(main)
    out["wall_s"] = float(main["wall_time_s"].sum()) if "wall_time_s" in main.columns else math.nan
    random_wall = float(_case_rows(main, "random20")["wall_time_s"].sum()) if "wall_time_s" in main.columns else math.nan
    out["random_wall_pct"] = 100 * random_wall / out["wall_s"] if out["wall_s"] else math.nan
    return out


# --------------------------------------------------------------------------------------
# Unspecified quantities (the claims' ``unspecified`` ranges): every reading the papers'
# words allow, measured on the runs the entry holds
# --------------------------------------------------------------------------------------

#: what a node's "buffer occupancy" (Table 3 / Table 4) counts: the packets waiting in the
#: interface queue, or those plus the one the MAC holds (ns-2's queue hands a packet to the MAC
#: only when it is idle, so while any packet waits the MAC holds one)
OCCUPANCY_READINGS = ("waiting in the queue", "waiting + the one the MAC holds")


def node_occupancy(df: "pd.DataFrame", node: int, stat: str, reading: str) -> "pd.Series":
    """A node's maximum (``queue_max``) or time-average (``queue_avg``) occupancy per run under
    one of :data:`OCCUPANCY_READINGS`."""
    if reading not in OCCUPANCY_READINGS:
        raise SpecError(f"occupancy reading {reading!r}; allowed: {', '.join(OCCUPANCY_READINGS)}")
    waiting = _col(df, f"node.{node}.{stat}")
    if reading == OCCUPANCY_READINGS[0]:
        return waiting
    if stat == "queue_avg":
        return waiting + _col(df, f"node.{node}.backlog_frac")
    # a packet waits only while the MAC holds another one; a node that never queued held at most one
    held = (_col(df, f"node.{node}.backlog_frac") > 0).astype(float)
    return (waiting + 1).where(waiting > 0, held)


@register("check")
def net_node_queue_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, node: str,
                            stat: str) -> list[tuple[str, Estimate]]:
    """fu-queues: a node's maximum or average queue (8-hop chain, buffer 30) under each reading
    of what the tables' "buffer occupancy" counts (:data:`OCCUPANCY_READINGS`)."""
    if stat not in ("queue_max", "queue_avg"):
        raise SpecError(f"stat = {stat!r}; allowed: queue_max, queue_avg")
    if not (isinstance(node, str) and len(node) == 1 and node in NODE_LETTERS):
        raise SpecError(f"node = {node!r}; allowed: {', '.join(NODE_LETTERS)}")
    df = _table_runs(_slim(runs))
    return [(r, mean_ci(node_occupancy(df, NODE_LETTERS.index(node), stat, r))) for r in OCCUPANCY_READINGS]


@register("check")
def net_contention_drops_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]
                                  ) -> list[tuple[str, Estimate]]:
    """fu-queues: the contention drops of Table 3's run per 300 s, counting TCP data segments and
    ACKs, or data segments alone (the paper's 165 does not say which)."""
    df = _table_runs(_slim(runs))
    k = _per_300s(ctx)
    return [("data segments and ACKs", mean_ci(_contention(df) * k)),
            ("data segments only", mean_ci(_contention_of(df, "tcp_data") * k))]


@register("check")
def net_case_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, check: Mapping[str, Any]
                      ) -> list[tuple[str, Estimate]]:
    """fu-topologies: one of Table 2's claims (``check``: a check table, ``fn`` and its arguments,
    naming its case as ``case`` or ``where.name``) measured on the main sweep ("as the entry") and
    on each side sweep of :data:`CASE_READINGS` for that case, each of which runs one other
    reading of a detail the papers leave open. A side sweep not run, or without runs of the
    case (the quick versions), is left out."""
    from ..registry import need

    args = {k: v for k, v in check.items() if k != "fn"}
    case = args.get("case") or (args.get("where") or {}).get("name")
    if case not in CASE_READINGS:
        raise SpecError(f"net_case_readings: check names case {case!r}; allowed: {', '.join(CASE_READINGS)}")
    fn = need("check", str(check["fn"]))
    out = [("as the entry", fn(ctx, ctx.runs, point, **args))]
    for label, side in CASE_READINGS[case].items():
        try:
            sctx = ctx.side(side)
        except SpecError:
            continue
        if "name" not in sctx.runs.columns or not (sctx.runs["name"] == case).any():
            continue
        out.append((label, fn(sctx, sctx.runs, point, **args)))
    return out


#: the side sweeps that run another reading of a detail the papers leave open, per case
#: (the claims' ``unspecified`` ranges name the same ones)
CASE_READINGS: dict[str, dict[str, str]] = {
    "chain6x6": {"half the flows from the last node to node 0": "chains-both-directions",
                 "flow i starts at i s": "staggered-starts", "AODV": "aodv"},
    "cross2": {"flow i starts at i s": "staggered-starts", "AODV": "aodv"},
    "grid4": {"rows/columns 2 apart in the middle": "grid-compact", "flow i starts at i s": "staggered-starts",
              "AODV (3 seeds)": "aodv-large"},
    "grid12": {"AODV (3 seeds)": "aodv-large"},
    "random20": {"nodes at least 2 hops apart": "random-min-hops-2", "nodes at least 3 hops apart": "random-min-hops-3",
                 "AODV (3 placements)": "aodv-large"},
}
CASE_READINGS["chain7x3"] = CASE_READINGS["chain6x6"]
CASE_READINGS["grid8"] = CASE_READINGS["grid4"]


@register("values")
def net_topologies_readings_values(ctx: "Context") -> dict[str, Any]:
    """fu-topologies' notes: every case of Table 2 under every reading its claims' unspecified
    ranges run (``readings_table``), and the AODV side sweeps' losses (``aodv_loss_*``)."""
    from .fu_network import net_avg_window, net_best_kbps, net_best_window, net_loss_pct, net_unbounded_kbps

    rows = ["| case | reading | best (Kbps) | best MaxWin | MaxWin 32 (Kbps) | loss (%) | avg window at 32 | runs |",
            "|---|---|---|---|---|---|---|---|"]
    out: dict[str, Any] = {}
    for cid, c in CASES.items():
        rows.append(f"| {cid} | **paper** | {c.paper_best_kbps:g} | - | {c.paper_unbounded_kbps:g} | "
                    f"{c.paper_loss_pct:.1f} | {_fmt(c.paper_avg_window, 'g')} | 1 per MaxWin |")
        for label, side in [("as the entry", ""), *CASE_READINGS.get(cid, {}).items()]:
            try:
                sctx = ctx.side(side) if side else ctx
            except SpecError:
                continue
            runs = _slim(sctx.runs)
            n = int((runs["name"] == cid).sum()) if "name" in runs.columns else 0
            if not n:
                continue
            best_w = net_best_window(cid, runs).mean
            loss = net_loss_pct(cid, runs).mean
            if side in ("aodv", "aodv-large"):
                out[f"aodv_loss_{cid}"] = loss
            rows.append(f"| {cid} | {label} | {_fmt(net_best_kbps(cid, runs).mean)} | {_fmt(best_w, '.0f')} | "
                        f"{_fmt(net_unbounded_kbps(cid, runs).mean)} | {_fmt(loss, '.1f')} | "
                        f"{_fmt(net_avg_window(cid, runs).mean, '.1f')} | {n} |")
    out["readings_table"] = "\n".join(rows)
    for cid in CASES:
        out.setdefault(f"aodv_loss_{cid}", math.nan)
    return out


def _neighbour_drop_rho(rows: Sequence[Mapping[str, Any]], radius_m: float, peak: bool) -> float:
    """Spearman's rho over the nodes of one placement (``rows``: its runs, one per MaxWin, the
    last at MaxWin 32) between a node's active neighbours within ``radius_m`` at MaxWin 32 and its
    drop probability: at MaxWin 32, or (``peak``) the largest over the MaxWin values run."""
    from .fu_network import _spearman, active_neighbours_vs_drops

    top = rows[-1]
    if not peak:
        return _spearman(*active_neighbours_vs_drops(top, radius_m))
    ids = sorted({int(k.split(".")[1]) for k in top if k.startswith("node.") and k.endswith(".x")})
    worst = {i: max((float(r.get(f"node.{i}.mac_drops") or 0) / float(r[f"node.{i}.mac_packets"])
                     for r in rows if (r.get(f"node.{i}.mac_packets") or 0) > 0), default=math.nan) for i in ids}
    ks, _ = active_neighbours_vs_drops(top, radius_m)
    handled = [i for i in ids if (top.get(f"node.{i}.mac_packets") or 0) > 0]
    return _spearman(ks, [worst[i] for i in handled])


@register("check")
def net_neighbour_drop_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]
                                ) -> list[tuple[str, Estimate]]:
    """fu-topologies, TR §4.3: the neighbour / drop correlation (mean over the placements of the
    cross, the grids and the random networks) with neighbours counted within the transmission
    range (the claim) or the carrier-sense range, and a node's drop probability at MaxWin 32 (the
    claim) or its largest over the MaxWin values run ("the maximum drop probability")."""
    from .fu_network import COMPLEX_CASES

    keep = [c for c in runs.columns if c in ("name", "seed", "tcp.max_window") or (
        c.startswith("node.") and c.rsplit(".", 1)[-1] in ("x", "y", "data_sent", "mac_packets", "mac_drops"))]
    df = runs[keep]
    df = df[df["name"].isin(list(COMPLEX_CASES))] if "name" in df.columns else df.iloc[0:0]
    if df.empty or not any(c.endswith(".mac_packets") for c in df.columns):
        raise SpecError("no runs of the cross, grids or random networks with node.N.mac_packets")
    radio = ctx.resolved(point)["radio"]
    groups = [sorted(g.to_dict("records"), key=lambda r: r["tcp.max_window"]) for _, g in df.groupby(["name", "seed"])]
    groups = [g for g in groups if g[-1]["tcp.max_window"] == 32]
    out = []
    for rname, radius in (("transmission", float(radio["tx_range_m"])), ("carrier-sense", float(radio["cs_range_m"]))):
        for pname, peak in (("at MaxWin 32", False), ("largest over MaxWin", True)):
            out.append((f"neighbours within the {rname} range, drop probability {pname}",
                        mean_ci([_neighbour_drop_rho(g, radius, peak) for g in groups])))
    return out


@register("check")
def net_routing_readings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, check: Mapping[str, Any]
                         ) -> list[tuple[str, Estimate]]:
    """fu-topologies: a claim over several cases (``check``: a check table) on the main sweep
    (static routes) and on the AODV side sweeps ``aodv`` and ``aodv-large`` taken together
    (routing that treats a MAC retry-limit drop as a link break)."""
    import pandas as pd

    from ..registry import need

    fn = need("check", str(check["fn"]))
    args = {k: v for k, v in check.items() if k != "fn"}
    out = [("static routes", fn(ctx, ctx.runs, point, **args))]
    parts = []
    for side in ("aodv", "aodv-large"):
        try:
            parts.append(ctx.side(side).runs)
        except SpecError:
            continue
    if parts:
        both = pd.concat(parts, ignore_index=True)
        try:
            out.append(("AODV (side sweeps aodv and aodv-large)", fn(ctx, both, point, **args)))
        except SpecError:  # a case the side sweeps do not run (the quick versions)
            pass
    return out
