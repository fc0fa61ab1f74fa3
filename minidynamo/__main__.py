"""Command line: `python -m minidynamo tour` (capture a bundled example and show what happened) and
`python -m minidynamo --lines` (per-file line counts, printed in CI logs as STYLE.md asks)."""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np


def tour() -> int:
    from . import api
    from .examples.tour_programs import make_inputs, mlp_block, sign_switch

    x, params = make_inputs()
    rule = "=" * 78
    print(rule, "\n1. A block that captures whole: explain(mlp_block)(x, params)\n" + rule, sep="")
    print(api.explain(mlp_block)(x, params))

    fast = api.compile(mlp_block)
    same = np.array_equal(fast(x, params), mlp_block(x, params))
    fast(x, params)
    fast(np.ones((6, 8)), params)            # a new shape: a guard fails, the function is captured again
    st = api.stats(fast)
    print(f"\ncompiled result bit-identical to eager: {same}")
    print(f"captures={st.captures} cache hits={st.hits} recompiles={st.recompiles}; "
          f"why it recompiled: {st.guard_failures[-1]}")

    print("\n" + rule, "\n2. A data-dependent branch: explain(sign_switch)(x)\n" + rule, sep="")
    print(api.explain(sign_switch)(x))
    cs = api.compile(sign_switch)
    ok = all(np.array_equal(cs(v), sign_switch(v)) for v in (np.abs(x), -np.abs(x)))
    print(f"\ncompiled sign_switch matches eager on positive and negative inputs: {ok}")
    return 0


def lines() -> int:
    root = pathlib.Path(__file__).parent
    total = 0
    for path in sorted(root.rglob("*.py")):
        n = sum(1 for _ in path.open(encoding="utf-8"))
        total += n
        print(f"{n:6d}  {path.relative_to(root.parent)}")
    print(f"{total:6d}  total")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="minidynamo", description=__doc__)
    parser.add_argument("command", nargs="?", choices=["tour"], help="tour: capture a bundled example")
    parser.add_argument("--lines", action="store_true", help="print per-file line counts of the package")
    args = parser.parse_args(argv)
    if args.lines:
        return lines()
    if args.command == "tour":
        return tour()
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
