"""Programs the tour captures: a block that captures whole, the lecture's data-dependent branch (folded into a
cond node), the same branch with a print in one arm (a real graph break), and a training loop that runs
until its loss (a Python float read out of an array) is small enough."""

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
    """The lecture's data-dependent branch: the `if` needs the value of an array. Both arms are pure array
    code, so capture folds the `if` into one graph (a cond node) instead of breaking there."""
    s = x.sum(axis=-1).sum(axis=-1)
    if s > 0:
        return x * 2.0
    return x * -1.0


def loud_switch(x):
    """The same branch with a print in one arm: a cond node cannot hold a print (a side effect), so the `if`
    is a graph break: the graph stops before it, plain Python takes the branch, and a resume function
    continues on the path taken (the True path breaks once more, at its print)."""
    s = x.sum(axis=-1).sum(axis=-1)
    if s > 0:
        print("sum is positive")
        return x * 2.0
    return x * -1.0


def fit_logistic(w, X, y, tol):
    """Gradient descent until the loss, read out with float(), drops below tol."""
    loss = math.inf
    steps = 0
    while loss > tol:
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        w = w - 0.5 * (X.T @ (p - y)) / len(y)
        loss = float(np.mean((p - y) ** 2))
        steps += 1
    return w, steps


def make_inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 8))
    params = {"W0": rng.standard_normal((8, 8)) / 3, "W1": rng.standard_normal((8, 8)) / 3,
              "out": rng.standard_normal((8, 4)) / 3}
    return x, params


def make_regression(seed: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((64, 3))
    return np.zeros(3), X, (X[:, 0] > 0).astype(float)
