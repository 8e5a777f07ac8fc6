"""AODV with a base station, and HTTP-like pages, in exported ns-2.35 scripts: ns-2.35 built with
the ``aodv-bs`` port (``ns2/ports/aodv-bs``: see its INTERFACE.md and CHOICES.md).

* ``[wired]`` with ``routing.protocol = "aodv"``: the wireless domain runs the port's AODV
  (``Agent/AODV`` with ``bs_gateway_ 1``): a wireless node routes packets for the wired nodes
  by AODV towards its base station (the gateway, which every mobile node names with
  ``base-station``), and the gateway brings wired-to-wireless packets into AODV. Stock
  ns-2.35 cannot (no AODV broadcast leaves a node with hierarchical addresses; nobody answers
  a route request for a wired address; the base station drops wired-to-wireless packets
  without a route): the script stops there with one line.
* ``app = "http"`` (TCP): ``Application/HttpPages`` on the TCP sender, its sink attached:
  ``mean_page_bytes`` -> ``page_mean_``, ``page_shape`` -> ``page_shape_``, ``mean_think_s``
  -> ``pause_mean_``; one persistent connection per flow (the port's default, CHOICES.md 2.3),
  and a page ends when the sender has its last ACK (``end_at_ sender``): hoptcp's reading
  (crates/hoptcp-core/src/app/http.rs: "A page is complete when the sender has all of it
  acknowledged"; the think time starts there), not the port's default (``receiver``, CHOICES.md
  2.4; the paper's text allows both: validation/ns2/ports/aodv-bs-disagreements.md). The page lines
  (``http-page FLOW START END BYTES PAGE``, ns-2 times) go to the stats file;
  :func:`add_http` turns them into the report's ``flows[].http`` with hoptcp's names. hoptcp
  counts a page's bytes in whole segments (``page_bytes`` are multiples of the payload); the
  same is done here so that ``mean_page_goodput_bps`` means the same on both sides, and the
  drawn sizes are kept beside them (``page_bytes_drawn``, ``mean_page_goodput_drawn_bps``).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

#: first lines of a script that needs the port: one clear line on a stock ns-2.35
GUARD_AODV = ('if {[catch {Agent/AODV set bs_gateway_}]} {puts stderr "needs ns-2.35 built with hoptcp\'s ports '
              '(hoptcp ns2 build --with-ports aodv-bs): no Agent/AODV bs_gateway_ (AODV to a base station)"; '
              'exit 1}')
GUARD_HTTP = ('if {[catch {Application/HttpPages info class}]} {puts stderr "needs ns-2.35 built with hoptcp\'s '
              'ports (hoptcp ns2 build --with-ports aodv-bs): no class Application/HttpPages"; exit 1}')
#: the tag of the page lines the application writes
PAGE_TAG = "http-page"
HTTP_CLASS = "Application/HttpPages"


def _unsupported(msg: str) -> Exception:
    from .exporter import Ns2Unsupported

    return Ns2Unsupported(msg)


def hybrid_aodv(sc: Mapping[str, Any]) -> bool:
    """A ``[wired]`` scenario routed by AODV in its wireless domain (needs the port)."""
    return sc.get("wired") is not None and sc["routing"]["protocol"] == "aodv"


def has_http(flows: Iterable[Mapping[str, Any]]) -> bool:
    return any(f.get("app") == "http" for f in flows)


def enabled(sc: Mapping[str, Any], flows: Iterable[Mapping[str, Any]]) -> bool:
    return hybrid_aodv(sc) or has_http(flows)


#: hoptcp's defaults of the HTTP keys (docs/scenario-reference.md)
HTTP_DEFAULTS = {"mean_page_bytes": 30000.0, "page_shape": 1.5, "mean_think_s": 1.0}


def http_params(sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, float]]:
    """Each planned flow's HTTP keys: the ``[[flows]]`` entries in order (``count`` copies each),
    then ``[random_flows]``; hoptcp's defaults where a key is absent."""
    entries: list[Mapping[str, Any]] = []
    for fs in sc.get("flows") or []:
        entries += [fs] * int(fs.get("count", 1) or 1)
    rnd = sc.get("random_flows") or {}
    out = {}
    for k, f in enumerate(flows):
        src = entries[k] if k < len(entries) else rnd
        out[int(f["id"])] = {key: float(src.get(key, d)) for key, d in HTTP_DEFAULTS.items()}
    return out


