"""Programs that warn and then may raise inside one graph; a module of their own, so the warnings' file,
line and module (what filters match) are a real program's."""

import numpy as np


def log_then_inverse(x):
    y = np.log(x)                          # divide by zero / invalid value for zeros and negatives
    return np.linalg.inv(x) + y            # LinAlgError: singular, not square, 0-d


def sqrt_then_index(x, k):
    y = np.sqrt(x - 1.0)                   # invalid value where x < 1
    return y[k] * 2                        # IndexError past the end


def helper_warns(x):
    return np.log(x) * 3                   # the warning's place is this line of the helper


def helper_then_solve(a, b):
    return np.linalg.solve(a, helper_warns(b))


def mean_then_inverse(x):
    m = x.mean(axis=0)                     # Mean of empty slice (NumPy warns at its own caller)
    return np.linalg.inv(x) * m.sum()


def elementwise(x):
    return np.log(x) * 2                   # warns, never raises: a graph that holds nothing


def log_under_invalid_raise(x):
    with np.errstate(invalid="raise"):     # divide by zero warns, invalid raises FloatingPointError
        return np.log(x) * 2
