"""capture/variables/containers.py: iterators over the caller's lists rebuilt at a break."""

from __future__ import annotations

from tests.conftest import check


def test_an_iterator_past_the_old_end_of_a_lengthened_list_is_rebuilt_where_it_stood():
    # The entry rebuilds the iterator before writing the list back: advancing it over the old, shorter
    # list raised StopIteration (NumPy's _get_multi_index grows `in_indices` before enumerating it).
    def f(lst):
        lst[0:1] = ["a", "b", "c"]
        out = []
        for v in lst:
            if v == "c":
                print(v)
            out.append(v)
        return out
    check(f, [0, 1])
    check(f, [0])


def test_repeating_a_tuple_past_the_step_budget_is_left_to_python():
    # NumPy's test_huge_list_error builds (a,) * 2**31: modelled item by item, capture took 16 GB.
    import numpy as np

    import minidynamo as md

    def f(x, n):
        t = (x,) * n
        return len(t), t[-1] + 1.0
    with md.config.patch(max_instructions=1000):
        res = check(f, np.ones(2), 5000, calls=[(np.ones(2), 3)])
    assert any("too many items" in r.message for r in res.reasons)
