"""A value read from a global, a dict item or a list item, returned after that slot was rebound.

Eager returns the values read first (0.5, 1.0, 1); compiled returns what the slots hold at the end
(3.0, 5.0, 7): the entry rebuilds the result by re-reading the source expression (`G1`, `d['a']`,
`lst[0]`) after the write-backs. Python 3.11, 3.12, 3.13. The same happens across a graph break
(seed 11764: `n = d['a']; d['a'] = d.get('a', 0) + n; <break>; return d.get('a', 0) + n`).
Found by the fuzzer (seeds 10197, 11764, 12884, 31918), shrunk and grouped by hand.
"""

import numpy as np

MISMATCH = "result"

SOURCE = '''\
import numpy as np

G1 = 0.5


def f(x, y, n, lst, d):
    global G1
    old_g = G1
    old_d = d['a']
    old_l = lst[0]
    G1 = float(n)
    d['a'] = 5.0
    lst[0] = 7
    return (old_g, old_d, old_l)
'''


def make_calls():
    return [
        (np.zeros(3), np.zeros(3), 3, [1, 2.5], {'a': 1.0, 'b': 2}),
        (np.zeros(3), np.zeros(3), 3, [1, 2.5], {'a': 1.0, 'b': 2}),
        (np.zeros(3), np.zeros(3), 4, [2], {'a': -1.0}),
    ]
