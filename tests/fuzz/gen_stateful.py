"""Fuzzer features for hidden state around graphs (issue 9): draws from Generator / RandomState objects
(`rng_object`), `with np.errstate(...)` blocks (`errstate`), and closures alive across a graph break
(`closure_alive`).

- rng_object: a generator made in `f` (`np.random.default_rng(seed)`), the module's `RNG2` Generator or
  `RS2` RandomState; draws of every common method mixed with array code, an in-place `shuffle`, sometimes a
  print or an array branch between draws, or a scalar draw (a break). A generator made in `f` may be
  returned (the runner compares its state in the result); RNG2/RS2 are compared as globals after every
  call.
- errstate: ops that divide by zero, overflow or take logs of negatives inside `np.errstate` blocks, some
  nested, some with `all="raise"` inside `try/except FloatingPointError`, some with a break inside (the
  whole block then runs as plain Python). `--warnings` compares the warnings too.
- closure_alive: a helper closure over locals (a number and an array) defined first, called before and
  after a break, its variables rebound after the break; or a nonlocal counter bumped on both sides.
"""

from __future__ import annotations

from .gen_breaks import a_break
from .generator import EXTRA_PREAMBLE, EXTRA_STATEMENTS

# ---- rng_object -------------------------------------------------------------------------------------------

_GENERATOR_DRAWS = (
    ("{g}.normal(0.0, 1.5, size=x.shape)", "A"), ("{g}.standard_normal(x.shape)", "A"),
    ("{g}.random((x.shape[0], x.shape[1]))", "A"), ("{g}.uniform(-1.0, 2.0, x.shape)", "A"),
    ("{g}.integers(0, 7, size=x.shape)", "A"), ("{g}.integers(-3, 3, size=x.shape[1], endpoint=True)", "R"),
    ("{g}.choice(x.shape[0], size=x.shape[0], replace=False)", "C"), ("{g}.permutation(x.shape[0])", "C"),
    ("{g}.binomial(4, 0.25, size=x.shape)", "A"), ("{g}.poisson(1.5, size=x.shape[1])", "R"),
    ("{g}.exponential(2.0, size=x.shape[0])", "C"), ("{g}.permuted({a}, axis=1)", "A"),
    ("{g}.choice({a}[0], size=x.shape[1])", "R"), ("{g}.normal(loc={a}, scale=0.5)", "A"),
)
_RANDOM_STATE_DRAWS = (
    ("{g}.randn(*x.shape)", "A"), ("{g}.rand(x.shape[0])", "C"), ("{g}.normal(1.0, 2.0, size=x.shape)", "A"),
    ("{g}.randint(0, 9, size=x.shape[1])", "R"), ("{g}.permutation(x.shape[0])", "C"),
    ("{g}.choice(5, size=x.shape[0])", "C"), ("{g}.uniform(size=x.shape)", "A"),
)


def _generator(gen, env: dict) -> tuple[list[str], str, bool]:
    """(lines making it, its name, whether it is a Generator) for the generator of this statement."""
    r = gen.rng
    made = [n for n, k in env.items() if k == "G"]
    if made and r.random() < 0.5:
        return [], r.choice(made), True
    form = r.choice(("local", "local", "RNG2", "RS2"))
    if form == "local":
        name = gen.fresh("rng")
        env[name] = "G"
        seed = r.choice(("7", "abs(int(n)) % 3", "x.shape[0]", "len(lst)"))
        return [f"{name} = np.random.default_rng({seed})"], name, True
    return [], form, form == "RNG2"


def rng_object(gen, env: dict) -> list[str]:
    r = gen.rng
    lines, g, is_generator = _generator(gen, env)
    a = gen.pick(env, "A") or "x"
    for _ in range(r.randint(1, 3)):
        expr, kind = r.choice(_GENERATOR_DRAWS if is_generator else _RANDOM_STATE_DRAWS)
        name = gen.fresh("d")
        expr = expr.format(g=g, a=a)
        other = gen.pick(env, kind)
        lines.append(f"{name} = {expr} * {other}" if other and r.random() < 0.4 else f"{name} = {expr}")
        env[name] = kind
        roll = r.random()
        if roll < 0.15:
            lines.append(f"print('drew', {name}.shape, {name}.dtype)")
        elif roll < 0.25:
            lines += [f"if {name}.sum() > 0:", f"    {name} = {name} * 0.5"]
    if r.random() < 0.6:
        lines.append(f"lst.append({name})")               # the draw is observable in the arguments
    roll = r.random()
    if roll < 0.15:
        target = gen.fresh("sh")
        env[target] = "A"
        lines += [f"{target} = {a} * 1.0", f"{g}.shuffle({target})", f"lst.append({target})"]
    elif roll < 0.25:
        p = gen.fresh("p")
        env[p] = "P"
        lines.append(f"{p} = float({g}.{'normal()' if is_generator else 'random_sample()'})")   # a break
    return lines


