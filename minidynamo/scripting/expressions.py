"""Expressions of the scriptable subset -> graph values. Imports scripting.scope, graph and errors.

Supported: names, literals, tuples, `a <op> b` / unary ops / single comparisons on arrays and Python
scalars, `x[index]`, array attributes (`.T`, `.shape`, `.dtype`, `.ndim`, `.size`), calls of registered NumPy
ops (`np.tanh(x)`, `x.sum(axis=0)`), of other scriptable functions (compiled inline) and of a few builtins
(`len`, `range` in for loops), `a if c else b` (a cond node). Evaluation order is Python's, so the graph
runs the ops in the order eager Python does.
"""

from __future__ import annotations

import ast
import builtins
import operator
import types
from typing import Any

import numpy as np

from ..graph import ops
from ..graph.ir import ArraySpec, MethodCall, Node
from ..graph.meta import MetaError
from .scope import UNDEFINED, Scope, Where, has_array, record, record_python

_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
           ast.LShift: "<<", ast.RShift: ">>"}
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!=", ast.Gt: ">", ast.GtE: ">="}
_UNARY = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
_SPEC_ATTRS = {"shape": lambda s: s.shape, "ndim": lambda s: s.ndim, "dtype": lambda s: s.dtype,
               "size": lambda s: s.size}
_VARARGS_METHODS = {"reshape", "transpose"}
_PLAIN_CONSTANTS = (int, float, bool, complex, str, type(None), type(Ellipsis))
_CONTAINER_METHODS = {"items", "keys", "values", "get", "append"}
_ABSENT = object()


def _exact(value: Any) -> Any:
    """An int/bool graph scalar whose value is exact (int arguments are keyed by value) as that value."""
    if isinstance(value, Node) and type(value.meta.get("value")) in (int, bool):
        return value.meta["value"]
    if isinstance(value, tuple):
        return tuple(_exact(v) for v in value)
    return value


def _pure_on_constants(func: Any) -> bool:
    """Callables safe to run at script time on constants: math functions and NumPy scalar types / math."""
    module = getattr(func, "__module__", None) or ""
    return module == "math" or (isinstance(func, type) and issubclass(func, np.generic)) or \
        func in (abs, min, max, round, float, int, bool, divmod, pow)

