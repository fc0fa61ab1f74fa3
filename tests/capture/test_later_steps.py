"""capture/later_steps.py: which amplifying step (backends/amplifiers.py) the rest of a function names,
in its own code, code nested in it and the functions and methods it calls, a few calls deep."""

from __future__ import annotations

import numpy as np

from minidynamo.capture.later_steps import DEPTH, amplifying_name


def _ranks(v):
    return np.argsort(v)


def _chain(depth):
    """A chain of `depth` module-level helpers, the last of which calls np.unique."""
    names = [f"_link{k}" for k in range(depth)]
    space = {"np": np}
    for k in reversed(range(depth)):
        body = "np.unique(v)" if k == depth - 1 else f"{names[k + 1]}(v)"
        exec(f"def {names[k]}(v):\n    return {body}\n", space)
    return space[names[0]]


class Model:
    def predict(self, x):
        return self._best(x * 2)

    def _best(self, y):
        return y.argmax()


def test_names_in_the_function_itself():
    def f(x):
        return np.linalg.svd(x)
    assert amplifying_name(f, (np.eye(2),)) == "svd"


def test_the_first_name_in_the_code_wins():
    def f(c):
        w, v = np.linalg.eig(c)
        return v[:, w.argsort()]
    assert amplifying_name(f, (np.eye(2),)) == "eig"


def test_names_in_nested_code():
    def f(xs):
        return [x.argmin() for x in xs], (lambda: None)
    assert amplifying_name(f, ([],)) == "argmin"


def test_names_in_a_global_helper():
    def f(v):
        return _ranks(v * 2)
    assert amplifying_name(f, (np.ones(2),)) == "argsort"


def test_names_in_a_method_of_the_first_arguments_class():
    assert amplifying_name(Model.predict, (Model(), np.ones(2))) == "argmax"


def test_helpers_are_followed_only_so_deep():
    shallow, deep = _chain(DEPTH + 1), _chain(DEPTH + 2)
    assert amplifying_name(shallow, (np.ones(2),)) == "unique"
    assert amplifying_name(deep, (np.ones(2),)) is None


def test_none_without_such_a_step():
    def f(x):
        return np.sort(np.tanh(x)) > 0
    assert amplifying_name(f, (np.ones(2),)) is None


class _Loud:
    """A descriptor whose __get__ must not run while the names are looked up."""

    calls = 0

    def __get__(self, obj, owner):
        _Loud.calls += 1
        return lambda *a: None


class WithDescriptor:
    helper = _Loud()

    def run(self, x):
        return self.helper(x) + 1

    @staticmethod
    def ranks(v):
        return v.argsort()

    def use(self, v):
        return self.ranks(v)


def test_methods_are_read_from_the_class_without_running_descriptors():
    assert amplifying_name(WithDescriptor.run, (WithDescriptor(), np.ones(2))) is None
    assert _Loud.calls == 0
    assert amplifying_name(WithDescriptor.use, (WithDescriptor(), np.ones(2))) == "argsort"    # a staticmethod
