"""Public model cases (issue 27's "60 public model cases"): pure-NumPy model code from public repositories,
loaded from a folder outside this repository (never copied into it), each case one call run eagerly and
compiled on equal copies of its inputs, compared bit for bit, with what `explain()` reports.

`python -m benchmarks.public_models [--root /tmp/public] [--only NAME,...] [--quick]` writes
benchmarks/results/public_models.md: per case, correct (result, exception, printed output, the arguments and
the objects they hold after the call, NumPy's and `random`'s global streams, all bit for bit, on the capturing
call and on a warm call), graph breaks, graphs and the break reasons with their codes; totals: the share of
cases with no break, graphs per case, wrong results.

Fetching the sources (the snapshots measured; any later commit may differ):

    for each row of SOURCES: fetch github:<repo>, then
    mkdir -p /tmp/public/<folder>
    git --git-dir=/work/.mirror/<owner>+<name>/repo archive <commit> <paths> | tar -x -C /tmp/public/<folder>

(`<paths>` keeps large data files that some snapshots store without their blobs out of the archive.)

Shims, applied only while the public modules import and removed from `sys.modules` afterwards: modules they
import for plotting, progress bars, data sets or solvers they do not use in the cases (`STUBBED`) are empty
stand-ins whose attributes are inert objects; `collections.Hashable` (removed in Python 3.10, numpy-ml
imports it) is `collections.abc.Hashable` during the import. The public code itself is run as it is.
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import contextlib
import copy
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import pathlib
import random
import struct
import sys
import types
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

DEFAULT_ROOT = pathlib.Path("/tmp/public")


@dataclass(frozen=True)
class Source:
    folder: str          # under the root
    repo: str
    commit: str
    paths: str           # what to export
    sys_path: str = ""   # a folder (under the folder) put on sys.path to import its packages; "" for single files


SOURCES = {
    "mlfs": Source("ML-From-Scratch", "eriklindernoren/ML-From-Scratch",
                   "a2806c6732eee8d27762edd6d864e0c179d8e9e8", "mlfromscratch", "."),
    "nml": Source("numpy-ml", "ddbourgin/numpy-ml", "b0359af5285fbf9699d64fd5ec059493228af03e", "numpy_ml", "."),
    "p2n": Source("from-python-to-numpy", "rougier/from-python-to-numpy",
                  "8a5f0d9973fe7513ef8463291ec71bf0f2453688", "code"),
    "nbody": Source("nbody-python", "pmocz/nbody-python", "980b2ab41e673b8a793751b32c85290f3c02f10e", "nbody.py"),
    "sph": Source("sph-python", "pmocz/sph-python", "e4d8ab6fa75d57d74f914439d16e541a7d035ef6", "sph.py"),
    "hn": Source("hipsternet", "wiseodd/hipsternet", "563de653827c460c9c1c7722ae7eecc67fe2f8a4", "hipsternet", "."),
    "cnn": Source("Numpy-CNN", "Alescontrela/Numpy-CNN", "be15d0139327a690813343a6e15d651fd043fa89", "CNN", "."),
}

STUBBED = ("matplotlib", "mpl_toolkits", "progressbar", "sklearn", "pandas", "seaborn", "terminaltables", "gym",
           "torch", "tensorflow", "keras", "cvxopt", "tqdm")


# ---- loading with shims ---------------------------------------------------------------------------------------

class _Inert:
    """Whatever a stubbed module hands out: callable, with any attribute, doing nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Inert()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        module.__path__ = []


@contextlib.contextmanager
def shims(paths: list[str]):
    finder, had_hashable = _Stubs(), hasattr(collections, "Hashable")
    before = set(sys.modules)
    sys.meta_path.insert(0, finder)
    sys.path[:0] = paths
    if not had_hashable:
        collections.Hashable = collections.abc.Hashable
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for p in paths:
            sys.path.remove(p)
        if not had_hashable:
            del collections.Hashable
        for name in set(sys.modules) - before:
            if isinstance(sys.modules[name], _StubModule):
                del sys.modules[name]


