"""Fuzzer features for NumPy's random streams (issue 9): draws from the legacy global functions
(np.random.rand, normal, randint, ...) and from a module-level Generator (`RNG.normal`, `RNG.integers`,
`RNG.permutation`, ...), mixed with array code, so the compiled program must consume both streams exactly
as eagerly. The preamble seeds both when the module loads (each side of the differential run loads it
afresh), and `G_RS` / `RNG` are module globals, so the runner compares the generators' states after every
call as well as the values drawn."""

from __future__ import annotations

from .generator import EXTRA_PREAMBLE, EXTRA_STATEMENTS


def _draw(gen, env: dict) -> tuple[str, str]:
    """(expression, kind) of one random draw shaped like one of the program's kinds."""
    choices = (
        ("np.random.rand(*x.shape)", "A"), ("np.random.random(x.shape)", "A"),
        ("np.random.normal(0.0, 2.0, size=x.shape)", "A"), ("np.random.uniform(-1, 1, x.shape[1])", "R"),
        ("np.random.randn(x.shape[0])", "C"), ("np.random.randint(0, 9, size=x.shape)", "A"),
        ("RNG.normal(size=x.shape)", "A"), ("RNG.random(x.shape[1])", "R"),
        ("RNG.integers(0, 5, size=x.shape[0])", "C"), ("RNG.standard_normal(x.shape)", "A"),
        ("RNG.uniform(0.5, 1.5, size=x.shape)", "A"), ("RNG.permutation(x.shape[0])", "C"),
        ("RNG.choice(x.shape[0], size=x.shape[0])", "C"), ("G_RS.standard_normal(x.shape)", "A"),
    )
    return gen.rng.choice(choices)


def random_draw(gen, env: dict) -> list[str]:
    """A draw combined with array code, sometimes with a print or a branch on an array between draws."""
    expr, kind = _draw(gen, env)
    name = gen.fresh("r")
    other = gen.pick(env, kind) or ("x" if kind == "A" else None)
    line = f"{name} = {expr} * {other}" if other and gen.rng.random() < 0.5 else f"{name} = {expr}"
    env[name] = kind
    lines = [line]
    if gen.rng.random() < 0.3:
        second, _ = _draw(gen, env)
        lines += [f"if {name}.sum() > 0:", f"    {name} = {name} + {second}.sum()"]
    if gen.has("print") and gen.rng.random() < 0.3:
        lines.append(f"print('drew', {name}.shape)")
    return lines


def random_state_read(gen, env: dict) -> list[str]:
    """A draw whose value only feeds Python (a float), then more array code."""
    expr, _ = _draw(gen, env)
    name = gen.fresh("p")
    env[name] = "P"
    return [f"{name} = float(({expr}).sum())"]


EXTRA_STATEMENTS.update(random_draw=random_draw, random_state_read=random_state_read)
_PREAMBLE = ["np.random.seed(11)", "RNG = np.random.default_rng(11)", "G_RS = np.random.mtrand._rand"]
EXTRA_PREAMBLE["random_draw"] = _PREAMBLE
EXTRA_PREAMBLE["random_state_read"] = _PREAMBLE
