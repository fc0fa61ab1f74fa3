"""Programs with `assert` statements, kept out of test modules: pytest rewrites the asserts of those."""

import numpy as np


def validated_step(W, grad, lr):
    # numpy-ml's validators (is_stochastic / is_binary) and GMM's sanity checks around an update
    W -= lr * grad                                   # written before the checks: done once, as eagerly
    assert np.allclose(W.sum(axis=1), np.ones(W.shape[0]), atol=1.0), "rows must sum to about one"
    assert np.array_equal(grad, grad.astype(bool)), "Matrix must be binary"
    if W.min() < -1:
        raise ValueError(f"weight too small: {W.min():.3f}")
    np.testing.assert_allclose(np.sum(W), W.shape[0], rtol=0.5, err_msg="{}".format(np.sum(W)))
    return W * 2


def guarded(x, log):
    x += 1
    try:
        assert (x > 0).all(), "negative"
    except AssertionError as e:
        log.append(str(e))
        return None
    return x.sum()


def ambiguous(x):
    assert x > 0                                     # a 3-element truth value: NumPy's ValueError
    return x


def warns(x):
    y = np.log(x)                                    # divide by zero: a RuntimeWarning, eager's
    assert np.isfinite(y).all() or x.size == 0, "log of zero"
    return y


def doubled(x):
    assert x.sum() > 0, "empty"
    return x * 2


def logged_then_checked(x):
    y = np.log(x)                                    # divide by zero for a 0: a RuntimeWarning before the check
    assert np.isfinite(y).all(), "log of zero"
    return y


def is_stochastic(X):
    # numpy-ml's validator: an assert on two masks' True counts, chained
    msg = "Array should be stochastic along the columns"
    assert len(X[X < 0]) == len(X[X > 1]) == 0, msg
    assert np.allclose(np.sum(X, axis=1), np.ones(X.shape[0])), msg
    return True


def count_checks(x):
    if len(x[x > 0.5]) > 3:
        raise ValueError(f"too many: {len(x[x > 0.5])}")
    assert len(x[x < 0]) != len(x), "all negative"
    return x[x > 0.5] * 2