class Loader:
    """Imports the public modules a case names: `mod("mlfs", "mlfromscratch.deep_learning.layers")` for a
    package, `mod("p2n", "random_walk.py")` for a file of a source's folder."""

    def __init__(self, root: pathlib.Path):
        self.root = pathlib.Path(root)
        self.cache: dict[tuple[str, str], types.ModuleType] = {}

    def available(self, key: str) -> bool:
        src = SOURCES[key]
        return (self.root / src.folder / src.paths).exists()

    def __call__(self, key: str, name: str) -> types.ModuleType:
        if (key, name) in self.cache:
            return self.cache[key, name]
        src = SOURCES[key]
        folder = self.root / src.folder
        paths = [str(folder / src.sys_path)] if src.sys_path else []
        with shims(paths), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)    # old escape sequences in their docstrings
            if name.endswith(".py"):
                path = folder / src.paths if src.paths.endswith(".py") else folder / src.paths / name
                spec = importlib.util.spec_from_file_location(f"___public_{key}_{path.stem}", path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module
                spec.loader.exec_module(module)
            else:
                module = importlib.import_module(name)
        self.cache[key, name] = module
        return module


# ---- cases -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    name: str
    source: str
    # build(mod) -> (function, arguments): the function called as function(*arguments); the arguments are deep
    # copied for every call, after NumPy's and random's global streams are seeded.
    build: Callable[[Loader], tuple[Callable, tuple]]


def _data(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def _onehot(n, k, seed=0):
    y = np.zeros((n, k))
    y[np.arange(n), np.random.default_rng(seed).integers(0, k, n)] = 1.0
    return y


def _method(module_key, module_name, cls, method, *args, init=(), setup=None):
    """A case calling `cls(*init).method(*args)`, the method taken from the class so the instance is an
    argument (its state after the call is compared)."""
    def build(mod):
        klass = getattr(mod(module_key, module_name), cls)
        obj = klass(*init)
        if setup is not None:
            setup(mod, obj)
        return getattr(klass, method), (obj, *(a() if callable(a) else a for a in args))
    return build


def _function(module_key, module_name, function, *args):
    def build(mod):
        return getattr(mod(module_key, module_name), function), tuple(a() if callable(a) else a for a in args)
    return build


MLFS_ACT = "mlfromscratch.deep_learning.activation_functions"
MLFS_LOSS = "mlfromscratch.deep_learning.loss_functions"
MLFS_OPT = "mlfromscratch.deep_learning.optimizers"
MLFS_LAYERS = "mlfromscratch.deep_learning.layers"
MLFS_OPS = "mlfromscratch.utils.data_operation"
MLFS_MANIP = "mlfromscratch.utils.data_manipulation"
NML_ACT = "numpy_ml.neural_nets.activations.activations"
NML_LOSS = "numpy_ml.neural_nets.losses.losses"
NML_UTILS = "numpy_ml.neural_nets.utils.utils"


def _stochastic(n, k, seed=0):
    p = _data(n, k, seed=seed, low=0.05, high=1)
    return p / p.sum(axis=1, keepdims=True)


def _x(*shape, seed=0):
    return lambda: _data(*shape, seed=seed)


def _initialized(input_shape, warm=None):
    """setup for an ML-From-Scratch layer: input shape set, initialized with Adam; `warm` runs a forward pass."""
    def setup(mod, layer):
        layer.set_input_shape(input_shape)
        np.random.seed(1)
        if hasattr(layer, "initialize"):
            layer.initialize(mod("mlfs", MLFS_OPT).Adam())
        if warm is not None:
            layer.forward_pass(warm(), training=True)
    return setup


def _optimizer_case(cls, **kw):
    def build(mod):
        opt = getattr(mod("mlfs", MLFS_OPT), cls)(**kw)
        return getattr(type(opt), "update"), (opt, _data(6, 4, seed=1), _data(6, 4, seed=2))
    return build


def _nesterov(mod):
    opt = mod("mlfs", MLFS_OPT).NesterovAcceleratedGradient()
    target = _data(6, 4, seed=3)
    opt.w_updt = np.zeros((6, 4))     # its first update fails on its empty initial state: start from zeros
    return type(opt).update, (opt, _data(6, 4, seed=1), lambda w: 2 * (w - target))


def _kmeans(mod):
    km = mod("mlfs", "mlfromscratch.unsupervised_learning.k_means").KMeans(k=3, max_iterations=20)
    return type(km).predict, (km, _data(30, 2, seed=4))


def _gmm_fitted(mod):
    gmm = mod("mlfs", "mlfromscratch.unsupervised_learning.gaussian_mixture_model").GaussianMixtureModel(k=2)
    X = _data(24, 2, seed=5)
    np.random.seed(3)
    gmm._init_random_gaussians(X)
    return gmm, X


def _gmm_expectation(mod):
    gmm, X = _gmm_fitted(mod)
    return type(gmm)._expectation, (gmm, X)


def _gmm_maximization(mod):
    gmm, X = _gmm_fitted(mod)
    gmm._expectation(X)
    return type(gmm)._maximization, (gmm, X)


def _pca(mod):
    pca = mod("mlfs", "mlfromscratch.unsupervised_learning.principal_component_analysis").PCA()
    return type(pca).transform, (pca, _data(20, 5, seed=6), 2)


def _rbf(mod):
    kernel = mod("mlfs", "mlfromscratch.utils.kernels").rbf_kernel(gamma=0.5)
    return kernel, (_data(5, seed=1), _data(5, seed=2))


def _poly_kernel(mod):
    kernel = mod("mlfs", "mlfromscratch.utils.kernels").polynomial_kernel(power=3, coef=1.0)
    return kernel, (_data(5, seed=1), _data(5, seed=2))


def _nml_squared_error_grad(mod):
    acts = mod("nml", NML_ACT)
    loss = mod("nml", NML_LOSS).SquaredError
    return loss.grad, (_data(8, 3, seed=1), _data(8, 3, seed=2), _data(8, 3, seed=3), acts.Tanh())


def _nml_gmm(step):
    def build(mod):
        gmm_mod = mod("nml", "numpy_ml.gmm.gmm")
        model = gmm_mod.GMM(C=2, seed=3)
        X = _data(12, 2, seed=7)
        model._initialize_params(X)
        if step == "_M_step":
            model._E_step(X)
        return getattr(type(model), step), (model, X)
    return build


def _mlp(mod):
    """ML-From-Scratch's NeuralNetwork: Dense-ReLU-Dense-Softmax with Adam and cross-entropy."""
    nn, layers = mod("mlfs", "mlfromscratch.deep_learning.neural_network"), mod("mlfs", MLFS_LAYERS)
    np.random.seed(2)
    net = nn.NeuralNetwork(optimizer=mod("mlfs", MLFS_OPT).Adam(), loss=mod("mlfs", MLFS_LOSS).CrossEntropy)
    net.add(layers.Dense(8, input_shape=(4,)))
    net.add(layers.Activation("relu"))
    net.add(layers.Dense(3))
    net.add(layers.Activation("softmax"))
    return net


def _mlp_train(mod):
    net = _mlp(mod)
    return type(net).train_on_batch, (net, _data(16, 4, seed=1), _onehot(16, 3))


def _mlp_predict(mod):
    net = _mlp(mod)
    return type(net).predict, (net, _data(16, 4, seed=1))


def _hn_conv(mod):
    layer = mod("hn", "hipsternet.layer")
    return layer.conv_forward, (_data(2, 1, 6, 6, seed=1), _data(3, 1, 3, 3, seed=2), _data(3, 1, seed=3))


def _hn_bn(mod):
    layer = mod("hn", "hipsternet.layer")
    return layer.bn_forward, (_data(8, 4, seed=1), np.ones(4), np.zeros(4), (np.zeros(4), np.ones(4)))


def _hn_cross_entropy(mod):
    loss = mod("hn", "hipsternet.loss")
    model = {"W1": _data(4, 5, seed=1), "W2": _data(5, 3, seed=2), "b1": np.zeros(5)}
    return loss.cross_entropy, (model, _data(6, 3, seed=3), np.array([0, 2, 1, 1, 0, 2]))


def _cnn_conv(mod):
    forward = mod("cnn", "CNN.forward")
    return forward.convolution, (_data(1, 6, 6, seed=1), _data(2, 1, 3, 3, seed=2), _data(2, seed=3))


CASES: list[Case] = [
    # ML-From-Scratch: activation functions (objects called as functions) and their gradients
    Case("mlfs_sigmoid", "mlfs", _method("mlfs", MLFS_ACT, "Sigmoid", "__call__", _x(8, 5))),
    Case("mlfs_sigmoid_gradient", "mlfs", _method("mlfs", MLFS_ACT, "Sigmoid", "gradient", _x(8, 5))),
    Case("mlfs_softmax", "mlfs", _method("mlfs", MLFS_ACT, "Softmax", "__call__", _x(8, 5))),
    Case("mlfs_softmax_gradient", "mlfs", _method("mlfs", MLFS_ACT, "Softmax", "gradient", _x(8, 5))),
    Case("mlfs_tanh_gradient", "mlfs", _method("mlfs", MLFS_ACT, "TanH", "gradient", _x(8, 5))),
    Case("mlfs_leaky_relu", "mlfs", _method("mlfs", MLFS_ACT, "LeakyReLU", "__call__", _x(8, 5))),
    Case("mlfs_elu_gradient", "mlfs", _method("mlfs", MLFS_ACT, "ELU", "gradient", _x(8, 5))),
    Case("mlfs_selu", "mlfs", _method("mlfs", MLFS_ACT, "SELU", "__call__", _x(8, 5))),
    Case("mlfs_softplus", "mlfs", _method("mlfs", MLFS_ACT, "SoftPlus", "__call__", _x(8, 5))),
    # losses
    Case("mlfs_square_loss", "mlfs", _method("mlfs", MLFS_LOSS, "SquareLoss", "loss", _x(8, 3, seed=1), _x(8, 3))),
    Case("mlfs_cross_entropy_loss", "mlfs", _method("mlfs", MLFS_LOSS, "CrossEntropy", "loss",
                                                    lambda: _onehot(8, 3), lambda: _data(8, 3, low=0, high=1))),
    Case("mlfs_cross_entropy_gradient", "mlfs", _method("mlfs", MLFS_LOSS, "CrossEntropy", "gradient",
                                                        lambda: _onehot(8, 3), lambda: _data(8, 3, low=0, high=1))),
    Case("mlfs_cross_entropy_acc", "mlfs", _method("mlfs", MLFS_LOSS, "CrossEntropy", "acc",
                                                   lambda: _onehot(8, 3), lambda: _data(8, 3, low=0, high=1))),
    # optimizers (state on self, created on the first update)
    Case("mlfs_sgd_momentum", "mlfs", _optimizer_case("StochasticGradientDescent", momentum=0.9)),
    Case("mlfs_nesterov", "mlfs", _nesterov),
    Case("mlfs_adagrad", "mlfs", _optimizer_case("Adagrad")),
    Case("mlfs_adadelta", "mlfs", _optimizer_case("Adadelta")),
    Case("mlfs_rmsprop", "mlfs", _optimizer_case("RMSprop")),
    Case("mlfs_adam", "mlfs", _optimizer_case("Adam")),
    # layers
    Case("mlfs_dense_forward", "mlfs", _method("mlfs", MLFS_LAYERS, "Dense", "forward_pass", _x(6, 4),
                                               init=(5,), setup=_initialized((4,)))),
    Case("mlfs_dense_backward", "mlfs", _method("mlfs", MLFS_LAYERS, "Dense", "backward_pass", _x(6, 5, seed=2),
                                                init=(5,), setup=_initialized((4,), warm=_x(6, 4)))),
    Case("mlfs_dropout_forward", "mlfs", _method("mlfs", MLFS_LAYERS, "Dropout", "forward_pass", _x(6, 5),
                                                 init=(0.3,))),
    Case("mlfs_batchnorm_forward", "mlfs", _method("mlfs", MLFS_LAYERS, "BatchNormalization", "forward_pass",
                                                   _x(8, 4), setup=_initialized((4,)))),
    Case("mlfs_batchnorm_backward", "mlfs", _method("mlfs", MLFS_LAYERS, "BatchNormalization", "backward_pass",
                                                    _x(8, 4, seed=2), setup=_initialized((4,), warm=_x(8, 4)))),
    Case("mlfs_conv2d_forward", "mlfs", _method("mlfs", MLFS_LAYERS, "Conv2D", "forward_pass", _x(2, 1, 6, 6),
                                                init=(3, (3, 3)), setup=_initialized((1, 6, 6)))),
    Case("mlfs_conv2d_backward", "mlfs", _method("mlfs", MLFS_LAYERS, "Conv2D", "backward_pass",
                                                 _x(2, 3, 6, 6, seed=2), init=(3, (3, 3)),
                                                 setup=_initialized((1, 6, 6), warm=_x(2, 1, 6, 6)))),
    Case("mlfs_maxpool_forward", "mlfs", _method("mlfs", MLFS_LAYERS, "MaxPooling2D", "forward_pass",
                                                 _x(2, 3, 6, 6), init=((2, 2), 2, "valid"),
                                                 setup=_initialized((3, 6, 6)))),
    Case("mlfs_flatten_forward", "mlfs", _method("mlfs", MLFS_LAYERS, "Flatten", "forward_pass", _x(2, 3, 4, 4),
                                                 setup=_initialized((3, 4, 4)))),
    Case("mlfs_rnn_forward", "mlfs", _method("mlfs", MLFS_LAYERS, "RNN", "forward_pass", _x(2, 5, 3),
                                             init=(4,), setup=_initialized((5, 3)))),
    Case("mlfs_activation_backward", "mlfs", _method("mlfs", MLFS_LAYERS, "Activation", "backward_pass",
                                                     _x(6, 5, seed=2), init=("relu",),
                                                     setup=_initialized((5,), warm=_x(6, 5)))),
    Case("mlfs_mlp_train_on_batch", "mlfs", _mlp_train),
    Case("mlfs_mlp_predict", "mlfs", _mlp_predict),
    # unsupervised learning
    Case("mlfs_kmeans_predict", "mlfs", _kmeans),
    Case("mlfs_gmm_expectation", "mlfs", _gmm_expectation),
    Case("mlfs_gmm_maximization", "mlfs", _gmm_maximization),
    Case("mlfs_pca_transform", "mlfs", _pca),
    # utilities
    Case("mlfs_polynomial_features", "mlfs", _function("mlfs", MLFS_MANIP, "polynomial_features", _x(6, 2), 3)),
    Case("mlfs_normalize", "mlfs", _function("mlfs", MLFS_MANIP, "normalize", _x(6, 4))),
    Case("mlfs_standardize", "mlfs", _function("mlfs", MLFS_MANIP, "standardize", _x(6, 4))),
    Case("mlfs_to_categorical", "mlfs", _function("mlfs", MLFS_MANIP, "to_categorical",
                                                  lambda: np.array([0, 2, 1, 3, 1]))),
    Case("mlfs_shuffle_data", "mlfs", _function("mlfs", MLFS_MANIP, "shuffle_data", _x(6, 2), _x(6), 7)),
    Case("mlfs_calculate_entropy", "mlfs", _function("mlfs", MLFS_OPS, "calculate_entropy",
                                                     lambda: np.array([0, 1, 1, 2, 2, 2, 0, 1]))),
    Case("mlfs_mean_squared_error", "mlfs", _function("mlfs", MLFS_OPS, "mean_squared_error", _x(8), _x(8, seed=1))),
    Case("mlfs_covariance_matrix", "mlfs", _function("mlfs", MLFS_OPS, "calculate_covariance_matrix", _x(10, 3))),
    Case("mlfs_correlation_matrix", "mlfs", _function("mlfs", MLFS_OPS, "calculate_correlation_matrix", _x(10, 3))),
    Case("mlfs_euclidean_distance", "mlfs", _function("mlfs", MLFS_OPS, "euclidean_distance", _x(5), _x(5, seed=1))),
    Case("mlfs_rbf_kernel", "mlfs", _rbf),
    Case("mlfs_polynomial_kernel", "mlfs", _poly_kernel),
    # numpy-ml
    Case("nml_gelu", "nml", _method("nml", NML_ACT, "GELU", "fn", _x(6, 4))),
    Case("nml_selu_grad", "nml", _method("nml", NML_ACT, "SELU", "grad", _x(6, 4))),
    Case("nml_softplus_grad2", "nml", _method("nml", NML_ACT, "SoftPlus", "grad2", _x(6, 4))),
    Case("nml_cross_entropy_loss", "nml", lambda mod: (mod("nml", NML_LOSS).CrossEntropy.loss,
                                                       (_onehot(8, 3), _stochastic(8, 3)))),
    Case("nml_squared_error_grad", "nml", _nml_squared_error_grad),
    Case("nml_im2col", "nml", _function("nml", NML_UTILS, "im2col", _x(2, 5, 5, 1), (3, 3, 1, 2), 1, 1)),
    Case("nml_conv2d", "nml", _function("nml", NML_UTILS, "conv2D", _x(2, 5, 5, 1), _x(3, 3, 1, 2, seed=1), 1, 1)),
    Case("nml_logsumexp", "nml", _function("nml", "numpy_ml.utils.misc", "logsumexp", _x(6))),
    Case("nml_log_gaussian_pdf", "nml", _function("nml", "numpy_ml.utils.misc", "log_gaussian_pdf", _x(3),
                                                  _x(3, seed=1), lambda: np.eye(3) * 2.0)),
    Case("nml_euclidean", "nml", _function("nml", "numpy_ml.utils.distance_metrics", "euclidean", _x(5),
                                           _x(5, seed=1))),
    Case("nml_is_stochastic", "nml", _function("nml", "numpy_ml.utils.testing", "is_stochastic",
                                               lambda: np.full((4, 3), 1 / 3))),
    Case("nml_is_binary", "nml", _function("nml", "numpy_ml.utils.testing", "is_binary",
                                           lambda: (_data(4, 3) > 0).astype(float))),
    Case("nml_gmm_e_step", "nml", _nml_gmm("_E_step")),
    Case("nml_gmm_m_step", "nml", _nml_gmm("_M_step")),
    # From Python to NumPy
    Case("p2n_random_walk_faster", "p2n", _function("p2n", "random_walk.py", "random_walk_faster", 200)),
    Case("p2n_random_walk_fastest", "p2n", _function("p2n", "random_walk.py", "random_walk_fastest", 1000)),
    Case("p2n_find_crossing_2", "p2n", _function("p2n", "random_walk.py", "find_crossing_2",
                                                 lambda: np.random.default_rng(0).choice([-1, 1], 300), [1, -1, 1])),
    Case("p2n_mandelbrot_numpy_1", "p2n", _function("p2n", "mandelbrot_numpy_1.py", "mandelbrot",
                                                    -2.25, 0.75, -1.25, 1.25, 30, 20, 30)),
    Case("p2n_mandelbrot_numpy_2", "p2n", _function("p2n", "mandelbrot_numpy_2.py", "mandelbrot",
                                                    -2.25, 0.75, -1.25, 1.25, 30, 20, 30)),
    Case("p2n_vectorized_compute_3", "p2n", _function("p2n", "vectorization.py", "compute_3", _x(50), _x(60, seed=1))),
    Case("p2n_fractal_dimension", "p2n", _function("p2n", "fractal_dimension.py", "fractal_dimension",
                                                   lambda: _data(32, 32, low=0, high=1))),
    # pmocz: n-body and SPH
    Case("nbody_get_acc", "nbody", _function("nbody", "nbody.py", "getAcc", _x(20, 3), lambda: np.full((20, 1), 0.05),
                                             1.0, 0.1)),
    Case("nbody_get_energy", "nbody", _function("nbody", "nbody.py", "getEnergy", _x(20, 3), _x(20, 3, seed=1),
                                                lambda: np.full((20, 1), 0.05), 1.0)),
    Case("sph_gradient_kernel", "sph", _function("sph", "sph.py", "gradW", _x(10, 10), _x(10, 10, seed=1),
                                                 _x(10, 10, seed=2), 0.1)),
    Case("sph_density", "sph", _function("sph", "sph.py", "getDensity", _x(15, 3), _x(15, 3), 0.05, 0.1)),
    Case("sph_acceleration", "sph", _function("sph", "sph.py", "getAcc", _x(15, 3), _x(15, 3, seed=1), 0.05, 0.1,
                                              0.1, 1.0, 2.0, 1.0)),
    # hipsternet (a NumPy CNN library)
    Case("hn_conv_forward", "hn", _hn_conv),
    Case("hn_maxpool_forward", "hn", _function("hn", "hipsternet.layer", "maxpool_forward", _x(2, 3, 4, 4))),
    Case("hn_bn_forward", "hn", _hn_bn),
    Case("hn_dropout_forward", "hn", _function("hn", "hipsternet.layer", "dropout_forward", _x(6, 5), 0.5)),
    Case("hn_cross_entropy", "hn", _hn_cross_entropy),
    Case("hn_dcross_entropy", "hn", _function("hn", "hipsternet.loss", "dcross_entropy", _x(6, 3),
                                              lambda: np.array([0, 2, 1, 1, 0, 2]))),
    # Numpy-CNN (explicit loops over the image)
    Case("cnn_convolution", "cnn", _cnn_conv),
    Case("cnn_maxpool", "cnn", _function("cnn", "CNN.forward", "maxpool", _x(2, 6, 6))),
]


# Why the cases that still break do (kept beside the cases; the table prints it next to their reasons).
REMAINING = {
    "mlfs_nesterov": "`if not self.w_updt.any(): self.w_updt = np.zeros(...)`: a data-dependent branch whose arm "
                     "sets an attribute (auto_cond folds pure arms only)",
    "mlfs_kmeans_predict": "euclidean_distance returns math.sqrt of a graph value, compared in Python to pick the "
                           "closest centroid (a list index), and the EM loop stops on `if not diff.any()`",
    "mlfs_standardize": "`if std[col]: X_std[:, col] = ...`: a data-dependent branch whose arm writes into the "
                        "argument (auto_cond folds pure arms only)",
    "mlfs_to_categorical": "`np.zeros((n, np.amax(x) + 1))`: the result's shape is a value",
    "mlfs_calculate_entropy": "np.unique's length is data, and `len(y[y == label]) / len(y)` then feeds math.log",
    "p2n_random_walk_faster": "no NumPy at all: random.choices, a standard-library call with hidden state, runs "
                              "as one plain call (by design)",
    "p2n_mandelbrot_numpy_2": "`Xi.shape = Yi.shape = C.shape = n`: in-place reshapes of arrays the graph made, "
                              "and `if not len(Z): break` on a mask's count ends the escape loop",
    "p2n_fractal_dimension": "np.arange over a loop variable drawn from a graph array, a count fed to np.log, and "
                             "np.polyfit (no op)",
}


# ---- running a case ----------------------------------------------------------------------------------------

def difference(got: Any, expected: Any, where: str = "the result", depth: int = 0) -> str:
    """'' when `got` is `expected`'s equal bit for bit (arrays: type, dtype, shape and bytes; floats: their
    bits; objects: their type and attributes), else where they first differ."""
    if depth > 12:
        return ""
    if type(got) is not type(expected):
        return f"{where}: {type(got).__name__} against {type(expected).__name__}"
    if isinstance(expected, np.ndarray):
        if got.dtype != expected.dtype or got.shape != expected.shape:
            return f"{where}: {got.dtype}{list(got.shape)} against {expected.dtype}{list(expected.shape)}"
        if expected.dtype.hasobject:
            return next((d for i, (g, e) in enumerate(zip(got.ravel(), expected.ravel()))
                         if (d := difference(g, e, f"{where}.flat[{i}]", depth + 1))), "")
        if np.ascontiguousarray(got).tobytes() != np.ascontiguousarray(expected).tobytes():
            return f"{where}: values differ"
        return ""
    if isinstance(expected, np.generic):
        same = got.tobytes() == expected.tobytes() and got.dtype == expected.dtype
        return "" if same else f"{where}: {got!r} against {expected!r}"
    if isinstance(expected, float):
        return "" if struct.pack("<d", got) == struct.pack("<d", expected) else f"{where}: {got!r} against {expected!r}"
    if isinstance(expected, complex):
        return "" if (struct.pack("<dd", got.real, got.imag) == struct.pack("<dd", expected.real, expected.imag)) \
            else f"{where}: {got!r} against {expected!r}"
    if isinstance(expected, (int, str, bytes, bool, type(None))):
        return "" if got == expected else f"{where}: {got!r} against {expected!r}"
    if isinstance(expected, (list, tuple)):
        if len(got) != len(expected):
            return f"{where}: length {len(got)} against {len(expected)}"
        return next((d for i, (g, e) in enumerate(zip(got, expected))
                     if (d := difference(g, e, f"{where}[{i}]", depth + 1))), "")
    if isinstance(expected, dict):
        if list(got) != list(expected):
            return f"{where}: keys {list(got)} against {list(expected)}"
        return next((d for k in expected if (d := difference(got[k], expected[k], f"{where}[{k!r}]", depth + 1))), "")
    if isinstance(expected, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)):
        same = getattr(got, "__qualname__", got) == getattr(expected, "__qualname__", expected)
        return "" if same else f"{where}: {got!r} against {expected!r}"
    if hasattr(expected, "__dict__"):
        return difference(vars(got), vars(expected), f"{where}.__dict__", depth + 1)
    return ""


@dataclass
class Run:
    """One call: its outcome, printed output, arguments after it and the global streams after it."""

    kind: str                # "ok" or "raise"
    value: Any               # the result, or (exception type, its args)
    printed: str
    args: tuple
    streams: tuple

    def difference(self, other: "Run") -> str:
        if self.kind != other.kind:
            return f"{self.kind} against {other.kind}: {self.value!r} / {other.value!r}"
        return (difference(self.value, other.value, "the result" if self.kind == "ok" else "the exception")
                or ("" if self.printed == other.printed else "printed output differs")
                or difference(self.args, other.args, "the arguments after the call")
                or difference(self.streams, other.streams, "the global random streams"))


def call(fn: Callable, fresh: Callable[[], tuple]) -> Run:
    args = fresh()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), np.errstate(all="ignore"):
        try:
            kind, value = "ok", fn(*args)
        except Exception as e:    # the case's own exception is part of its behaviour
            kind, value = "raise", (type(e), tuple(str(a) for a in e.args))
    return Run(kind, value, out.getvalue(), args, (np.random.get_state(legacy=False), random.getstate()))


