"""The tracing lecture's two model functions, restated for the bytecode front end (`minidynamo.compile`).

`gelu_mlp` calls `math.sqrt` inline (capture must fold it to a float) and the front end's `F.tanh`
(capture must read it as the `tanh` op). `layer_stack` is demo 2's loop: a Python `for` over a Python
int, a residual decided by a Python bool, `T, d = x.shape`, and a split into heads and back.
"""

from __future__ import annotations

import math

import numpy as np

from minidynamo import F


def gelu_mlp(x, p):
    """x @ W1, GELU in its tanh form, then @ W2."""
    h = x @ p["W1"]
    inner = math.sqrt(2.0 / math.pi) * (h + 0.044715 * h * h * h)
    g = 0.5 * h * (1.0 + F.tanh(inner))
    return g @ p["W2"]


def layer_stack(x, p, n_layers=3, use_residual=True):
    """n_layers tanh layers sharing p["W"], optionally residual, then two heads split out and merged."""
    for _ in range(n_layers):
        y = F.tanh(x @ p["W"])
        x = x + y if use_residual else y
    T, d = x.shape
    heads = x.reshape(T, 2, d // 2).transpose(1, 0, 2)
    return heads.transpose(1, 0, 2).reshape(T, d) * (1.0 / math.sqrt(d))


def gelu_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    p = {"W1": rng.standard_normal((8, 16)) / 3, "W2": rng.standard_normal((16, 8)) / 4}
    return rng.standard_normal((4, 8)), p


def stack_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(100 + seed)
    return rng.standard_normal((4, 8)), {"W": rng.standard_normal((8, 8)) / 3}
