"""Size sweeps for the differential fuzzer (issue 10): after a program's generated calls, the same program
is called with its first size changed at least five times (1 included), so automatic dynamic makes that size
symbolic and later calls run the symbolic capture against eager: broadcasting against 1, slices that clip,
branches on sizes. Standard library only, like generator.py.
"""

from __future__ import annotations

import random

# First sizes for the sweep: 1 (static by rule), then sizes the symbolic entry must serve, one that makes
# slices clip (2) and larger ones.
SWEEP_SIZES = (1, 5, 2, 6, 9, 3)


def size_sweep(rng: random.Random, base: "object", call_type: type) -> list:
    """Calls like `base` with its shape's first size set to each of SWEEP_SIZES (in a shuffled order that
    keeps 1 in), new values each time."""
    sizes = list(SWEEP_SIZES)
    rng.shuffle(sizes)
    fields = base.to_dict()
    return [call_type(**{**fields, "shape": (m, *fields["shape"][1:]), "seed": rng.randrange(10**6)})
            for m in sizes]
