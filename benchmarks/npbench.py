"""NPBench kernels loaded from a checkout outside the repository (never copied into it).

Export NPBench somewhere (`git --git-dir=<mirror> archive HEAD | tar -x -C /tmp/npbench`) and pass that
directory. For each `bench_info/<name>.json` the loader imports `<module>_numpy.py` (the kernel) and
`<module>.py` (its `initialize`) from `npbench/benchmarks/<relative_path>/`, builds the preset's inputs as
NPBench's harness does (parameters, then `initialize(...)`'s outputs) and hands out fresh copies of the
array arguments per call, since kernels write into them.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass
class Kernel:
    """One NPBench kernel at one preset: `fn(*kernel.fresh())` is one run on pristine inputs."""

    name: str
    preset: str
    fn: Callable
    data: dict
    input_args: list[str]
    array_args: frozenset[str]

    def fresh(self) -> tuple:
        return tuple(np.copy(self.data[a]) if a in self.array_args else self.data[a] for a in self.input_args)


def _module(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module        # dataclasses and pickling look modules up by name
    spec.loader.exec_module(module)
    return module


def names(root: str | pathlib.Path) -> list[str]:
    return sorted(p.stem for p in (pathlib.Path(root) / "bench_info").glob("*.json"))


def load(root: str | pathlib.Path, name: str, preset: str) -> Kernel:
    """The kernel `name` at `preset` ("S", "M", ...) from the NPBench checkout at `root`."""
    root = pathlib.Path(root)
    info = json.loads((root / "bench_info" / f"{name}.json").read_text())["benchmark"]
    folder = root / "npbench" / "benchmarks" / info["relative_path"]
    module = info["module_name"]
    kernel = _module(folder / f"{module}_numpy.py", f"___npbench_{module}_numpy")
    data = dict(info["parameters"][preset])
    init = info.get("init")
    if init:
        setup = _module(folder / f"{module}.py", f"___npbench_{module}")
        outputs = getattr(setup, init["func_name"])(*(data[a] for a in init["input_args"]))
        names_out = init["output_args"]
        if len(names_out) == 1:
            outputs = (outputs,)
        data.update(zip(names_out, outputs))
    return Kernel(name, preset, getattr(kernel, info["func_name"]), data, list(info["input_args"]),
                  frozenset(info.get("array_args", ())))
