"""Fuzzer statements around graph breaks (issue 9 items 5-7): f-string prints of array values, nested loops
longer than `unroll_limit` (with breaks in their bodies), try/except/finally and `with` blocks around
breaks with exceptions raised after the break, and closures over locals of a function that breaks.

Each feature is a statement maker `(gen, env) -> lines` registered with the generator, like gen_raising.
"""

from __future__ import annotations

from .generator import EXTRA_PREAMBLE, EXTRA_STATEMENTS

# A context manager that prints on entry and exit, so a doubled or missing __exit__ shows in stdout (a
# function, so the runner's comparison of module globals leaves it alone).
PRELUDE = [
    "import contextlib",
    "",
    "",
    "@contextlib.contextmanager",
    "def tracked(tag):",
    "    print('enter', tag)",
    "    try:",
    "        yield tag",
    "    except BaseException as exc:",
    "        print('exit', tag, type(exc).__name__)",
    "        raise",
    "    print('exit', tag)",
]


def a_break(gen, env: dict) -> str:
    """One statement that breaks the graph: a print of an array, or a branch on one."""
    r, s = gen.rng, gen.expr("S", env, 1)
    return r.choice((f"print('at', {s})", f"print(f'v={{{s}:.3f}}')", f"_b = float({s})",
                     f"_b = 1 if {s} > 0 else 2"))


def fstring(gen, env: dict) -> list[str]:
    r = gen.rng
    s, a = gen.expr("S", env, 1), gen.pick(env, "A") or "x"
    spec = r.choice(("", ":.4f", ":>12", ":+.2e", "!r", "!s", ":d", ":.1%"))
    value = r.choice((s, a, f"{a}[0]", gen.number(env)))
    line = f"print(f\"n={{n}} v={{{value}{spec}}} shape={{{a}.shape}}\")"
    style = r.random()
    if style < 0.2:          # the same text through str.format and through printf-style %
        line = f"print(\"n={{}} v={{{spec}}} shape={{}}\".format(n, {value}, {a}.shape))"
    elif style < 0.4:
        conv = r.choice(("%s", "%r", "%.4f", "%d", "%+.2e", "%5.1f%%", "%x", "%g"))
        line = f"print(\"n=%s v={conv} shape=%s\" % (n, {value}, {a}.shape))"
    if r.random() < 0.3:
        name = gen.fresh("msg")
        return [f"{name} = f\"{{{value}{spec}}}|\" + str({a}.ndim)", f"lst.append({name})"]
    return [line]


def nested_loop(gen, env: dict) -> list[str]:
    if gen.depth > 1:
        return gen.stmt_assign(env)
    r = gen.rng
    i, j, acc = gen.fresh("i"), gen.fresh("j"), gen.fresh("acc")
    a = gen.pick(env, "A") or "x"
    env[acc] = "A"
    inner = r.choice(("66", "70", "67 + len(lst)"))
    body = [f"        {acc} = {acc} * 0.5 + {a}[{j} % {a}.shape[0]] * {i}",
            f"        {acc}[{j} % {acc}.shape[0]] += {j}"]
    if r.random() < 0.4:
        body += [f"        if {acc}.sum() > {r.choice(('0', '1e6', '-1e6'))}:",
                 f"            {acc} = {acc} - 1.0"]
    if r.random() < 0.25:
        body += [f"        if {j} == {r.choice(('3', '68'))}:", "            break"]
    if r.random() < 0.25:
        body += [f"        print('it', {i}, {j}, {acc}.sum())"]
    outer = [f"{acc} = {a} * 1.0", f"for {i} in range({r.choice(('2', '3', 'len(lst)'))}):",
             f"    for {j} in range({inner}):"] + body
    if r.random() < 0.5:
        outer += [f"    {acc} = {acc} / ({i} + 1.0)"]
    return outer


def try_break(gen, env: dict) -> list[str]:
    if gen.depth > 2:
        return gen.stmt_assign(env)
    r, a = gen.rng, gen.pick(env, "A") or "x"
    t, e = gen.fresh("t"), gen.fresh("e")
    risky = r.choice((f"{a}[{gen.small_int(env)} + 3]", f"{a}.reshape(5, 7)", "lst[4]", 'd["missing"]',
                      f"{a} @ {a}", f"int(n) // (x.shape[0] - 1)", f"1 / {gen.number(env)}"))
    body = [f"    {t} = {a} * 2.0", f"    {a_break(gen, env)}", f"    {t} = {risky}",
            f"    print('no error', {t})"]
    form = r.choice(("except", "finally", "with", "except_finally"))
    if form == "with":
        return [f"with tracked({gen.fresh('w')!r}):"] + body[:2] + [f"    {t} = {t} + 1"]
    lines = ["try:"] + body
    if form in ("except", "except_finally"):
        lines += [f"except (IndexError, ValueError, KeyError, ZeroDivisionError, TypeError) as {e}:",
                  f"    print('caught', type({e}).__name__)"]
    if form in ("finally", "except_finally"):
        lines += ["finally:", f"    print('finally', {gen.number(env)})"]
    if form == "finally":       # the exception propagates: catch it outside so the program goes on
        lines = ["try:"] + ["    " + s for s in lines] + ["except Exception as _fe:",
                                                        "    print('out', type(_fe).__name__)"]
    return lines


def closure_break(gen, env: dict) -> list[str]:
    if gen.depth > 1:
        return gen.stmt_assign(env)
    c, fn = gen.fresh("c"), gen.fresh("get")
    env[c] = "P"
    return [f"{c} = {gen.number(env)}", f"def {fn}():", f"    return {c} * 2",
            a_break(gen, env), f"{c} = {c} + 1", f"lst.append({fn}())"]


EXTRA_STATEMENTS.update(fstring=fstring, nested_loop=nested_loop, try_break=try_break, closure_break=closure_break)
EXTRA_PREAMBLE["try_break"] = PRELUDE
