"""Real-code section (issue 9): models written the way public NumPy code is written. Layer objects called
as layer(x), properties and config dataclasses, loggers printing f-strings, try/except around numerics,
nested stencil and factorization loops, FFT / linalg / random code. Written for this corpus in our own
words after reading how such code is usually shaped; nothing is copied. Imports numpy and the standard
library only."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import Model

DIMS = {"small": (6, 8), "large": (512, 128)}
GRID = {"small": 12, "large": 96}


def _rng(seed: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * salt + seed)


def _x(size: str, seed: int) -> np.ndarray:
    n, d = DIMS[size]
    return _rng(seed).standard_normal((n, d))


def _spd(size: str, salt: int = 3) -> np.ndarray:
    d = DIMS[size][1]
    a = _rng(0, salt).standard_normal((d, d))
    return a @ a.T / d + np.eye(d)


def _grid(size: str, seed: int) -> np.ndarray:
    n = GRID[size]
    return _rng(seed, 7).random((n, n))


def x_only(size, seed):
    return (_x(size, seed),)


def grid_only(size, seed):
    return (_grid(size, seed),)


def spd_only(size, seed):
    return (_spd(size) + 0.01 * seed * np.eye(DIMS[size][1]),)


# ---- layer objects called as layer(x), properties, configs ---------------------------------------------

class Dense:
    def __init__(self, d_in: int, d_out: int, act: str = "relu", salt: int = 1) -> None:
        self.w = _rng(0, salt).standard_normal((d_in, d_out)) / math.sqrt(d_in)
        self.b = np.zeros(d_out)
        self.act = act

    @property
    def fan_in(self) -> int:
        return self.w.shape[0]

    def __call__(self, x):
        h = x @ self.w + self.b
        return np.maximum(h, 0.0) if self.act == "relu" else np.tanh(h)


class LayerNorm:
    def __init__(self, d: int, eps: float = 1e-5) -> None:
        self.gamma, self.beta, self._eps = np.ones(d), np.zeros(d), eps

    @property
    def eps(self) -> float:
        return self._eps

    def __call__(self, x):
        mu = x.mean(axis=-1, keepdims=True)
        var = x.var(axis=-1, keepdims=True)
        return self.gamma * (x - mu) / np.sqrt(var + self.eps) + self.beta


class Sequential:
    def __init__(self, *layers) -> None:
        self.layers = list(layers)

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


@dataclass
class MLPConfig:
    hidden: int = 8
    dropout: float = 0.0
    residual: bool = True


_LAYERS: dict = {}


def _layers(size: str) -> dict:
    if size not in _LAYERS:
        d = DIMS[size][1]
        _LAYERS[size] = {"dense": Dense(d, d), "norm": LayerNorm(d), "tanh": Dense(d, d, "tanh", 2),
                         "seq": Sequential(Dense(d, d, salt=3), LayerNorm(d), Dense(d, d, "tanh", 4))}
    return _LAYERS[size]


def make_layer_call(size):
    layer = _layers(size)["dense"]

    def layer_call(x):
        return layer(x) * (1.0 / layer.fan_in)
    return layer_call


def make_norm_block(size):
    ls = _layers(size)

    def norm_block(x):
        h = ls["norm"](x)
        return x + ls["tanh"](h)
    return norm_block


def make_sequential(size):
    model = _layers(size)["seq"]

    def sequential(x):
        return model(x).sum(axis=0)
    return sequential


def make_config_mlp(size):
    ls, cfg = _layers(size), MLPConfig(hidden=DIMS[size][1])

    def config_mlp(x):
        h = ls["dense"](x)
        if cfg.residual:
            h = h + x
        return h / cfg.hidden
    return config_mlp


# ---- loggers printing f-strings, try/except around numerics ----------------------------------------------

def train_logger(x, w, steps=5, lr=0.05):
    for step in range(steps):
        pred = x @ w
        grad = x.T @ (pred - x[:, :w.shape[1]]) / x.shape[0]
        w = w - lr * grad
        loss = float(((pred - x[:, :w.shape[1]]) ** 2).mean())
        print(f"step {step} loss {loss:.4f}")
    return w


def x_and_w(size, seed):
    n, d = DIMS[size]
    return _x(size, seed), _rng(0, 9).standard_normal((d, d)) * 0.1


def solve_or_lstsq(a, b):
    try:
        sol = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        sol = np.linalg.lstsq(a, b, rcond=None)[0]
    return sol * 2.0


def spd_and_vec(size, seed):
    d = DIMS[size][1]
    return _spd(size), _rng(seed, 11).standard_normal(d)


def safe_log_ratio(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(np.abs(x)) - np.log1p(np.abs(x))
    return np.nan_to_num(r)


def stats_report(x):
    mean, std = x.mean(), x.std()
    print(f"mean={mean:.3f} std={std:.3f} shape={x.shape}")
    return (x - mean) / std


# ---- nested stencil and factorization loops --------------------------------------------------------------

def jacobi_1d(a, steps=6):
    b = np.zeros_like(a)
    for t in range(steps):
        b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
    return a


def vec_only(size, seed):
    return (_rng(seed, 5).random(GRID[size] * 4),)


def seidel_2d(a, steps=2):
    n = a.shape[0]
    for t in range(steps):
        for i in range(1, n - 1):
            a[i, 1:-1] = (a[i - 1, :-2] + a[i - 1, 1:-1] + a[i - 1, 2:] + a[i, 2:] + a[i + 1, :-2]
                          + a[i + 1, 1:-1] + a[i + 1, 2:]) / 7.0
    return a


def lu_inplace(a):
    n = a.shape[0]
    for i in range(n):
        for j in range(i):
            a[i, j] -= a[i, :j] @ a[:j, j]
            a[i, j] /= a[j, j]
        for j in range(i, n):
            a[i, j] -= a[i, :i] @ a[:i, j]
    return a


def small_spd(size, seed):
    n = 6 if size == "small" else 40
    a = _rng(seed, 4).standard_normal((n, n))
    return (a @ a.T + n * np.eye(n),)


def cholesky_loops(a):
    n = a.shape[0]
    for i in range(n):
        for j in range(i):
            a[i, j] = (a[i, j] - a[i, :j] @ a[j, :j]) / a[j, j]
        a[i, i] = np.sqrt(a[i, i] - a[i, :i] @ a[i, :i])
    return np.tril(a)


def gram_schmidt(a):
    q = np.zeros_like(a)
    r = np.zeros((a.shape[1], a.shape[1]))
    for k in range(a.shape[1]):
        r[k, k] = np.linalg.norm(a[:, k])
        q[:, k] = a[:, k] / r[k, k]
        for j in range(k + 1, a.shape[1]):
            r[k, j] = q[:, k] @ a[:, j]
            a[:, j] = a[:, j] - q[:, k] * r[k, j]
    return q, r


def tall(size, seed):
    d = DIMS[size][1]
    return (_rng(seed, 8).standard_normal((d, d // 2)),)     # independent columns: a stable basis


def triangular_scale(c, beta=0.9):
    for i in range(c.shape[0]):
        c[i, :i + 1] *= beta
    return c


def conv_output_pixels(img, k):
    h, w = img.shape[0] - k.shape[0] + 1, img.shape[1] - k.shape[1] + 1
    out = np.empty((h, w))
    for i in range(h):
        for j in range(w):
            out[i, j] = (img[i:i + k.shape[0], j:j + k.shape[1]] * k).sum()
    return out


def img_and_kernel(size, seed):
    n = 8 if size == "small" else 32
    return _rng(seed, 6).random((n, n)), np.ones((3, 3)) / 9.0


# ---- FFT, linalg and random code -----------------------------------------------------------------------

def fft_lowpass(x, keep=3):
    spec = np.fft.rfft(x, axis=-1)
    spec[..., keep:] = 0
    return np.fft.irfft(spec, n=x.shape[-1], axis=-1)


def spectral_derivative(u):
    n = u.shape[0]
    k = np.fft.fftfreq(n, d=1.0 / n) * 2j * np.pi
    return np.real(np.fft.ifft(k * np.fft.fft(u)))


def wave(size, seed):
    n = GRID[size] * 4
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return (np.sin(t + seed) + 0.1 * np.cos(3 * t),)


def power_iteration(a, iters=20):
    v = np.ones(a.shape[0]) / math.sqrt(a.shape[0])
    for _ in range(iters):
        v = a @ v
        v = v / np.linalg.norm(v)
    return v @ a @ v, v


def pca_svd(x, k=2):
    xc = x - x.mean(axis=0)
    u, s, vt = np.linalg.svd(xc, full_matrices=False)
    return xc @ vt[:k].T, s[:k] ** 2 / (x.shape[0] - 1)


def ridge_cholesky(x, y, lam=0.1):
    g = x.T @ x + lam * np.eye(x.shape[1])
    c = np.linalg.cholesky(g)
    z = np.linalg.solve(c, x.T @ y)
    return np.linalg.solve(c.T, z)


def x_and_y(size, seed):
    x = _x(size, seed)
    return x, x @ np.arange(x.shape[1], dtype=float) + 0.1


def kmeans_step(x, centers):
    d = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
    labels = np.argmin(d, axis=1)
    onehot = labels[:, None] == np.arange(centers.shape[0])[None, :]
    counts = onehot.sum(axis=0)[:, None]
    return (onehot.T @ x) / np.maximum(counts, 1)


def x_and_centers(size, seed):
    x = _x(size, seed)
    return x, x[:3].copy()


def gmm_responsibilities(x, means, log_w):
    d = x[:, None, :] - means[None, :, :]
    logp = -0.5 * (d ** 2).sum(axis=-1) + log_w
    m = logp.max(axis=1, keepdims=True)
    return np.exp(logp - m - np.log(np.exp(logp - m).sum(axis=1, keepdims=True)))


def gmm_inputs(size, seed):
    x = _x(size, seed)
    return x, x[:2].copy(), np.log(np.array([0.4, 0.6]))


def attention(x, wq, wk):
    q, k = x @ wq, x @ wk
    s = q @ k.T / math.sqrt(q.shape[-1])
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    return (p / p.sum(axis=-1, keepdims=True)) @ x


def attn_inputs(size, seed):
    d = DIMS[size][1]
    return _x(size, seed), _rng(0, 12).standard_normal((d, d)) * 0.1, _rng(0, 13).standard_normal((d, d)) * 0.1


def dropout_train(x, p=0.2):
    mask = np.random.rand(*x.shape) > p
    return x * mask / (1.0 - p)


def noisy_sgd(w, grad, lr=0.1, sigma=0.01):
    noise = np.random.normal(0.0, sigma, size=w.shape)
    w -= lr * (grad + noise)
    return w


def w_and_grad(size, seed):
    return _x(size, seed), _x(size, seed + 1)


def histogram_features(x, bins=8):
    counts, edges = np.histogram(x, bins=bins, range=(-3.0, 3.0))
    centers = 0.5 * (edges[1:] + edges[:-1])
    return counts / counts.sum(), centers


def correlation_features(x):
    c = np.corrcoef(x, rowvar=False)
    q = np.percentile(x, [25, 50, 75], axis=0)
    return c, q, np.median(x, axis=0)


def moving_average(u, width=5):
    kernel = np.ones(width) / width
    return np.convolve(u, kernel, mode="same"), np.diff(u), np.cumsum(u)


def mandelbrot(c, iters=12):
    z = np.zeros_like(c)
    count = np.zeros(c.shape)
    for _ in range(iters):
        z = z * z + c
        count += np.abs(z) <= 2.0
        z = np.where(np.abs(z) > 2.0, 2.0, z)
    return count


def complex_grid(size, seed):
    n = GRID[size]
    re, im = np.meshgrid(np.linspace(-2, 0.5, n), np.linspace(-1.2, 1.2, n))
    return (re + 1j * im + 0.001 * seed,)


def outer_features(x):
    col = x[:, 0]
    pair = np.multiply.outer(col, col)
    return np.add.reduce(pair, axis=1), np.maximum.accumulate(col)


def qr_fields(a):
    res = np.linalg.qr(a)
    return res.Q @ np.diag(np.diag(res.R)), res.R.sum()


MODELS = [
    Model("rc_layer_call", None, x_only, "real code: layer object with a property", make_fn=make_layer_call),
    Model("rc_norm_block", None, x_only, "real code: LayerNorm + Dense objects", make_fn=make_norm_block),
    Model("rc_sequential", None, x_only, "real code: Sequential of layer objects", make_fn=make_sequential),
    Model("rc_config_mlp", None, x_only, "real code: dataclass config", make_fn=make_config_mlp),
    Model("rc_train_logger", train_logger, x_and_w, "real code: f-string loss logger in a loop"),
    Model("rc_solve_or_lstsq", solve_or_lstsq, spd_and_vec, "real code: try/except LinAlgError"),
    Model("rc_safe_log_ratio", safe_log_ratio, x_only, "real code: np.errstate block"),
    Model("rc_stats_report", stats_report, x_only, "real code: print of f-string stats"),
    Model("rc_jacobi_1d", jacobi_1d, vec_only, "real code: Jacobi stencil over t"),
    Model("rc_seidel_2d", seidel_2d, grid_only, "real code: Seidel stencil over t and i"),
    Model("rc_lu_inplace", lu_inplace, small_spd, "real code: LU factorization loops"),
    Model("rc_cholesky_loops", cholesky_loops, small_spd, "real code: Cholesky factorization loops"),
    Model("rc_gram_schmidt", gram_schmidt, tall, "real code: Gram-Schmidt loops"),
    Model("rc_triangular_scale", triangular_scale, spd_only, "real code: C[i, :i+1] *= beta"),
    Model("rc_conv_pixels", conv_output_pixels, img_and_kernel, "real code: convolution over output pixels"),
    Model("rc_fft_lowpass", fft_lowpass, x_only, "real code: rfft low-pass filter"),
    Model("rc_spectral_derivative", spectral_derivative, wave, "real code: spectral derivative"),
    Model("rc_power_iteration", power_iteration, spd_only, "real code: power iteration"),
    Model("rc_pca_svd", pca_svd, x_only, "real code: PCA via SVD"),
    Model("rc_ridge_cholesky", ridge_cholesky, x_and_y, "real code: ridge via cholesky/solve"),
    Model("rc_kmeans_step", kmeans_step, x_and_centers, "real code: k-means step"),
    Model("rc_gmm_responsibilities", gmm_responsibilities, gmm_inputs, "real code: GMM E-step"),
    Model("rc_attention", attention, attn_inputs, "real code: softmax attention"),
    Model("rc_dropout_train", dropout_train, x_only, "real code: dropout with np.random.rand"),
    Model("rc_noisy_sgd", noisy_sgd, w_and_grad, "real code: SGD with np.random.normal noise"),
    Model("rc_histogram_features", histogram_features, x_only, "real code: histogram features"),
    Model("rc_correlation_features", correlation_features, x_only, "real code: corrcoef/percentile/median"),
    Model("rc_moving_average", moving_average, wave, "real code: convolve/diff/cumsum"),
    Model("rc_mandelbrot", mandelbrot, complex_grid, "real code: Mandelbrot escape counts"),
    Model("rc_outer_features", outer_features, x_only, "real code: ufunc outer/reduce/accumulate"),
    Model("rc_qr_fields", qr_fields, spd_only, "real code: QR named-tuple fields"),
]
