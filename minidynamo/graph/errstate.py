"""Ops that run under `np.errstate(...)`: the meta key capture sets on them, and the code that wraps them.

Imports graph.control and graph.ir. A node recorded inside a captured `with np.errstate(**kw):` block carries
`node.meta[ERRSTATE]`, the keyword tuples of every enclosing block, outermost first. Code generators run
each maximal run of consecutive nodes with the same stack inside the same nested `with np.errstate(...)`
statements (`with_errstate`), so exactly those ops see that error state, warnings and FloatingPointError
included, and the caller's state is back after them even if one raises. Engines leave such nodes to NumPy
(`has_errstate`).
"""

from __future__ import annotations

from typing import Any, Callable

from . import control
from .ir import ERRSTATE


def errstate_of(node: Any) -> tuple:
    return node.meta.get(ERRSTATE, ())


def has_errstate(node: Any) -> bool:
    """True for a node that runs under np.errstate, or a cond / while_loop holding one."""
    if errstate_of(node):
        return True
    return any(has_errstate(n) for _, g in control.subgraphs(node) for n in g.nodes) \
        if control.is_control(node) else False


def with_statement(stack: tuple, errstate_name: str) -> str:
    """`with np.errstate(divide='ignore'), np.errstate(over='raise'):` for a stack of keyword tuples."""
    managers = [f"{errstate_name}({', '.join(f'{k}={v!r}' for k, v in kwargs)})" for kwargs in stack]
    return f"with {', '.join(managers)}:"


def group_by_errstate(chunks: list[tuple[tuple, list[str]]], errstate_name: Callable[[], str]) -> list[str]:
    """Lines of (errstate stack, lines) chunks in order, consecutive chunks with one stack in one `with`."""
    out: list[str] = []
    i = 0
    while i < len(chunks):
        stack, j = chunks[i][0], i
        lines: list[str] = []
        while j < len(chunks) and chunks[j][0] == stack:
            lines += chunks[j][1]
            j += 1
        out += [with_statement(stack, errstate_name()), *(f"    {line}" for line in lines)] if stack else lines
        i = j
    return out
