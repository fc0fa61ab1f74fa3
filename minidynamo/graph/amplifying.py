"""Graph metadata both ends read about steps that turn a rounding difference into a different answer (see
backends/amplifiers.py): their names, and the node.meta key by which capture marks the outputs of a graph
that the rest of its function may hand to one (capture/later_steps.py). Imports nothing.
"""

# The functions and methods (by their last name) whose answer a rounding difference of their inputs changes.
AMPLIFYING_NAMES = frozenset({"eig", "eigh", "eigvals", "svd", "argsort", "argmax", "argmin", "nanargmax",
                              "nanargmin", "searchsorted", "unique", "lexsort", "argpartition"})
HANDED_ON = "handed_on"     # node.meta key: the name of the step later code of the function may hand it to
