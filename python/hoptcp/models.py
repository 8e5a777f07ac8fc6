"""The papers' analytic models, evaluated by the core (thin wrappers)."""

from __future__ import annotations

from typing import Any

from . import _bridge

#: model names as the core knows them; the CLI spells them with dashes
MODELS = ("wstar", "bianchi", "single_hop", "linkdrop")


def model(name: str, **params: Any) -> dict[str, Any]:
    """Evaluate an analytic model: ``hoptcp.model("wstar", topology="chain", hops=7)``.

    Parameters are passed to the core unchanged (``None`` values are dropped so the
    core's defaults apply); ``ValueError`` names a bad parameter.
    """
    key = name.replace("-", "_")
    if key not in MODELS:
        raise ValueError(f"model: unknown model '{name}'; expected one of {', '.join(MODELS)}")
    return _bridge.model(key, {k: v for k, v in params.items() if v is not None})