def check(sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> None:
    """Raise Ns2Unsupported for what the port cannot express."""
    params = http_params(sc, flows)
    for f in flows:
        if f.get("app") != "http":
            continue
        key = f"flows.{f['id']}"
        if f["transport"] != "tcp":
            raise _unsupported(f"{key}.app = \"http\" over {f['transport']} cannot be exported (allowed: tcp)")
        if params[int(f["id"])]["page_shape"] <= 1:
            raise _unsupported(f"{key}.page_shape = {params[int(f['id'])]['page_shape']:g} cannot be exported: "
                               "the Pareto mean needs a shape above 1 (allowed: > 1)")


def guard_lines(sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> list[str]:
    out = []
    if hybrid_aodv(sc):
        out.append(GUARD_AODV)
    if has_http(flows):
        out.append(GUARD_HTTP)
    return out


def class_lines(sc: Mapping[str, Any]) -> list[str]:
    """Class settings before the nodes are made."""
    if not hybrid_aodv(sc):
        return []
    return ["# --- the aodv-bs port: AODV forwards what leaves the wireless domain to the base station",
            "# (the gateway) and the base station brings wired-to-wireless packets into AODV",
            "Agent/AODV set bs_gateway_ 1",
            "Agent/AODV set bs_match_levels_ 1",
            ""]


def app_seed(run_seed: int, flow_id: int) -> int:
    """The page source's RNG seed: distinct per run seed and flow, never 0 (ns-2: 0 = the clock)."""
    return int(run_seed) * 1000 + int(flow_id) + 1


def _g(x: float) -> str:
    return repr(float(x))


def http_lines(sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]], f: Mapping[str, Any],
               run_seed: int) -> list[str]:
    """The page source of TCP flow ``f`` (its agents ``$src(i)``, ``$dst(i)`` exist)."""
    i = int(f["id"])
    p = http_params(sc, flows)[i]
    return [f"set app({i}) [new {HTTP_CLASS}] ;# the aodv-bs port: Pareto pages, exponential pauses",
            f"$app({i}) attach-agent $src({i})",
            f"$app({i}) attach-sink $dst({i})",
            f"$app({i}) set flow_ {i}",
            f"$app({i}) set page_mean_ {_g(p['mean_page_bytes'])}",
            f"$app({i}) set page_shape_ {_g(p['page_shape'])}",
            f"$app({i}) set pause_mean_ {_g(p['mean_think_s'])}",
            f"$app({i}) set persistent_ 1",
            f"$app({i}) set end_at_ sender ;# hoptcp's page end: its last ACK at the sender",
            f"$app({i}) set seed_ {app_seed(run_seed, i)}",
            f"$app({i}) set chan_ $statsfd ;# {PAGE_TAG} FLOW START END BYTES PAGE"]


def finish_lines(flows: Sequence[Any]) -> list[str]:
    """Lines inside ``proc finish``: the pages each source started."""
    out: list[str] = []
    for fm in flows:
        if getattr(fm, "app", None) == "http":
            if not out:
                out.append("    global app")
            out.append(f"    record {fm.id} http_pages_started [$app({fm.id}) set pages_started_]")
    return out


def parse_pages(lines: Iterable[str]) -> dict[int, list[tuple[float, float, int, int]]]:
    """The page lines of a stats file: flow -> [(start, end, bytes, page)] in ns-2 time."""
    out: dict[int, list[tuple[float, float, int, int]]] = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 6 and parts[0] == PAGE_TAG:
            out.setdefault(int(parts[1]), []).append(
                (float(parts[2]), float(parts[3]), int(parts[4]), int(parts[5])))
    return out


def http_summary(pages: Sequence[tuple[float, float, int, int]], payload: int, started: float | None
                 ) -> dict[str, Any]:
    """hoptcp's ``flows[].http`` from one flow's pages (page bytes in whole segments, as hoptcp)."""
    seg = [int(math.ceil(b / payload)) * payload for _, _, b, _ in pages]
    drawn = [b for _, _, b, _ in pages]
    times = [e - s for s, e, _, _ in pages]
    n = len(pages)

    def mean(xs: Sequence[float]) -> float:
        return sum(xs) / len(xs) if xs else math.nan

    return {
        "pages_started": int(started) if started is not None else n,
        "pages_completed": n,
        "mean_page_time_s": mean(times),
        "mean_page_goodput_bps": mean([b * 8 / t for b, t in zip(seg, times)]),
        "mean_page_goodput_drawn_bps": mean([b * 8 / t for b, t in zip(drawn, times)]),
        "page_bytes": seg,
        "page_bytes_drawn": drawn,
        "page_time_s": times,
    }


def add_http(rep: dict[str, Any], stats_file: str, meta: Mapping[str, Any],
             recorded: Mapping[int, Mapping[str, float]]) -> None:
    """Put each HTTP flow's pages (from the stats file) into the report as ``flows[].http``."""
    http = [f for f in meta.get("flows", []) if f.get("app") == "http"]
    if not http:
        return
    with open(stats_file, encoding="utf-8") as fh:
        pages = parse_pages(fh)
    by_id = {int(f["id"]): f for f in rep.get("flows", [])}
    for f in http:
        i = int(f["id"])
        if i in by_id:
            by_id[i]["http"] = http_summary(pages.get(i, []), int(f["payload_bytes"]),
                                            (recorded.get(i) or {}).get("http_pages_started"))
