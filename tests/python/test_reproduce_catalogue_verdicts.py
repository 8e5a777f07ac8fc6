"""The committed catalogue keeps the verdict rules (issue #36's must-shows), read from the
generated docs: docs/reproductions/verdicts.csv and every Markdown table of the reports, the
index, the headlines and the README."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import pytest

from hoptcp.reproduce.report import VERDICT_COLUMNS

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "docs" / "reproductions"
REFERENCES = {"ns2", "authors-code", "ns2-port"}


def rows() -> list[dict[str, str]]:
    with open(REPORTS / "verdicts.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def num(x: str) -> float:
    return float(x) if x not in ("", None) else math.nan


def test_verdicts_csv_has_its_columns_and_a_row_per_reported_claim() -> None:
    with open(REPORTS / "verdicts.csv", encoding="utf-8", newline="") as fh:
        assert next(csv.reader(fh)) == list(VERDICT_COLUMNS)
    got = {(r["entry"], r["claim"]) for r in rows()}
    heading = re.compile(r"^### (.*): (pass|differs|unspecified|fail|no data|error)(?: \(.*\))?$")
    for report in sorted(REPORTS.glob("*/report.md")):
        in_claims = False
        for line in report.read_text(encoding="utf-8").splitlines():
            if line.startswith("## "):
                in_claims = line == "## Claims"
            elif in_claims and (m := heading.match(line)):
                assert (report.parent.name, m[1]) in got, (report.parent.name, m[1])


def test_every_counted_differs_is_earned_by_a_second_implementation() -> None:
    for r in rows():
        if r["counted"] == "true" and r["verdict"] == "differs":
            assert r["evidence"] in REFERENCES, r
            assert num(r["margin"]) < num(r["gap"]) / 2, r
            assert int(r["n_hoptcp"]) >= 10 and int(r["n_ref"]) >= 10, r


def test_every_counted_unspecified_is_a_corrected_hit_under_a_quoted_textual_reading() -> None:
    for r in rows():
        if r["counted"] == "true" and r["verdict"] == "unspecified":
            assert r["reading_textual"] == "true" and r["reading_quote"] and r["hit_setting"], r
            assert num(r["band_low"]) <= num(r["ci_low"]) <= num(r["ci_high"]) <= num(r["band_high"]), r


def test_no_unspecified_under_a_reading_the_text_excludes() -> None:
    for r in rows():
        if r["verdict"] != "unspecified":
            continue
        hit = r["hit_setting"].lower()
        if r["entry"].startswith(("fu-", "lred-")):
            assert "timer" not in hit, r
        if r["entry"].startswith("ldm-"):
            assert "timer" not in hit and "exchange" not in hit, r
        if r["entry"] == "fu-topologies":
            assert "aodv" not in hit, r


def test_every_gain_is_paired_but_the_declared_exceptions() -> None:
    from hoptcp.reproduce.catalogue import get_entry
    from hoptcp.reproduce.report import UNPAIRED_GAINS

    unpaired = set()
    for r in rows():
        if r["paired"] == "false":
            claim = next(c for c in get_entry(r["entry"]).claims if c.name == r["claim"])
            assert claim.check in UNPAIRED_GAINS, r
            unpaired.add(claim.check)
        else:
            assert r["paired"] in ("true", ""), r
    assert unpaired <= UNPAIRED_GAINS


def _cells(line: str) -> int:
    return len(re.split(r"(?<!\\)\|", line.strip().strip("|")))


@pytest.mark.parametrize("page", ["README.md", "docs/reproductions/index.md", "docs/reproductions/headlines.md",
                                  *sorted(str(p.relative_to(ROOT)) for p in REPORTS.glob("*/report.md"))])
def test_markdown_table_rows_have_their_headers_cells(page: str) -> None:
    header: int | None = None
    for n, line in enumerate((ROOT / page).read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|"):
            header = None
            continue
        if header is None:
            header = _cells(line)
        else:
            assert _cells(line) == header, f"{page}:{n}: {_cells(line)} cells, header {header}"


def test_no_report_names_a_path_of_the_machine() -> None:
    for page in [*REPORTS.glob("*/report.md"), REPORTS / "index.md", REPORTS / "headlines.md"]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w.])/(?:work|home|root|tmp|Users)/", text), page
