"""Tables generated from the reports (README counts, index, headlines) and `reproduce all` on
local cores and on a Dask cluster."""

import re
from pathlib import Path

import pytest

from hoptcp import SpecError
from hoptcp.cli import main
from hoptcp.reproduce import get_entry, reproduce, reproduce_all
from hoptcp.reproduce.index import generated, read_report, replace_between

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_tables_are_what_reproduce_index_writes_from_the_stored_reports():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files = generated(ROOT / "docs" / "reproductions", readme)
    assert files["README.md"] == readme, "run `hoptcp reproduce index` to regenerate the README's tables"
    assert files["index.md"] == (ROOT / "docs" / "reproductions" / "index.md").read_text(encoding="utf-8")
    assert files["headlines.md"] == (ROOT / "docs" / "reproductions" / "headlines.md").read_text(encoding="utf-8")


def test_headlines_cover_every_paper_with_three_to_six_claims():
    text = (ROOT / "docs" / "reproductions" / "headlines.md").read_text(encoding="utf-8")
    sections = text.split("\n## ")[1:]
    counts = {s.splitlines()[0]: sum(1 for line in s.splitlines() if line.startswith("| [")) for s in sections}
    # Fu et al.'s section holds two papers (the tech report and INFOCOM): both readings of the cures
    for paper, most in (("Fu et al. 2003", 8), ("Jiang et al.", 6), ("Lee et al. 2003", 6),
                        ("ElRakabawy et al. 2008", 6)):
        assert 3 <= counts[paper] <= most, (paper, counts)


def test_a_report_is_read_back_with_the_entrys_claim_kinds(fake_core, tmp_path):
    rep = reproduce("single-hop", tmp_path / "single-hop", quick=True, store=tmp_path / "r.db", progress=False)
    s = read_report(get_entry("single-hop"), rep.report)
    assert s.build == "0.0.0-fake" and s.run.startswith("quick: ")
    assert [(c.name, c.verdict) for c in s.claims] == [(c.claim.name, c.verdict) for c in rep.claims]
    assert s.claims[0].headline and s.claims[0].rows[0]["hoptcp (mean ± 95% CI)"] != "-"
    assert s.tally(True)[rep.claims[0].verdict] == 1


def test_generated_sections_need_their_markers():
    assert replace_between("a\n<!-- generated: x -->\nold\n<!-- end generated: x -->\nb", "x", "new") == (
        "a\n<!-- generated: x -->\nnew\n<!-- end generated: x -->\nb")
    with pytest.raises(SpecError, match="needs one '<!-- generated: x -->' line"):
        replace_between("no markers", "x", "new")


def test_reproduce_index_cli_rewrites_from_reports(fake_core, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", "index", "--out", str(tmp_path / "none")]) == 2
    assert "no such directory of reports" in capsys.readouterr().err
    (tmp_path / "reports").mkdir()
    assert main(["reproduce", "index", "--out", str(tmp_path / "reports")]) == 2
    assert "no report for entry 'bianchi'" in capsys.readouterr().err
    assert main(["reproduce", "single-hop", "--only", "x"]) == 2
    assert "--only x: only with 'all'" in capsys.readouterr().err


def _reports(out):
    """Each report's claims tables (the lines that depend on the runs, not on how they were run)."""
    return {p.parent.name: [line for line in p.read_text().splitlines() if line.startswith("| ") and "wall time" not in
                            line and "| runs |" not in line and "| date |" not in line and "| store |" not in line]
            for p in sorted(out.glob("*/report.md"))}


def test_reproduce_all_on_local_cores_and_on_a_dask_cluster(fake_core, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    only = ["single-hop", "bianchi"]
    assert main(["reproduce", "all", "--quick", "-j", "2", "--only", ",".join(only), "--out", str(tmp_path / "local"),
                 "--store", str(tmp_path / "local.db"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "reproduce all: 2 entries, 9 runs, 0 already in the store, 9 to run; expected unknown" in out
    assert "2 reports from core 0.0.0-fake" in out
    # the last line: wall time and run count
    last = out.strip().splitlines()[-2]  # (the line before "wrote INDEX")
    assert re.fullmatch(r"reproduce all: 2 reports from core 0\.0\.0-fake in \d+ s \([\d,]+ s wall, on 2 cores\); "
                        r"9 runs: 0 already in the store, 9 run now, 0 missing", last), last
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        index = reproduce_all(tmp_path / "dask", quick=True, store=tmp_path / "dask.db", only=only,
                              dask=cluster.scheduler_address, progress=False)
    assert _reports(tmp_path / "dask") == _reports(tmp_path / "local")
    text = index.read_text()
    assert "[single-hop](single-hop/report.md)" in text and "`0.0.0-fake`" in text
    assert (tmp_path / "dask" / "headlines.md").read_text().count("| [") == 2
    # resumable: everything is in the store now, and the earlier reports give the expected time
    runs = fake_core.runs
    reproduce_all(tmp_path / "local", quick=True, store=tmp_path / "local.db", only=only, progress=False)
    assert fake_core.runs == runs
    out = capsys.readouterr().out
    assert "9 already in the store, 0 to run; expected about 0 s" in out
    assert out.strip().splitlines()[-1].endswith("9 runs: 9 already in the store, 0 run now, 0 missing")
