"""Tables generated from written reports: the reproduction index, the headline table and the
README's counts (``hoptcp reproduce index``).

Verdicts and numbers come from each entry's ``report.md`` (what was run, by which build);
what a claim is (paper claim, side experiment, duplicate, this project's requirement) and
whether it is a headline come from the entry, so a report written before a claim was
classified is counted correctly too.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SpecError
from .catalogue import CLAIM_KINDS, Claim, Entry, catalogue
from .report import VERDICT_COLUMNS, md_cell

#: the catalogue's validation entries (analytic models, not the five papers): their claims are
#: counted apart from the papers' everywhere a tally is printed
VALIDATION_PAPERS = ("Analytic model (validation)", "Bianchi 2000")

_HEADING = re.compile(r"^### (?P<name>.*): (?P<verdict>pass|differs|unspecified|fail|no data|error)(?: \(.*\))?$")
#: verdict columns of the tallies; "other" is no data / error
TALLY = ("pass", "differs", "unspecified", "fail", "other")


@dataclass
class ClaimRow:
    name: str
    verdict: str
    kind: str = "paper"
    headline: bool = False
    #: the claim's table: one {column header: cell} per point
    rows: list[dict[str, str]] = field(default_factory=list)


@dataclass
class ReportSummary:
    entry: Entry
    path: Path
    verdict: str
    build: str
    run: str
    claims: list[ClaimRow]

    def tally(self, counted: bool = True) -> Counter[str]:
        """Verdicts of the paper claims (``counted``) or of the others."""
        return Counter(c.verdict if c.verdict in TALLY else "other" for c in self.claims
                       if (c.kind == "paper") == counted)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read_report(entry: Entry, path: Path) -> ReportSummary:
    """The verdicts, tables, run and build of one written report."""
    if not path.is_file():
        raise SpecError(f"reproduce index: no report for entry '{entry.id}' at {path}; run "
                        f"`hoptcp reproduce {entry.id} --out {path.parent}` (or 'all') first")
    lines = path.read_text(encoding="utf-8").splitlines()
    verdict = build = run = "?"
    claims: list[ClaimRow] = []
    in_claims = False
    header: list[str] | None = None
    for line in lines:
        if m := re.match(r"^Overall verdict: \*\*(.+?)\*\*(?: \((.*?)(?:; paper claims only)?\))?", line):
            verdict = m[1]
            run = m[2] or run
        elif line.startswith("| hoptcp | core ") and build == "?":
            build = line.split("core ", 1)[1].split(",", 1)[0].strip()
        elif line.startswith("| build | "):
            build = _cells(line)[1].strip("`")
        elif line.startswith("| run | "):
            run = _cells(line)[1]
        elif line.startswith("## "):
            in_claims = line == "## Claims"
        elif in_claims and (m := _HEADING.match(line)):
            claims.append(ClaimRow(m["name"], m["verdict"]))
            header = None
        elif in_claims and claims and line.startswith("| "):
            cells = _cells(line)
            if header is None:
                header = cells
            else:
                claims[-1].rows.append(dict(zip(header, cells)))
    declared = {c.name: c for c in entry.claims}
    for c in claims:
        if c.name in declared:
            c.kind, c.headline = declared[c.name].kind, declared[c.name].headline
    return ReportSummary(entry, path, verdict, build, run, claims)


def read_reports(reports: Path) -> list[ReportSummary]:
    """Every catalogue entry's report under ``reports/<id>/report.md``."""
    return [read_report(e, reports / e.id / "report.md") for e in catalogue()]


def _counts(t: Counter[str]) -> str:
    return " / ".join(str(t[k]) for k in TALLY)


def readme_table(summaries: list[ReportSummary], link_prefix: str = "docs/reproductions/") -> str:
    """The README's table: one row per entry, paper-claim tallies and the others apart."""
    lines = ["| id | what | paper claims: pass / differs / unspecified / fail / other | not counted (side, duplicate, project) |",
             "|---|---|---|---|"]
    total, others, valid = Counter[str](), Counter[str](), Counter[str]()
    for s in summaries:
        t, o = s.tally(True), s.tally(False)
        if s.entry.paper in VALIDATION_PAPERS:
            valid += t
        else:
            total += t
        others += o
        n_other = sum(o.values())
        lines.append(f"| [`{s.entry.id}`]({link_prefix}{s.entry.id}/report.md) | {s.entry.title} | {_counts(t)} | "
                     f"{n_other or '-'} |")
    builds = sorted({s.build for s in summaries})
    runs = Counter("quick" if s.run.startswith("quick") else "full" for s in summaries)
    lines += ["", f"Claims of the five papers: {total['pass']} pass, {total['differs']} differ (a second "
              f"implementation agrees with hoptcp on the claim's own quantity), "
              f"{total['unspecified']} unspecified (the paper's value reached, with a corrected interval, under one "
              f"reading the paper's text allows of a quantity it leaves undefined), {total['fail']} fail"
              + (f", {total['other']} without a value" if total["other"] else "")
              + f"; the validation entries (analytic models) apart: {valid['pass']} pass, {valid['fail']} fail"
              + f"; {sum(others.values())} further claims (side experiments, duplicates, this project's "
              f"requirements) are shown in the reports but not counted. "
              + (f"Every report ran on core `{builds[0]}`" if len(builds) == 1 else
                 f"The reports ran on {len(builds)} core builds ({', '.join(f'`{b}`' for b in builds)})")
              + (f"; {runs['quick']} of them are quick runs." if runs["quick"] else ".")]
    return "\n".join(lines)


