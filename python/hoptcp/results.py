"""The result of one simulation run, as dicts and pandas tables.

pandas is imported only when a table is asked for, so the CLI's ``run`` stays fast.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .errors import SpecError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: keys of the result that are run metadata, not metrics
META_KEYS = frozenset({"seed", "hoptcp_version"})
#: keys holding time series (lists), kept out of the scalar metrics
SERIES_KEYS = frozenset({"series", "time_series", "air"})
#: the time series a run can record (``stats.series``; ``hoptcp run --series``); ``air`` is the
#: air trace (frames, their fates, packet events, drops: :attr:`RunResult.air`), not a table
SERIES_KINDS = ("gateway", "tcp_ap", "cwnd", "ssthresh", "rtt", "rto", "goodput", "queue", "mac", "air")
#: the kinds :meth:`RunResult.time_series` and ``hoptcp plot --run`` draw (pacing estimators)
PACING_SERIES_KINDS = ("gateway", "tcp_ap")
#: values of the ``mac`` series' ``state`` metric
MAC_STATES = ("idle", "backoff", "defer", "tx", "rx")
#: column order of the flow and node tables (other keys follow, in the core's order)
FLOW_ORDER = ("src", "dst", "transport", "app", "hops", "packets_sent", "packets_delivered", "bytes_delivered",
              "goodput_bps", "avg_cwnd", "avg_rtt_s", "retransmissions", "timeouts", "fast_retransmits")
NODE_ORDER = ("x", "y", "rts_sent", "cts_timeouts", "ack_timeouts", "retries", "rx_collisions", "cts_withheld",
              "queue_max", "queue_avg", "mac_drops", "lred_marks", "lred_drops", "lred_avg_retry", "pacing_active_s",
              "pacing_backoffs", "pacing_extra_s")


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float))


def _singular(name: str) -> str:
    return name[:-1] if name.endswith("s") and len(name) > 1 else name


def flatten_metrics(raw: Mapping[str, Any]) -> dict[str, Any]:
    """All numeric scalars of a result under dotted names.

    ``flows``/``nodes`` (lists of objects with an ``id``) become ``flow.<id>.<key>`` and
    ``node.<id>.<key>``; nested objects become ``a.b.c``; lists of numbers and strings
    are left out. Unknown keys are handled the same way, so new core metrics appear
    without changes here.
    """
    out: dict[str, Any] = {}

    def walk(prefix: str, v: Any) -> None:
        if isinstance(v, Mapping):
            for k, sub in v.items():
                walk(f"{prefix}.{k}" if prefix else str(k), sub)
        elif isinstance(v, list):
            if v and all(isinstance(x, Mapping) for x in v):
                head, _, tail = prefix.rpartition(".")
                base = f"{head}.{_singular(tail)}" if head else _singular(tail)
                for i, item in enumerate(v):
                    ident = item.get("id", i)
                    walk(f"{base}.{ident}", {k: x for k, x in item.items() if k != "id"})
            # lists of numbers (histograms, series) are not scalars
        elif _is_scalar(v) and prefix:
            out[prefix] = v

    for key, value in raw.items():
        if key in META_KEYS or key in SERIES_KEYS:
            continue
        walk(key, value)
    return out


#: The long format of metrics, declared once: one row per value. ``run`` numbers the runs of a
#: frame (the row index of a sweep's frame, or 0 for one :class:`RunResult`); ``flow`` and ``node``
#: are ids (``<NA>`` for a metric of the whole run); ``metric`` is the name without its id
#: (``goodput_bps``; ``drops.total`` for a run's).
LONG_COLUMNS = ("run", "flow", "node", "metric", "value")
#: the per-id scopes of :func:`flatten_metrics` names (``flow.<id>.<metric>``, ``node.<id>.<metric>``)
ID_SCOPES = ("flow", "node")


@functools.lru_cache(maxsize=65536)
def split_metric(name: str) -> tuple[str | None, int | None, str]:
    """The scope, id and metric of a flat name: ``flow.3.goodput_bps`` -> ("flow", 3, "goodput_bps"),
    ``drops.total`` -> (None, None, "drops.total"). The one place dotted names are read back."""
    scope, _, rest = name.partition(".")
    ident, _, metric = rest.partition(".")
    if scope in ID_SCOPES and ident.isdigit() and metric:
        return scope, int(ident), metric
    return None, None, name


def per_id(runs: "pd.DataFrame | Mapping[str, Any]", scope: str, metric: str) -> dict[int, str]:
    """The flat names of ``metric`` for each id of ``scope`` in a frame's columns (or a row's keys),
    in the order they come: ``per_id(df, "node", "queue_avg")`` -> {0: "node.0.queue_avg", ...}."""
    names = tuple(runs.columns if hasattr(runs, "columns") else runs.keys())
    return dict(_per_id(names, scope, metric))


@functools.lru_cache(maxsize=1024)
def _per_id(names: tuple[Any, ...], scope: str, metric: str) -> tuple[tuple[int, str], ...]:
    # Cached on the names: a bootstrap asks the same question of every resample and every row.
    out: dict[int, str] = {}
    for name in names:
        if isinstance(name, str):
            sc, ident, m = split_metric(name)
            if sc == scope and m == metric and ident is not None:
                out[ident] = name
    return tuple(out.items())


def id_table(runs: "pd.DataFrame", scope: str, metric: str) -> "pd.DataFrame":
    """``metric`` of every ``scope`` id, one column per id (named by the id), one row per run."""
    cols = per_id(runs, scope, metric)
    return runs[list(cols.values())].set_axis(list(cols), axis=1)


def long_frame(runs: "pd.DataFrame", metrics: Sequence[str] | None = None) -> "pd.DataFrame":
    """A frame of runs (one row per run, flat metric columns) in the long format of
    :data:`LONG_COLUMNS`; ``metrics`` chooses the columns (default: ``runs.attrs["metrics"]``, else
    every column whose values are numbers). Missing values are left out."""
    import pandas as pd

    names = list(metrics if metrics is not None else runs.attrs.get("metrics") or
                 [c for c in runs.columns if pd.api.types.is_numeric_dtype(runs[c]) and c != "seed"])
    parts = []
    for name in names:
        scope, ident, metric = split_metric(name)
        col = runs[name].reset_index(drop=True)
        keep = col.notna()
        n = int(keep.sum())
        parts.append(pd.DataFrame({
            "run": col.index[keep], "flow": pd.array([ident if scope == "flow" else None] * n, dtype="Int64"),
            "node": pd.array([ident if scope == "node" else None] * n, dtype="Int64"),
            "metric": [metric] * n, "value": col[keep].astype(float).to_numpy()}))
    if not parts:
        return pd.DataFrame({c: [] for c in LONG_COLUMNS})
    return pd.concat(parts, ignore_index=True)[list(LONG_COLUMNS)]


class RunResult:
    """One simulation run. ``raw`` is the core's JSON as a dict."""

    def __init__(self, raw: Mapping[str, Any] | str, scenario: Any = None):
        self.raw: dict[str, Any] = json.loads(raw) if isinstance(raw, str) else dict(raw)
        self.scenario = scenario

    # --- scalars ----------------------------------------------------------------
    @property
    def seed(self) -> int | None:
        return self.raw.get("seed")

    @property
    def summary(self) -> dict[str, Any]:
        r = self.raw
        wall = r.get("wall_time_s") or 0.0
        drops = r.get("drops", {}) or {}
        total_drops = drops.get("total")
        if not isinstance(total_drops, (int, float)):
            total_drops = sum(v for k, v in drops.items() if k != "by_kind" and isinstance(v, (int, float)))
        s = {
            "hoptcp_version": r.get("hoptcp_version"),
            "seed": r.get("seed"),
            "duration_s": r.get("duration_s"),
            "flows": len(r.get("flows", [])),
            "nodes": r.get("node_count", len(r.get("nodes", []))),
            "aggregate_goodput_bps": r.get("aggregate_goodput_bps"),
            "fairness_jain": r.get("fairness_jain"),
            "drops": total_drops,
            "events": r.get("events"),
            "wall_time_s": r.get("wall_time_s"),
        }
        if wall > 0:
            if r.get("events") is not None:
                s["events_per_s"] = r["events"] / wall
            if r.get("duration_s") is not None:
                s["speedup"] = r["duration_s"] / wall
        return s

    @property
    def warnings(self) -> list[str]:
        """Settings of this run that had no effect (e.g. ECN with nothing marking)."""
        return [str(w) for w in self.raw.get("warnings") or []]

    def metrics(self) -> dict[str, Any]:
        """Flat dict of every scalar metric (``flow.0.goodput_bps``, ``drops.ttl``, ...)."""
        return flatten_metrics(self.raw)

    @property
    def long(self) -> "pd.DataFrame":
        """Every numeric metric of the run in the long format (:data:`LONG_COLUMNS`, ``run`` = 0)."""
        import pandas as pd

        flat = {k: v for k, v in self.metrics().items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        return long_frame(pd.DataFrame([flat]), list(flat))

    # --- tables -----------------------------------------------------------------
    @property
    def flows(self) -> "pd.DataFrame":
        return _records_frame(self.raw.get("flows", []), FLOW_ORDER)

    @property
    def nodes(self) -> "pd.DataFrame":
        return _records_frame(self.raw.get("nodes", []), NODE_ORDER)

    @property
    def drops(self) -> "pd.DataFrame":
        """Long table: one row per (cause, kind); ``kind == "all"`` holds the totals."""
        import pandas as pd

        return pd.DataFrame(drop_rows(self.raw.get("drops", {}) or {}), columns=["cause", "kind", "count"])

    @property
    def link_drops(self) -> "pd.DataFrame":
        """The MAC's retry-limit drops per wireless link (``from`` → ``to``, the next hop) and
        packet kind; links without drops are left out."""
        import pandas as pd

        cols = ["from", "to", "tcp_data", "tcp_ack", "udp", "aodv"]
        return pd.DataFrame([{k: d[k] for k in cols} for d in self.raw.get("link_drops", [])], columns=cols)

    @property
    def routing(self) -> "pd.DataFrame":
        """The routing protocol's counters (AODV): one row per node plus a ``total`` row;
        empty under static routing. Per-flow route breaks and discoveries are columns of
        :attr:`flows`."""
        import pandas as pd

        r = self.raw.get("routing")
        if not r:
            return pd.DataFrame()
        keys = [k for k, v in r.items() if k != "protocol" and _is_scalar(v)]
        rows = {n.get("id", i): {k: n.get(k) for k in keys} for i, n in enumerate(self.raw.get("nodes", []))}
        rows["total"] = {k: r[k] for k in keys}
        df = pd.DataFrame.from_dict(rows, orient="index", columns=keys)
        df.index.name = "node"
        return df

    @property
    def cwnd_hist(self) -> "pd.DataFrame":
        """Seconds spent at each congestion-window size, per TCP flow (long table)."""
        import pandas as pd

        rows = [
            {"flow": f.get("id", i), "window": w, "seconds": s}
            for i, f in enumerate(self.raw.get("flows", []))
            for w, s in enumerate(f.get("cwnd_hist") or [])
        ]
        return pd.DataFrame(rows, columns=["flow", "window", "seconds"])

    @property
    def batch_means(self) -> pd.DataFrame:
        """Batch-means estimates of a run with ``stats.batches``: one row per
        measure (``aggregate_goodput_bps``, ``fairness_jain``,
        ``flow.<id>.goodput_bps``) with ``mean``, ``ci`` (half-width at
        ``batch_means.confidence``) and ``batches`` (how many were kept)."""
        import pandas as pd

        bm = self.raw.get("batch_means")
        if not bm:
            raise SpecError("this run has no batch_means: set stats.batches = N and stats.batch_packets = k")
        kept = max(int(bm.get("completed", 0)) - int(bm.get("discarded", 0)), 0)
        named = [("aggregate_goodput_bps", bm["aggregate_goodput_bps"]), ("fairness_jain", bm["fairness_jain"])]
        named += [(f"flow.{f['id']}.goodput_bps", f["goodput_bps"]) for f in bm.get("flows", [])]
        rows = [{"measure": n, "mean": e.get("mean"), "ci": e.get("ci"), "batches": kept} for n, e in named]
        return pd.DataFrame(rows, columns=["measure", "mean", "ci", "batches"]).set_index("measure")

    @property
    def series(self) -> "pd.DataFrame":
        """Per-interval goodput (when the scenario asked for a series): time_s, flow, goodput_bps,
        and with AODV route_breaks (breaks of the flow's packets in the interval)."""
        import pandas as pd

        s = self.raw.get("series") or {}
        dt = s.get("interval_s")
        breaks = s.get("route_breaks")
        rows = []
        for fid, values in (s.get("flows") or {}).items():
            for i, v in enumerate(values):
                row = {"time_s": (i + 1) * dt if dt else i, "flow": int(fid) if str(fid).isdigit() else fid,
                       "goodput_bps": v}
                if breaks is not None:
                    row["route_breaks"] = (breaks.get(fid) or [0] * len(values))[i]
                rows.append(row)
        columns = ["time_s", "flow", "goodput_bps"] + (["route_breaks"] if breaks is not None else [])
        return pd.DataFrame(rows, columns=columns)

    def window_caps(self) -> dict[int, float]:
        """Each TCP flow's cap on its window, MaxWin (``max_window``; ``"wstar"`` resolved to the
        flow's W*): from the run's scenario when the result has one (``hoptcp.run``), else
        (a result read back from JSON) the cap whose effective window min(cwnd, cap) averages
        to the report's ``avg_cwnd`` over the recorded cwnd series; a flow whose window never
        reached its cap has no entry then (no cap can be told from the run)."""
        tcp = [f for f in self.raw.get("flows") or [] if f.get("transport") == "tcp"]
        caps: dict[int, float] = {}
        if self.scenario is not None:
            try:
                doc = self.scenario.resolved()
            except Exception:  # a core without resolve (tests' fakes): infer as for JSON
                doc = {}
            resolved = doc.get("flows") or []
            default = (doc.get("tcp") or {}).get("max_window")
            for f in tcp:
                i = int(f["id"])
                mw = resolved[i].get("max_window", default) if i < len(resolved) else None
                if isinstance(mw, (int, float)) and not isinstance(mw, bool):
                    caps[i] = float(mw)
            if caps:
                return caps
        table = (self.raw.get("time_series") or {}).get("cwnd")
        if not table:
            return caps
        import numpy as np

        m = list(table["metrics"]).index("cwnd")
        t_all, ids, v_all = (np.asarray(table[k]) for k in ("time_s", "flow", "value"))
        sel = np.asarray(table["metric"]) == m
        end = float(self.raw.get("duration_s") or 0.0)
        for f in tcp:
            i, avg = int(f["id"]), f.get("avg_cwnd")
            k = sel & (ids == i)
            if avg is None or not k.any():
                continue
            t, v = t_all[k].astype(float), v_all[k].astype(float)
            dt = np.diff(np.append(t, max(end, t[-1])))
            span = dt.sum()
            if span <= 0:
                continue
            for cap in range(1, int(np.ceil(v.max()))):  # caps below the largest window reached
                if abs(float((np.minimum(v, cap) * dt).sum() / span) - avg) <= 1e-6 * max(avg, 1.0):
                    caps[i] = float(cap)
                    break
        return caps

    def timeseries(self, kind: str) -> "pd.DataFrame":
        """A time series the run recorded (``hoptcp.run(..., series=[kind])``, ``hoptcp run
        --series KIND`` or ``stats.series``), long format: ``time_s``, ``flow`` or ``node`` (what
        the kind is kept per), ``metric``, ``value``; one row each time a value changed.

        Per flow: ``cwnd`` (metrics ``cwnd``: the congestion window, fast-recovery inflation
        included, which may exceed MaxWin; ``cwnd_traced``: ns-2's traced ``cwnd_``, without the
        inflation; ``effective``: min(``cwnd``, MaxWin), the window the sender can have in flight,
        whose time average is the report's ``avg_cwnd`` — the papers' "window size";
        MaxWin from :meth:`window_caps`, a flow without a known cap has no ``effective`` rows),
        ``ssthresh``, ``rtt``
        (``rtt_s``, every sample), ``rto`` (``rto_s``, and the running counts ``timeouts`` and
        ``retransmissions``), ``goodput`` (``bytes_delivered`` so far). Per node: ``queue``
        (interface-queue length), ``mac`` (``state``: an index into :data:`MAC_STATES`;
        ``retries`` and ``drops`` so far). ``gateway`` and ``tcp_ap``: see :meth:`time_series`.
        """
        import pandas as pd

        if kind not in SERIES_KINDS or kind == "air":
            allowed = ", ".join(k for k in SERIES_KINDS if k != "air")
            hint = " (the air trace is RunResult.air)" if kind == "air" else ""
            raise SpecError(f"series kind {kind!r}: unknown; expected one of {allowed}{hint}")
        table = (self.raw.get("time_series") or {}).get(kind)
        if table is None:
            raise SpecError(f"this run has no {kind!r} series: run it with series=[{kind!r}] "
                            f"(hoptcp run --series {kind}, or stats.series = [\"{kind}\"])")
        key = table.get("keyed_by", "flow")
        metrics = list(table["metrics"])
        if kind == "cwnd" and "cwnd" in metrics:
            return self._cwnd_table(table, metrics)
        metric = pd.Categorical.from_codes(table["metric"], categories=metrics)
        return pd.DataFrame({"time_s": table["time_s"], key: table["flow"], "metric": metric,
                             "value": table["value"]}, columns=["time_s", key, "metric", "value"])

    def _cwnd_table(self, table: Mapping[str, Any], metrics: list[str]) -> "pd.DataFrame":
        """The cwnd series with the effective window min(cwnd, MaxWin) added per flow."""
        import numpy as np
        import pandas as pd

        t, ids, code, v = (np.asarray(table[k]) for k in ("time_s", "flow", "metric", "value"))
        caps = self.window_caps()
        eff = len(metrics)
        sel = (code == metrics.index("cwnd")) & np.isin(ids, list(caps))
        cap = np.array([caps.get(int(i), np.inf) for i in ids[sel]], dtype=float)
        t = np.concatenate([t, t[sel]])
        order = np.argsort(t, kind="stable")
        metric = pd.Categorical.from_codes(np.concatenate([code, np.full(int(sel.sum()), eff)])[order],
                                           categories=[*metrics, "effective"])
        return pd.DataFrame({"time_s": t[order], "flow": np.concatenate([ids, ids[sel]])[order], "metric": metric,
                             "value": np.concatenate([v.astype(float), np.minimum(v[sel], cap)])[order]},
                            columns=["time_s", "flow", "metric", "value"])

    @property
    def air(self) -> dict[str, Any]:
        """The air trace (``series=["air"]``): ``frames`` (one per frame put on the air: start,
        airtime, transmitter, kind, receiver, packet row, retry-limit drop), ``rx`` (each frame's
        fate at each intended receiver), ``packet_events`` (agent send/receive, forwarding),
        ``drops``, ``packets`` (the rows those refer to), node positions ``x``/``y`` and the
        name tables; all columns as lists, times in ns."""
        a = self.raw.get("air")
        if a is None:
            raise SpecError('this run has no air trace: run it with series=["air"] '
                            '(hoptcp run --series air, or stats.series = ["air"])')
        return dict(a)

    def time_series(self, kind: str = "gateway") -> "pd.DataFrame":
        """A time series the run recorded (``series=["gateway"]`` or ``stats.series``), long
        format: ``time_s``, ``flow`` (flow id), ``metric``, ``value``; one row each time a value
        changed (every sample for ``rtt_wireless_s`` and ``rtt_wired_s``).

        ``gateway``: TCP-GAP's estimate per flow at the Internet gateway; ``tcp_ap``: the same
        at each TCP-AP sender. Metrics: ``rtt_wireless_s`` (one RTT sample of the wireless part),
        ``fhd_s`` (FHD^), ``variation`` (cov_RTT), ``rate_pps`` (pacing rate in force),
        ``queue`` (packets waiting to be paced); gateway only: ``rtt_wired_s`` (written into a
        wireless sender's ACK), ``goodput_bps`` and ``cap_pps`` (Goodput Control, each period;
        cap 0 = none).
        """
        if kind not in PACING_SERIES_KINDS:
            raise SpecError(f"series kind {kind!r}: time_series() reads {', '.join(PACING_SERIES_KINDS)}; "
                            "the other kinds are read with timeseries(kind)")
        return self.timeseries(kind)

    def to_json(self) -> str:
        return json.dumps(self.raw, sort_keys=True, separators=(",", ":"))

    def __repr__(self) -> str:
        s = self.summary
        lines = [
            f"<RunResult seed={s['seed']} duration={s['duration_s']}s "
            f"flows={s['flows']} nodes={s['nodes']} hoptcp {s['hoptcp_version']}>",
            f"  aggregate goodput {_fmt_bps(s['aggregate_goodput_bps'])}, "
            f"Jain fairness {_fmt(s['fairness_jain'])}, drops {s['drops']}",
        ]
        for f in self.raw.get("flows", [])[:8]:
            extra = f", avg cwnd {_fmt(f['avg_cwnd'])}" if f.get("avg_cwnd") is not None else ""
            lines.append(
                f"  flow {f.get('id')}: {f.get('src')}->{f.get('dst')} {f.get('transport')}/{f.get('app')} "
                f"{f.get('hops')} hops, {_fmt_bps(f.get('goodput_bps'))}{extra}"
            )
        if len(self.raw.get("flows", [])) > 8:
            lines.append(f"  ... {len(self.raw['flows']) - 8} more flows")
        return "\n".join(lines)


def drop_rows(drops: Mapping[str, Any], nonzero: bool = False) -> list[tuple[str, str, Any]]:
    """(cause, kind, count) rows; kind "all" holds each cause's total (the
    core's "total" entry is the sum over causes and is not repeated here).
    With ``nonzero``, causes that dropped nothing in this run are left out."""
    rows = [(c, "all", n) for c, n in drops.items() if c not in ("by_kind", "total") and _is_scalar(n)]
    for kind, causes in (drops.get("by_kind") or {}).items():
        for c, n in (causes or {}).items():
            if _is_scalar(n):
                rows.append((c, kind, n))
    if nonzero:
        used = {c for c, _, n in rows if n}
        rows = [r for r in rows if r[0] in used]
    return rows


def ordered_keys(records: Sequence[Mapping[str, Any]], order: tuple[str, ...]) -> list[str]:
    """Scalar keys of ``records``: those in ``order`` first, then any others as they come."""
    present = {k for r in records for k, v in r.items() if not isinstance(v, (list, dict))}
    keys = [k for k in order if k in present]
    for r in records:
        keys += [k for k, v in r.items() if k in present and k not in keys and k != "id"]
    return keys


def _flat_record(r: Mapping[str, Any]) -> dict[str, Any]:
    """Scalars of a record; a nested object's scalars (a flow's ``pacing`` or
    ``http``) become dotted keys (``pacing.rate_pps``). Lists are left out."""
    out: dict[str, Any] = {}
    for k, v in r.items():
        if isinstance(v, Mapping):
            out.update({f"{k}.{kk}": vv for kk, vv in v.items() if not isinstance(vv, (list, dict))})
        elif not isinstance(v, list):
            out[k] = v
    return out


def _records_frame(records: list[Mapping[str, Any]], order: tuple[str, ...]) -> "pd.DataFrame":
    import pandas as pd

    rows = [_flat_record(r) for r in records]
    df = pd.DataFrame(rows, columns=(["id"] if any("id" in r for r in rows) else []) + ordered_keys(rows, order))
    if "id" in df.columns:
        df = df.set_index("id")
    return df


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _fmt_bps(v: Any) -> str:
    if v is None:
        return "-"
    v = float(v)
    for unit, scale in (("Mb/s", 1e6), ("kb/s", 1e3)):
        if abs(v) >= scale:
            return f"{v / scale:.4g} {unit}"
    return f"{v:.4g} b/s"
