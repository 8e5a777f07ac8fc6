"""`hoptcp scenario schema`: the JSON Schema of scenario files the core writes from its key
declarations. Every example, catalogue scenario and validation case validates against it (with the
`jsonschema` library, as an editor's checker would), a misspelt key anywhere fails it, every table
is closed (`additionalProperties: false`), and docs/scenario.schema.json is current."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from hoptcp import _toml
from hoptcp.scenario_reference import SCHEMA_COMMAND, SCHEMA_PATH, schema_json

jsonschema = pytest.importorskip("jsonschema")

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def validator(real_core: Any) -> Any:
    schema = json.loads(schema_json())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def _shipped_scenarios() -> Iterator[tuple[str, str]]:
    from hoptcp.ns2.validation import load_suite
    from hoptcp.reproduce.catalogue import catalogue

    for path in sorted([*(ROOT / "examples").glob("*.toml"), *(ROOT / "python/hoptcp/scenarios").glob("*.toml")]):
        yield str(path.relative_to(ROOT)), path.read_text()
    for entry in catalogue():
        yield f"entry {entry.id}", entry.scenario.toml
        for side in entry.sides:
            yield f"entry {entry.id} side {side.name}", side.scenario.toml
    for suite in [ROOT / "validation/ns2/suite.toml", *sorted((ROOT / "validation/ns2/ports").glob("*.toml"))]:
        for case in load_suite(suite).cases:
            yield f"{suite.name} case {case.name}", case.scenario.toml


def test_schema_command_prints_a_draft_07_schema_with_its_version(real_core, capsys):
    from hoptcp.cli import cli

    with pytest.raises(SystemExit) as done:
        cli.main(["scenario", "schema"], standalone_mode=True)
    assert done.value.code == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert schema["x-hoptcp-schema-version"] == 1 and schema["$id"] == "urn:hoptcp:scenario:1"
    assert "flows" in schema["properties"] and schema["required"] == ["topology"]


def test_every_shipped_scenario_validates(validator):
    names = []
    for name, text in _shipped_scenarios():
        errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in validator.iter_errors(_toml.loads(text))]
        assert not errors, f"{name}: {errors}"
        names.append(name)
    assert len(names) > 100, names


@pytest.mark.parametrize("where, misspelt", [
    ("", "duration"),
    ("tcp", "max_windw"),
    ("mac.link_red", "min_thresh"),
    ("flows.0", "rate_bsp"),
])
def test_a_misspelt_key_fails(validator, where, misspelt):
    doc = _toml.loads((ROOT / "examples/chain7.toml").read_text())
    assert not list(validator.iter_errors(doc))
    table = doc
    for part in filter(None, where.split(".")):
        table = table[int(part)] if part.isdigit() else table.setdefault(part, {})
    table[misspelt] = 1
    errors = list(validator.iter_errors(doc))
    assert errors and any(misspelt in e.message for e in errors), errors


def test_a_value_outside_its_declared_range_or_names_fails(validator):
    doc = _toml.loads((ROOT / "examples/chain7.toml").read_text())
    for table, key, value in [("radio", "tx_range_m", 0.0), ("mac", "short_retry_limit", 256),
                              ("radio", "standard", "802.11n"), ("tcp", "max_window", "wstar2")]:
        bad = json.loads(json.dumps(doc))
        bad.setdefault(table, {})[key] = value
        assert list(validator.iter_errors(bad)), (table, key, value)


def test_every_table_is_closed(real_core):
    def objects(node: Any, path: str) -> Iterator[tuple[str, Any]]:
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield path, node
            for k, v in node.get("properties", {}).items():
                yield from objects(v, f"{path}.{k}")
            if "items" in node:
                yield from objects(node["items"], f"{path}[]")

    found = list(objects(json.loads(schema_json()), ""))
    assert {".flows[]", ".wired.links[]", ".tcp.ap", ".routing.aodv"} <= {p for p, _ in found}
    for path, node in found:
        assert node["additionalProperties"] is False, path


def test_schema_document_is_current(real_core):
    doc = ROOT / SCHEMA_PATH
    assert doc.is_file() and doc.read_text(encoding="utf-8") == schema_json(), \
        f"{SCHEMA_PATH} is out of date: run {SCHEMA_COMMAND}"
