"""The analytic references evaluated from a resolved scenario take its MAC settings."""

from __future__ import annotations

from typing import Any

from hoptcp.models import model
from hoptcp.reproduce import checks
from hoptcp.scenario import Scenario

STAR = """
duration_s = 5
[topology]
kind = "star"
leaves = 5
radius_m = 100
"""


class _Ctx:
    def __init__(self, resolved: dict[str, Any]) -> None:
        self._resolved = resolved

    def resolved(self, _point: Any) -> dict[str, Any]:
        return self._resolved


def _resolved(real_core: Any, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    flows = "".join(f'[[flows]]\nsrc = {i}\ndst = 0\ntransport = "udp"\nrate_bps = 2e6\npacket_bytes = 1000\n'
                    for i in range(1, 6))
    return Scenario.from_toml(STAR + flows).with_overrides(overrides or {}).resolved()


def test_bianchi_reference_takes_the_scenarios_retry_limit_and_windows(real_core: Any) -> None:
    r7 = _resolved(real_core)
    base = checks.bianchi_model(_Ctx(r7), {})
    # The scenario's defaults (7 attempts, CWmin 31) are the model's ns-2 defaults.
    assert (r7["mac"]["short_retry_limit"], r7["mac"]["cw_min"]) == (7, 31)
    assert base == checks._goodput("bianchi", model("bianchi", stations=5, variant="ns2", payload_bytes=1000))
    r4 = _resolved(real_core, {"mac.short_retry_limit": 4})
    assert r4["mac"]["short_retry_limit"] == 4
    four = checks.bianchi_model(_Ctx(r4), {})
    assert four != base
    assert four == checks._goodput("bianchi", model("bianchi", stations=5, variant="ns2", payload_bytes=1000,
                                                     retry_limit=4, **checks.mac_params(r4)))
    r15 = _resolved(real_core, {"mac.cw_min": 15})
    assert checks.mac_params(r15)["cw_min"] == 15
    assert checks.bianchi_model(_Ctx(r15), {}) != base
