"""Optional engines the tests may use, and how a test that needs one skips without it: with the command
that installs it, so a fresh clone's `pip install -e '.[test]' && python -m pytest` only skips them.

`tests/without_extras.py` is a pytest plugin that makes every one of these modules unimportable, so a venv
that has them can still check that (tests/test_extras.py)."""

from __future__ import annotations

from types import ModuleType

import pytest

# importable top-level module -> the extra of pyproject.toml that installs it
EXTRAS = {"jax": "jax", "jaxlib": "jax", "dask": "dask", "distributed": "dask", "selenium": "report",
          "matplotlib": "bench"}


def install_hint(module: str) -> str:
    top = module.partition(".")[0]
    return f"{top} is not installed: pip install 'minidynamo[{EXTRAS[top]}]'"


def require(module: str) -> ModuleType:
    """The module, or a skip of the calling test that names the extra to install."""
    return pytest.importorskip(module, reason=install_hint(module))
