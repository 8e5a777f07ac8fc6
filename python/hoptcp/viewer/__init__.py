"""``hoptcp view``: one self-contained HTML file that replays a run.

The run's air trace and time series (``stats.series``) are cut to a window, packed as typed
columns (times as microsecond deltas), compressed with zlib and embedded in base64; the page
decompresses them with the browser's ``DecompressionStream`` and draws on canvases with the
vanilla JavaScript in ``viewer.js``. Nothing is fetched when the file opens.
"""

from __future__ import annotations

import base64
import html
import json
import zlib
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import SpecError

#: the series a view needs recorded (the air trace, queue and MAC state per node, cwnd, goodput)
VIEW_SERIES = ("air", "cwnd", "goodput", "queue", "mac")
#: above this many nodes a view does not record the ``mac`` series: every hearer of every frame
#: changes state twice, about a million points per simulated second for 1,000 nodes; the page
#: then shows each node transmitting or receiving from the air trace instead
MAC_STATES_MAX_NODES = 300


class _Pack:
    """Named typed columns concatenated into one zlib-compressed, base64 blob."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.index: dict[str, list[Any]] = {}
        self.size = 0

    def add(self, name: str, values: Any, dtype: str) -> None:
        a = np.ascontiguousarray(np.asarray(values, dtype=dtype))
        pad = (-self.size) % 8
        if pad:
            self.parts.append(b"\0" * pad)
            self.size += pad
        self.index[name] = [np.dtype(dtype).name, self.size, int(a.size)]
        b = a.tobytes()
        self.parts.append(b)
        self.size += len(b)

    def blob(self) -> str:
        return base64.b64encode(zlib.compress(b"".join(self.parts), 9)).decode("ascii")


def _us_deltas(t_ns: np.ndarray, t0_ns: int) -> np.ndarray:
    """Sorted times (ns) as microsecond steps from ``t0_ns`` (cumulative sums give them back)."""
    us = np.round((t_ns.astype(np.int64) - t0_ns) / 1000.0).astype(np.int64)
    return np.diff(us, prepend=0).astype(np.uint32)


def _series_columns(pack: _Pack, prefix: str, table: Mapping[str, Any] | None, metric: str,
                    lo: float, hi: float, value_dtype: str = "float32",
                    cap: Mapping[int, float] | None = None) -> None:
    """Points of ``metric`` of a series table in the window, plus the last one before it (so the
    state at the window's start is known): time (microsecond steps from the window start), id,
    value. MAC states and queue lengths are small integers: packed as such, they compress to a
    fraction of their float size (they are most of a large network's page)."""
    if not table:
        pack.add(f"{prefix}.t", [], "uint32")
        pack.add(f"{prefix}.id", [], "uint32")
        pack.add(f"{prefix}.v", [], value_dtype)
        return
    m = list(table["metrics"]).index(metric)
    t = np.asarray(table["time_s"], dtype=np.float64)
    ids = np.asarray(table["flow"], dtype=np.int64)
    v = np.asarray(table["value"], dtype=np.float64)
    sel = np.asarray(table["metric"]) == m
    t, ids, v = t[sel], ids[sel], v[sel]
    if cap:  # the effective window min(cwnd, MaxWin) of each flow with a cap
        v = np.minimum(v, np.array([cap.get(int(i), np.inf) for i in ids], dtype=np.float64))
    keep = (t >= lo) & (t <= hi)
    before = np.nonzero(t < lo)[0]
    if len(before):
        # each id's last point before the window, moved to its start
        last: dict[int, int] = {}
        for i in before:
            last[int(ids[i])] = int(i)
        extra = np.array(sorted(last.values()), dtype=np.int64)
        keep[extra] = True
        t = t.copy()
        t[extra] = lo
    order = np.argsort(t[keep], kind="stable")
    us = np.round((t[keep] - lo)[order] * 1e6).astype(np.int64)
    pack.add(f"{prefix}.t", np.diff(us, prepend=0), "uint32")
    ids = ids[keep][order]
    pack.add(f"{prefix}.id", ids, "uint16" if ids.size == 0 or ids.max() < 65536 else "uint32")
    pack.add(f"{prefix}.v", v[keep][order], value_dtype)


def flow_paths(air: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> dict[int, list[int]]:
    """Each flow's path in the air trace: the nodes that sent, forwarded and received the
    first of its data packets that reached the destination (under AODV the route of that
    moment; the core's run trace does not record route changes)."""
    pe, pk = air.get("packet_events") or {}, air.get("packets") or {}
    if not pe or not pk:
        return {}
    events = list(air.get("events") or ["agent_send", "agent_recv", "forward"])
    kinds = list(air.get("packet_kinds") or [])
    recv = events.index("agent_recv") if "agent_recv" in events else 1
    data = {i for i, k in enumerate(kinds) if k in ("udp", "tcp_data")}
    dst = {int(f["id"]): int(f["dst"]) for f in flows if "id" in f and "dst" in f}
    first: dict[int, int] = {}  # flow -> uid of its first data packet delivered
    for node, ev, p in zip(pe["node"], pe["event"], pe["packet"]):
        f = int(pk["flow"][p])
        if ev == recv and f not in first and dst.get(f) == node and pk["kind"][p] in data:
            first[f] = int(pk["uid"][p])
            if len(first) == len(dst):
                break
    by_uid = {u: f for f, u in first.items()}
    paths: dict[int, list[int]] = {f: [] for f in first}
    for node, p in zip(pe["node"], pe["packet"]):
        owner = by_uid.get(int(pk["uid"][p]))
        if owner is not None and int(pk["flow"][p]) == owner and (not paths[owner] or paths[owner][-1] != node):
            paths[owner].append(int(node))
    return {f: path for f, path in paths.items() if len(path) >= 2 and path[-1] == dst[f]}


def build_payload(raw: Mapping[str, Any], scenario: Mapping[str, Any], t_from: float | None = None,
                  t_to: float | None = None) -> tuple[dict[str, Any], str]:
    """The page's metadata and its packed columns for the run ``raw`` (a result with the air trace
    and the series of :data:`VIEW_SERIES`) in the window [t_from, t_to] seconds."""
    air = raw.get("air")
    if not air:
        raise SpecError('the run has no air trace: run it with series=["air", ...] (hoptcp view does)')
    duration = float(raw.get("duration_s") or 0.0)
    lo = 0.0 if t_from is None else float(t_from)
    hi = duration if t_to is None else min(float(t_to), duration)
    if not hi > lo:
        raise SpecError(f"--from {lo} --to {hi}: the window must have to > from (the run lasts {duration} s)")
    lo_ns, hi_ns = int(round(lo * 1e9)), int(round(hi * 1e9))
    fr = air["frames"]
    start = np.asarray(fr["start_ns"], dtype=np.int64)
    sel = np.nonzero((start >= lo_ns) & (start <= hi_ns))[0]
    pk = air["packets"]
    pkt_row = np.asarray(fr["packet"], dtype=np.int64)[sel]
    pkind = np.asarray(pk["kind"], dtype=np.int64)
    pflow = np.asarray(pk["flow"], dtype=np.int64)
    pseq = np.asarray(pk["seq"], dtype=np.int64)
    has = pkt_row >= 0
    safe = np.where(has, pkt_row, 0)
    # frame kind: 0 RTS, 1 CTS, 2 DATA, 3 ACK, 4 routing (a DATA frame carrying a routing message)
    kind = np.asarray(fr["kind"], dtype=np.int64)[sel]
    kind = np.where((kind == 2) & has & (pkind[safe] == 3), 4, kind) if len(pkind) else kind
    # fates at intended receivers: keep the lost ones (collided, captured, ...), and mark frames
    rx = air["rx"]
    rx_frame = np.asarray(rx["frame"], dtype=np.int64)
    rx_fate = np.asarray(rx["fate"], dtype=np.int64)
    pos = np.full(len(start), -1, dtype=np.int64)
    pos[sel] = np.arange(len(sel))
    lost = (rx_fate != 0) & (pos[rx_frame] >= 0) if len(rx_frame) else np.zeros(0, bool)
    pack = _Pack()
    pack.add("f.start", _us_deltas(start[sel], lo_ns), "uint32")
    pack.add("f.air", np.round(np.asarray(fr["airtime_ns"], dtype=np.int64)[sel] / 1000.0), "uint32")
    pack.add("f.tx", np.asarray(fr["tx"], dtype=np.int64)[sel], "uint16" if len(air["x"]) < 65536 else "uint32")
    pack.add("f.ra", np.asarray(fr["ra"], dtype=np.int64)[sel], "int32")
    pack.add("f.kind", kind, "uint8")
    flags = np.asarray(fr["retry"], dtype=np.int64)[sel] | (np.asarray(fr["retry_drop"], dtype=np.int64)[sel] << 1)
    pack.add("f.flags", flags, "uint8")
    pack.add("f.flow", np.where(has, pflow[safe] if len(pflow) else -1, -1), "int32")
    pack.add("f.seq", np.where(has, pseq[safe] if len(pseq) else 0, 0), "uint32")
    pack.add("l.frame", pos[rx_frame[lost]] if len(rx_frame) else [], "uint32")
    pack.add("l.node", np.asarray(rx["node"], dtype=np.int64)[lost] if len(rx_frame) else [], "uint32")
    pack.add("l.fate", rx_fate[lost] if len(rx_frame) else [], "uint8")
    dr = air["drops"]
    dt = np.asarray(dr["t_ns"], dtype=np.int64)
    dsel = np.nonzero((dt >= lo_ns) & (dt <= hi_ns))[0]
    pack.add("d.t", (dt[dsel] - lo_ns) / 1e9, "float64")
    pack.add("d.node", np.asarray(dr["node"], dtype=np.int64)[dsel], "uint32")
    pack.add("d.cause", np.asarray(dr["cause"], dtype=np.int64)[dsel], "uint8")
    ts = raw.get("time_series") or {}
    default_cap = (scenario.get("tcp") or {}).get("max_window")
    caps = {int(f.get("id", i)): float(mw) for i, f in enumerate(scenario.get("flows") or [])
            if f.get("transport") == "tcp"
            and isinstance(mw := f.get("max_window", default_cap), (int, float)) and not isinstance(mw, bool)}
    _series_columns(pack, "cwnd", ts.get("cwnd"), "cwnd", lo, hi, cap=caps)
    _series_columns(pack, "good", ts.get("goodput"), "bytes_delivered", lo, hi)
    _series_columns(pack, "queue", ts.get("queue"), "queue", lo, hi, "uint16")
    _series_columns(pack, "mac", ts.get("mac"), "state", lo, hi, "uint8")
    radio = scenario.get("radio", {})
    paths = flow_paths(air, raw.get("flows", []))
    flows = [{"id": f.get("id"), "src": f.get("src"), "dst": f.get("dst"), "hops": f.get("hops"),
              "goodput_bps": f.get("goodput_bps"), "max_window": caps.get(int(f.get("id", -1))),
              "path": paths.get(int(f.get("id", -1)), [])}
             for f in raw.get("flows", [])]
    meta = {
        "name": scenario.get("name", "run"), "seed": raw.get("seed"), "version": raw.get("hoptcp_version"),
        "from": lo, "to": hi, "duration": duration, "x": air["x"], "y": air["y"],
        "tx_range": radio.get("tx_range_m", 250.0), "cs_range": radio.get("cs_range_m", 550.0),
        "queue_limit": (scenario.get("mac") or {}).get("queue_limit", 50),
        "flows": flows, "drop_causes": air["drop_causes"], "fates": air["fates"],
        "mac_states": "mac" in ts,
        "columns": pack.index, "frames": int(len(sel)), "drops": int(len(dsel)),
    }
    return meta, pack.blob()


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def render_html(raw: Mapping[str, Any], scenario: Mapping[str, Any], t_from: float | None = None,
                t_to: float | None = None) -> str:
    """The self-contained page for a run (see :func:`build_payload`)."""
    meta, blob = build_payload(raw, scenario, t_from, t_to)
    title = html.escape(f"hoptcp view: {meta['name']}")
    data = json.dumps(meta, separators=(",", ":")).replace("</", "<\\/")
    return (_asset("viewer.html")
            .replace("{{TITLE}}", title)
            .replace("{{CSS}}", _asset("viewer.css"))
            .replace("{{META}}", data)
            .replace("{{BLOB}}", blob)
            .replace("{{JS}}", _asset("viewer.js")))


class View:
    """A run's viewer page; ``save(path)`` writes it, and in Jupyter it shows inline (in an
    iframe, so its script runs apart from the notebook's)."""

    def __init__(self, page: str, height: int = 760) -> None:
        self.html = page
        self.height = height

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.write_text(self.html, encoding="utf-8")
        return p

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" style="width:100%;'
                f'height:{self.height}px;border:0" sandbox="allow-scripts"></iframe>')


def view(scenario: Any, seed: int | None = None, t_from: float | None = None, t_to: float | None = None,
         **overrides: Any) -> View:
    """Run ``scenario`` recording what the viewer needs and return its :class:`View`:
    ``hoptcp.view("chain7.toml", duration_s=20)`` in a notebook shows it inline."""
    from ..runner import run
    from ..scenario import as_scenario

    sc = as_scenario(scenario)
    if overrides:
        sc = sc.with_(**overrides)
    sc = view_scenario(sc, t_from, t_to, seed)
    r = run(sc, seed=seed)
    return View(render_html(r.raw, sc.resolved(), t_from, t_to))


def view_scenario(sc: Any, t_from: float | None, t_to: float | None, seed: int | None = None) -> Any:
    """``sc`` recording the viewer's series (kept with any it already records; ``mac`` only up
    to :data:`MAC_STATES_MAX_NODES` nodes), the air trace limited to the window."""
    from .. import _bridge

    nodes = len(json.loads(_bridge.plan_json(sc.toml, sc.overrides, seed))["positions"])
    wanted = set(VIEW_SERIES) - ({"mac"} if nodes > MAC_STATES_MAX_NODES else set())
    current = list((sc.resolved().get("stats") or {}).get("series") or [])
    sc = sc.with_overrides({"stats.series": sorted(set(current) | wanted)})
    if t_from is not None or t_to is not None:
        lo = 0.0 if t_from is None else float(t_from)
        hi = float(sc.resolved()["duration_s"]) if t_to is None else float(t_to)
        sc = sc.with_overrides({"stats.air_window_s": [lo, hi]})
    return sc
