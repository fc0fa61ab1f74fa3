"""A Python newer than the newest one this package knows: its bytecode is unknown, so nothing of the capture
machinery (nor the `bytecode` library, which may not even import there) is loaded. compile() hands back a
function that runs the original as plain Python, warning once per process with the version; explain() runs
it and says so. Imports pyversion only; `minidynamo/__init__.py` picks these names instead of
api's on such a Python.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from . import pyversion

_warned = False


def reason() -> str:
    """Why compiled functions run eagerly here, naming the versions."""
    running = ".".join(map(str, pyversion.VERSION))
    newest = ".".join(map(str, pyversion.NEWEST_SUPPORTED))
    return (f"Python {running} is newer than the newest Python minidynamo supports ({newest}): its bytecode "
            f"is unknown, so compiled functions run as plain Python, uncaptured")


def _warn_once() -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(reason(), RuntimeWarning, stacklevel=3)


def compile(fn: Callable | None = None, **options: Any) -> Any:
    """The original, run eagerly (`@compile`, `@compile(...)` and `compile(fn)` as in api.compile)."""
    if fn is None:
        return functools.partial(compile, **options)
    if not callable(fn):
        raise TypeError(f"compile() expects a callable, got {fn!r}")
    _warn_once()

    @functools.wraps(fn)
    def eager(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    eager._minidynamo_eager = reason()
    return eager


class EagerExplanation:
    """explain()'s report on such a Python: no graph, no break, and why."""

    graphs: list = []
    break_reasons: list = []
    graph_count = graph_break_count = op_count = 0

    def __init__(self, function: str) -> None:
        self.function = function

    def __str__(self) -> str:
        return f"explain({self.function}): not captured. {reason()}"


def explain(fn: Callable) -> Callable[..., EagerExplanation]:
    """`explain(fn)(*args)`: runs fn once eagerly and reports that nothing was captured, and why."""
    original = getattr(fn, "__wrapped__", fn) if hasattr(fn, "_minidynamo_eager") else fn

    def run(*args: Any, **kwargs: Any) -> EagerExplanation:
        original(*args, **kwargs)
        return EagerExplanation(getattr(original, "__qualname__", repr(original)))

    return run


def stats(fn: Callable) -> Any:
    raise TypeError(f"stats(): {reason()}; nothing is counted")


def reset() -> None:
    """Nothing is cached on such a Python."""


def lint(fn: Callable, example_args: Any = None, example_kwargs: Any = None) -> Any:
    """No lint without known bytecode: raises RuntimeError saying why."""
    raise RuntimeError(f"minidynamo.lint cannot read this Python's bytecode: {reason()}")
