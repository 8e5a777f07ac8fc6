"""Scenarios: a TOML document plus an ordered list of overrides, as an immutable value."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import _bridge, _toml
from .errors import ScenarioError
from .overrides import merged


def override_key(name: str) -> str:
    """``tcp__max_window`` -> ``tcp.max_window`` (keyword-argument spelling to dotted key)."""
    return name.replace("__", ".")


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, eq=True)
class Scenario:
    """A scenario document with overrides applied on top.

    Build one with :meth:`load` or :meth:`from_toml`; derive variants with
    :meth:`with_` / :meth:`with_overrides`, which return new objects.
    """

    toml: str
    overrides: tuple[tuple[str, str], ...] = ()
    base_dir: Path | None = field(default=None, compare=False)
    name: str = field(default="scenario", compare=False)

    # --- construction -------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> "Scenario":
        p = Path(path)
        text = _toml.read_file(p, "scenario file", ScenarioError)
        return cls.from_toml(text, base_dir=p.resolve().parent, name=p.stem, origin=str(p))

    @classmethod
    def from_toml(
        cls,
        text: str,
        base_dir: str | Path | None = None,
        *,
        name: str = "scenario",
        origin: str = "<scenario>",
    ) -> "Scenario":
        try:
            _toml.loads(text)
        except _toml.TOMLDecodeError as exc:
            raise ScenarioError(f"{origin}: invalid TOML: {exc}") from None
        return cls(text, (), Path(base_dir) if base_dir is not None else None, name)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], base_dir: str | Path | None = None,
                  *, name: str = "scenario") -> "Scenario":
        """A scenario from an already parsed table (e.g. an inline ``[scenario]``)."""
        return cls(_toml.dumps(doc), (), Path(base_dir) if base_dir is not None else None, name)

    # --- variants -----------------------------------------------------------------
    def with_(self, **kw: Any) -> "Scenario":
        """Override keys: ``sc.with_(tcp__max_window=3, flows__0__rate_bps=1e5)``."""
        return self.with_overrides({override_key(k): v for k, v in kw.items()})

    def with_overrides(self, overrides: Mapping[str, Any]) -> "Scenario":
        """Override dotted keys with Python values (converted to TOML literals)."""
        return self.with_raw((k, _toml.literal(v)) for k, v in overrides.items())

    def with_raw(self, pairs: Iterable[tuple[str, str]]) -> "Scenario":
        """Override with values already written as TOML literals or bare words (``--set``)."""
        return Scenario(self.toml, merged(self.overrides, pairs), self.base_dir, self.name)

    # --- views --------------------------------------------------------------------
    @property
    def document(self) -> dict[str, Any]:
        """The TOML document as written (overrides not applied)."""
        return _toml.loads(self.toml)

    @cached_property
    def _resolved_json(self) -> str:
        return _bridge.resolve_json(self.toml, self.overrides)

    def resolved(self) -> dict[str, Any]:
        """Every key of the scenario with defaults filled in and overrides applied."""
        return json.loads(self._resolved_json)

    def hash(self) -> str:
        """sha256 of the canonical resolved scenario, seed excluded."""
        return scenario_hash(self.resolved())

    def __repr__(self) -> str:
        ov = ", ".join(f"{k}={v}" for k, v in self.overrides)
        return f"Scenario({self.name!r}{', ' + ov if ov else ''})"


def canonical_scenario(resolved: Mapping[str, Any]) -> str:
    """The canonical JSON that identifies a resolved scenario (the seed left out)."""
    return canonical_json({k: v for k, v in resolved.items() if k != "seed"})


def scenario_hash(resolved: Mapping[str, Any] | str) -> str:
    """sha256 of :func:`canonical_scenario` (pass its text to avoid computing it twice)."""
    import hashlib  # loads OpenSSL: only when a hash is asked for (`hoptcp run` never asks)

    text = resolved if isinstance(resolved, str) else canonical_scenario(resolved)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def as_scenario(obj: "Scenario | str | Path") -> Scenario:
    if isinstance(obj, Scenario):
        return obj
    if isinstance(obj, (str, Path)):
        return Scenario.load(obj)
    raise TypeError(f"expected a Scenario or a path to a scenario file, got {type(obj).__name__}")