def index_md(summaries: list[ReportSummary]) -> str:
    """docs/reproductions/index.md: every entry's verdict, tallies, build and claims."""
    lines = ["# hoptcp reproductions", "",
             "Generated by `hoptcp reproduce index` from the reports; each report names the core build it ran on. "
             "Tallies count the paper claims; side experiments, duplicates and this project's requirements are "
             "listed but not counted. See also [the headline claims](headlines.md).", "",
             "| entry | title | paper | verdict | run | build | paper claims: pass / differs / unspecified / fail / other | claims |",
             "|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        claims = md_cell("; ".join(f"{c.name}: {c.verdict}" + ("" if c.kind == "paper" else
                                                                        f" ({CLAIM_KINDS[c.kind]})")
                                   for c in s.claims))
        lines.append(f"| [{s.entry.id}]({s.entry.id}/report.md) | {s.entry.title} | {s.entry.paper} | "
                     f"**{s.verdict}** | {s.run} | `{s.build}` | {_counts(s.tally(True))} | {claims} |")
    return "\n".join(lines) + "\n"


_NS2_COLUMN = "ns-2.35 (mean ± 95% CI)"
_OURS_COLUMN = "hoptcp (mean ± 95% CI)"


def _column(c: ClaimRow, col: str, limit: int = 3) -> str:
    cells = [(r.get("point", ""), r.get(col, "-")) for r in c.rows]
    if not cells or all(v in ("-", "") for _, v in cells):
        return "—"
    if len(cells) == 1:
        return cells[0][1]
    shown = "; ".join(f"{p}: {v}" for p, v in cells[:limit])
    return shown + (f"; … ({len(cells) - limit} more)" if len(cells) > limit else "")


def _printed(c: ClaimRow, limit: int = 3, claim: Claim | None = None) -> str:
    """The paper's number (its range where the rule is one: Fu's 10-30 %), or the reference (the
    paper's model) where the claim compares with one."""
    if claim is not None and claim.rule.kind == "range" and _column(c, "paper", limit) == "—":
        unit = f" {claim.unit}" if claim.unit and claim.unit != "%" else claim.unit
        return f"{claim.rule.a * claim.scale:g}–{claim.rule.b * claim.scale:g}{unit}"
    if claim is not None and claim.rule.kind == "max" and _column(c, "paper", limit) == "—":
        return f"≤ {claim.rule.target}"
    got = _column(c, "paper", limit)
    return _column(c, "reference", limit) if got == "—" else got


def _claim_of(entry_id: str, name: str) -> Claim | None:
    e = next((e for e in catalogue() if e.id == entry_id), None)
    return None if e is None else next((c for c in e.claims if c.name == name), None)


def headlines(summaries: list[ReportSummary]) -> list[tuple[str, str, ClaimRow]]:
    """(paper, entry id, claim) of every headline claim, grouped by paper; the validation entries last."""
    out = [(s.entry.paper, s.entry.id, c) for s in summaries for c in s.claims if c.headline]
    return sorted(out, key=lambda t: (t[0] in VALIDATION_PAPERS, t[0]))


def headlines_md(summaries: list[ReportSummary]) -> str:
    """docs/reproductions/headlines.md: each paper's headline claims, paper / hoptcp / ns-2.35 / verdict."""
    lines = ["# Headline claims", "",
             "Generated by `hoptcp reproduce index` from the reports: each paper's headline results, the paper's "
             "number, hoptcp's (mean ± 95% CI over seeds), ns-2.35's on the same scenarios where stored runs exist "
             "(— where not), and the report's verdict. Which claims are headlines is declared in the entries "
             "(`headline = true`)."]
    lines += cure_table(summaries)
    paper = None
    for p, eid, c in headlines(summaries):
        if p != paper:
            paper = p
            title = f"{p} (validation, not one of the five papers)" if p in VALIDATION_PAPERS else p
            lines += ["", f"## {title}", "", "| claim | paper | hoptcp | ns-2.35 | verdict |", "|---|---|---|---|---|"]
        lines.append(f"| [{md_cell(c.name)}]({eid}/report.md) | {md_cell(_printed(c, claim=_claim_of(eid, c.name)))} | "
                     f"{md_cell(_column(c, _OURS_COLUMN))} | {md_cell(_column(c, _NS2_COLUMN))} | **{c.verdict}** |")
    return "\n".join(lines) + "\n"


