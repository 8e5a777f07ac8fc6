"""Per-paper helper modules for reproduction entries (builders, checks, figures).

Entries name functions (``derive``, ``check``, ``reference``, figure ``function``);
they are looked up in ``builders``, ``checks`` and ``figures`` and then in every
module of this package, so a group of entries can keep its code in one file here.
"""
