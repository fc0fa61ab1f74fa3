"""variables/hooks.py: every slot the core Var kinds call through is filled once the package is loaded (the
providers are imported by capture/context.py), each by the function of its module named like the slot."""

import minidynamo  # noqa: F401  (loads capture, whose context imports the providers)
from minidynamo.capture.variables.hooks import HOOKS, Hooks

import pytest


def test_every_slot_is_filled_by_its_provider():
    for slot in Hooks.__annotations__:
        fn = getattr(HOOKS, slot)
        assert fn.__name__ == slot and fn.__module__.startswith("minidynamo.capture.variables."), slot


def test_a_function_without_a_slot_is_refused():
    def no_such_slot():
        pass
    with pytest.raises(RuntimeError, match="no hook slot named no_such_slot"):
        HOOKS.provide(no_such_slot)
