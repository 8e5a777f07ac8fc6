"""Exceptions raised by hoptcp for mistakes in user input.

Both are ``ValueError`` subclasses carrying one human-readable line that names the
offending key, the bad value and what is allowed. The CLI prints that line and
exits with status 2; it never shows a traceback for them.
"""

from __future__ import annotations

try:  # the compiled core defines the canonical class; inherit so both catch
    from hoptcp._core import ScenarioError as _CoreScenarioError
except ImportError:  # core not built (e.g. unit tests with the test double)
    _CoreScenarioError = ValueError  # type: ignore[misc, assignment]


class ScenarioError(_CoreScenarioError):
    """A scenario (file, override or resolved value) is invalid."""


class SpecError(ValueError):
    """A sweep specification or reproduction entry is invalid."""


class CoreUnavailableError(RuntimeError):
    """The compiled extension ``hoptcp._core`` cannot be imported."""


class RunError(RuntimeError):
    """One or more runs failed inside the simulator."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped a run, sweep or reproduction. The message says
    what was kept; the CLI prints it and exits with status 130."""
