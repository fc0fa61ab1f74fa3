"""Fuzzer features for the idioms of issue 27 that real code breaks on: `int_index` (Python ints read from
arrays, `int(np.argmax(v))`, `.item()`, `int(a.sum()) % 3`, used as indices, fixed-length slice starts and
`np.roll` shifts, and the shifts of a small global int array walked with `zip`, sometimes written by the
program), `masked_expr` (`t[mask] = f(t[mask])`, row masks `t[m, :] = rows`, values from another array, a
value whose size does not match the count: NumPy's ValueError) and `stdlib_call` (statistics over
`.tolist()`, math.fsum/prod, operator.itemgetter/attrgetter as keys and in map, copy.deepcopy of a dict of
arrays then written, heapq/bisect/itertools over Python lists, a SimpleNamespace optimizer state kept in a
global across calls). `int_index` also draws loops over a row's items that write into that row ahead of
the iterator (enumerate, zip, reversed, a generator).
"""

from __future__ import annotations

from .generator import EXTRA_PREAMBLE, EXTRA_STATEMENTS


def _int_source(gen, env: dict) -> tuple[str, str]:
    """(expression, bound) of a Python int read from an array; bound: 'm' (below x.shape[0]), 'k' (below
    x.shape[1]) or '' (any: a flat argmax, a sum)."""
    r = gen.rng
    c, row = gen.expr("C", env, 1), gen.expr("R", env, 1)
    return r.choice((
        (f"int(np.argmax({c}))", "m"), (f"int({c}.argmin())", "m"), (f"{c}.argmax().item()", "m"),
        (f"int(np.argmax({row}))", "k"), (f"int({row}.argmin())", "k"),
        (f"int(np.argmax({gen.expr('A', env, 1)}))", ""), (f"int(({gen.expr('A', env, 1)} > 0).sum())", ""),
        (f"int({gen.expr('S', env, 1)}) % 3", ""), (f"round(float({gen.expr('S', env, 1)}))", ""),
    ))


def _loop_writing_its_source(gen, env: dict, a: str) -> list[str]:
    """A loop over a row's items whose body writes into that row ahead of the iterator (an in-place prefix
    sum over enumerate, zip with a range, reversed, a generator run ahead): each item is read when reached."""
    r = gen.rng
    t, i, v = gen.fresh("it"), gen.fresh("ii"), gen.fresh("iv")
    env[t] = "R"
    lines = [f"{t} = {a}[0] * 1.0"]
    form = r.randrange(4)
    if form == 0:
        lines += [f"for {i}, {v} in enumerate({t}):", f"    if {i} + 1 < {t}.shape[0]:",
                  f"        {t}[{i} + 1] += {v} * 0.5"]
    elif form == 1:
        lines += [f"for {i}, {v} in zip(range({t}.shape[0] - 1), {t}):", f"    {t}[{i} + 1] = {t}[{i} + 1] - {v}"]
    elif form == 2:
        lines += [f"for {v} in reversed({t}):", f"    {t}[0] = {t}[0] + {v}"]
    else:
        lines += [f"for {v} in ({i} * 2.0 for {i} in {t}):", f"    {t}[-1] = {t}[-1] + {v}"]
    return lines


def int_index(gen, env: dict) -> list[str]:
    r = gen.rng
    a = gen.pick(env, "A") or "x"
    if r.random() < 0.15:
        return _loop_writing_its_source(gen, env, a)
    if r.random() < 0.2:                  # shifts from a small global int array, walked with zip
        t, cx, cy = gen.fresh("rl"), gen.fresh("cx"), gen.fresh("cy")
        env[t] = "A"
        lines = [f"{t} = {a} * 1.0", f"for {cx}, {cy} in zip(SHIFTS, WEIGHTS):",
                 f"    {t} = {t} + np.roll({a}, {cx}, axis={r.choice(('0', '1'))}) * {cy}"]
        if r.random() < 0.15:             # the global array written: the next call must not use the old shifts
            lines.append(f"SHIFTS[0] = int(({a} > 0).sum()) % 3")
        return lines
    k, out = gen.fresh("ki"), gen.fresh("kv")
    src, bound = _int_source(gen, env)
    lines = [f"{k} = {src}"]
    env[k] = "I"
    if bound == "m":
        use, kind = r.choice(((f"{a}[{k}]", "R"), (f"{a}[{k}:{k} + 1].sum(axis=0)", "R"),
                              (f"np.roll({a}, {k}, axis=0)", "A"), (f"{a}[{k}] * {a}[-1 - {k}]", "R"),
                              (f"{a}[{k}, -1]", "S")))
    elif bound == "k":
        use, kind = r.choice(((f"{a}[:, {k}]", "C"), (f"np.roll({a}, -{k}, axis=1)", "A"),
                              (f"{a}[:, {k}:{k} + 1].sum(axis=1)", "C"), (f"{a}[0, {k}]", "S")))
    else:
        use, kind = r.choice(((f"np.roll({a}, {k})", "A"), (f"np.roll({a}, {k}, axis=1)", "A"),
                              (f"{a}[{k} % x.shape[0]]", "R"), (f"{a}[{k}]", "R"),     # (may be out of range)
                              (f"{a}.ravel()[{k} % {a}.size]", "S"), (f"np.roll({a}[:, 0], {k} - 1)", "C")))
    lines.append(f"{out} = {use}")
    env[out] = kind
    return lines


