"""References handed over, not copied: a call made by generated code (the dispatcher's forwarding call, a
resume call, a loop driver's body call, the miss path's) leaves the callee's frame the only references the
caller had, as an eager call does (`ndarray.resize` counts them).

Imports nothing of the package (a leaf): dispatch/cache.py renders the dispatcher's forwarding call with `moved`,
stitch/breaking.py the entry's temps, and api's miss path and stitch/drivers.py call through `call_moving`.
"""

from __future__ import annotations

from typing import Any, Callable


def moved(name: str) -> str:
    """An expression that hands the value of local `name` to a call and unbinds the local, so the callee
    holds the only reference this frame had (`ndarray.resize` counts them): for a final call only."""
    return f"({name}, {name} := None)[0]"


_MOVERS: dict[tuple, Callable[[Callable, list, dict], Any]] = {}


def call_moving(fn: Callable, pending: list, kwargs: dict) -> Any:
    """`fn(*reversed(pending), **kwargs)`, emptying `pending` and `kwargs` as the arguments go onto the
    stack, so fn's frame holds the only references the caller had (as in `moved`). Keyword names that are
    not identifiers go through `**`, whose argument tuple stays alive during the call (one reference more)."""
    keys = tuple(kwargs)
    if not all(k.isidentifier() for k in keys):
        args = pending[::-1]
        pending.clear()
        return fn(*args, **kwargs)
    mover = _MOVERS.get((len(pending), keys))
    if mover is None:
        named = "".join(f"{k}=kw.pop({k!r}), " for k in keys)
        text = f"lambda f, m, kw: f({'m.pop(), ' * len(pending)}{named})"
        mover = _MOVERS[(len(pending), keys)] = eval(compile(text, "<minidynamo mover>", "eval"))
    return mover(fn, pending, kwargs)
