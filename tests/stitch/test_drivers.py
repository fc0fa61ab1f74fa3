"""stitch/drivers.py: the driver of a for-loop whose body breaks leaves no trace of the exhausted iterator."""

from __future__ import annotations

import pytest

import minidynamo as md


def raises_after_a_driven_loop(n):
    for i in range(n):
        print(i)            # a break in the body: the loop is driven from plain Python
    raise ValueError("after the loop")


def test_an_exception_after_a_driven_loop_has_no_stopiteration_context():
    compiled = md.compile(raises_after_a_driven_loop, options={"suppress_errors": False})
    for fn in (raises_after_a_driven_loop, compiled):
        with pytest.raises(ValueError) as info:
            fn(70)
        assert info.value.__context__ is None
