"""Fuzzer feature for `x[mask] op= value` (capture/masked_updates.py, taken whole as one op): masks of the
array's own shape (or, rarely, of a row: NumPy's IndexError), every in-place operator, values that are
constants, a local holding a Python number or a 0-d array (the one-load form), or an expression (the
ordinary path), written into an argument, a local array or a view of one."""

from __future__ import annotations

from .generator import EXTRA_STATEMENTS


def masked_update(gen, env: dict) -> list[str]:
    r = gen.rng
    target = r.choice(["x", "y"] + [n for n, k in env.items() if k == "A"])
    lines = []
    if r.random() < 0.2:                    # through a view: the write reaches the base
        view = gen.fresh("mw")
        lines.append(f"{view} = {target}[1:]")
        target = view
    mask = r.choice((f"{target} > 0", f"{target} < 0.5", f"{target} != {target}", f"{target} >= {target}.mean()",
                     f"{target}[0] > 0"))
    value = r.choice(("2", "0.5", "-1", "True", "3", gen.number(env), f"{target}.sum()", "x[0]"))
    if r.random() < 0.4:                    # a local: the one-load form
        local = gen.fresh("mv")
        lines.append(f"{local} = {value}")
        value = local
    op = r.choice(("+=", "-=", "*=", "/=", "//=", "%=", "**=", "|="))
    lines.append(f"{target}[{mask}] {op} {value}")
    return lines


EXTRA_STATEMENTS.update(masked_update=masked_update)
