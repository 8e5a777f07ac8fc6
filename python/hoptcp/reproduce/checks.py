"""Named functions used by entry claims.

``reference`` functions give the value a claim is compared with, for one sweep point:
``f(ctx, point) -> float``. ``check`` functions compute hoptcp's value from the runs
when a plain metric mean will not do: ``f(ctx, runs, point) -> Estimate | float``; a
parameterised check (``check = { fn = "name", arg = value }``) gets its arguments as keywords.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..errors import SpecError
from ..models import model
from ..stats import Estimate
from .registry import register

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .report import Context

#: keys under which the core's models report a goodput, in order of preference
_GOODPUT_KEYS = ("goodput_bps", "aggregate_goodput_bps", "throughput_bps")


def _goodput(name: str, result: Mapping[str, Any]) -> float:
    for k in _GOODPUT_KEYS:
        if isinstance(result.get(k), (int, float)):
            return float(result[k])
    raise SpecError(f"model {name} returned no goodput (looked for {', '.join(_GOODPUT_KEYS)}; "
                    f"got {', '.join(result)})")


#: MAC bytes added to an IP packet in a DATA frame, per frame format (see docs/model.md)
_DATA_OVERHEAD = {"ns2": 34, "standard": 36}
_UDP_IP_BYTES = 28


def mac_params(resolved: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario's PHY/MAC settings in the models' parameter names.

    The RTS threshold becomes the access mode the DCF uses for the first flow's
    DATA frames: RTS/CTS when the MAC frame is at least the threshold.
    """
    radio, mac = resolved.get("radio", {}), resolved.get("mac", {})
    fmt = mac.get("frame_format", "ns2")
    frame_bytes = _udp_payload(resolved) + _UDP_IP_BYTES + _DATA_OVERHEAD.get(fmt, 34)
    access = "rts_cts" if frame_bytes >= int(mac.get("rts_threshold_bytes", 0)) else "basic"
    params = {"standard": radio.get("standard"), "data_rate_mbps": radio.get("data_rate_mbps"),
              "basic_rate_mbps": radio.get("basic_rate_mbps"), "frame_format": fmt, "access": access}
    # The contention window the simulator uses (resolution writes the standard's when unset).
    params.update({k: mac[k] for k in ("cw_min", "cw_max") if k in mac})
    return params


def _udp_payload(resolved: Mapping[str, Any]) -> int:
    flows = resolved.get("flows") or []
    if not flows:
        raise SpecError("the scenario has no flows")
    return int(flows[0]["packet_bytes"])


@register("reference")
def single_hop_model(ctx: "Context", point: Mapping[str, Any]) -> float:
    """Saturation goodput of one sender to one receiver, from ``_core.model("single_hop")``."""
    r = ctx.resolved(point)
    dist = _distance(r, r["flows"][0]["src"], r["flows"][0]["dst"])
    return _goodput("single_hop", model("single_hop", payload_bytes=_udp_payload(r), distance_m=dist, **mac_params(r)))


@register("reference")
def bianchi_model(ctx: "Context", point: Mapping[str, Any]) -> float:
    """Aggregate saturation goodput of n contending senders, from ``_core.model("bianchi")``."""
    r = ctx.resolved(point)
    n = len({f["src"] for f in r.get("flows") or []})
    # The scenario's retry limit, not the model's ns-2 default of 7 attempts.
    retry = {"retry_limit": r["mac"]["short_retry_limit"]} if "short_retry_limit" in r.get("mac", {}) else {}
    return _goodput("bianchi", model("bianchi", stations=n, variant="ns2", payload_bytes=_udp_payload(r),
                                     **mac_params(r), **retry))


def _distance(resolved: Mapping[str, Any], a: int, b: int) -> float:
    """Distance between two nodes of a chain or explicit topology (metres)."""
    topo = resolved["topology"]
    if topo["kind"] == "chain":
        return abs(a - b) * float(topo["spacing_m"])
    if topo["kind"] == "explicit":
        (xa, ya), (xb, yb) = topo["positions"][a], topo["positions"][b]
        return ((xa - xb) ** 2 + (ya - yb) ** 2) ** 0.5
    raise SpecError(f"single_hop_model: cannot place nodes of a {topo['kind']} topology")


def _where(runs: "pd.DataFrame", where: Mapping[str, Any] | None) -> "pd.DataFrame":
    for k, v in (where or {}).items():
        if k not in runs.columns:
            raise SpecError(f"where: no column '{k}' in the runs; the sweep varies: "
                            f"{', '.join(c for c in runs.columns if '.' in c and not c.startswith(('flow', 'node')))}")
        runs = runs[runs[k] == v]
    return runs


@register("check")
def smallest_near_best(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, by: str, metric: str,
                       within_pct: float, where: Mapping[str, Any] | None = None) -> Estimate:
    """The smallest setting of sweep parameter ``by`` whose mean ``metric`` is within ``within_pct``
    % of the best setting's: the optimum of a curve that may be flat near its top, where an argmax
    would be decided by seed noise. ``where`` selects runs ({parameter: value})."""
    if not 0 <= float(within_pct) < 100:
        raise SpecError(f"smallest_near_best: within_pct = {within_pct!r}; expected a percentage in [0, 100)")
    sel = _where(runs, where)
    for col in (by, metric):
        if col not in sel.columns:
            raise SpecError(f"smallest_near_best: no column '{col}' in the runs")
    if sel.empty:
        raise SpecError(f"smallest_near_best: no runs with {dict(where or {})}")
    means = sel.groupby(by, sort=True)[metric].mean()
    best = float(means.max())
    near = means[means >= best - abs(best) * float(within_pct) / 100]
    return Estimate(float(near.index.min()), float("nan"), len(sel), float("nan"))
