"""Fuzzer feature `objects` (issue 9): layer objects called as `layer(x)`, properties, cached_property,
static/class methods, dataclass and NamedTuple configs, SimpleNamespace state written by the program,
and builtins/stdlib helpers over them (map, sorted, max with key, functools.reduce, hasattr/getattr).

`prelude()` is module-level code (the classes and a few global instances); `statement(gen, env)` is one
statement of `f` using them, built from the generator's typed expressions (kind A: x's shape, P: number).
The runner compares instances of the program's classes by their state (each side exec'd its own classes).
"""

from __future__ import annotations

from .generator import EXTRA_PREAMBLE, EXTRA_STATEMENTS

PRELUDE = '''
import collections
import dataclasses
import functools
import operator
import types


class Layer:
    scale = 0.5

    def __init__(self, gain, shift):
        self.gain, self.shift, self.calls = gain, shift, 0

    @property
    def total(self):
        return self.gain + self.shift

    @functools.cached_property
    def doubled(self):
        return self.gain * 2

    @staticmethod
    def act(z):
        return np.tanh(z)

    @classmethod
    def factor(cls, z):
        return z * cls.scale

    def __call__(self, z):
        self.calls += 1
        return self.act(self.factor(z)) * self.gain + self.shift


class Wide(Layer):
    scale = 2.0


def _decay(self):
    return self.lr / self.steps


# (make_dataclass: the runner compiles with `from __future__ import annotations`, and string annotations
# need the module in sys.modules)
Config = dataclasses.make_dataclass("Config", [("lr", float, 0.1), ("steps", int, 2)],
                                    namespace={"decay": property(_decay)})


Pair = collections.namedtuple("Pair", "a b")
LAYER = Layer(1.5, -0.25)
LAYERS = [Layer(0.5, 1.0), Wide(2.0, 0.0)]
CFG = Config()
STATE = types.SimpleNamespace(count=0, last=None)
PAIR = Pair(1.5, 2)
'''


def prelude() -> list[str]:
    return PRELUDE.strip("\n").splitlines()


def statement(gen, env: dict) -> list[str]:
    """One statement using objects; binds a new A-kind or P-kind name, or writes object state."""
    r, e = gen.rng, (lambda k: gen.expr(k, env, 1))
    name = gen.fresh("o")
    form = r.randrange(15)
    if form == 0:
        line, kind = f"{name} = LAYER({e('A')})", "A"
    elif form == 1:
        line, kind = f"{name} = {r.choice(('LAYER', 'LAYERS[1]'))}.factor({e('A')}) + LAYER.total", "A"
    elif form == 2:
        return [f"{name} = {e('A')}", "for layer in LAYERS:", f"    {name} = layer({name})"] + _bind(env, name, "A")
    elif form == 3:
        line, kind = f"{name} = {e('A')} * CFG.lr + CFG.decay - CFG.steps * PAIR.a + PAIR[1]", "A"
    elif form == 4:
        return [f"STATE.count = STATE.count + {r.choice(('1', 'CFG.steps', 'len(LAYERS)'))}",
                f"STATE.last = {e(r.choice(('A', 'P')))}"]
    elif form == 5:
        return [f"LAYER.shift = {e('P')}"]
    elif form == 6:
        line, kind = f"{name} = sum(map(lambda t: t * {e('P')}, [{e('A')}, {e('A')}]))", "A"
    elif form == 7:
        line, kind = f"{name} = functools.reduce(operator.add, [l({e('A')}) for l in LAYERS])", "A"
    elif form == 8:
        key = r.choice(("lambda l: l.scale", "lambda l: -l.gain", "lambda l: l.total"))
        line, kind = f"{name} = {r.choice(('max', 'min'))}(LAYERS, key={key})({e('A')})", "A"
    elif form == 9:
        attr = r.choice(("'lr'", "'steps'", "'missing'"))
        line, kind = (f"{name} = getattr(CFG, {attr}, 1.0) + hasattr(STATE, 'last') + callable(LAYER) + "
                      "LAYER.doubled"), "P"
    elif form == 10:
        line, kind = f"{name} = sorted([{e('P')}, CFG.lr, PAIR.a], reverse={r.choice(('True', 'False'))})[0]", "P"
    elif form == 11:
        line, kind = f"{name} = np.sqrt({e('I')} + 1) * {e('A')} + np.prod(x.shape)", "A"
    elif form == 12:
        line, kind = f"{name} = Pair({e('A')}, b={e('P')}).a * Pair(1, 2)[1]", "A"
    elif form == 13:         # objects made inside f: a layer, a dataclass config, kept in a global
        return [f"{name} = Layer({e('P')}, {e('P')})", f"STATE.last = {name}",
                f"{name} = {name}({e('A')}) * Config(lr={e('P')}).decay"] + _bind(env, name, "A")
    else:
        line, kind = f"{name} = {e('A')} + str(CFG)[:0].count('x') + len(repr(PAIR))", "A"
    return [line] + _bind(env, name, kind)


def _bind(env: dict, name: str, kind: str) -> list[str]:
    env[name] = kind
    return []


EXTRA_STATEMENTS["objects"] = statement
EXTRA_PREAMBLE["objects"] = prelude()
