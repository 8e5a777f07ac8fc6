"""The explicit registry of entry functions (hoptcp.reproduce.registry)."""

import inspect
import pkgutil
import re

import pytest

from hoptcp import SpecError
from hoptcp.reproduce import catalogue, lib, registry
from hoptcp.reproduce.registry import find, need, register


def test_registry_lists_every_lib_module_once():
    listed = [m for m in registry.MODULES if m.startswith("lib.")]
    assert len(listed) == len(set(listed))
    registering = {f"lib.{m.name}" for m in pkgutil.iter_modules(lib.__path__)
                   if "@register(" in inspect.getsource(__import__(f"hoptcp.reproduce.lib.{m.name}",
                                                                   fromlist=["_"]))}
    assert registering <= set(listed), registering - set(listed)


def test_every_function_an_entry_names_is_registered_and_defined_under_its_name():
    names: set[tuple[str, str]] = set()
    for e in catalogue():
        names |= {("derive", n) for n in (e.derive, *(s.derive for s in e.sides)) if n}
        names |= {("values", n) for n in e.values}
        names |= {("figure", f.function) for f in e.figures}
        for c in e.claims:
            names |= {(k, n) for k, n in (("check", c.check), ("reference", c.reference), ("evidence", c.evidence),
                                          ("check", c.unspecified.fn if c.unspecified else None)) if n}
    assert len(names) > 200
    for kind, name in names:
        fn = find(kind, name)
        assert fn is not None, (kind, name)
        # searching for the name finds where it is defined and registered
        source = inspect.getsource(inspect.getmodule(fn))
        assert re.search(rf"^(@register\(.*\)\ndef {name}\(|{name} = register\()", source, re.M), (kind, name)


def test_a_name_registered_twice_is_an_error(monkeypatch):
    monkeypatch.setitem(registry._FUNCTIONS, "check", dict(registry.registered("check")))

    def fu_wstar_max_dev(ctx, runs, point):  # the same name as lib.fu_chain's
        return 0.0

    with pytest.raises(SpecError, match=r"^check function 'fu_wstar_max_dev' is registered twice: in "
                                        r"hoptcp\.reproduce\.lib\.fu_chain and test_reproduce_registry$"):
        register("check")(fu_wstar_max_dev)


def test_registering_the_same_function_again_is_not_a_duplicate(monkeypatch):
    monkeypatch.setitem(registry._FUNCTIONS, "check", {})

    def f(ctx, runs, point):
        return 1.0

    register("check")(f)
    register("check")(f)  # a module imported again
    assert find("check", "f") is f


def test_unknown_names_and_kinds_are_one_line_with_close_matches():
    with pytest.raises(SpecError) as exc:
        need("check", "fu_wstar_max_deviation")
    msg = str(exc.value)
    assert msg.startswith("check = 'fu_wstar_max_deviation': no check function registered as "
                          "'fu_wstar_max_deviation' (close matches: fu_wstar_max_dev")
    assert "\n" not in msg
    with pytest.raises(SpecError, match=r"no figure function registered as 'zzzz' \(no close match"):
        need("figure", "zzzz")
    with pytest.raises(SpecError, match="register: kind 'chek'; allowed: derive, check"):
        register("chek")