@dataclass
class Result:
    name: str
    source: str
    error: str = ""               # the case did not build or the harness failed
    correct: bool = False
    mismatch: str = ""
    graphs: int = 0
    breaks: int = 0
    reasons: list[str] = field(default_factory=list)   # "[MD0009] message" per break
    fallbacks: int = 0


def run_case(case: Case, mod: Loader) -> Result:
    import minidynamo as md
    res = Result(case.name, case.source)
    try:
        fn, proto = case.build(mod)
    except Exception as e:
        res.error = f"not built: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
        return res

    def fresh() -> tuple:
        np.random.seed(0)
        random.seed(0)
        return copy.deepcopy(proto)

    md.reset()
    try:
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            report = md.explain(fn)(*fresh())
        compiled = md.compile(fn)
        eager = [call(fn, fresh), call(fn, fresh)]
        got = [call(compiled, fresh), call(compiled, fresh)]
    except Exception as e:       # a harness or capture failure is reported, never hidden
        res.error = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        return res
    res.mismatch = next((f"{label}: {d}" for label, g, e in zip(("capturing call", "warm call"), got, eager)
                         if (d := g.difference(e))), "")
    res.correct = not res.mismatch
    res.graphs, res.breaks = report.graph_count, report.graph_break_count
    res.reasons = [f"[{r.code.code}] {first_line(r.message)}" for r in report.break_reasons]
    res.fallbacks = getattr(md.stats(compiled), "fallbacks", 0)
    return res


