#!/usr/bin/env python3
"""Developer check: every quote the verdicts cite occurs verbatim in the papers.

Reads docs/reproductions/verdicts.csv (column ``reading_quote``) and the entries' declared
ranges (``quote``, and each exclusion's ``quote``), and looks each one up in
../shared/papers/*.txt (or --papers DIR) after folding whitespace and typographic quotes, the
only liberties taken (the papers are text extractions of PDFs). Prints every quote that is
not found and exits 1 if there is one.

    python scripts/check_quotes.py [--papers ../shared/papers] [--verdicts docs/reproductions/verdicts.csv]
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fold(text: str) -> str:
    """Whitespace runs as one space, typographic quotes and dashes as ASCII, ligatures undone."""
    for a, b in (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'), ("\u2013", "-"),
                 ("\u2014", "-"), ("\ufb01", "fi"), ("\ufb02", "fl"), ("-\n", "-")):
        text = text.replace(a, b)
    return re.sub(r"\s+", " ", text).strip()


def entry_quotes() -> list[tuple[str, str]]:
    sys.path.insert(0, str(ROOT / "python"))
    from hoptcp.reproduce.catalogue import catalogue

    out = []
    for e in catalogue():
        for c in e.claims:
            u = c.unspecified
            if u is None:
                continue
            if u.quote:
                out.append((f"{e.id}: {c.name}", u.quote))
            out += [(f"{e.id}: {c.name} (excluded {x.match})", x.quote) for x in u.exclusions if x.quote]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--papers", type=Path, default=ROOT.parent / "shared" / "papers")
    ap.add_argument("--verdicts", type=Path, default=ROOT / "docs" / "reproductions" / "verdicts.csv")
    a = ap.parse_args(argv)
    corpus = " ".join(fold(p.read_text(encoding="utf-8", errors="replace")) for p in sorted(a.papers.glob("*.txt")))
    if not corpus:
        print(f"check_quotes: no papers under {a.papers}", file=sys.stderr)
        return 2
    quotes = entry_quotes()
    if a.verdicts.is_file():
        with open(a.verdicts, encoding="utf-8", newline="") as fh:
            quotes += [(f"verdicts.csv: {r['entry']}: {r['claim']}", r["reading_quote"])
                       for r in csv.DictReader(fh) if r.get("reading_quote")]
    missing = sorted({(w, q) for w, q in quotes if fold(q) not in corpus})
    for w, q in missing:
        print(f"not verbatim in the papers: {w}: {q!r}")
    print(f"check_quotes: {len(quotes)} quotes, {len(missing)} not found", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
