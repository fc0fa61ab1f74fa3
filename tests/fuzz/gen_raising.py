"""Fuzzer features for operations that raise (issue 15): unused results of raising ops (alone or inside
`try`), `try` around raising ops right after in-place writes into the arguments, and layer classes whose
methods call zero-argument `super()` (some of them after a print, so the method breaks and resumes).
Shapes change between calls (generator.make_calls), so an index or a solve raises on some calls only."""

from __future__ import annotations

from .generator import EXCEPTIONS, EXTRA_PREAMBLE, EXTRA_STATEMENTS

_LINALG = "np.linalg.LinAlgError"


def _risky(gen, env: dict) -> str:
    """An expression that raises for some shapes or values of this call."""
    a, q = gen.pick(env, "A") or "x", gen.pick(env, "Q") or "(x @ x.T)"
    c, i = gen.pick(env, "C") or "x[:, 0]", gen.small_int(env)
    return gen.rng.choice((
        f"np.linalg.solve({q}, {c})", f"np.linalg.inv({q})", f"np.linalg.cholesky({q})",
        f"{a}[{i} + 1, -1]", f"{a}[-{i} - 2]", f"np.take({a}, {i} + 3)", f"{a}.reshape({i} + 2, -1)",
        f"{a} @ {a}", f"({a} + {a}.T)", f"{a}.astype(np.int64) ** ({a}.astype(np.int64) - 1)",
        f"np.log({a})",
    ))


def unused_raise(gen, env: dict) -> list[str]:
    """A raising op as a statement: its result is never read, its exception (or warning) still counts."""
    stmt = _risky(gen, env)
    if gen.rng.random() < 0.4:
        e = gen.fresh("e")
        handler = f"print('caught', type({e}).__name__)" if gen.has("print") else "pass"
        return ["try:", f"    {stmt}", f"except ({_LINALG}, *{EXCEPTIONS}) as {e}:", f"    {handler}"]
    return [stmt]


def try_after_write(gen, env: dict) -> list[str]:
    """An in-place write into an argument, then a raising op inside try whose handler prints and recovers:
    the handler must see the write done exactly once."""
    a, r = gen.rng.choice(("x", "y")), gen.rng
    write = r.choice((f"{a} *= 2", f"{a}[0] = {gen.number(env)}", f"{a} += 1", f"{a}[...] = {a} - 1"))
    t, e = gen.fresh("t"), gen.fresh("e")
    lines = [write, "try:", f"    {t} = {_risky(gen, env)}", f"except ({_LINALG}, *{EXCEPTIONS}) as {e}:",
             f"    print('recovered', type({e}).__name__, {a}.sum())"]
    return lines


def layer_super(gen, env: dict) -> list[str]:
    """A call into a layer object whose methods use zero-argument super() (maybe after a break)."""
    layer = gen.rng.choice(("_Layer", "_Deep"))
    method = gen.rng.choice(("forward", "forward", "step"))
    line = f"{layer}({gen.number(env)}).{method}({gen.expr('A', env, 1)})"
    name = gen.fresh("v")
    env[name] = "A"
    return [f"{name} = {line}"]


EXTRA_STATEMENTS.update(unused_raise=unused_raise, try_after_write=try_after_write, layer_super=layer_super)
EXTRA_PREAMBLE["layer_super"] = [
    "class _Base:",
    "    def __init__(self, s):",
    "        self.s = s",
    "    def pre(self, q):",
    "        return q * self.s",
    "class _Layer(_Base):",
    "    def forward(self, q):",
    "        return super().pre(q) + 1.0",
    "    def step(self, q):",
    "        print('step', self.s)",
    "        return super().pre(q) - 1.0",
    "class _Deep(_Layer):",
    "    def pre(self, q):",
    "        return super().pre(q) * 2.0",
    "    def forward(self, q):",
    "        h = super().forward(q)",
    "        return super().step(h)",
]
