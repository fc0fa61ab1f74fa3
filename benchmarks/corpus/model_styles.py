"""Model code in the styles of three public NumPy code bases (issue 29's "public model cases"), written for
this corpus in our own words: from-scratch layer objects that keep masks and inputs on `self`
(ML-From-Scratch), layers wrapped in dropout wrappers that append what they derive to lists (numpy-ml),
EM and k-means written as nested Python loops over samples (both), and the vectorized tricks of
"From Python to NumPy" (a shrinking Mandelbrot, masks, random walks). Nothing is copied; the real
packages do not import on current Python without shims, so `benchmarks.real_code` times these.

Each `Case` builds `(fn, fresh)`: `fn(*fresh())` is one call; `fresh()` also reseeds the random streams
the function draws from, so eager and compiled calls do the same work.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Case:
    name: str
    style: str
    build: Callable[[], tuple[Callable, Callable[[], tuple]]]


def _rng(salt: int) -> np.random.Generator:
    return np.random.default_rng(29 + salt)


def _seeded(args: tuple, seed: int = 0) -> Callable[[], tuple]:
    def fresh() -> tuple:
        np.random.seed(seed)
        random.seed(seed)
        return tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)
    return fresh


# ---- ML-From-Scratch style: layers as objects with state on self -------------------------------------

class ScratchDropout:
    def __init__(self, rate=0.2):
        self.rate = rate
        self.keep = None

    def forward_pass(self, inputs, training=True):
        factor = 1 - self.rate
        if training:
            self.keep = np.random.uniform(size=inputs.shape) > self.rate
            factor = self.keep
        return inputs * factor


class ScratchDense:
    def __init__(self, n_in, n_out):
        limit = 1 / math.sqrt(n_in)
        self.W = _rng(1).uniform(-limit, limit, (n_in, n_out))
        self.w0 = np.zeros((1, n_out))
        self.layer_input = None

    def forward_pass(self, X, training=True):
        self.layer_input = X
        return X.dot(self.W) + self.w0


class ScratchBatchNorm:
    def __init__(self, n, momentum=0.99):
        self.momentum, self.eps = momentum, 0.01
        self.gamma, self.beta = np.ones(n), np.zeros(n)
        self.running_mean, self.running_var = None, None

    def forward_pass(self, X, training=True):
        if self.running_mean is None:
            self.running_mean, self.running_var = np.mean(X, axis=0), np.var(X, axis=0)
        if training:
            mean, var = np.mean(X, axis=0), np.var(X, axis=0)
            self.running_mean = self.momentum * self.running_mean + (1 - self.momentum) * mean
            self.running_var = self.momentum * self.running_var + (1 - self.momentum) * var
        else:
            mean, var = self.running_mean, self.running_var
        self.X_centered = X - mean
        self.stddev_inv = 1 / np.sqrt(var + self.eps)
        return self.gamma * self.X_centered * self.stddev_inv + self.beta


class ScratchSoftmaxLoss:
    def __call__(self, x):
        e_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
        return e_x / np.sum(e_x, axis=-1, keepdims=True)

    def loss(self, y, p):
        p = np.clip(p, 1e-15, 1 - 1e-15)
        return - y * np.log(p) - (1 - y) * np.log(1 - p)

    def forward(self, x, y):
        return np.mean(self.loss(y, self(x)))


def l2_distance(a, b):
    total = 0
    for i in range(len(a)):
        total += pow((a[i] - b[i]), 2)
    return math.sqrt(total)


class ScratchKMeans:
    def __init__(self, k=3, max_iterations=20):
        self.k, self.max_iterations = k, max_iterations

    def _initial(self, X):
        n_samples, n_features = np.shape(X)
        centroids = np.zeros((self.k, n_features))
        for i in range(self.k):
            centroids[i] = X[np.random.choice(range(n_samples))]
        return centroids

    def _nearest(self, sample, centroids):
        best_i, best = 0, float("inf")
        for i, centroid in enumerate(centroids):
            d = l2_distance(sample, centroid)
            if d < best:
                best_i, best = i, d
        return best_i

    def _assign(self, centroids, X):
        clusters = [[] for _ in range(self.k)]
        for i, sample in enumerate(X):
            clusters[self._nearest(sample, centroids)].append(i)
        return clusters

    def _means(self, clusters, X):
        centroids = np.zeros((self.k, np.shape(X)[1]))
        for i, cluster in enumerate(clusters):
            centroids[i] = np.mean(X[cluster], axis=0)
        return centroids

    def predict(self, X):
        centroids = self._initial(X)
        for _ in range(self.max_iterations):
            clusters = self._assign(centroids, X)
            previous = centroids
            centroids = self._means(clusters, X)
            if not (centroids - previous).any():
                break
        labels = np.zeros(np.shape(X)[0])
        for c, cluster in enumerate(clusters):
            for i in cluster:
                labels[i] = c
        return labels


# ---- numpy-ml style: wrapped layers that retain what they derive --------------------------------------

class MLSoftmax:
    def __init__(self, dim=-1):
        self.dim, self.X, self.derived = dim, [], {}

    def forward(self, X, retain_derived=True):
        e = np.exp(X - np.max(X, axis=self.dim, keepdims=True))
        Y = e / e.sum(axis=self.dim, keepdims=True)
        if retain_derived:
            self.X.append(X)
        return Y


class MLDropoutWrapper:
    def __init__(self, layer, p):
        self.base, self.p, self.trainable = layer, p, True
        self.wrapper_derived = {"dropout_mask": []}

    def forward(self, X, retain_derived=True):
        scaler, mask = 1.0, np.ones(X.shape).astype(bool)
        if self.trainable:
            scaler = 1.0 / (1.0 - self.p)
            mask = np.random.rand(*X.shape) >= self.p
            X = mask * X
        if retain_derived:
            self.wrapper_derived["dropout_mask"].append(mask)
        return scaler * self.base.forward(X, retain_derived)


class MLDotProductAttention:
    def __init__(self, scale=True, dropout_p=0.0):
        self.scale, self.X = scale, []
        self.softmax = MLDropoutWrapper(MLSoftmax(), dropout_p)
        self.derived = {"attention_weights": []}

    def forward(self, Q, K, V, retain_derived=True):
        Y, weights = self._fwd(Q, K, V)
        if retain_derived:
            self.X.append((Q, K, V))
            self.derived["attention_weights"].append(weights)
        return Y

    def _fwd(self, Q, K, V):
        scale = 1 / np.sqrt(Q.shape[-1]) if self.scale else 1
        scores = Q @ K.swapaxes(-2, -1) * scale
        weights = self.softmax.forward(scores)
        return weights @ V, weights


def log_sum_exp(log_probs, axis=None):
    top = np.max(log_probs)
    return top + np.log(np.exp(log_probs - top).sum(axis=axis))


def gaussian_log_pdf(x, mu, sigma):
    n = len(mu)
    _, logdet = np.linalg.slogdet(sigma)
    y = np.linalg.solve(sigma, x - mu)
    return -0.5 * (n * np.log(2 * np.pi) + logdet + np.dot(x - mu, y))


class MLGaussianMixture:
    def __init__(self, C=3):
        self.C, self.params = C, {}

    def _init(self, X):
        N, d = X.shape
        r = np.random.rand(self.C)
        self.params = {"pi": r / r.sum(), "Q": np.zeros((N, self.C)),
                       "mu": np.random.uniform(-2, 2, self.C * d).reshape(self.C, d),
                       "sigma": np.array([np.eye(d) for _ in range(self.C)])}

    def _e_step(self, X):
        P = self.params
        for i, x in enumerate(X):
            logs = [gaussian_log_pdf(x, P["mu"][c, :], P["sigma"][c, :, :]) + np.log(P["pi"][c])
                    for c in range(self.C)]
            q = np.exp([v - log_sum_exp(logs) for v in logs])
            np.testing.assert_allclose(np.sum(q), 1, err_msg=f"{np.sum(q)}")
            P["Q"][i, :] = q

    def _m_step(self, X):
        N, d = X.shape
        P = self.params
        totals = np.sum(P["Q"], axis=0)
        P["pi"] = totals / N
        for c in range(self.C):
            P["mu"][c, :] = np.dot(P["Q"][:, c], X) / totals[c]
            outer = np.zeros((d, d))
            for i in range(N):
                diff = X[i, :] - P["mu"][c, :]
                outer += P["Q"][i, c] * np.outer(diff, diff)
            P["sigma"][c, :, :] = outer / totals[c]

    def _bound(self, X):
        P, total = self.params, 0.0
        for i in range(X.shape[0]):
            for c in range(self.C):
                q = P["Q"][i, c]
                total += q * (gaussian_log_pdf(X[i], P["mu"][c], P["sigma"][c]) + np.log(P["pi"][c] + 1e-12))
        return total

    def fit(self, X, max_iter=5, tol=1e-3):
        previous = -np.inf
        self._init(X)
        for it in range(max_iter):
            try:
                self._e_step(X)
                self._m_step(X)
                bound = self._bound(X)
                if np.isnan(bound) or it > 0 and np.abs(bound - previous) <= tol:
                    break
                previous = bound
            except np.linalg.LinAlgError:
                return -1
        return 0


# ---- From Python to NumPy style: vectorized tricks ---------------------------------------------------

def shrinking_mandelbrot(xmin, xmax, ymin, ymax, xn, yn, itermax, horizon=2.0):
    Xi, Yi = np.mgrid[0:xn, 0:yn]
    Xi, Yi = Xi.astype(np.uint32), Yi.astype(np.uint32)
    C = np.linspace(xmin, xmax, xn, dtype=np.float32)[Xi] + np.linspace(ymin, ymax, yn, dtype=np.float32)[Yi] * 1j
    counts = np.zeros(C.shape, dtype=np.uint32)
    last = np.zeros(C.shape, dtype=np.complex64)
    Xi, Yi, C = Xi.reshape(xn * yn), Yi.reshape(xn * yn), C.reshape(xn * yn)   # (the original sets .shape)
    Z = np.zeros(C.shape, np.complex64)
    for i in range(itermax):
        if not len(Z):
            break
        np.multiply(Z, Z, Z)
        np.add(Z, C, Z)
        out = abs(Z) > horizon
        counts[Xi[out], Yi[out]] = i + 1
        last[Xi[out], Yi[out]] = Z[out]
        keep = ~out
        Z, Xi, Yi, C = Z[keep], Xi[keep], Yi[keep], C[keep]
    return last.T, counts.T


def masked_mandelbrot(xmin, xmax, ymin, ymax, xn, yn, maxiter, horizon=2.0):
    C = np.linspace(xmin, xmax, xn, dtype=np.float32) + np.linspace(ymin, ymax, yn, dtype=np.float32)[:, None] * 1j
    N = np.zeros(C.shape, dtype=int)
    Z = np.zeros(C.shape, np.complex64)
    for n in range(maxiter):
        inside = np.less(abs(Z), horizon)
        N[inside] = n
        Z[inside] = Z[inside] ** 2 + C[inside]
    N[N == maxiter - 1] = 0
    return Z, N


def random_walk(n):
    position = 0
    walk = [position]
    for _ in range(n):
        position += 2 * random.randint(0, 1) - 1
        walk.append(position)
    return walk


def random_walk_vectorized(n=1000):
    return np.cumsum(np.random.choice([-1, +1], n))


def life_step(Z):
    N = (Z[0:-2, 0:-2] + Z[0:-2, 1:-1] + Z[0:-2, 2:] + Z[1:-1, 0:-2] + Z[1:-1, 2:] +
         Z[2:, 0:-2] + Z[2:, 1:-1] + Z[2:, 2:])
    birth = (N == 3) & (Z[1:-1, 1:-1] == 0)
    survive = ((N == 2) | (N == 3)) & (Z[1:-1, 1:-1] == 1)
    Z[...] = 0
    Z[1:-1, 1:-1][birth | survive] = 1
    return Z


def _method(make, name, args, seed=0):
    def build():
        return getattr(make(), name), _seeded(args, seed)
    return build


def _function(fn, args, seed=0):
    return lambda: (fn, _seeded(args, seed))


# Sizes of everyday use (a minibatch of 128, hidden 256, 100 classes): calls of 0.1-10 ms, where what a
# compiled call adds is the question; tiny steps have their own tables (benchmarks/overhead.py, sizes.py).
_X = _rng(0).standard_normal((128, 256))
_LOGITS, _TARGET = _rng(2).standard_normal((128, 100)), (_rng(3).random((128, 100)) > 0.9).astype(float)
_QKV = tuple(_rng(4 + i).standard_normal((8, 32, 64)) for i in range(3))
_LIFE = (_rng(7).random((128, 128)) > 0.7).astype(int)

CASES = [
    Case("dropout_forward", "ML-From-Scratch: Dropout.forward_pass, mask from the global RNG kept on self",
         _method(ScratchDropout, "forward_pass", (_X,))),
    Case("dense_forward", "ML-From-Scratch: Dense.forward_pass, input kept on self",
         _method(lambda: ScratchDense(256, 128), "forward_pass", (_X,))),
    Case("batchnorm_forward", "ML-From-Scratch: BatchNormalization.forward_pass, running stats on self",
         _method(lambda: ScratchBatchNorm(256), "forward_pass", (_X,))),
    Case("softmax_cross_entropy", "ML-From-Scratch: Softmax activation + CrossEntropy loss objects",
         _method(ScratchSoftmaxLoss, "forward", (_LOGITS, _TARGET))),
    Case("kmeans_predict", "ML-From-Scratch: KMeans.predict, Python loops over samples and features",
         _method(ScratchKMeans, "predict", (_rng(5).standard_normal((60, 2)),))),
    Case("dot_product_attention", "numpy-ml: DotProductAttention.forward, dropout-wrapped softmax, lists of "
         "derived values", _method(MLDotProductAttention, "forward", _QKV)),
    Case("gmm_fit", "numpy-ml: GMM.fit, E/M steps as loops over samples, np.testing checks",
         _method(MLGaussianMixture, "fit", (_rng(6).standard_normal((40, 2)),))),
    Case("log_sum_exp", "numpy-ml: utils logsumexp", _function(log_sum_exp, (_LOGITS,))),
    Case("mandelbrot_shrinking", "From Python to NumPy: Mandelbrot over the points still inside (shrinking)",
         _function(shrinking_mandelbrot, (-2.25, 0.75, -1.25, 1.25, 60, 50, 40))),
    Case("mandelbrot_masked", "From Python to NumPy: Mandelbrot with boolean masks",
         _function(masked_mandelbrot, (-2.25, 0.75, -1.25, 1.25, 60, 50, 40))),
    Case("random_walk", "From Python to NumPy: random walk, random.randint per step",
         _function(random_walk, (1000,))),
    Case("random_walk_vectorized", "From Python to NumPy: random walk, np.random.choice + cumsum",
         _function(random_walk_vectorized, (10000,))),
    Case("game_of_life", "From Python to NumPy: Game of Life step with slices and masks",
         _function(life_step, (_LIFE,))),
]
