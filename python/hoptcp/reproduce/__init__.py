"""The reproduction catalogue: ``hoptcp reproduce ID`` runs a paper's experiment and
writes a report with paper-vs-hoptcp claims, figures and the per-run data.

Entries are TOML files in ``entries/``; see docs/campaigns.md for the format.
"""

from .catalogue import Claim, Entry, FigureSpec, Rule, SideSweep, catalogue, get_entry, load_entry, parse_entry
from .report import ClaimResult, Context, Evidence, Reproduction, claim_on, evaluate_claim, reproduce, reproduce_all

__all__ = ["Claim", "ClaimResult", "Context", "Entry", "Evidence", "FigureSpec", "Reproduction", "Rule", "SideSweep",
           "catalogue", "claim_on", "evaluate_claim", "get_entry", "load_entry", "parse_entry", "reproduce",
           "reproduce_all"]