# ---- errstate ---------------------------------------------------------------------------------------------

_MODES = ("'ignore'", "'warn'", "'raise'")


def _risky(gen, env: dict) -> str:
    a = gen.pick(env, "A") or "x"
    return gen.rng.choice((f"np.log({a})", f"np.sqrt({a})", f"1.0 / {a}", f"np.exp({a} * 400.0)",
                           f"np.arcsin({a})", f"({a} - {a}) / ({a} - {a})", f"np.power(10.0, {a} * 300.0)",
                           f"np.exp(-{a} * 900.0)"))


def _errstate_call(gen) -> str:
    r = gen.rng
    if r.random() < 0.3:
        return f"np.errstate(all={r.choice(_MODES)})"
    keys = r.sample(("divide", "over", "under", "invalid"), r.randint(1, 3))
    return "np.errstate(" + ", ".join(f"{k}={r.choice(_MODES)}" for k in keys) + ")"


def errstate(gen, env: dict) -> list[str]:
    if gen.depth > 2:
        return gen.stmt_assign(env)
    r = gen.rng
    v = gen.fresh("es")
    env[v] = "A"
    body = [f"    {v} = {_risky(gen, env)}", f"    {v} = {v} + {gen.expr('A', env, 1)}"]
    if r.random() < 0.3:
        body += [f"    with {_errstate_call(gen)}:", f"        {v} = {v} * {_risky(gen, env)}"]
    if r.random() < 0.2:
        body.insert(1, f"    {a_break(gen, env)}")
    lines = [f"{v} = x * 1.0", f"with {_errstate_call(gen)}:"] + body
    if r.random() < 0.5:
        e = gen.fresh("fe")
        lines = ["try:"] + ["    " + s for s in lines] + [
            f"except FloatingPointError as {e}:", f"    print('fpe', {e})"]
    return lines


# ---- closure_alive ----------------------------------------------------------------------------------------

def closure_alive(gen, env: dict) -> list[str]:
    if gen.depth > 1:
        return gen.stmt_assign(env)
    r = gen.rng
    k, w, fn, out = gen.fresh("k"), gen.fresh("cw"), gen.fresh("act"), gen.fresh("ca")
    a = gen.pick(env, "A") or "x"
    if r.random() < 0.3:
        cnt, bump = gen.fresh("cnt"), gen.fresh("tick")
        first = [f"{cnt} = 0", f"def {bump}(z):", f"    nonlocal {cnt}", f"    {cnt} += 1",
                 f"    return z * {cnt}", f"{out} = {bump}({a})"]
        env[cnt], env[out] = "P", "A"
        return first + [a_break(gen, env), f"{out} = {bump}({out}) + {cnt}", f"lst.append({cnt})"]
    value = gen.number(env)
    env[k], env[w], env[out] = "P", "A", "A"
    lines = [f"{k} = {value}", f"{w} = {a} * 0.5", f"def {fn}(z):",
             f"    return np.tanh(z * {k}) + {w}", f"{out} = {fn}({a})", a_break(gen, env)]
    if r.random() < 0.6:
        lines.append(r.choice((f"{k} = {k} + 1", f"{w} = {w} - {out}", f"{k} = float({out}.sum())")))
    lines.append(f"{out} = {fn}({out})")
    if r.random() < 0.3:
        lines.append(f"lst.append({fn}({a}).sum())")
    return lines


EXTRA_STATEMENTS.update(rng_object=rng_object, errstate=errstate, closure_alive=closure_alive)
EXTRA_PREAMBLE["rng_object"] = ["RNG2 = np.random.default_rng(23)", "RS2 = np.random.RandomState(23)"]
