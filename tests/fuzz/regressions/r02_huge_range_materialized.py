"""`for i in range(n)` with a large n that returns (or breaks) in its first iteration.

Eager returns at once (~0.1 ms). Compiled hangs in capture: ConstVar.iterate() builds a list of one
ConstVar per element of the range before the unroll limit is consulted (n = 10**8 ran > 120 s, n = 2*10**6
takes ~4.5 s and 320 MB). Python 3.11, 3.12, 3.13. Found by the fuzzer (seed 10458: `n = max(n, n ** 2)`
in a loop made n huge, then `for i6 in range(n): if ...: return`).
Fixed: a range is iterated lazily (RangeIteratorVar), a long loop is handed to a loop driver.
"""

import numpy as np

MISMATCH = "timeout"
TIMEOUT = 30     # a hang detector, not a speed bound: fixed capture takes milliseconds

SOURCE = '''\
import numpy as np


def f(x, y, n, lst, d):
    for i in range(n):
        return x + i
    return x
'''


def make_calls():
    return [
        (np.ones(2), np.ones(2), 2 * 10**6, [], {}),
        (np.ones(2), np.ones(2), 2 * 10**6, [], {}),
        (np.ones(2), np.ones(2), 3, [], {}),
    ]
