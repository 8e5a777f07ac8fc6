"""Finding the functions reproduction entries name.

A name is looked up in the module for its kind (``builders`` for derive,
``checks`` for check/reference/evidence/values, ``figures`` for figures) and then in
every module of ``hoptcp.reproduce.lib``. Two modules must not define the same name.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any, Callable

from ..errors import SpecError

_PRIMARY = {"derive": "builders", "check": "checks", "reference": "checks", "evidence": "checks", "values": "checks",
            "figure": "figures"}


@cache
def _lib_modules() -> tuple[Any, ...]:
    from . import lib

    return tuple(importlib.import_module(f"{lib.__name__}.{m.name}")
                 for m in sorted(pkgutil.iter_modules(lib.__path__), key=lambda m: m.name))


def find(kind: str, name: str) -> Callable[..., Any] | None:
    """The function called ``name`` for an entry's ``kind`` of reference, or None."""
    primary = importlib.import_module(f"hoptcp.reproduce.{_PRIMARY[kind]}")
    found = [fn for mod in (primary, *_lib_modules()) if callable(fn := getattr(mod, name, None))]
    if len({id(f) for f in found}) > 1:
        raise SpecError(f"{kind} function '{name}' is defined in more than one module")
    return found[0] if found else None


def home(kind: str) -> str:
    """The module (under hoptcp.reproduce) searched first for a kind of function."""
    return _PRIMARY[kind]


def where(kind: str, name: str) -> str:
    """The module that defines an entry's function, for reports (``hoptcp.reproduce.lib.fu_chain``)."""
    fn = find(kind, name)
    return getattr(fn, "__module__", "?") if fn is not None else "?"


def need(kind: str, name: str) -> Callable[..., Any]:
    fn = find(kind, name)
    if fn is None:
        raise SpecError(f"{kind} = '{name}': no such function in hoptcp.reproduce.{_PRIMARY[kind]} "
                        "or hoptcp.reproduce.lib")
    return fn
