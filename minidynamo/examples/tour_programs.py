"""Programs the tour captures: a two-layer block that captures whole, and one with a data-dependent branch."""

from __future__ import annotations

import math

import numpy as np


def mlp_block(x, params, n_layers=2):
    """Residual tanh layers followed by a scaled projection: one graph, no breaks."""
    h = x
    for i in range(n_layers):
        h = h + np.tanh(h @ params[f"W{i}"])
    T, d = h.shape
    return (h @ params["out"]) * (1.0 / math.sqrt(d))


def sign_switch(x):
    """The lecture's data-dependent branch: the `if` needs the value of an array."""
    s = x.sum(axis=-1).sum(axis=-1)
    if s > 0:
        return x * 2.0
    return x * -1.0


def make_inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 8))
    params = {"W0": rng.standard_normal((8, 8)) / 3, "W1": rng.standard_normal((8, 8)) / 3,
              "out": rng.standard_normal((8, 4)) / 3}
    return x, params
