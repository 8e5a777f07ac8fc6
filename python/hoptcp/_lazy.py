"""Lazy exports of a package (PEP 562), so ``import hoptcp`` and the command line
start without loading what a command does not use.

A public name is imported from its submodule on first access. Where a function
shares its name with the submodule that defines it (``hoptcp.sweep``,
``hoptcp.ns2.crosscheck``), the package keeps the function: the import system
binds a submodule on its package when it is first loaded, and that binding is
redirected to the function of the same name, as an eager ``from .m import m``
in the package would have left it.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any, Callable, Mapping


class _Package(types.ModuleType):
    _shadowed: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._shadowed and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


def exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``names`` maps each public name to the
    submodule (relative to the package) that defines it."""
    module = sys.modules[package]
    module.__class__ = _Package
    module.__dict__["_shadowed"] = frozenset(n for n, sub in names.items() if n == sub)

    def __getattr__(name: str) -> Any:
        sub = names.get(name)
        if sub is None:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        value = getattr(importlib.import_module(f".{sub}", package), name)
        setattr(module, name, value)
        return value

    return __getattr__
