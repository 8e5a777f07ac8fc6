"""The one place that talks to the compiled core (``hoptcp._core``).

Everything else in the package calls these functions, never the extension
directly. Core errors are translated into :class:`hoptcp.ScenarioError` here.
Tests may swap the implementation with :func:`use_core` (a test double that
honours the same contract).
"""

from __future__ import annotations

import contextlib
import importlib
import json
from typing import Any, Iterator, Sequence

from .errors import CoreUnavailableError, ScenarioError

__all__ = ["CONTRACT", "CoreUnavailableError", "available", "core", "model", "plan_json", "resolve_json", "run_json",
           "set_core", "use_core", "version"]

Overrides = Sequence[tuple[str, str]]

#: what the compiled extension must provide
CONTRACT = ("version", "resolve", "run", "model", "ScenarioError")

_core: Any = None


def core() -> Any:
    """Return the active core module, importing the compiled one on first use."""
    global _core
    if _core is None:
        try:
            compiled = importlib.import_module("hoptcp._core")
        except ImportError as exc:
            raise CoreUnavailableError(
                "the compiled simulator hoptcp._core is not available "
                f"({exc}); build it with `pip install .` or `maturin develop`"
            ) from None
        missing = [name for name in CONTRACT if not hasattr(compiled, name)]
        if missing:
            raise CoreUnavailableError(
                f"hoptcp._core {getattr(compiled, 'version', lambda: '?')()} lacks {', '.join(missing)}; "
                "rebuild it from this source tree (`pip install .` or `maturin develop`)")
        _core = compiled
    return _core


def available() -> bool:
    try:
        core()
    except CoreUnavailableError:
        return False
    return True


def set_core(module: Any) -> Any:
    """Install ``module`` as the core; return the previous one (may be None)."""
    global _core
    previous, _core = _core, module
    return previous


@contextlib.contextmanager
def use_core(module: Any) -> Iterator[Any]:
    previous = set_core(module)
    try:
        yield module
    finally:
        set_core(previous)


def version() -> str:
    return str(core().version())


def _pairs(overrides: Overrides) -> list[tuple[str, str]]:
    return [(str(k), str(v)) for k, v in overrides]


def resolve_json(toml_text: str, overrides: Overrides = ()) -> str:
    """Canonical JSON of the fully resolved scenario."""
    c = core()
    try:
        return c.resolve(toml_text, _pairs(overrides))
    except c.ScenarioError as exc:
        raise ScenarioError(str(exc)) from None


def run_json(
    toml_text: str,
    overrides: Overrides = (),
    seed: int | None = None,
    pcap: str | None = None,
    progress: Any = None,
) -> str:
    """Run one simulation; return the result JSON text exactly as the core wrote it.

    ``progress(fraction)`` is called now and then during long runs (Ctrl-C stops a run).
    """
    c = core()
    try:
        if progress is None:
            return c.run(toml_text, _pairs(overrides), seed, pcap)
        return c.run(toml_text, _pairs(overrides), seed, pcap, progress)
    except c.ScenarioError as exc:
        raise ScenarioError(str(exc)) from None


def plan_json(toml_text: str, overrides: Overrides = (), seed: int | None = None) -> str:
    """The network a run would build (positions, links, flows with routes) as JSON."""
    c = core()
    if not hasattr(c, "plan"):
        raise CoreUnavailableError("hoptcp._core lacks plan(); rebuild it from this source tree (`pip install .`)")
    try:
        return c.plan(toml_text, _pairs(overrides), seed)
    except c.ScenarioError as exc:
        raise ScenarioError(str(exc)) from None


def model(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Evaluate an analytic model; ValueError on bad parameters."""
    return json.loads(core().model(name, json.dumps(params)))