class ExprCompiler:
    """Compiles expressions into the graph of a Scope; `where` turns AST nodes into ScriptErrors."""

    def __init__(self, where: Where, fn: types.FunctionType, reads: list, depth: int = 0) -> None:
        self.where, self.globals, self.depth = where, fn.__globals__, depth
        self.cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        self.reads = reads              # (namespace or cell, name, object): checked before every call
        self.lists: dict[int, Scope] = {}   # lists built by this function -> the scope that may append

    def fail(self, node: ast.AST, construct: str, hint: str) -> Exception:
        return self.where.error(node, construct, hint)

    # ---- dispatch --------------------------------------------------------------------------------------
    def expr(self, node: ast.expr, scope: Scope) -> Any:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.fail(node, _describe(node), "scripted code may use arrays, Python scalars, tuples, "
                                                   "NumPy calls and if/while/for-range; rewrite this part")
        try:
            return method(node, scope)
        except MetaError as e:
            raise self.fail(node, _describe(node), f"NumPy would raise here: {e}") from None

    def expr_Constant(self, node: ast.Constant, scope: Scope) -> Any:
        return node.value

    def expr_Name(self, node: ast.Name, scope: Scope) -> Any:
        try:
            value = scope.lookup(node.id)
        except KeyError:
            return self.global_value(node, node.id)
        if value is UNDEFINED:
            raise self.fail(node, f"variable {node.id!r}", "it is set on one path only (one arm of an if, or "
                                                           "inside a loop); set it before the branch or loop")
        return value

    def global_value(self, node: ast.AST, name: str) -> Any:
        """A closure variable, global or builtin, read once at script time: the scripted function checks
        before each call that the name still holds the same object (else it compiles again)."""
        if name in self.cells:
            try:
                value = self.cells[name].cell_contents
            except ValueError:
                raise self.fail(node, f"free variable {name!r}", "it is unbound") from None
            self.reads.append((self.cells[name], None, value))
        elif name in self.globals:
            value = self.globals[name]
            self.reads.append((self.globals, name, value))
        elif hasattr(builtins, name):
            value = getattr(builtins, name)
            self.reads.append((self.globals, name, _ABSENT))
        else:
            raise self.fail(node, f"name {name!r}", "it is not defined (NameError in eager Python)")
        if isinstance(value, (np.ndarray, np.generic, list, dict, set)) or not (
                type(value) in _PLAIN_CONSTANTS or isinstance(value, (types.ModuleType, types.FunctionType, type,
                                                                      np.dtype, np.ufunc))
                or callable(value)):
            raise self.fail(node, f"global or closure variable {name!r} ({type(value).__name__})",
                            "only numbers, strings, modules and functions are read from outside; pass arrays "
                            "and containers as arguments")
        return value

    def expr_Tuple(self, node: ast.Tuple, scope: Scope) -> tuple:
        return tuple(self.expr(e, scope) for e in node.elts)

    def expr_List(self, node: ast.List, scope: Scope) -> list:
        value = [self.expr(e, scope) for e in node.elts]
        self.lists[id(value)] = scope
        return value

    def expr_Dict(self, node: ast.Dict, scope: Scope) -> dict:
        keys = [self.expr(k, scope) if k is not None else None for k in node.keys]
        if not all(type(k) is str for k in keys):
            raise self.fail(node, "dict literal with non-str keys", "use str keys")
        return {k: self.expr(v, scope) for k, v in zip(keys, node.values)}

    def expr_Attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        obj = self.expr(node.value, scope)
        if isinstance(obj, Node) and isinstance(obj.spec, ArraySpec):
            if node.attr in _SPEC_ATTRS:
                return _SPEC_ATTRS[node.attr](obj.spec)
            if node.attr == "T":
                return record(scope, ops.get("transpose"), MethodCall("transpose"), (obj,), {})
            return ("method", obj, node.attr)
        if isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] in ("numpy", "math"):
            if not hasattr(obj, node.attr):
                raise self.fail(node, f"attribute .{node.attr}", f"module {obj.__name__} has no such attribute")
            return getattr(obj, node.attr)
        if isinstance(obj, (dict, list)) and node.attr in _CONTAINER_METHODS:
            return ("pymethod", obj, node.attr)
        raise self.fail(node, f"attribute .{node.attr}", "only array attributes and numpy functions are scriptable")

    def expr_Subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        obj = self.expr(node.value, scope)
        key = self.expr(node.slice, scope)
        if isinstance(obj, dict) and type(key) is str:
            if key not in obj:
                raise self.fail(node, f"key {key!r}", "the dict has no such key (KeyError in eager Python)")
            return obj[key]
        if isinstance(obj, (tuple, list)) and (type(key) is int or type(key) is slice):
            try:
                return obj[key]
            except IndexError:
                raise self.fail(node, "index", "out of range (IndexError in eager Python)") from None
        if isinstance(obj, Node) and isinstance(obj.spec, ArraySpec):
            if ops.is_data_dependent_index(_meta_index(key)):
                raise self.fail(node, "boolean mask index", "its result shape depends on the data; use np.where")
            return record(scope, ops.get("getitem"), operator.getitem, (obj, key), {})
        raise self.fail(node, "subscript", "only arrays, tuples and dicts of arrays (str keys) can be indexed")

    def expr_Slice(self, node: ast.Slice, scope: Scope) -> slice:
        parts = [None if p is None else self.expr(p, scope) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    # ---- operators -------------------------------------------------------------------------------------
    def operator(self, node: ast.AST, symbol: str, opdef: ops.OpDef, args: tuple, scope: Scope) -> Any:
        if not any(isinstance(a, Node) for a in args):
            try:
                return opdef.impl(*args)          # both known at script time (3 * 4)
            except Exception as e:
                raise self.fail(node, f"`{symbol}` on constants", f"it raises {type(e).__name__}: {e}") from None
        if has_array(args):
            return record(scope, opdef, opdef.impl, args, {})
        if not all(isinstance(a, Node) or type(a) in (int, float, bool) for a in args):
            raise self.fail(node, f"`{symbol}` on {', '.join(type(a).__name__ for a in args)}",
                            "only arrays and Python int/float/bool take part in arithmetic")
        return record_python(scope, opdef.name, opdef.impl, args)

    def expr_BinOp(self, node: ast.BinOp, scope: Scope) -> Any:
        symbol = _BINARY[type(node.op)]
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        return self.operator(node, symbol, ops.BINARY_OPERATORS[symbol], (left, right), scope)

    def expr_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Any:
        value = self.expr(node.operand, scope)
        if isinstance(node.op, ast.Not):
            if isinstance(value, Node) and isinstance(value.spec, ArraySpec):
                raise self.fail(node, "`not` on an array", "use np.logical_not(x) or compare explicitly")
            if not isinstance(value, Node):
                return not value
            return record_python(scope, "not_", operator.not_, (value,))
        symbol = _UNARY[type(node.op)]
        return self.operator(node, symbol, ops.UNARY_OPERATORS[symbol], (value,), scope)

    def expr_Compare(self, node: ast.Compare, scope: Scope) -> Any:
        if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
            raise self.fail(node, "chained or `in`/`is` comparison", "write one comparison `a < b` at a time")
        symbol = _COMPARE[type(node.ops[0])]
        left, right = self.expr(node.left, scope), self.expr(node.comparators[0], scope)
        return self.operator(node, symbol, ops.BINARY_OPERATORS[symbol], (left, right), scope)

    def expr_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Any:
        values = [self.expr(v, scope) for v in node.values]
        if any(isinstance(v, Node) for v in values):
            raise self.fail(node, "`and`/`or` on graph values outside an if/while test",
                            "it returns one of its operands: use `&`/`|` on bools, or an if")
        result = values[0]
        for v in values[1:]:
            result = (result and v) if isinstance(node.op, ast.And) else (result or v)
        return result

    def test(self, node: ast.expr, scope: Scope) -> Any:
        """A truth test (of an if, while or conditional expression): there `a and b` / `a or b` on graph
        values short-circuit through a cond whose arms give Python bools, so the rest of the test runs
        only when Python would run it. Elsewhere `and`/`or` return an operand, so they stay refused."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            value = self.test(node.operand, scope)
            return _truth(scope, value, negate=True) if isinstance(value, Node) else not value
        if not isinstance(node, ast.BoolOp):
            return self.expr(node, scope)
        first = self.test(node.values[0], scope)
        if len(node.values) == 1:
            return first
        rest = ast.copy_location(ast.BoolOp(op=node.op, values=node.values[1:]), node.values[1])
        is_and = isinstance(node.op, ast.And)
        if not isinstance(first, Node):           # a Python value: short-circuit now, as Python does
            return self.test(rest, scope) if bool(first) == is_and else first
        arms = []
        for side in (True, False):
            sub = Scope(_graph(scope, "arm"), scope)
            value = self.test(rest, sub) if side == is_and else sub.lift_node(first)
            arms.append((sub, [_truth(sub, value)]))
        return self.make_cond(node, scope, first, arms)[0]

    def expr_IfExp(self, node: ast.IfExp, scope: Scope) -> Any:
        pred = self.test(node.test, scope)
        if not isinstance(pred, Node):
            return self.expr(node.body if pred else node.orelse, scope)
        arms = []
        for branch in (node.body, node.orelse):
            sub = Scope(_graph(scope, "arm"), scope)
            value = self.expr(branch, sub)
            arms.append((sub, value))
        return self.make_cond(node, scope, pred, arms)[0]

    def make_cond(self, node: ast.AST, scope: Scope, pred: Node, arms: list) -> list:
        """A cond node from two compiled arms [(scope, value), ...], where each value is a flat list or
        one value; returns the merged value(s) (projections for arrays, constants kept)."""
        from .merge import build_cond
        return build_cond(self, node, scope, pred, arms)

    # ---- calls -----------------------------------------------------------------------------------------
    def expr_Call(self, node: ast.Call, scope: Scope) -> Any:
        func = self.expr(node.func, scope)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.fail(node, "*args / **kwargs in a call", "pass arguments one by one")
        args = tuple(self.expr(a, scope) for a in node.args)
        kwargs = {k.arg: self.expr(k.value, scope) for k in node.keywords}
        if isinstance(func, tuple) and func[:1] == ("method",):
            return self.call_method(node, scope, func[1], func[2], args, kwargs)
        if isinstance(func, tuple) and func[:1] == ("pymethod",):
            return self.container_method(node, scope, func[1], func[2], args)
        sequences = args[:1] if func is enumerate else args
        if func in (zip, enumerate) and args and not kwargs and all(isinstance(a, (tuple, list)) for a in sequences):
            return tuple(func(*args))           # over sequences known at script time: a known sequence
        if func in (tuple, list) and len(args) == 1 and not kwargs and isinstance(args[0], (tuple, list, dict)):
            if func is tuple:
                return tuple(args[0])
            new = list(args[0])
            self.lists[id(new)] = scope
            return new
        if _pure_on_constants(func) and ops.lookup_function(func) is None:
            args, kwargs = _exact(args), {k: _exact(v) for k, v in kwargs.items()}
        if _pure_on_constants(func) and not any(isinstance(a, Node) for a in (*args, *kwargs.values())) \
                and ops.lookup_function(func) is None:
            try:
                return func(*args, **kwargs)          # math.sqrt(2.0), np.float32(-1e9): known at script time
            except Exception as e:
                raise self.fail(node, "this call", f"it raises {type(e).__name__}: {e}") from None
        opdef = ops.lookup_function(func)
        if opdef is not None:
            return record(scope, opdef, func, args, kwargs)
        if func is len and len(args) == 1 and not kwargs:
            return self.length(node, args[0])
        if func is float and len(args) == 1 and not kwargs and isinstance(args[0], Node):
            return self.to_float(node, scope, args[0])
        if isinstance(func, types.FunctionType):
            return self.inline(node, scope, func, args, kwargs)
        raise self.fail(node, f"call of {getattr(func, '__name__', type(func).__name__)}",
                        "only registered NumPy functions, array methods and scriptable Python functions "
                        "can be called")

    def to_float(self, node: ast.AST, scope: Scope, value: Node) -> Node:
        """`float(x)` of a 0-d real array or a Python number: a py_float graph value (no guard on it)."""
        from ..graph.ir import PyScalarSpec
        spec = value.spec
        if isinstance(spec, ArraySpec) and (spec.shape != () or np.dtype(spec.dtype).kind not in "biuf"):
            raise self.fail(node, f"float() of {spec}", "float() takes a 0-d real array here (reduce it first)")
        return scope.graph.call("float", float, (value,), {}, spec=PyScalarSpec(float))

    def call_method(self, node: ast.AST, scope: Scope, obj: Node, name: str, args: tuple, kwargs: dict) -> Any:
        opdef = ops.METHODS.get(name)
        if opdef is None or name in ("item", "tolist"):
            raise self.fail(node, f"array method .{name}()", "it is not a registered op (or needs the values)")
        if name in _VARARGS_METHODS and len(args) > 1:
            args = (tuple(args),)
        return record(scope, opdef, MethodCall(name), (obj, *args), kwargs)

    def container_method(self, node: ast.AST, scope: Scope, obj: Any, name: str, args: tuple) -> Any:
        if isinstance(obj, dict) and name in ("items", "keys", "values") and not args:
            return tuple(getattr(obj, name)())
        if isinstance(obj, dict) and name == "get" and 1 <= len(args) <= 2:
            return obj.get(*args)
        if isinstance(obj, list) and name == "append" and len(args) == 1:
            if self.lists.get(id(obj)) is not scope:
                raise self.fail(node, "append to a list made outside this block", "appending inside a branch or a "
                                "loop body that becomes a graph node is not scriptable; append in straight-line "
                                "code or a for loop over a known sequence")
            obj.append(args[0])
            return None
        raise self.fail(node, f"{type(obj).__name__}.{name}()", "only dict.items/keys/values/get and list.append")

    def length(self, node: ast.AST, value: Any) -> int:
        if isinstance(value, Node) and isinstance(value.spec, ArraySpec) and value.spec.ndim:
            return value.spec.shape[0]
        if isinstance(value, (tuple, list, dict)):
            return len(value)
        raise self.fail(node, "len()", "only arrays with at least one dimension, tuples and dicts have a length")

    def inline(self, node: ast.AST, scope: Scope, fn: types.FunctionType, args: tuple, kwargs: dict) -> Any:
        """Another Python function: scripted too, its body compiled into this graph."""
        from .compiler import inline_function
        if self.depth >= 8:
            raise self.fail(node, f"call of {fn.__qualname__}", "scripted calls nest deeper than 8 (recursion?)")
        return inline_function(fn, args, kwargs, scope, self.depth + 1, self.reads)


def _truth(scope: Scope, value: Any, negate: bool = False) -> Node:
    """bool(value) (or `not value`) as a py_bool node of `scope`'s graph."""
    from ..graph.ir import PyScalarSpec
    arg = scope.lift_node(value) if isinstance(value, Node) else value
    if not negate and isinstance(arg, Node) and arg.spec == PyScalarSpec(bool):
        return arg
    fn = operator.not_ if negate else operator.truth
    return scope.graph.call(fn.__name__, fn, (arg,), {}, spec=PyScalarSpec(bool))


def _graph(scope: Scope, label: str):
    from ..graph.ir import Graph
    return Graph(f"{scope.graph.name}_{label}")


def _meta_index(key: Any) -> Any:
    from .scope import meta_arg
    return meta_arg(key)


def _describe(node: ast.AST) -> str:
    names = {"ListComp": "list comprehension", "DictComp": "dict comprehension", "SetComp": "set comprehension",
             "GeneratorExp": "generator expression", "Lambda": "lambda", "List": "list literal",
             "Dict": "dict literal", "Set": "set literal", "JoinedStr": "f-string", "Starred": "starred expression",
             "NamedExpr": "assignment expression (:=)", "Await": "await", "Yield": "yield", "YieldFrom": "yield"}
    return names.get(type(node).__name__, type(node).__name__)

