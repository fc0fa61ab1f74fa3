"""Statements of the scriptable subset -> one Graph. Imports scripting.expressions/merge/scope, graph, errors.

Supported: `x = e`, tuple unpacking, `n += 1` on Python scalars, `return e` (also inside both arms of an if,
or in one arm with the rest of the function as the other), `if`/`else` on a graph value (a cond node; on a
value known at script time only the taken arm is compiled), `while` on a graph value and
`for i in range(...)` (while_loop nodes), `pass`, docstrings. `break`, `continue`, `try`, `with`, `del`,
globals, nested functions, assignments to attributes or items, and everything the expression compiler
rejects raise ScriptError naming the line.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from typing import Any

from ..errors import ScriptError
from ..graph.ir import ArraySpec, Graph, Node, PyScalarSpec
from .expressions import ExprCompiler
from .merge import build_cond, build_while, loop_scope
from .scope import UNDEFINED, Scope, Where, const_node, record_python



def parse(fn: types.FunctionType) -> tuple[ast.FunctionDef, Where]:
    """The function's AST (its `def`) and a Where for its errors."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise ScriptError("function without source", f"inspect cannot read its source ({e})",
                          function=getattr(fn, "__qualname__", "?")) from None
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    tree = ast.parse(textwrap.dedent("".join(lines)))
    where = Where(filename, first, [line.rstrip("\n") for line in lines], fn.__qualname__)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs or isinstance(defs[0], ast.AsyncFunctionDef):
        raise where.error(tree.body[0] if tree.body else tree, "this callable", "script() takes a plain `def`")
    return defs[0], where


