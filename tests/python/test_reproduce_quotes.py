"""Every sentence the verdicts cite is the papers' own (rule 1): each declared range's quote and
each exclusion's quote occurs verbatim in ../shared/papers (skipped where the papers are not
beside the checkout, as on a fresh CI machine: scripts/check_quotes.py is the developer's
check, this the same check in the suite)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT.parent / "shared" / "papers"


def _script():
    spec = importlib.util.spec_from_file_location("check_quotes", ROOT / "scripts" / "check_quotes.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_folding_is_the_only_liberty() -> None:
    cq = _script()
    assert cq.fold("a\n  b\u2019s \u201cc\u201d") == "a b's \"c\""
    assert cq.fold("x") != cq.fold("y")


@pytest.mark.skipif(not PAPERS.is_dir(), reason="../shared/papers is not beside this checkout")
def test_every_quote_is_verbatim_in_the_papers(tmp_path: Path) -> None:
    cq = _script()
    assert cq.main(["--papers", str(PAPERS), "--verdicts", str(tmp_path / "none.csv")]) == 0


@pytest.mark.skipif(not PAPERS.is_dir(), reason="../shared/papers is not beside this checkout")
def test_a_made_up_quote_is_found_out(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cq = _script()
    csv = tmp_path / "v.csv"
    csv.write_text("entry,claim,reading_quote\nx,y,LRED doubles throughput on every chain\n")
    assert cq.main(["--papers", str(PAPERS), "--verdicts", str(csv)]) == 1
    assert "not verbatim in the papers: verdicts.csv: x: y" in capsys.readouterr().out
