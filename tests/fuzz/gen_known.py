"""Fuzzer feature for decisions on small arrays built from capture-time constants (capture/known_values.py):
`np.array([...shape ints...])` tested with any()/int()/.item()/`in`/indexing, sometimes after an in-place
write into it, constant or computed from the arguments (after which capture must not decide from the value
it knew before the write)."""

from __future__ import annotations

from .generator import EXTRA_STATEMENTS


def known_decision(gen, env: dict) -> list[str]:
    r = gen.rng
    k = gen.fresh("k")
    items = r.sample(["x.shape[0] - 2", "len(lst)", gen.small_int(env), "x.ndim", "3", "-1"], 3)
    lines = [f"{k} = np.array([{', '.join(items)}])" + r.choice(("", " * 2", " - x.shape[-1]"))]
    write = r.random()
    if write < 0.3:
        lines.append(f"{k}[{r.randrange(3)}] = {r.choice(('(x > 0).sum()', 'int(y.size)', 'x.shape[0]'))}")
    elif write < 0.45:
        lines.append(f"{k} += {r.choice(('1', '(y < 0).sum()'))}")
    test = r.choice((f"({k} < 0).any()", f"int({k}.max()) > 2", f"{k}[0] > 1", f"3 in {k}", f"any({k} > 1)",
                     f"{k}.sum().item() % 2 == 0", f"bool({k}[1] == {k}[2])", f"{k}.tolist()[0] >= 0"))
    lines.append(f"if {test}:")
    lines += gen.sub_block(env)
    if r.random() < 0.6:
        lines += ["else:"] + gen.sub_block(env)
    return lines


EXTRA_STATEMENTS.update(known_decision=known_decision)
