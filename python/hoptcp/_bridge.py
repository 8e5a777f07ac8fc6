"""The one place that talks to the compiled core (``hoptcp._core``).

Everything else in the package calls these functions, never the extension
directly. Core errors are translated into :class:`hoptcp.ScenarioError` here.
Tests may swap the implementation with :func:`use_core` (a test double that
honours the same contract).
"""

from __future__ import annotations

import contextlib
import importlib
import os
from typing import Any, Callable, Iterator, Sequence

from .errors import CoreUnavailableError, ScenarioError, SpecError

__all__ = ["CONTRACT", "CoreUnavailableError", "available", "core", "model", "plan_json", "resolve_json",
           "resolve_toml", "run_json", "scenario_keys", "scenario_schema", "set_core", "use_core", "version"]

Overrides = Sequence[tuple[str, str]]

#: seeds are TOML integers in scenario files: 0 ..= 2^63 - 1
SEED_MAX = 2**63 - 1

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


def build() -> str:
    """How the core was compiled: "profile-guided" or "plain" ("plain" for a core without the query)."""
    return str(getattr(core(), "build", lambda: "plain")())


def describe() -> str:
    """The core's version and build, as `hoptcp --version` and the bench print them."""
    return f"{version()}, {build()} build"


def _pairs(overrides: Overrides) -> list[tuple[str, str]]:
    return [(str(k), str(v)) for k, v in overrides]


def resolve_json(toml_text: str, overrides: Overrides = ()) -> str:
    """Canonical JSON of the fully resolved scenario."""
    c = core()
    try:
        return c.resolve(toml_text, _pairs(overrides))
    except c.ScenarioError as exc:
        raise ScenarioError(str(exc)) from None


def check_seed(seed: Any) -> int | None:
    """``seed`` if it is None or an integer in 0..=SEED_MAX; else ScenarioError."""
    if seed is None:
        return None
    if isinstance(seed, bool) or (not isinstance(seed, int) and not hasattr(seed, "__index__")):
        raise ScenarioError(f"seed: invalid value {seed!r}; expected an integer from 0 to {SEED_MAX}")
    value = int(seed.__index__())
    if not 0 <= value <= SEED_MAX:
        raise ScenarioError(f"seed: invalid value {value}; expected an integer from 0 to {SEED_MAX}")
    return value


def check_output_file(path: str, what: str) -> None:
    """A file we are about to write: its directory must exist and it must not be a directory."""
    from pathlib import Path  # not at import: the command line's fast lane has no use for it

    p = Path(path).expanduser()
    if p.is_dir():
        raise SpecError(f"{what} {path}: is a directory; give a file name")
    parent = p.resolve().parent
    if not parent.is_dir():
        raise SpecError(f"{what} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise SpecError(f"{what} {path}: directory {parent} is not writable")


def run_json(
    toml_text: str,
    overrides: Overrides = (),
    seed: int | None = None,
    pcap: str | None = None,
    progress: Callable[[float], Any] | None = None,
    progress_every_s: float | None = None,
    pcap_node: int | None = None,
) -> str:
    """Run one simulation; return the result JSON text exactly as the core wrote it.

    ``progress(fraction)`` is called at most every ``progress_every_s`` seconds
    (default a quarter) during long runs; an exception it raises (Ctrl-C raises
    KeyboardInterrupt there) stops the run and propagates. With ``pcap_node`` the
    trace holds that node's frames alone (one interface).
    """
    c = core()
    seed = check_seed(seed)
    if pcap is not None:
        check_output_file(pcap, "pcap")
    kw: dict[str, Any] = {} if progress_every_s is None else {"progress_every_s": progress_every_s}
    if pcap_node is not None:
        if pcap is None:
            raise SpecError("pcap_node: give a trace file (--pcap FILE) to write the node's frames to")
        if isinstance(pcap_node, bool) or not isinstance(pcap_node, int) or not 0 <= pcap_node < 2**32:
            raise ScenarioError(f"pcap_node: invalid value {pcap_node!r}; expected a node id (an integer >= 0)")
        kw["pcap_node"] = pcap_node
    try:
        if progress is None and not kw:
            return c.run(toml_text, _pairs(overrides), seed, pcap)
        return c.run(toml_text, _pairs(overrides), seed, pcap, progress, **kw)
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


def resolve_toml(toml_text: str, overrides: Overrides = ()) -> str:
    """The resolved scenario as TOML text (every filled default written out)."""
    c = _needs("resolve_toml")
    try:
        return str(c.resolve_toml(toml_text, _pairs(overrides)))
    except c.ScenarioError as exc:
        raise ScenarioError(str(exc)) from None


def scenario_keys() -> dict[str, Any]:
    """The core's declaration of every scenario key: ``{"tables": [[name, doc], ...], "keys": [...]}``."""
    import json

    return dict(json.loads(_needs("scenario_keys").scenario_keys()))


def scenario_schema() -> str:
    """The scenario file's JSON Schema (draft-07) as the core writes it from its declarations."""
    return str(_needs("scenario_schema").scenario_schema())


def _needs(name: str) -> Any:
    c = core()
    if not hasattr(c, name):
        raise CoreUnavailableError(f"hoptcp._core lacks {name}(); rebuild it from this source tree (`pip install .`)")
    return c


def model(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Evaluate an analytic model; ValueError on bad parameters."""
    import json

    return json.loads(core().model(name, json.dumps(params)))
