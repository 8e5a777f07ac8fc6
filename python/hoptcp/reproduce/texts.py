"""Placeholders in an entry's texts (``notes``, ``known_difference``, figure captions).

A number measured by a run or set by the core is never copied into a text: the text names it and
the report fills it in, so it cannot go stale. Python format syntax (``{name}``, ``{name:.1f}``;
``{{`` and ``}}`` are literal braces), with these names:

- ``{name}``: a value computed from the runs by one of the entry's ``values`` functions
  (``f(ctx) -> {name: value}``), e.g. ``{gain_at_wstar:.0f}``;
- ``{defaults.KEY}``: the core's default of scenario key KEY, e.g. ``{defaults.mac.link_red.min_th}``
  (read from a one-hop probe scenario; an optional section such as ``mac.link_red`` is switched on
  to read its defaults);
- ``{scenario.KEY}``: the value of KEY in the scenario the report's main sweep starts from (the
  entry's scenario with its ``[sweep] set``, or ``[quick]``'s for a quick report), e.g.
  ``{scenario.mac.queue_limit}``;
- ``{run}``: how the sweep was run, "5 seeds × 300 s" or "quick: 2 seeds × 100 s".

The names are checked when the entry loads (a plain name needs a ``values`` function); a
placeholder that does not resolve stops the report with one line naming the text and the name.
Numbers the paper printed are quoted as printed: they are not placeholders.
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from typing import Any, Callable, Mapping

from ..errors import ScenarioError, SpecError

#: placeholders every text may use without a values function
BUILTIN_VALUES = {"run"}
#: namespaces of dotted placeholders: where their KEY is looked up
NAMESPACES = ("defaults", "scenario")

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(rf"({'|'.join(NAMESPACES)})\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)")
#: the probe scenario whose resolution gives the core's defaults
_PROBE = {"topology": {"kind": "chain", "hops": 1}, "flows": [{"src": 0, "dst": 1, "transport": "tcp"}]}


def placeholders(where: str, text: str) -> list[str]:
    """The placeholder names of a text (``{name}``, ``{name:format}``, ``{defaults.a.b}``)."""
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError as exc:
        raise SpecError(f"{where}: {exc} (placeholders are {{name}} or {{name:.3g}}; write {{{{ and }}}} for "
                        "literal braces)") from None
    for f in fields:
        if not (_FIELD.fullmatch(f) or _DOTTED.fullmatch(f)):
            raise SpecError(f"{where}: placeholder {{{f}}}: write a plain name such as {{loss_pct}} (from a values "
                            f"function), or {{defaults.KEY}} / {{scenario.KEY}} with KEY a scenario key")
    return fields


def check_text(where: str, key: str, text: Any, values: list[str] | tuple[str, ...]) -> None:
    """A text's placeholders, checked when the entry loads: plain names need a values function."""
    if not isinstance(text, str):
        raise SpecError(f"{where}: {key} must be a string, got {text!r}")
    fields = [f for f in placeholders(f"{where} {key}", text) if f not in BUILTIN_VALUES and "." not in f]
    if fields and not values:
        raise SpecError(f"{where}: {key} has placeholders ({', '.join('{' + f + '}' for f in fields)}) but the "
                        "entry names no 'values' function to fill them")


def render(text: str, values: Mapping[str, Any], where: str,
           scenario: Callable[[], Mapping[str, Any]] | None = None) -> str:
    """Fill a text's placeholders: plain names from ``values``, ``defaults.KEY`` from the core,
    ``scenario.KEY`` from the resolved scenario ``scenario()`` returns."""
    return _Filler(values, scenario, where).format(text)


class _Filler(string.Formatter):
    def __init__(self, values: Mapping[str, Any], scenario: Callable[[], Mapping[str, Any]] | None, where: str):
        self.values, self.scenario, self.where = values, scenario, where

    def format(self, text: str, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
        try:
            return self.vformat(text, (), {})
        except SpecError:
            raise
        except (ValueError, TypeError) as exc:
            raise SpecError(f"{self.where}: {exc}") from None

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, str]:
        if m := _DOTTED.fullmatch(field_name):
            ns, key = m[1], m[2]
            if ns == "defaults":
                return core_default(key, self.where), field_name
            if self.scenario is None:
                raise SpecError(f"{self.where}: {{{field_name}}}: no scenario to read {key} from")
            return scenario_value(self.scenario(), key, self.where), field_name
        if field_name not in self.values:
            raise SpecError(f"{self.where}: no value named {field_name!r} for the placeholder; the entry's values "
                            f"functions give: {', '.join(sorted(self.values)) or 'nothing'}")
        return self.values[field_name], field_name


def lookup(doc: Mapping[str, Any], key: str) -> Any:
    """A dotted key of a resolved scenario (``mac.link_red.min_th``, ``flows.0.packet_bytes``)."""
    node: Any = doc
    for part in key.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(key)
    return node


def scenario_value(resolved: Mapping[str, Any], key: str, where: str) -> Any:
    """A placeholder's value from a resolved scenario: a setting, not a table."""
    try:
        value = lookup(resolved, key)
    except KeyError:
        raise SpecError(f"{where}: {{scenario.{key}}}: the scenario has no key '{key}'") from None
    if isinstance(value, (Mapping, list)):
        raise SpecError(f"{where}: {{scenario.{key}}} is a table, not a setting; name one of its keys")
    return value


def core_default(key: str, where: str) -> Any:
    """The core's default of a scenario key, from the probe scenario (an optional section of the
    key, such as ``mac.link_red``, switched on where the probe leaves it out)."""
    from .. import _bridge

    got = _default(key, _bridge.version())
    if got is None:
        raise SpecError(f"{where}: {{defaults.{key}}}: the core has no default for '{key}'")
    return json.loads(got)


@cache
def _default(key: str, core: str) -> str | None:
    """(cached per core build: ``core`` is its version)"""
    from ..scenario import Scenario

    parts = key.split(".")
    probe = Scenario.from_dict(_PROBE, name="defaults")
    if parts[-1] == "enabled":  # an optional section the probe resolves without is off by default
        try:
            return json.dumps(lookup(probe.resolved(), key))
        except KeyError:
            pass
        try:
            lookup(probe.with_overrides({key: True}).resolved(), key)
        except (KeyError, ScenarioError):
            return None
        return "false"
    tries: list[dict[str, Any]] = [{}, *({".".join(parts[:i]) + ".enabled": True} for i in range(len(parts) - 1, 0, -1))]
    for extra in tries:
        try:
            resolved = probe.with_overrides(extra).resolved()
            value = lookup(resolved, key)
        except (KeyError, ScenarioError, SpecError):
            continue
        if not isinstance(value, (Mapping, list)):
            return json.dumps(value)
    return None
