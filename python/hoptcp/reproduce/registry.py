"""The functions reproduction entries name, in one explicit registry.

A function an entry may name registers itself where it is defined::

    @register("check")
    def fu_wstar_max_dev(ctx, runs, point): ...

under its own name (so searching for the name finds its ``def``) and one or more kinds:
``derive`` (per-point builders), ``check`` (a claim's value; also the functions of ``unspecified``),
``reference``, ``evidence``, ``values`` (numbers for the texts' placeholders) and ``figure``.
A function made by a factory registers with its name written out:
``jiang_loss_6h_w8 = register("check", name="jiang_loss_6h_w8")(_loss_at(...))``.

The registry is filled by importing the modules of :data:`MODULES`, listed here once; a name
registered twice for one kind is an error at import. An entry naming an unknown function gets
one line with the close matches.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any, Callable, TypeVar

from ..errors import SpecError

KINDS = ("derive", "check", "reference", "evidence", "values", "figure")
#: every module that registers entry functions (under hoptcp.reproduce)
MODULES = ("builders", "checks", "figures", "lib.fu_chain", "lib.fu_chain_sides", "lib.fu_lred", "lib.fu_lred_ranges", "lib.fu_network",
           "lib.fu_network_sides", "lib.gap_hybrid", "lib.gap_links", "lib.gap_multiflow", "lib.gap_responsiveness",
           "lib.jiang", "lib.ldm", "lib.modern_tcp", "lib.ns2_agreement")

_FUNCTIONS: dict[str, dict[str, Callable[..., Any]]] = {k: {} for k in KINDS}
_loaded = False

F = TypeVar("F", bound=Callable[..., Any])


def register(*kinds: str, name: str | None = None) -> Callable[[F], F]:
    """Register the decorated function for entries under ``name`` (default: its own name)."""
    for kind in kinds:
        if kind not in KINDS:
            raise SpecError(f"register: kind '{kind}'; allowed: {', '.join(KINDS)}")
    if not kinds:
        raise SpecError(f"register: name at least one kind ({', '.join(KINDS)})")

    def add(fn: F) -> F:
        key = name or fn.__name__
        for kind in kinds:
            old = _FUNCTIONS[kind].get(key)
            if old is not None and _origin(old) != _origin(fn):
                raise SpecError(f"{kind} function '{key}' is registered twice: in {old.__module__} and "
                                f"{fn.__module__}")
            _FUNCTIONS[kind][key] = fn
        return fn
    return add


def _origin(fn: Callable[..., Any]) -> tuple[str, str]:
    """Where a function was defined: the same function imported again (a module reload) is no duplicate."""
    return fn.__module__, getattr(fn, "__qualname__", repr(fn))


def _load() -> None:
    global _loaded
    if not _loaded:
        for m in MODULES:
            importlib.import_module(f"hoptcp.reproduce.{m}")
        _loaded = True


def registered(kind: str) -> dict[str, Callable[..., Any]]:
    """Every function registered for a kind, by name."""
    _load()
    return dict(_FUNCTIONS[kind])


def find(kind: str, name: str) -> Callable[..., Any] | None:
    """The function registered as ``name`` for an entry's ``kind`` of reference, or None."""
    _load()
    return _FUNCTIONS[kind].get(name)


def unknown(kind: str, name: Any) -> str:
    """The one-line message for a name no function is registered under."""
    _load()
    close = difflib.get_close_matches(str(name), list(_FUNCTIONS[kind]), n=3, cutoff=0.6)
    hint = f"close matches: {', '.join(close)}" if close else "no close match"
    return (f"no {kind} function registered as {name!r} ({hint}; functions register with "
            f"@register(\"{kind}\") in a module of hoptcp.reproduce.registry.MODULES)")


def where(kind: str, name: str) -> str:
    """The module that defines an entry's function, for reports (``hoptcp.reproduce.lib.fu_chain``)."""
    fn = find(kind, name)
    return getattr(fn, "__module__", "?") if fn is not None else "?"


def need(kind: str, name: str) -> Callable[..., Any]:
    fn = find(kind, name)
    if fn is None:
        raise SpecError(f"{kind} = '{name}': {unknown(kind, name)}")
    return fn