def first_line(text: str, limit: int = 140) -> str:
    line = str(text).splitlines()[0] if str(text) else ""
    return line if len(line) <= limit else line[:limit - 1] + "…"


# ---- the table ----------------------------------------------------------------------------------------------

def totals(results: list[Result]) -> dict[str, Any]:
    ran = [r for r in results if not r.error]
    n = len(ran)
    return {"cases": len(results), "ran": n, "not_run": len(results) - n,
            "no_break": sum(r.breaks == 0 and r.graphs <= 1 for r in ran),
            "graphs_per_case": sum(r.graphs for r in ran) / max(1, n),
            "wrong": sum(not r.correct for r in ran),
            "fallbacks": sum(r.fallbacks for r in ran),
            "codes": Counter(reason.split("]")[0] + "]" for r in ran for reason in r.reasons)}


def render(results: list[Result], quick: bool, baseline: dict | None = None) -> str:
    from .report import table, write
    t = totals(results)
    n = max(1, t["ran"])
    head = ["cases run", "no graph break", "graphs per case", "wrong results", "internal fallbacks", "not run"]
    row = [f"{t['ran']}/{t['cases']}", f"{t['no_break']}/{t['ran']} ({100 * t['no_break'] / n:.0f}%)",
           f"{t['graphs_per_case']:.2f}", str(t["wrong"]), str(t["fallbacks"]), str(t["not_run"])]
    body = [table(head, [row]), ""]
    if baseline:
        body += [f"Before this run's fixes: {baseline}", ""]
    body += ["Targets (issue 27): at least 90% with no break, at most 1.8 graphs per case, 0 wrong.", "",
             "## Breaks by code", ""]
    body.append(table(["code", "breaks"], [[c, k] for c, k in t["codes"].most_common()]) if t["codes"] else "none")
    body += ["", "## Per case", ""]
    grid = []
    for r in results:
        if r.error:
            grid.append([r.name, r.source, "—", "—", "—", r.error.replace("|", "\\|")])
            continue
        why = "; ".join(r.reasons).replace("|", "\\|") or "—"
        if r.reasons and r.name in REMAINING:
            why += f" (why: {REMAINING[r.name]})"
        grid.append([r.name, r.source, "✓" if r.correct else f"✗ {r.mismatch}", r.breaks, r.graphs, why])
    body.append(table(["case", "source", "correct", "breaks", "graphs", "break reasons"], grid))
    body += ["", "Sources: " + ", ".join(f"`{k}` {s.repo} @ {s.commit[:10]}" for k, s in SOURCES.items()) + ".",
             "A case counts as no break when `explain()` reports no break and at most one graph. Correct means "
             "the capturing call and a warm call of `compile(fn)` equal eager calls bit for bit (result or "
             "exception, printed output, arguments and their objects after the call, the global random "
             "streams). Internal fallbacks: calls of the compiled function that ran eagerly because capture "
             "failed inside (`stats().fallbacks`)."]
    write("public_models", "Public model cases (issue 27)", "\n".join(body), quick)
    return "\n".join(body)


