"""Per-point scenario builders for entries (``derive = "name"``).

A builder gets a sweep point (dotted key -> value) and the entry's base scenario and
returns extra overrides, for settings that depend on a point in ways a plain grid
cannot express (such as one flow per station when the number of stations varies).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import SpecError
from ..scenario import Scenario
from .registry import register


@register("derive")
def flow_per_leaf(params: Mapping[str, Any], base: Scenario) -> dict[str, Any]:
    """Star topology: copy the scenario's first flow once per leaf (src = leaf 1..n).

    The number of leaves is the point's ``topology.leaves``, else the scenario's.
    """
    doc = base.document
    flows = doc.get("flows") or []
    if not flows:
        raise SpecError(f"derive flow_per_leaf: scenario '{base.name}' has no [[flows]] to use as a template")
    template = dict(flows[0])
    n = params.get("topology.leaves", (doc.get("topology") or {}).get("leaves"))
    if not isinstance(n, int) or n < 1:
        raise SpecError(f"derive flow_per_leaf: topology.leaves = {n!r}; expected an integer >= 1")
    return {"flows": [{**template, "src": leaf} for leaf in range(1, n + 1)]}
