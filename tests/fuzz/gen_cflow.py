"""Fuzzer statements for control flow inside graphs (issue 11): ifs on array values whose arms are mostly
pure (auto_cond folds them into cond nodes; an arm with a side effect, a print or a spec change keeps the
break), convergence `while` loops on array values (while_loop nodes), and convergence loops that carry a
Python counter tested with a short-circuit `and`/`or` (`while err > tol and k < m:`, the counter used after
the loop). Registered as the generator features `cond_pure`, `while_conv` and `while_count`; each function
takes the generator and the visible names' kinds.
"""

from __future__ import annotations

from .generator import EXTRA_STATEMENTS

_TOLERANCES = ("1e-3", "0.01", "0.5")
_CONTRACTIONS = ("{w} * 0.5", "np.tanh({w}) * 0.5", "{w} - {w} / 3", "({w} + {w} * 0) / 2", "np.sin({w}) * 0.9")


def condition(gen, env: dict) -> str:
    """A truth test on an array's value: a comparison, truthiness, `not`, or a short-circuit `and`."""
    s = lambda: gen.expr("S", env, 1)  # noqa: E731
    return gen.rng.choice((f"{s()} > {gen.number({})}", f"{s()}", f"not {s()} < 0", f"({gen.expr('A', env, 1)} > 0).all()",
                           f"{s()} > 0 and {s()} < 5", f"{s()} <= {s()}"))


def stmt_cond_pure(gen, env: dict) -> list[str]:
    """`if <array test>:` with both arms assigning the same names (a fresh one and maybe an existing one)."""
    r = gen.rng
    kind = r.choice(("A", "A", "S", "R", "P"))
    name = gen.fresh("c")
    targets = [(name, kind)]
    existing = [n for n, k in env.items() if k in ("A", "S", "P") and n not in ("x", "y", "n")]
    if existing and r.random() < 0.5:
        other = r.choice(existing)
        targets.append((other, env[other]))
    arms = []
    for _ in range(2):
        lines = [f"    {t} = {gen.expr(k, env, 2)}" for t, k in targets]
        if r.random() < 0.15:                      # an impure arm: the branch must stay a break
            lines.insert(0, r.choice(("    lst.append(1)", "    print('arm')", "    x[0] = 1")))
        arms.append(lines)
    lines = [f"if {condition(gen, env)}:"] + arms[0]
    if r.random() < 0.8:
        lines += ["else:"] + arms[1]
    else:                                          # no else: the names need a value before the if
        lines = [f"{t} = {gen.expr(k, env, 1)}" for t, k in targets] + lines
    env[name] = kind
    return lines


def stmt_while_conv(gen, env: dict) -> list[str]:
    """A convergence loop on an array value: `while np.abs(w).max() > tol: w = <contraction of w>`."""
    r = gen.rng
    w = gen.fresh("w")
    lines = [f"{w} = np.clip({gen.expr('A', env, 1)}, -1e6, 1e6)"]
    test = r.choice((f"np.abs({w}).max() > {r.choice(_TOLERANCES)}", f"np.abs({w}).sum() >= {r.choice(_TOLERANCES)}",
                     f"({w} * {w}).mean() > {r.choice(_TOLERANCES)}"))
    body = [f"    {w} = " + r.choice(_CONTRACTIONS).format(w=w)]
    if r.random() < 0.3:                           # a Python counter or a side effect: not foldable
        counter = gen.fresh("k")
        lines.append(f"{counter} = 0")
        body.append(f"    {counter} += 1")
    if r.random() < 0.3:
        extra = gen.fresh("u")
        body.insert(0, f"    {extra} = {w} * 2")
    lines += [f"while {test}:"] + body
    env[w] = "A"
    return lines


def stmt_while_count(gen, env: dict) -> list[str]:
    """A convergence loop carrying a Python counter: `k = 0; while <test> and k < m: w = ...; k += 1`, or
    with `or`, the counter first, `not`, a test that raises only when reached, or `while True: ... break`."""
    r = gen.rng
    w, k = gen.fresh("w"), gen.fresh("k")
    err = r.choice((f"np.abs({w}).max()", f"np.abs({w}).sum()", f"({w} * {w}).mean()"))
    tol, limit = r.choice(_TOLERANCES), r.choice(("0", "1", "3", "40", "n"))
    start, step = r.choice((("0", "1"), ("0", "1"), ("0.0", "0.5"), ("2", "-1"), ("n", "1")))
    lines = [f"{w} = np.clip({gen.expr('A', env, 1)}, -1e6, 1e6)", f"{k} = {start}"]
    body = [f"    {w} = " + r.choice(_CONTRACTIONS).format(w=w),
            f"    {k} " + r.choice((f"+= {step}", f"= {k} + {step}"))]
    if r.random() < 0.3:
        body.insert(1, f"    {gen.fresh('u')} = {w} * 2")
    # (a counting-down counter only where a NaN error still ends the loop: `nan > tol` is False)
    form = r.choice((0, 1, 4)) if step == "-1" else r.randrange(6)
    if form == 5:       # do-while: the test at the end of the body, leaving with break
        lines += ["while True:"] + body + [f"    if {err} < {tol} or {k} >= {limit}:", "        break"]
    else:
        test = (f"{err} > {tol} and {k} < {limit}", f"{k} < {limit} and {err} > {tol}",
                f"{err} > {tol} or {k} < {limit}",
                f"not ({err} <= {tol} or {k} >= {limit})",
                f"{err} > {tol} and 100 // ({limit} + 50 - {k}) > 0")[form]
        lines += [f"while {test}:"] + body
    env[w], env[k] = "A", "P"
    return lines


EXTRA_STATEMENTS.update(cond_pure=stmt_cond_pure, while_conv=stmt_while_conv, while_count=stmt_while_count)
