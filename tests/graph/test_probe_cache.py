"""graph/meta.py keeps what an operator or ufunc gives on probes (probed_dtypes), keyed by the callable and
what each probe is: a NumPy scalar or one-item/empty array of a dtype, or a weak Python scalar with its value
(NEP 50 refuses an int that does not fit the array's dtype). A kept answer, result dtype or NumPy's refusal,
must be the one a fresh probe gives for every operand, also when the cache already holds a neighbour's."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from minidynamo.graph import meta as M
from minidynamo.graph.ir import ArraySpec

DTYPES = [np.bool_, np.int8, np.uint8, np.int64, np.float32, np.float64, np.complex64]
SPECS = [ArraySpec((3,), d) for d in DTYPES] + [ArraySpec((), d, scalar=True) for d in DTYPES] + \
        [ArraySpec((0, 2), np.int8), ArraySpec((2, 0), np.float32)]
WEAK = [True, 1, 100, 300, -1, 2 ** 70, 0.5, -0.0, 1e300, 2j]
FNS = [operator.add, operator.mul, operator.truediv, operator.floordiv, operator.pow, operator.lshift,
       operator.lt, np.add, np.power, np.bitwise_and, np.divmod]


def fresh(fn, *values):
    """What run_probe says for these operands, asked anew: ("ok", result type, dtypes) or ("error", text)."""
    try:
        r = M.run_probe("op", fn, *[M.probe(v) for v in values])
    except M.MetaError as e:
        return ("error", str(e))
    return ("ok", type(r), tuple(np.asarray(p).dtype for p in (r if type(r) is tuple else (r,))))


def kept(fn, *values):
    try:
        kind, dtypes = M.probed_dtypes("op", fn, *values)
    except M.MetaError as e:
        return ("error", str(e))
    return ("ok", kind, dtypes)


@pytest.mark.parametrize("fn", FNS, ids=lambda f: f.__name__)
def test_kept_answers_are_a_fresh_probes(fn):
    M._PROBED.clear()
    pairs = [(a, b) for a in SPECS for b in SPECS + WEAK] + [(w, a) for w in WEAK for a in SPECS]
    for _ in range(2):                  # the second round answers from the cache
        for a, b in pairs:
            assert kept(fn, a, b) == fresh(fn, a, b), (fn, a, b)
    assert M._PROBED                    # (the answers were kept)


def test_an_int_that_does_not_fit_is_refused_after_one_that_fits():
    int8 = ArraySpec((3,), np.int8)
    assert M.binary_operator_meta(operator.add, np.add)(int8, 100).dtype == np.int8
    with pytest.raises(M.MetaError, match="out of bounds|int8"):
        M.binary_operator_meta(operator.add, np.add)(int8, 300)
