"""Per-paper helper modules for reproduction entries (builders, checks, figures).

Entries name functions (``derive``, ``check``, ``reference``, figure ``function``); each
registers itself with ``@register(kind)`` (:mod:`hoptcp.reproduce.registry`, whose ``MODULES``
lists these modules), so a group of entries can keep its code in one file here.
"""