class Compiler(ExprCompiler):
    """Compiles a function body statement by statement; `block` returns the returned value (or None)."""

    def block(self, stmts: list[ast.stmt], scope: Scope) -> Any:
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Return):
                return self.expr(stmt.value, scope) if stmt.value is not None else None
            if isinstance(stmt, ast.If):
                returned, consumed = self.stmt_If(stmt, scope, stmts[i + 1:])
                if consumed or returned is not _FALLS_THROUGH:
                    return returned
                continue
            method = getattr(self, "stmt_" + type(stmt).__name__, None)
            if method is None:
                raise self.fail(stmt, _STATEMENTS.get(type(stmt).__name__, type(stmt).__name__),
                                "scripted functions use assignments, if/else, while, for-range and return")
            method(stmt, scope)
        return _FALLS_THROUGH

    def stmt_Expr(self, stmt: ast.Expr, scope: Scope) -> None:
        if isinstance(stmt.value, ast.Constant):
            return                                # a docstring
        self.expr(stmt.value, scope)

    def stmt_Pass(self, stmt: ast.Pass, scope: Scope) -> None:
        return None

    def stmt_Assign(self, stmt: ast.Assign, scope: Scope) -> None:
        value = self.expr(stmt.value, scope)
        for target in stmt.targets:
            self.bind(target, value, scope)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign, scope: Scope) -> None:
        if stmt.value is None:
            raise self.fail(stmt, "annotation without a value", "assign a value")
        self.bind(stmt.target, self.expr(stmt.value, scope), scope)

    def stmt_AugAssign(self, stmt: ast.AugAssign, scope: Scope) -> None:
        current = self.expr(ast.Name(stmt.target.id, ast.Load(), lineno=stmt.lineno), scope) \
            if isinstance(stmt.target, ast.Name) else None
        if isinstance(current, Node) and isinstance(current.spec, ArraySpec):
            raise self.fail(stmt, "augmented assignment to an array", "it writes the array in place; write "
                                                                      "`x = x + y` for a new array")
        if not isinstance(stmt.target, ast.Name):
            raise self.fail(stmt, "augmented assignment to an item or attribute", "assign to a local name")
        binop = ast.BinOp(ast.Name(stmt.target.id, ast.Load()), stmt.op, stmt.value, lineno=stmt.lineno)
        self.bind(stmt.target, self.expr(binop, scope), scope)

    def bind(self, target: ast.expr, value: Any, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, tuple):
            if len(target.elts) != len(value) or any(isinstance(e, ast.Starred) for e in target.elts):
                raise self.fail(target, "unpacking", f"{len(value)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.bind(t, v, scope)
        else:
            raise self.fail(target, "assignment to " + _STATEMENTS.get(type(target).__name__, "this target"),
                            "assign to local names (arrays are never written in place)")

    # ---- if ------------------------------------------------------------------------------------------
    def stmt_If(self, stmt: ast.If, scope: Scope, rest: list[ast.stmt]) -> tuple[Any, bool]:
        """(returned value or _FALLS_THROUGH, whether `rest` was consumed). When exactly one arm returns,
        the statements after the if (`rest`) become the end of the other arm."""
        pred = self.test(stmt.test, scope)
        body, orelse = list(stmt.body), list(stmt.orelse)
        returns = [_always_returns(body), _always_returns(orelse)]
        consumed = returns[0] != returns[1]
        if consumed:
            body, orelse = (body, orelse + rest) if returns[0] else (body + rest, orelse)
        if not isinstance(pred, Node):
            return self.block(body if pred else orelse, scope), consumed
        arms = []
        for branch in (body, orelse):
            sub = Scope(Graph(f"{scope.graph.name}_arm"), scope)
            arms.append((sub, self.block(branch, sub)))
        results = [r for _, r in arms]
        if consumed or all(r is not _FALLS_THROUGH for r in results):
            values = [None if r is _FALLS_THROUGH else r for r in results]   # falling off the end returns None
            return build_cond(self, stmt, scope, pred, [(s, v) for (s, _), v in zip(arms, values)]), True
        if any(r is not _FALLS_THROUGH for r in results):
            raise self.fail(stmt, "a return on one path only", "return on both paths, or after the if")
        names = [n for n in dict.fromkeys([*arms[0][0].env, *arms[1][0].env])]
        values = []
        for sub, _ in arms:
            values.append(tuple(sub.env[n] if n in sub.env else _outer(sub, n) for n in names))
        defined = [all(v is not UNDEFINED for v in (values[0][i], values[1][i])) for i in range(len(names))]
        keep = [i for i in range(len(names)) if defined[i]]
        merged = build_cond(self, stmt, scope, pred,
                            [(s, tuple(v[i] for i in keep)) for (s, _), v in zip(arms, values)])
        for i, name in enumerate(names):
            scope.env[name] = UNDEFINED
        for i, value in zip(keep, merged):
            scope.env[names[i]] = value
        return _FALLS_THROUGH, False

    # ---- loops ---------------------------------------------------------------------------------------
    def stmt_While(self, stmt: ast.While, scope: Scope) -> None:
        if stmt.orelse:
            raise self.fail(stmt, "while ... else", "move the else part after the loop")
        self.loop(stmt, scope, stmt.body, lambda s: self.test(stmt.test, s), None)

    def stmt_For(self, stmt: ast.For, scope: Scope) -> None:
        it = stmt.iter
        if stmt.orelse:
            raise self.fail(stmt, "for ... else", "move the else part after the loop")
        is_range = isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
            and not it.keywords and 1 <= len(it.args) <= 3 and self.global_value(it, "range") is range
        if not is_range:
            return self.unroll(stmt, scope, self.static_items(stmt, self.expr(it, scope)))
        bounds = [self.expr(a, scope) for a in it.args]
        known = [b.meta.get("value") if isinstance(b, Node) else b for b in bounds]
        if all(type(b) is int for b in known) and (not isinstance(stmt.target, ast.Name)
                                                   or _needs_unrolling(stmt.body)):
            return self.unroll(stmt, scope, tuple(range(*known)))  # (int arguments are keyed by value)
        if not isinstance(stmt.target, ast.Name):
            raise self.fail(stmt, "this for loop", "a range loop binds one name")
        start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
        if type(step) is not int or step == 0 or not all(_is_int(b) for b in (start, stop)):
            raise self.fail(stmt, "range() bounds", "bounds must be ints and the step a nonzero int literal")
        counter = f"___for{stmt.lineno}"
        scope.env[counter] = start
        less = ast.Lt() if step > 0 else ast.Gt()

        def test(s: Scope) -> Any:
            return self.operator(stmt, "<" if step > 0 else ">", _op_of(less), (s.lookup(counter), s.lift(stop)), s)

        def advance(s: Scope) -> None:
            s.env[stmt.target.id] = s.lookup(counter)
            returned = self.block(stmt.body, s)
            if returned is not _FALLS_THROUGH:
                raise self.fail(stmt, "return inside a loop", "assign the result and return after the loop")
            s.env[counter] = record_python(s, "add", _add, (s.lookup(counter), step)) \
                if isinstance(s.lookup(counter), Node) else s.lookup(counter) + step

        self.loop(stmt, scope, stmt.body, test, advance, extra=(counter,), hidden=(stmt.target.id,))
        scope.env.pop(counter, None)

    def static_items(self, stmt: ast.For, value: Any) -> tuple:
        """The items of a sequence known at script time (a for loop over it is unrolled, as eager runs it)."""
        if isinstance(value, (tuple, list)):
            return tuple(value)
        if isinstance(value, dict):
            return tuple(value)
        if isinstance(value, Node) and isinstance(value.spec, ArraySpec) and value.spec.ndim >= 1:
            return ("rows", value)
        raise self.fail(stmt, "this for loop", "loops run over range(...), arrays (their rows), or tuples, lists "
                                               "and dicts passed in or built in the function")

    def unroll(self, stmt: ast.For, scope: Scope, items: tuple) -> None:
        rows = items[1] if items[:1] == ("rows",) else None     # an array: one row view per step, as eager
        count = rows.spec.shape[0] if rows is not None else len(items)
        if count > 10_000:
            raise self.fail(stmt, "a loop of more than 10,000 iterations over a known sequence", "use range()")
        for i in range(count):
            item = self.operator_rows(scope, rows, i) if rows is not None else items[i]
            self.bind(stmt.target, item, scope)
            if self.block(stmt.body, scope) is not _FALLS_THROUGH:
                raise self.fail(stmt, "return inside a loop", "assign the result and return after the loop")

    def operator_rows(self, scope: Scope, array: Node, i: int) -> Node:
        import operator
        from ..graph import ops
        from .scope import record
        return record(scope, ops.get("getitem"), operator.getitem, (array, i), {})

    def loop(self, stmt: ast.AST, scope: Scope, body: list[ast.stmt], test: Any, advance: Any,
             extra: tuple = (), hidden: tuple = ()) -> None:
        names = [n for n in dict.fromkeys([*extra, *_assigned(body)]) if n not in hidden]
        carried_names = [n for n in names if _defined(scope, n)]
        carried = [self.as_node(stmt, scope, n) for n in carried_names]
        tsub, bsub = loop_scope(scope, "test", carried), loop_scope(scope, "body", carried)
        for sub in (tsub, bsub):
            for name, inp in zip(carried_names, sub.graph.inputs):
                sub.env[name] = inp
            for name in names + list(hidden):
                sub.env.setdefault(name, UNDEFINED)
        pred = test(tsub)
        if advance is None:
            if self.block(body, bsub) is not _FALLS_THROUGH:
                raise self.fail(stmt, "return inside a loop", "assign the result and return after the loop")
        else:
            advance(bsub)
        ends = [bsub.env[n] for n in carried_names]
        finals = build_while(self, stmt, scope, carried, tsub, pred, bsub, ends)
        for name in names + list(hidden):
            scope.env[name] = UNDEFINED       # set inside the loop only: unbound if it never ran
        for name, value in zip(carried_names, finals):
            scope.env[name] = value

    def as_node(self, stmt: ast.AST, scope: Scope, name: str) -> Node:
        value = scope.lookup(name)
        if isinstance(value, Node):
            return value
        if type(value) in (int, float, bool):
            return const_node(scope.graph, value)
        raise self.fail(stmt, f"loop variable {name!r}", f"it holds {type(value).__name__}; loops carry arrays "
                                                         "and Python numbers only")


_FALLS_THROUGH = object()
_STATEMENTS = {"Break": "break", "Continue": "continue", "Try": "try", "With": "with", "Delete": "del",
               "Global": "global", "Nonlocal": "nonlocal", "FunctionDef": "nested def", "ClassDef": "class",
               "Raise": "raise", "Assert": "assert", "Import": "import", "ImportFrom": "import",
               "Attribute": "an attribute", "Subscript": "an item", "Starred": "a starred name", "Match": "match",
               "AsyncFor": "async for", "AsyncWith": "async with", "TryStar": "try"}


def _add(a: Any, b: Any) -> Any:
    return a + b


def _op_of(cmp: ast.cmpop) -> Any:
    from ..graph import ops
    return ops.BINARY_OPERATORS["<" if isinstance(cmp, ast.Lt) else ">"]


def _needs_unrolling(body: list[ast.stmt]) -> bool:
    """A range loop with constant bounds whose body appends to a list (collecting per-step results) is
    unrolled at script time; any other range loop becomes a while_loop node."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
               for stmt in body for n in ast.walk(stmt))


def _is_int(value: Any) -> bool:
    return type(value) is int or (isinstance(value, Node) and value.spec == PyScalarSpec(int))


def _outer(scope: Scope, name: str) -> Any:
    try:
        return scope.parent.lookup(name) if scope.parent is not None else UNDEFINED
    except KeyError:
        return UNDEFINED


def _defined(scope: Scope, name: str) -> bool:
    try:
        return scope.lookup(name) is not UNDEFINED
    except KeyError:
        return False


def _always_returns(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and _always_returns(last.orelse)


def _assigned(stmts: list[ast.stmt]) -> list[str]:
    """Names a block assigns (also in nested ifs and loops), in order."""
    found = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.append(node.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                found.append(node.target.id)
    return found


def inline_function(fn: types.FunctionType, args: tuple, kwargs: dict, scope: Scope, depth: int,
                    reads: list) -> Any:
    """Compile a call of another Python function into `scope`'s graph (its own names, the same graph)."""
    tree, where = parse(fn)
    reads += [(fn, "__code__", fn.__code__), (fn, "__defaults__", fn.__defaults__)]
    compiler = Compiler(where, fn, reads, depth)
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as e:
        raise where.error(tree, f"call of {fn.__qualname__}", f"the arguments do not match ({e})") from None
    bound.apply_defaults()
    inner = _FunctionScope(scope)
    inner.env.update(bound.arguments)
    returned = compiler.block(tree.body, inner)
    return None if returned is _FALLS_THROUGH else returned


class _FunctionScope(Scope):
    """A called function's names over the caller's graph: no lifting, and the caller's names are invisible."""

    def __init__(self, caller: Scope) -> None:
        super().__init__(caller.graph, None)
        self.caller = caller

    def lookup(self, name: str) -> Any:
        return self.env[name]

    def lift_node(self, node: Node) -> Node:
        return self.caller.lift_node(node)

    def owns(self, node: Node) -> bool:
        return self.caller.owns(node)
