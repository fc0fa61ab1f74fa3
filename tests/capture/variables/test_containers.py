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
    check(f, [0, 1], expect_fallback='restart broke at another place: an iterator past the')
    check(f, [0], expect_fallback='restart broke at another place: an iterator past the')


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


def test_list_sort_without_a_key_is_sorteds_order_in_place():
    import numpy as np

    def local(x):
        order = [3, 1, 2, 1]
        order.sort()
        names = ["b", "a", "c"]
        names.sort(reverse=True)
        return x[order], names

    def callers_list(x, lst):
        lst.sort()                  # the caller sees its list sorted, as eagerly
        return x * lst[0], lst

    def mixed(x, lst):
        try:
            lst.sort()              # TypeError comparing str and int, raised where eager raises it
        except TypeError as e:
            return x, str(e), lst
        return x + 1, lst

    res = check(local, np.arange(5.0))
    assert res.reasons == []
    check(callers_list, np.ones(2), [2.5, -1.0, 0.5], calls=[(np.zeros(2), [1, 0])])
    check(mixed, np.ones(2), [1, "a"], calls=[(np.ones(2), [2, 1])])
