"""Training and fitting loops: k-means, logistic regression until converged, optimizers updating state in
place, closed-form and iterative solvers. Several loop on a data-dependent condition, as real training code
does. Imports numpy and math only."""

from __future__ import annotations

import math

import numpy as np

from . import Model, TraceSpec

# points, features, clusters per size
KM = {"small": (24, 2, 3), "large": (3000, 4, 8)}


def _points(size: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    n, d, k = KM[size]
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(77).standard_normal((k, d)) * 4
    pts = centers[rng.integers(0, k, n)] + rng.standard_normal((n, d))
    return pts, pts[:k].copy()


# ---- 1-3. k-means ------------------------------------------------------------------------------------------

def kmeans_step(points, centroids):
    """One Lloyd step with one-hot assignment matrices: no data-dependent shapes."""
    d2 = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=-1)
    assign = d2.argmin(axis=1)
    onehot = (assign[:, None] == np.arange(centroids.shape[0])[None, :]).astype(points.dtype)
    counts = onehot.sum(axis=0)
    return (onehot.T @ points) / np.maximum(counts, 1.0)[:, None]


def kmeans_masked(points, centroids):
    """The same step as people often write it: a boolean mask per cluster (data-dependent shapes)."""
    d2 = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=-1)
    assign = np.argmin(d2, axis=1)
    new = centroids.copy()
    for j in range(centroids.shape[0]):
        members = points[assign == j]
        if len(members) > 0:
            new[j] = members.mean(axis=0)
    return new


def kmeans_fit(points, centroids, tol=1e-6, max_iter=30):
    """Steps until the centroids stop moving: `while` on a value computed from the arrays."""
    shift, it = np.inf, 0
    while shift > tol and it < max_iter:
        new = kmeans_step(points, centroids)
        shift = float(np.abs(new - centroids).max())
        centroids, it = new, it + 1
    return centroids, it


# ---- 4-5. logistic regression ---------------------------------------------------------------------------------

LR = {"small": (32, 4), "large": (4000, 16)}


def _logreg_data(size: str, seed: int, separable: bool = True) -> tuple:
    n, d = LR[size]
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w_true = np.random.default_rng(5).standard_normal(d)
    y = (X @ w_true + (0.0 if separable else 3.0 * rng.standard_normal(n)) > 0).astype(np.float64)
    return X, y


def logreg_until(X, y, lr=0.5, tol=0.3, max_iter=60):
    """Gradient descent `while loss > tol` (and an iteration cap), as a notebook would write it."""
    w = np.zeros(X.shape[1])
    loss, it = np.inf, 0
    while loss > tol and it < max_iter:
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
        w = w - lr * X.T @ (p - y) / X.shape[0]
        it += 1
    return w, it


def logreg_inputs(size, seed):
    return _logreg_data(size, seed)


def logreg_noisy(size, seed):
    """Noisy labels: the loss never gets under tol, so the loop runs to the cap instead."""
    return _logreg_data(size, seed, separable=False)


def logreg_epochs(X, y, epochs=15, lr=0.5):
    w = np.zeros(X.shape[1])
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        w -= lr * (X.T @ (p - y)) / len(y)
    return w


# ---- 6-7. optimizers updating their state in place -------------------------------------------------------------

OPT = {"small": (6, 4), "large": (256, 256)}


def adam_step(params, grads, state, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """One Adam step over dicts of arrays; moments and params are updated in place, the step count too."""
    state["t"] += 1
    t = state["t"]
    for name in params:
        g = grads[name]
        m, v = state["m"][name], state["v"][name]
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        m_hat = m / (1 - b1 ** t)
        v_hat = v / (1 - b2 ** t)
        params[name] -= lr * m_hat / (np.sqrt(v_hat) + eps)
    return params


def adam_inputs(size, seed):
    r, c = OPT[size]
    rng = np.random.default_rng(seed)
    shapes = {"W": (r, c), "b": (c,)}
    params = {k: rng.standard_normal(s) for k, s in shapes.items()}
    grads = {k: rng.standard_normal(s) for k, s in shapes.items()}
    state = {"t": 3, "m": {k: np.zeros(s) for k, s in shapes.items()}, "v": {k: np.zeros(s) + 1e-3 for k, s in shapes.items()}}
    return params, grads, state


def sgd_momentum(w, grad, velocity, lr=0.01, mu=0.9):
    velocity *= mu
    velocity += grad
    w -= lr * velocity
    return w, velocity


def sgd_inputs(size, seed):
    r, c = OPT[size]
    rng = np.random.default_rng(seed)
    return rng.standard_normal((r, c)), rng.standard_normal((r, c)), np.zeros((r, c))


# ---- 8-10. solvers ---------------------------------------------------------------------------------------------

def ridge_closed_form(X, y, alpha=0.1):
    A = X.T @ X + alpha * np.eye(X.shape[1])
    return np.linalg.solve(A, X.T @ y)


def ridge_inputs(size, seed):
    return _logreg_data(size, seed)


def power_iteration(A, iters=20):
    v = np.ones(A.shape[1]) / math.sqrt(A.shape[1])
    for _ in range(iters):
        v = A @ v
        v = v / np.linalg.norm(v)
    return v, v @ A @ v


def power_inputs(size, seed):
    n = 8 if size == "small" else 300
    M = np.random.default_rng(seed).standard_normal((n, n))
    return (M @ M.T / n,)


def newton_inverse_sqrt(a, steps=6):
    """Newton's iteration for 1/sqrt(a), starting from a crude guess; a fixed count of steps."""
    y = np.ones_like(a) * 0.5
    for _ in range(steps):
        y = y * (1.5 - 0.5 * a * y * y)
    return y


def newton_inputs(size, seed):
    n = 16 if size == "small" else 200_000
    return (np.random.default_rng(seed).random(n) * 2 + 0.5,)


MODELS = [
    Model("kmeans_step", kmeans_step, _points, "k-means step, one-hot", TraceSpec(("points", "centroids"))),
    Model("kmeans_masked", kmeans_masked, _points, "k-means step, boolean masks", TraceSpec(("points", "centroids"))),
    Model("kmeans_fit", kmeans_fit, _points, "k-means until converged (while)", TraceSpec(("points", "centroids"))),
    Model("logreg_until", logreg_until, logreg_inputs, "while loss > tol: training", TraceSpec(("X", "y")),
          other=logreg_noisy),
    Model("logreg_epochs", logreg_epochs, logreg_inputs, "fixed-epoch training, in-place update",
          TraceSpec(("X", "y"))),
    Model("adam_step", adam_step, adam_inputs, "Adam, state updated in place", None),
    Model("sgd_momentum", sgd_momentum, sgd_inputs, "SGD momentum, in-place", TraceSpec(("w", "grad", "velocity"))),
    Model("ridge_closed_form", ridge_closed_form, ridge_inputs, "linalg.solve", TraceSpec(("X", "y"))),
    Model("power_iteration", power_iteration, power_inputs, "loop with linalg.norm", TraceSpec(("A",))),
    Model("newton_inverse_sqrt", newton_inverse_sqrt, newton_inputs, "elementwise fixed-point loop",
          TraceSpec(("a",))),
]