def main(argv: list[str] | None = None) -> list[Result]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(DEFAULT_ROOT), help="the folder holding the exported sources")
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--quick", action="store_true", help="write results/quick/public_models.md instead")
    parser.add_argument("--baseline", default="", help="a line naming the totals before, printed in the table")
    opts = parser.parse_args(argv)
    mod = Loader(pathlib.Path(opts.root))
    only = set(filter(None, opts.only.split(",")))
    cases = [c for c in CASES if (not only or c.name in only)]
    missing = sorted({c.source for c in cases if not mod.available(c.source)})
    if missing:
        sys.exit(f"sources not found under {opts.root}: {', '.join(missing)} (see this module's docstring)")
    results = []
    for case in cases:
        r = run_case(case, mod)
        results.append(r)
        mark = r.error or ("ok" if r.correct else f"WRONG {r.mismatch}")
        print(f"{case.name}: {mark} graphs={r.graphs} breaks={r.breaks} {'; '.join(r.reasons)[:300]}", flush=True)
    quick = opts.quick or bool(only)
    render(results, quick, opts.baseline or None)
    t = totals(results)
    print(f"no break {t['no_break']}/{t['ran']}, graphs per case {t['graphs_per_case']:.2f}, wrong {t['wrong']}")
    return results


if __name__ == "__main__":
    main()
