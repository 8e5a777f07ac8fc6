"""Type stubs of the compiled core (crates/hoptcp-py): strings and numbers in, JSON out."""

from typing import Any, Callable, Sequence

class ScenarioError(ValueError):
    """The scenario is invalid; the message names the key, the value and what is allowed."""

    key: str

def version() -> str:
    """hoptcp-core version (package version + digest of the core's source)."""

def build() -> str:
    """How the extension was compiled: "profile-guided" or "plain" (build_backend/hoptcp_pgo.py)."""

def resolve(scenario_toml: str, overrides: Sequence[tuple[str, str]]) -> str:
    """Canonical JSON of the fully resolved scenario; raises ScenarioError."""

def run(
    scenario_toml: str,
    overrides: Sequence[tuple[str, str]],
    seed: int | None = None,
    pcap: str | None = None,
    progress: Callable[[float], Any] | None = None,
    progress_every_s: float = 0.25,
    pcap_node: int | None = None,
) -> str:
    """Run one simulation and return its JSON result. ``progress(fraction)`` is
    called at most every ``progress_every_s`` seconds; Ctrl-C or an exception
    from ``progress`` stops the run. ``pcap_node``: the trace holds that node's
    frames alone. Raises ScenarioError, OSError (trace)."""

def model(name: str, params_json: str) -> str:
    """Evaluate an analytic model with JSON parameters; returns JSON; ValueError."""

def plan(scenario_toml: str, overrides: Sequence[tuple[str, str]], seed: int | None = None) -> str:
    """The network a run would build (positions, links, flows with routes) as JSON; raises ScenarioError."""

def resolve_toml(scenario_toml: str, overrides: Sequence[tuple[str, str]]) -> str:
    """The resolved scenario as TOML (what `hoptcp scenario show` prints); raises ScenarioError."""

def scenario_keys() -> str:
    """Every declared scenario key and table as JSON: {"tables": [[name, doc], ...], "keys": [...]}."""

def scenario_schema() -> str:
    """The scenario file's JSON Schema (draft-07), written from the same declarations."""
