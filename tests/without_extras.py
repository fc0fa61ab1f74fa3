"""A pytest plugin (`-p tests.without_extras`) that makes the optional engines unimportable, as in a venv
with only the `test` extra: `import jax` raises ModuleNotFoundError and `importlib.util.find_spec("jax")`
is None (a None entry in sys.modules does both). Loaded before any conftest, so before the tests import."""

from __future__ import annotations

import sys

from tests.extras import EXTRAS

for _name in EXTRAS:
    sys.modules[_name] = None  # type: ignore[assignment]
