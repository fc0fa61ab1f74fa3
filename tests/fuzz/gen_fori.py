"""Fuzzer feature `fori`: `for i in range(...)` loops long enough (or with a `break`, or an inner loop) for
capture to fold them into fori_loop nodes (capture/fold/fori.py). Bodies write into arrays through indices made
from the loop index (`acc[i % m] += ...`, into arguments too), carry arrays and Python numbers, leave
with a data-dependent `break` or `continue`, raise in some iteration (an integer division by zero, an index
array out of range), nest a short inner loop, and sometimes do what keeps today's driver (a print, a list
append, a branch on the index). Counts come from constants, `n` (0, negative, a float: TypeError) and
sizes; carried values and the loop variable are used after the loop.
"""

from __future__ import annotations

from .generator import EXTRA_PREAMBLE, EXTRA_STATEMENTS

_COUNTS = ("70", "100", "n * 40", "x.shape[0] * 30", "len(lst) * 35", "66 + x.shape[1]", "int(n) * 33")
_CONTRACTIONS = ("{w} * 0.5 + {e}", "np.tanh({w}) + {e}", "{w} - {w} / 3", "np.sin({w}) * 0.9 + {e}",
                 "({w} + {e}) / 2")


def _scalar(gen, env: dict) -> str:
    return gen.expr("S", env, 1)


def _body(gen, env: dict, i: str, names: dict) -> list[str]:
    """Statements of the loop body (indented once), over the loop index `i` and the carried `names`."""
    r = gen.rng
    w, acc, s, c = names["w"], names["acc"], names["s"], names["c"]
    m = "x.shape[0]"
    forms = [
        f"{w} = " + r.choice(_CONTRACTIONS).format(w=w, e=f"{gen.expr('A', env, 1)} * 0.01"),
        f"{acc}[{i} % {m}] += {_scalar(gen, env)} * 0.1",
        f"{acc}[{i} % {m}] = {w}[{i} % {m}, 0]",
        f"{s} = {s} + float({_scalar(gen, env)})",
        f"{c} += 1",
        f"{c} = {c} + {i}",
        f"{r.choice(('x', 'y'))}[{i} % {m}] += {r.choice(('1', '0.5', 'True'))}",
        f"{acc}[: {i} % 3] = {s}",
        f"{w}[{i} % {m}] = {acc}[{i} % {m}]",
    ]
    lines = [f"    {r.choice(forms)}" for _ in range(r.randint(1, 3))]
    extra = r.random()
    if extra < 0.18:                      # a data-dependent break
        at = r.randrange(len(lines) + 1)
        lines[at:at] = [f"    if {_scalar(gen, env)} > {r.choice(('3', '0', '-2', '40'))}:", "        break"]
    elif extra < 0.3:                     # a data-dependent continue
        lines[:0] = [f"    if {w}[{i} % {m}, 0] < {r.choice(('0', '0.5', '-1'))}:", "        continue"]
    elif extra < 0.38:                    # raises in the iteration where i == K (ZeroDivisionError)
        lines.append(f"    {c} = {c} + 7 // ({i} - {r.choice(('37', '5', '99', '0'))})")
    elif extra < 0.45:                    # an index array with an entry out of range (IndexError)
        lines.append(f"    {acc}[IDX[{i} % 4] % ({m} + {r.choice(('0', '1', '5'))})] += 1")
    elif extra < 0.55:                    # a short inner loop
        j = gen.fresh("j")
        lines += [f"    for {j} in range({r.choice(('3', f'{i} % 3', m))}):",
                  f"        {acc}[{j} % {m}] += {w}[{j} % {m}, 0] * 0.5"]
    elif extra < 0.63:                    # what keeps the driver: a print, an append, a branch on the index
        lines += r.choice(([f"    print('step', {i} % 7)"], [f"    lst.append({i})"],
                           [f"    if {i} > 50:", f"        {c} += 2"]))
    return lines


def stmt_fori(gen, env: dict) -> list[str]:
    r = gen.rng
    i = gen.fresh("i")
    names = {"w": gen.fresh("fw"), "acc": gen.fresh("fa"), "s": gen.fresh("fs"), "c": gen.fresh("fc")}
    lines = [f"{names['w']} = np.clip({gen.expr('A', env, 1)}, -1e3, 1e3)",
             f"{names['acc']} = np.zeros(x.shape[0])",
             f"{names['s']} = {r.choice(('0.0', '1.5'))}",
             f"{names['c']} = 0"]
    bound = r.random() < 0.5
    if bound:
        lines.append(f"{i} = -1")         # bound before: its value after a zero-trip loop
    start = r.choice(("", "", "1, ", "x.shape[0], "))
    lines.append(f"for {i} in range({start}{r.choice(_COUNTS)}):")
    body_env = dict(env, **{i: "I", names["w"]: "A", names["s"]: "P", names["c"]: "P"})
    lines += _body(gen, body_env, i, names)
    env.update({names["w"]: "A", names["acc"]: "C", names["s"]: "P", names["c"]: "P"})
    if bound:
        env[i] = "P"
    return lines


EXTRA_STATEMENTS.update(fori=stmt_fori)
EXTRA_PREAMBLE.update(fori=["IDX = np.array([0, 2, 1, 9])"])