def _verdict_rows(summary: ReportSummary) -> dict[str, dict[str, str]]:
    """The report's verdicts.csv, by claim name (empty when the report predates it)."""
    import csv

    path = summary.path.parent / "verdicts.csv"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        return {r["claim"]: r for r in csv.DictReader(fh)}


def cure_table(summaries: list[ReportSummary]) -> list[str]:
    """The table a referee reads first: every counted cure claim (a gain of a cure or variant over
    its baseline), the paper's value, hoptcp at the default, the paired gain under every reading
    the text allows, ns-2.35 (or a port) where it exists, and the verdict."""
    lines = ["", "## The cures", "",
             "Every counted gain claim: the paper's value, hoptcp's paired gain at the default, the same gain under "
             "every committed reading the text allows (mean [interval at 1 − 0.05/k]), the reference's value where "
             "one ran the claim's scenario, and the verdict.", "",
             "| entry | cure claim | paper | hoptcp (default) | under every textual reading | reference | verdict |",
             "|---|---|---|---|---|---|---|"]
    for s in summaries:
        rows = _verdict_rows(s)
        declared = {c.name: c for c in s.entry.claims}
        for c in s.claims:
            cl = declared.get(c.name)
            if cl is None or not cl.counted or not cl.is_gain:
                continue
            rec = rows.get(c.name, {})
            readings = "; ".join(x for x in rec.get("readings", "").split("; ") if x and not x.endswith("(excluded)"))
            lines.append(f"| {s.entry.id} | [{md_cell(c.name)}]({s.entry.id}/report.md) | "
                         f"{md_cell(_printed(c, 1, cl))} | {md_cell(_column(c, _OURS_COLUMN, 1))} | "
                         f"{md_cell(readings or '—')} | {md_cell(_column(c, _NS2_COLUMN, 1))} | **{c.verdict}** |")
    return lines


def verdicts_csv(summaries: list[ReportSummary]) -> str:
    """docs/reproductions/verdicts.csv: every report's verdicts.csv, one row per claim."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(VERDICT_COLUMNS), lineterminator="\n")
    w.writeheader()
    from .report import _paired

    for s in summaries:
        rows = _verdict_rows(s)
        declared = {c.name: c for c in s.entry.claims}
        for c in s.claims:
            # a report written before verdicts.csv existed gives what its Markdown says
            row = rows.get(c.name) or {"entry": s.entry.id, "claim": c.name, "verdict": c.verdict,
                                      "headline": str(c.headline).lower(), "counted": str(c.kind == "paper").lower()}
            if c.name in declared:  # from the entry's declaration, not the run: the current rule
                p = _paired(declared[c.name])
                row = {**row, "paired": "" if p is None else str(p).lower()}
            w.writerow({k: row.get(k, "") for k in VERDICT_COLUMNS})
    return buf.getvalue()


def readme_headlines(summaries: list[ReportSummary], link_prefix: str = "docs/reproductions/") -> str:
    """The README's short headline table: claim, paper, hoptcp, verdict."""
    lines = ["| paper | claim | paper's value | hoptcp | verdict |", "|---|---|---|---|---|"]
    for p, eid, c in headlines(summaries):
        lines.append(f"| {p} | [{md_cell(c.name)}]({link_prefix}{eid}/report.md) | "
                     f"{md_cell(_printed(c, 1, _claim_of(eid, c.name)))} | {md_cell(_column(c, _OURS_COLUMN, 1))} | "
                     f"{c.verdict} |")
    return "\n".join(lines)


def replace_between(text: str, name: str, body: str, where: str = "README.md") -> str:
    """``text`` with the part between ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->``
    replaced by ``body``."""
    begin, end = f"<!-- generated: {name} -->", f"<!-- end generated: {name} -->"
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise SpecError(f"reproduce index: {where} needs one '{begin}' line followed by one '{end}' line")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def generated(reports: Path, readme_text: str | None) -> dict[str, str]:
    """What ``hoptcp reproduce index`` writes: file name -> content (README.md only when given)."""
    summaries = read_reports(reports)
    out = {"index.md": index_md(summaries), "headlines.md": headlines_md(summaries),
           "verdicts.csv": verdicts_csv(summaries)}
    if readme_text is not None:
        text = replace_between(readme_text, "reproductions", readme_table(summaries))
        out["README.md"] = replace_between(text, "headlines", readme_headlines(summaries))
    return out


def write_index(reports: Path, readme: Path | None = None) -> list[Path]:
    """Rewrite ``reports/index.md``, ``reports/headlines.md`` and the README's generated tables."""
    files = generated(reports, readme.read_text(encoding="utf-8") if readme is not None else None)
    written = []
    for name, content in files.items():
        path = readme if name == "README.md" and readme is not None else reports / name
        path.write_text(content, encoding="utf-8")
        written.append(path)
    return written