def masked_expr(gen, env: dict) -> list[str]:
    r = gen.rng
    t = r.choice(["x", "y"] + [n for n, k in env.items() if k == "A"])
    lines = []
    if r.random() < 0.3:                  # a mask held in a local (used twice, like `inv[inv > 0] = inv[inv > 0]...`)
        m = gen.fresh("mk")
        lines.append(f"{m} = {r.choice((f'{t} > 0', f'{t} != 0', f'np.abs({t}) < 1', 'y > x'))}")
    else:
        m = r.choice((f"{t} > 0", f"{t} < 0", f"{t} != 0", "x > 0"))
    form = r.random()
    if form < 0.55:                       # t[m] = f(t[m])
        sel = f"{t}[{m}]"
        value = r.choice((f"{sel} ** -1.5", f"{sel} ** 2", f"np.sqrt(np.abs({sel}))", f"-{sel}", f"{sel} * 2 + 1",
                          f"{sel} / {sel}.sum()", f"np.tanh({sel}) * {gen.number(env)}", f"{sel}[::-1]",
                          f"y[{m}]" if t != "y" else f"x[{m}]", f"{sel} // 2"))
        op = r.choice(("=", "=", "=", "+=", "*="))
        lines.append(f"{t}[{m}] {op} {value}")
    elif form < 0.85:                     # a row mask: whole rows written
        rm = gen.fresh("rm")
        lines.append(f"{rm} = {t}[:, 0] {r.choice(('>', '<', '>='))} {r.choice(('0', '0.5', f'{t}[:, -1]'))}")
        value = r.choice((f"{t}[{rm}, :] * 0.5", f"{gen.expr('R', env, 1)}", f"{t}[{rm}][:, ::-1]",
                          f"{gen.number(env)}", f"np.tanh({t}[{rm}])"))
        lines.append(f"{t}[{rm}{r.choice((', :', ''))}] = {value}")
    else:                                 # a value whose size matches the count only sometimes (ValueError)
        value = r.choice((f"{t}[0]", f"{t}.ravel()[:2]", f"np.arange(3.0)"))
        e = gen.fresh("e")
        lines += ["try:", f"    {t}[{m}] = {value}", f"except ValueError as {e}:",
                  f"    lst.append(str({e})[:40])"]
    return lines


def stdlib_call(gen, env: dict) -> list[str]:
    r = gen.rng
    a = gen.pick(env, "A") or "x"
    name = gen.fresh("sl")
    form = r.randrange(12)
    if form == 0:
        fn = r.choice(("mean", "fmean", "median", "pstdev", "median_low", "stdev"))   # (stdev of one value raises)
        src = r.choice((f"{a}.ravel().tolist()", f"{a}[0].tolist()", "list(lst) + [1.0]", f"{a}[:, 0].tolist()"))
        line, kind = f"{name} = float(statistics.{fn}({src}))", "P"
    elif form == 1:
        line, kind = f"{name} = math.fsum({a}.ravel().tolist()) + math.prod({a}.shape)", "P"
    elif form == 2:
        line, kind = (f"{name} = [v for _, v in sorted(d.items(), key=operator.itemgetter(0))]"
                      f"[{r.choice(('0', '-1'))}]"), "P"
    elif form == 3:
        line, kind = f"{name} = sum(map(operator.itemgetter(0), [x.shape, {a}.shape, (len(lst),)]))", "I"
    elif form == 4:
        line, kind = f"{name} = operator.attrgetter('shape')({a})[0] + operator.itemgetter(-1)({a}.shape)", "I"
    elif form == 5:                       # lst may be empty: IndexError
        line, kind = f"{name} = sum(operator.itemgetter(0, -1)(lst))", "P"
    elif form == 6:                       # a deep copy written: the originals stay as they were
        dc = gen.fresh("dc")
        env[name] = "A"
        return [f"{dc} = copy.deepcopy({{'w': {a}, 'l': lst, 'n': {gen.number(env)}}})",
                f"{dc}['w'] += 1", f"{dc}['l'].append({dc}['n'])", f"{name} = {dc}['w'] * {dc}['n']"]
    elif form == 7:
        line, kind = f"{name} = copy.copy(lst) + [{gen.number(env)}]", "L"
    elif form == 8:
        line, kind = f"{name} = heapq.nlargest(2, {a}.ravel().tolist())[-1] + bisect.bisect(sorted(lst), 1.0)", "P"
    elif form == 9:
        line, kind = f"{name} = list(itertools.accumulate(lst, initial={gen.number(env)}))[-1]", "P"
    elif form == 10:                      # an optimizer's state in a SimpleNamespace kept across calls
        env[name] = "A"
        return ["OPT.step += 1",
                f"if OPT.m is None or OPT.m.shape != {a}.shape or OPT.m.dtype != {a}.dtype:",
                f"    OPT.m = np.zeros_like({a})",
                f"OPT.m = OPT.m * 0.9 + {a} * 0.1",
                f"{name} = OPT.m / (1 - 0.9 ** OPT.step)"]
    else:
        line, kind = f"{name} = sorted([{a}.shape, x.shape, (1, len(lst))], key=operator.itemgetter(1))[0][0]", "I"
    env[name] = kind
    return [line]


EXTRA_STATEMENTS.update(int_index=int_index, masked_expr=masked_expr, stdlib_call=stdlib_call)
EXTRA_PREAMBLE["int_index"] = ["SHIFTS = np.array([1, -1, 0])", "WEIGHTS = np.array([0.5, 0.25, 2.0])"]
EXTRA_PREAMBLE["stdlib_call"] = ["import bisect", "import copy", "import heapq", "import itertools", "import math",
                                 "import operator", "import statistics", "import types", "",
                                 "OPT = types.SimpleNamespace(step=0, m=None)"]
