"""Seeded generator of random NumPy/Python programs for differential fuzzing (issue 6 §1).

`generate(seed, features)` returns a `Program`: the source text of a small module (globals, helper
functions, and `f(x, y, n, lst, d)`) and a list of `CallSpec`s (shape, dtypes, Python values) for the calls
that exercise it. Only the standard library and NumPy are used; nothing of minidynamo is imported, but by
the `hatch_call` feature's preamble (its registrations: gen_hatches.py).

Expressions are typed by *kind*, so most programs run without error and reach deep code:
  A = x's shape (m, k)   T = (k, m)   R = (k,)   C = (m,)   S = 0-d / NumPy scalar   Q = (m, m)
  P = Python number      I = small Python int   L = list   D = dict
x and y always share a shape within a call; shapes, dtypes and Python values change from call to call.
Risky operations (shape mismatches, zero division, out-of-range indices) appear on purpose, mostly inside
`try`, so exceptions are compared too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

BASE_FEATURES = (
    "ufunc", "reduce", "shape", "index", "matmul", "dtype", "pyarith", "for_range", "for_list", "while",
    "if_py", "if_arr", "helper", "closure", "global_read", "global_write", "list_mut", "dict_mut", "print",
    "try", "early_return", "inplace_arg",
)
# Features from the gen_*.py modules (imported at the end of this file): feature -> statement maker
# `(gen, env) -> lines`, and feature -> module-level lines (classes, helpers) the statements rely on.
EXTRA_STATEMENTS: dict = {}
EXTRA_PREAMBLE: dict = {}
DTYPES = ("float64", "float32", "int64", "int32", "bool")
SHAPES = ((2, 3), (3, 3), (1, 4), (3, 2), (4, 1), (2, 2), (1, 1))
EXCEPTIONS = "(ValueError, IndexError, ZeroDivisionError, TypeError, KeyError)"
ARRAY_KINDS = ("A", "T", "R", "C", "S", "Q")


@dataclass
class CallSpec:
    """The arguments of one call, as plain data: x, y arrays of `shape` (values from `seed`), n, lst, d."""

    shape: tuple
    dtype_x: str
    dtype_y: str
    n: object
    lst: list
    d: dict
    seed: int

    def to_dict(self) -> dict:
        return dict(shape=self.shape, dtype_x=self.dtype_x, dtype_y=self.dtype_y, n=self.n, lst=self.lst,
                    d=self.d, seed=self.seed)


@dataclass
class Program:
    seed: int
    source: str
    features: frozenset
    calls: list = field(default_factory=list)


def _array(rng, shape: tuple, dtype: str):
    import numpy as np
    r = np.random.default_rng(rng.randrange(2**32))
    if dtype == "bool":
        return r.random(shape) > 0.5
    if dtype.startswith("int"):
        return r.integers(-3, 4, size=shape).astype(dtype)
    return (r.standard_normal(shape) * 2).round(3).astype(dtype)


def build_args(spec: CallSpec) -> tuple:
    """Fresh argument objects for one call (deterministic in spec)."""
    rng = random.Random(spec.seed)
    x, y = _array(rng, spec.shape, spec.dtype_x), _array(rng, spec.shape, spec.dtype_y)
    return (x, y, spec.n, list(spec.lst), dict(spec.d))


def make_calls(rng: random.Random, count: int) -> list[CallSpec]:
    """A base call, a repeat with new values (cache hit), then new shapes, dtypes and Python values."""
    shape, dt = rng.choice(SHAPES), rng.choice(("float64", "float64", "float32", "int64", "int32"))
    base = CallSpec(shape, dt, rng.choice((dt, "float64")), rng.choice((0, 1, 2, 3, 2.5)),
                    [1, 2.5], {"a": 1.0, "b": 2}, rng.randrange(10**6))
    calls = [base, CallSpec(**{**base.to_dict(), "seed": rng.randrange(10**6)})]
    while len(calls) < count:
        c = CallSpec(**{**calls[-1].to_dict(), "seed": rng.randrange(10**6)})
        change = rng.choice(("shape", "dtype", "n", "lst", "back"))
        if change == "shape":
            c.shape = rng.choice(SHAPES)
        elif change == "dtype":
            c.dtype_x, c.dtype_y = rng.choice(DTYPES), rng.choice(DTYPES)
        elif change == "n":
            c.n = rng.choice((0, 1, 3, 4, -1, 0.5, 2.0, True))
        elif change == "lst":
            c.lst = rng.choice(([], [3], [1, 2, 3], [0.5, -1]))
            c.d = rng.choice(({"a": 1.0, "b": 2}, {"a": -2}, {"a": 0.5, "b": 1, "c": 3}))
        else:
            c = CallSpec(**{**base.to_dict(), "seed": rng.randrange(10**6)})
        calls.append(c)
    from .gen_sizes import size_sweep
    return calls + size_sweep(rng, calls[-1], CallSpec)


class _Gen:
    """Writes one module. `env` maps visible local names to kinds; blocks work on copies of it."""

    def __init__(self, rng: random.Random, features: frozenset, require: str | None = None) -> None:
        self.rng, self.features = rng, features
        self.require = require            # a feature whose statement f's body has at top level at least once
        self.counter = 0
        self.helpers: list[str] = []      # names of helpers defined so far: h(a: A, s: P) -> A
        self.funcs: list[str] = []        # closures visible in f: inner(z: A) -> A
        self.counters: list[str] = []     # nonlocal counters: bump() -> P
        self.depth = 0
        self.in_helper = False

    def has(self, feature: str) -> bool:
        return feature in self.features

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def pick(self, env: dict, kind: str) -> str | None:
        names = [n for n, k in env.items() if k == kind]
        return self.rng.choice(names) if names else None

    # ---- expressions --------------------------------------------------------------------------------
    def expr(self, kind: str, env: dict, depth: int = 2) -> str:
        name = self.pick(env, kind)
        if depth <= 0 or self.rng.random() < 0.3:
            return name or self.leaf(kind, env)
        return getattr(self, f"expr_{kind}")(env, depth - 1)

    def leaf(self, kind: str, env: dict) -> str:
        a = self.pick(env, "A") or "x"
        return {"A": a, "T": f"{a}.T", "R": f"{a}[0]", "C": f"{a}[:, 0]", "S": f"{a}.sum()",
                "Q": f"({a} @ {a}.T)", "P": self.number(env), "I": self.small_int(env)}[kind]

    def number(self, env: dict) -> str:
        r = self.rng
        options = [self.pick(env, "P"), r.choice(("2", "0.5", "-1.5", "3", "1"))]
        if self.has("global_read"):
            options.append(r.choice(("G0", "G1")))
        return r.choice([o for o in options if o])

    def small_int(self, env: dict) -> str:
        options = [self.pick(env, "I"), self.rng.choice(("0", "1", "2", "len(lst)", "x.shape[0]", "x.shape[1]"))]
        return self.rng.choice([o for o in options if o])

    def operand_for_A(self, env: dict, depth: int) -> str:
        kinds = ["A", "P"]
        if self.has("reduce"):
            kinds += ["R", "S", "RK", "CK"]
        k = self.rng.choice(kinds)
        if k == "RK":
            return f"{self.expr('A', env, depth)}.{self.rng.choice(('mean', 'sum', 'max'))}(axis=0, keepdims=True)"
        if k == "CK":
            return f"np.{self.rng.choice(('mean', 'sum', 'max'))}({self.expr('A', env, depth)}, axis=1, keepdims=True)"
        return self.expr(k, env, depth)

    def expr_A(self, env: dict, depth: int) -> str:
        r, e = self.rng, lambda k: self.expr(k, env, depth)
        choices = ["binop", "binop"]
        for feat, forms in (("ufunc", ["ufunc", "ufunc2"]), ("shape", ["T", "reshape"]), ("matmul", ["mm"]),
                            ("dtype", ["astype", "scalar"]), ("index", ["flip"]), ("helper", ["helper"]),
                            ("closure", ["closure"])):
            if self.has(feat):
                choices += forms
        form = r.choice(choices)
        if form == "binop":
            return f"({e('A')} {r.choice('+-*/')} {self.operand_for_A(env, depth)})"
        if form == "ufunc":
            return f"np.{r.choice(('tanh', 'exp', 'sqrt', 'abs', 'tanh'))}({e('A')})"
        if form == "ufunc2":
            fn = r.choice(("add", "subtract", "multiply", "divide", "maximum"))
            return f"np.{fn}({e('A')}, {self.operand_for_A(env, depth)})"
        if form == "T":
            return r.choice((f"({e('T')}).T", f"np.transpose({e('T')})"))
        if form == "reshape":
            return r.choice((f"{e('A')}.reshape(-1).reshape(x.shape)", f"{e('T')}.reshape(x.shape)"))
        if form == "mm":
            return r.choice((f"({e('Q')} @ {e('A')})", f"np.matmul({e('Q')}, {e('A')})"))
        if form == "astype":
            return f"{e('A')}.astype(np.{r.choice(('float32', 'float64', 'int32', 'int64'))})"
        if form == "scalar":
            return r.choice((f"(np.float32(1.5) * {e('A')})", f"(np.int32(2) + {e('A')})", f"({e('A')} > 0)",
                             f"({e('A')} * True)", f"({e('A')} + 2**40)"))
        if form == "flip":
            return r.choice((f"{e('A')}[::-1]", f"{e('A')}[:, ::-1]"))
        if form == "helper" and self.helpers:
            return f"{r.choice(self.helpers)}({e('A')}, {e('A')}, {e('P')}, lst, d)"
        if form == "closure" and self.funcs:
            return f"{r.choice(self.funcs)}({e('A')})"
        return f"({e('A')} + {e('A')})"

    def expr_T(self, env: dict, depth: int) -> str:
        e = lambda k: self.expr(k, env, depth)
        return self.rng.choice((f"{e('A')}.T", f"np.transpose({e('A')})", f"({e('T')} * {e('P')})",
                                f"{e('A')}.reshape(x.shape[1], x.shape[0])", f"np.tanh({e('T')})"))

    def expr_R(self, env: dict, depth: int) -> str:
        e, r = (lambda k: self.expr(k, env, depth)), self.rng
        forms = [f"{e('A')}.{r.choice(('sum', 'mean', 'max'))}(axis=0)", f"np.max({e('A')}, axis=0)",
                 f"({e('R')} + {e('R')})", f"np.exp({e('R')})", f"{e('T')}.sum(axis=1)"]
        if self.has("index"):
            forms += [f"{e('A')}[0]", f"{e('A')}[-1]"]
        if self.has("matmul"):
            forms += [f"({e('C')} @ {e('A')})"]
        return r.choice(forms)

    def expr_C(self, env: dict, depth: int) -> str:
        e, r = (lambda k: self.expr(k, env, depth)), self.rng
        forms = [f"{e('A')}.{r.choice(('sum', 'mean', 'max'))}(axis=1)", f"np.mean({e('A')}, axis=1)",
                 f"({e('C')} * {e('P')})"]
        if self.has("index"):
            forms += [f"{e('A')}[:, 0]", f"{e('A')}[:, -1]"]
        if self.has("matmul"):
            forms += [f"({e('A')} @ {e('R')})"]
        return r.choice(forms)

    def expr_S(self, env: dict, depth: int) -> str:
        e, r = (lambda k: self.expr(k, env, depth)), self.rng
        forms = [f"{e('A')}.sum()", f"np.mean({e('A')})", f"{e('A')}.max()", f"({e('S')} * {e('P')})",
                 f"np.sum({e('R')})", f"{e('C')}.mean()"]
        if self.has("index"):
            forms += [f"{e('A')}[0, 0]", f"{e('A')}[-1, -1]"]
        if self.has("matmul"):
            forms += [f"({e('R')} @ {e('R')})"]
        return r.choice(forms)

    def expr_Q(self, env: dict, depth: int) -> str:
        e = lambda k: self.expr(k, env, depth)
        return self.rng.choice((f"({e('A')} @ {e('T')})", f"np.matmul({e('A')}, {e('A')}.T)",
                                f"({e('Q')} + {e('Q')})"))

    def expr_P(self, env: dict, depth: int) -> str:
        e, r = (lambda k: self.expr(k, env, depth)), self.rng
        forms = [f"({e('P')} {r.choice(['+', '-', '*'])} {e('P')})", f"({e('P')} + {e('I')})"]
        if self.has("pyarith"):
            forms += [f"({e('P')} / {r.choice(('2', '3', '0.5'))})", f"({e('P')} // {r.choice(('2', '3'))})",
                      f"({e('P')} % 3)", f"abs({e('P')})", f"max({e('P')}, {e('P')})", f"float({e('I')})",
                      f"(-{e('P')})", f"({e('P')} ** 2)"]
        if self.has("dict_mut"):
            forms += ['d["a"]', 'd.get("b", 0)']
        if self.counters:
            forms += [f"{r.choice(self.counters)}()"]
        return r.choice(forms)

    def expr_I(self, env: dict, depth: int) -> str:
        e = lambda k: self.expr(k, env, depth)
        return self.rng.choice((f"({e('I')} + 1)", "len(lst)", "x.shape[0]", "x.ndim", f"({e('I')} % 3)",
                                "int(n) % 3", f"min({e('I')}, 2)"))

    # ---- statements ---------------------------------------------------------------------------------
    def block(self, env: dict, count: int, indent: str, force: str | None = None) -> list[str]:
        """`count` statements at `indent`; names they bind stay in `env` only at the top level. `force`: one of
        them, at a random place, is a statement of that feature."""
        lines: list[str] = []
        at = self.rng.randrange(count) if force else -1
        for k in range(count):
            lines += [indent + s for s in self.statement(env, force if k == at else None)]
        return lines or [indent + "pass"]

    def statement(self, env: dict, force: str | None = None) -> list[str]:
        r = self.rng
        kinds = ["assign", "assign", "assign", "reassign"]
        nested = ("for_range", "for_list", "while", "if_py", "if_arr", "try", "early_return")
        for feat in sorted(self.features):
            if feat in nested and self.depth >= 2:
                continue
            if feat not in ("ufunc", "reduce", "shape", "matmul", "dtype", "pyarith", "helper", "global_read"):
                kinds.append(feat)
        kind = force or r.choice(kinds)
        self.depth += 1
        try:
            if kind in EXTRA_STATEMENTS:
                return EXTRA_STATEMENTS[kind](self, env)
            return getattr(self, f"stmt_{kind}")(env)
        finally:
            self.depth -= 1

    def array_kind(self) -> str:
        kinds = ["A", "A", "A", "P", "S"]
        if self.has("reduce"):
            kinds += ["R", "C"]
        if self.has("shape"):
            kinds += ["T"]
        if self.has("matmul"):
            kinds += ["Q"]
        return self.rng.choice(kinds)

    def stmt_assign(self, env: dict) -> list[str]:
        kind = self.array_kind()
        name = self.fresh("v")
        line = f"{name} = {self.expr(kind, env)}"
        env[name] = kind
        return [line]

    def stmt_reassign(self, env: dict) -> list[str]:
        name = self.rng.choice([n for n, k in env.items() if k in ARRAY_KINDS + ("P",)])
        kind = env[name]
        if kind == "A" and self.rng.random() < 0.5:
            return [f"{name} {self.rng.choice(('+=', '-=', '*='))} {self.operand_for_A(env, 1)}"]
        return [f"{name} = {self.expr(kind, env)}"]

    def stmt_index(self, env: dict) -> list[str]:
        name = self.pick(env, "A") or "x"
        return [self.rng.choice((f"{name}[0] = {self.expr('R', env, 1)}", f"{name}[:, -1] = {self.number(env)}",
                                 f"{name}[1:] = {self.expr('S', env, 1)}", f"{name}[0, 0] = {self.number(env)}"))]

    def stmt_inplace_arg(self, env: dict) -> list[str]:
        r, a = self.rng, self.rng.choice(("x", "y"))
        if r.random() < 0.2:
            alias = self.fresh("al")
            env[alias] = "A"
            return [f"{alias} = {a}", f"{alias} += {self.number(env)}"]
        return [r.choice((f"{a} += {self.operand_for_A(env, 1)}", f"{a} *= {self.number(env)}",
                          f"{a}[0] = {self.expr('R', env, 1)}", f"{a}[:, 0] = {self.expr('C', env, 1)}",
                          f"{a}[0, 0] = {self.number(env)}", f"{a}[1:] = {self.number(env)}",
                          f"{a}[...] = {self.expr('A', env, 1)}"))]

    def stmt_list_mut(self, env: dict) -> list[str]:
        r = self.rng
        target = self.pick(env, "L") or "lst"
        if r.random() < 0.25:
            name = self.fresh("acc")
            env[name] = "L"
            return [f"{name} = [{self.number(env)}]"]
        item = self.expr(r.choice(("P", "P", "A", "S")), env, 1)
        return [r.choice((f"{target}.append({item})", f"{target}[0] = {item}", f"{target}.insert(0, {item})",
                          f"{target}.extend([{item}, {self.number(env)}])", f"{target}[-1] += 1"))]

    def stmt_dict_mut(self, env: dict) -> list[str]:
        r = self.rng
        target = self.pick(env, "D") or "d"
        if r.random() < 0.25:
            name = self.fresh("box")
            env[name] = "D"
            return [f"{name} = {{'k': {self.number(env)}}}"]
        key = r.choice(('"a"', '"b"', '"new"', "'k'"))
        item = self.expr(r.choice(("P", "P", "A", "S")), env, 1)
        return [r.choice((f"{target}[{key}] = {item}", f'{target}["a"] = {target}.get("a", 0) + {self.number(env)}',
                          f"{target}.update(z={item})", f"{target}.pop({key}, None)"))]

    def stmt_print(self, env: dict) -> list[str]:
        r = self.rng
        value = self.expr("P", env, 1)
        fstring = f'print(f"n={{n}} s={{{value}}}")' if '"' not in value and "'" not in value \
            else f'print("n", n, "s", {value})'   # 3.11 f-strings cannot nest quotes
        return [r.choice((f'print("p", {self.expr("P", env, 1)})', f"print({self.expr('S', env, 1)})",
                          f"print({self.expr('A', env, 1)})", f"print({self.expr('A', env, 1)}.shape, x.dtype)",
                          fstring, "print(lst, d)"))]

    def stmt_global_write(self, env: dict) -> list[str]:
        r = self.rng
        return [r.choice((f"G0 = G0 + {self.small_int(env)}", f"G1 = {self.expr('P', env, 1)}",
                          f"G_LIST.append({self.expr(r.choice(('P', 'S', 'A')), env, 1)})",
                          f"GA[0] = {self.expr('S', env, 1)}", f"G1 = {self.expr('S', env, 1)}"))]

    def stmt_closure(self, env: dict) -> list[str]:
        if self.depth > 1:
            return self.stmt_assign(env)
        if self.rng.random() < 0.4:
            cnt, fn = self.fresh("cnt"), self.fresh("bump")
            self.counters.append(fn)
            return [f"{cnt} = 0", f"def {fn}():", f"    nonlocal {cnt}", f"    {cnt} += 1", f"    return {cnt}"]
        k, fn = self.fresh("k"), self.fresh("inner")
        value = self.number(env)
        env[k] = "P"
        self.funcs.append(fn)
        return [f"{k} = {value}", f"def {fn}(z):", f"    return z * {k} + {self.number({})}"]

    def sub_block(self, env: dict, extra: dict | None = None) -> list[str]:
        inner = dict(env, **(extra or {}))
        saved = (list(self.funcs), list(self.counters))
        lines = self.block(inner, self.rng.randint(1, 3), "    ")
        self.funcs, self.counters = saved   # closures defined in a block may not have run
        for name, kind in inner.items():    # rebinding an outer name keeps its kind; new names stay inside
            if name in env and env[name] != kind:
                raise AssertionError(f"kind of {name} changed")
        return lines

    def stmt_if_py(self, env: dict) -> list[str]:
        lines = [f"if {self.expr('P', env, 1)} {self.rng.choice(('>', '<', '==', '>='))} {self.number({})}:"]
        lines += self.sub_block(env)
        if self.rng.random() < 0.5:
            lines += ["else:"] + self.sub_block(env)
        return lines

    def stmt_if_arr(self, env: dict) -> list[str]:
        cond = self.rng.choice((f"{self.expr('S', env, 1)} > 0", f"({self.expr('A', env, 1)} > 0).any()",
                                f"{self.expr('S', env, 1)}", f"float({self.expr('S', env, 1)}) < 1.0"))
        lines = [f"if {cond}:"] + self.sub_block(env)
        if self.rng.random() < 0.5:
            lines += ["else:"] + self.sub_block(env)
        return lines

    def stmt_for_range(self, env: dict) -> list[str]:
        i = self.fresh("i")
        bound = self.rng.choice(("3", "len(lst)", "x.shape[0]", "n", "min(int(n), 3)", self.small_int(env)))
        return [f"for {i} in range({bound}):"] + self.sub_block(env, {i: "I"})

    def stmt_for_list(self, env: dict) -> list[str]:
        it = self.fresh("it")
        src, kind = self.rng.choice((("list(lst)", "P"), ("[1, 2.5, -1]", "P"), ("(x, y)", "A"),
                                     ("list(d.values())", "P"), (f"{self.pick(env, 'L') or 'lst'}[:2]", "P")))
        return [f"for {it} in {src}:"] + self.sub_block(env, {it: kind})

    def stmt_while(self, env: dict) -> list[str]:
        w = self.fresh("w")
        env[w] = "I"
        body = self.sub_block(env)
        return [f"{w} = 0", f"while {w} < {self.rng.choice(('2', '3', 'min(len(lst), 3)'))}:"] + body + [f"    {w} += 1"]

    def stmt_try(self, env: dict) -> list[str]:
        r, a = self.rng, self.pick(env, "A") or "x"
        risky = r.choice((f"{a} + {a}.T", f"{self.number(env)} // (len(lst) - len(lst))", f"{a}[{self.small_int(env)} + 4]",
                          "lst[3]", f"np.ones(7) * {a}", f"{a}.reshape(5, 7)", f"{a} @ {a}", 'd["missing"]',
                          f"int(n) // (x.shape[0] - 1)", f"{a} / 0", f"1 / {self.number(env)}"))
        e = self.fresh("e")
        tmp = self.fresh("t")
        body = [f"    {tmp} = {risky}"] + self.sub_block(env)
        handler = f"    print(type({e}).__name__, {e})" if self.has("print") else (
            "    pass" if self.in_helper else f"    errs.append(type({e}).__name__ + ': ' + str({e}))")
        return ["try:"] + body + [f"except {EXCEPTIONS} as {e}:", handler]

    def stmt_early_return(self, env: dict) -> list[str]:
        cond = f"{self.expr('P', env, 1)} > {self.number({})}"
        if self.has("if_arr") and self.rng.random() < 0.4:
            cond = f"{self.expr('S', env, 1)} > 0"
        return [f"if {cond}:", f"    return {self.expr(self.array_kind(), env, 1)}"]

    # ---- the module -----------------------------------------------------------------------------------
    def function(self, name: str, body_count: int) -> list[str]:
        env = {"x": "A", "y": "A", "n": "P", "lst": "L", "d": "D"}
        lines = [f"def {name}(x, y, n, lst, d):"]
        if self.has("global_write"):
            lines.append("    global G0, G1")
        if self.has("try") and not self.in_helper:
            lines.append("    errs = []")
            env["errs"] = "E"
        lines += self.block(env, body_count, "    ", None if self.in_helper else self.require)
        if self.in_helper:
            return lines + [f"    return {self.expr('A', env)}"]
        names = [n for n, k in env.items() if k != "E"]
        out = self.rng.sample(names, min(len(names), self.rng.randint(1, 4)))
        if "errs" in env:
            out.append("errs")
        ret = out[0] if len(out) == 1 and self.rng.random() < 0.5 else "(" + ", ".join(out) + ",)"
        return lines + [f"    return {ret}"]

    def module(self) -> str:
        lines = ["import numpy as np", "", "G0 = 1", "G1 = 0.5", "G_LIST = []", "GA = np.arange(3.0)", ""]
        for feature in sorted(EXTRA_PREAMBLE):
            if self.has(feature):
                lines += EXTRA_PREAMBLE[feature] + [""]
        if self.has("helper"):
            for _ in range(self.rng.randint(1, 2)):
                name = f"h{len(self.helpers)}"
                self.in_helper = True
                saved = (list(self.funcs), list(self.counters))
                lines += self.function(name, self.rng.randint(1, 3)) + [""]
                self.funcs, self.counters = saved
                self.in_helper = False
                self.helpers.append(name)
        lines += self.function("f", self.rng.randint(3, 8))
        return "\n".join(lines) + "\n"


def generate(seed: int, features=None, calls: int = 5, subset: bool = True, require: str | None = None) -> Program:
    """The program of `seed`: a random subset of `features` (all of them with subset=False) and its calls.
    `require`: a feature every program has, with at least one of its statements in f's body (the subset of
    the other features is drawn as without it, so `require` changes the program but not which seeds exist)."""
    rng = random.Random(seed)
    features = frozenset(DEFAULT_FEATURES if features is None else features)
    if subset:
        chosen = frozenset(f for f in sorted(features) if rng.random() < 0.45)
        features = chosen or frozenset([rng.choice(sorted(features))]) if features else frozenset()
    if require:
        features |= {require}
    source = _Gen(rng, features, require).module()
    return Program(seed, source, features, make_calls(rng, calls))


from . import (gen_breaks, gen_cflow, gen_fori, gen_hatches, gen_idioms, gen_known, gen_masked,  # noqa: E402,F401
               gen_numpy, gen_objects, gen_raising, gen_stateful)  # (register their features)

# Issue 27's idioms and escape hatches (gen_idioms.py, gen_hatches.py), in the default draw since 2026-12-03.
ROUND3 = ("int_index", "masked_expr", "stdlib_call", "hatch_call")
# The draw before them: benchmarks/capture_time.py's fuzz cases pass it, so their seeds keep their programs
# (a feature a program did not draw changes nothing in it, but the pool's size changes every program's draw).
FEATURES = BASE_FEATURES + tuple(f for f in EXTRA_STATEMENTS if f not in ROUND3)
DEFAULT_FEATURES = FEATURES + ROUND3      # what generate(), the runner and the CI run draw from
ALL_FEATURES = DEFAULT_FEATURES
