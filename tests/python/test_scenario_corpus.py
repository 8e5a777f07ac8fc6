"""The canonical-JSON corpus (scripts/scenario_corpus.py): what the core makes of every example,
every point of every reproduction entry and side sweep, every validation/ns2 case, every key set to
each value of a fixed list, and 400 seeded random scenarios — canonical JSON, resolved TOML or error
text — is byte for byte what tests/data/scenario_corpus.sha256 stores, written by the core as it was
before issue #40 moved every key's declaration (main at c4cc4c3). A change meant to alter the
canonical form or an error text rewrites it with `python scripts/scenario_corpus.py --write` and
says why."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parents[2]


def _corpus():
    spec = importlib.util.spec_from_file_location("scenario_corpus", ROOT / "scripts" / "scenario_corpus.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["scenario_corpus"] = module
    spec.loader.exec_module(module)
    return module


def test_every_scenario_resolves_byte_for_byte_as_stored(real_core):
    corpus = _corpus()
    stored = corpus.read_manifest()
    now = corpus.digests(set(stored))
    differ = [f"{name}: {stored[name][0]} items stored, {now.get(name, (0, ''))[0]} now"
              for name in stored if now.get(name) != stored[name]]
    assert not differ, ("canonical JSON, resolved TOML or error texts changed (diff the items with "
                        "scripts/scenario_corpus.py --dump DIR before and after):\n" + "\n".join(differ))
    assert sum(count for count, _ in stored.values()) > 80_000
