"""Scenario overrides as the command line and the API take them: ``--set KEY=VALUE``
words, and the rule that a key set again moves to the end (the last one wins).
No heavy import: the command line's fast lane uses it."""

from __future__ import annotations

from typing import Iterable, Sequence

from .errors import ScenarioError, SpecError


def parse_sets(sets: Sequence[str]) -> list[tuple[str, str]]:
    pairs = []
    for s in sets:
        key, eq, value = s.partition("=")
        key = key.strip()
        if not eq or not key or " " in key:
            raise SpecError(f"--set '{s}': expected KEY=VALUE with a dotted key, e.g. --set tcp.max_window=3")
        pairs.append((key, value.strip()))
    return pairs


def merged(overrides: Iterable[tuple[str, str]], pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """``overrides`` with ``pairs`` applied on top, in the order the core applies them."""
    out = dict(overrides)
    for k, v in pairs:
        if not isinstance(k, str) or not k or k.startswith(".") or k.endswith("."):
            raise ScenarioError(f"override key {k!r} is not a dotted key like 'tcp.max_window'")
        out.pop(k, None)  # a re-set key moves to the end: last one wins
        out[k] = v
    return tuple(out.items())
