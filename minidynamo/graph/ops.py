"""The op registry: name -> OpDef (NumPy implementation, meta rule, flags).

Imports graph.meta* and numpy only. Front ends look ops up here (`lookup_function(np.tanh)`, `get("sum")`,
`METHODS["sum"]`, `BINARY_OPERATORS["+"]`), record them into a Graph with `spec = opdef.meta(*spec_args)`,
and backends run `node.target` (normally `opdef.impl`). A meta rule takes the op's arguments with every
array replaced by its ArraySpec and returns the result's ArraySpec (or a tuple of them, or None for an op
that only mutates); it raises MetaError where NumPy would raise. An ndarray method call `x.f(*a, **k)`
is the op called as `impl(x, *a, **k)` / `meta(x_spec, *a, **k)`.
Which arguments an op writes: `mutated_args(opdef, spec_args, kwargs)`. Whether an index needs data to
know its shape (a boolean mask): `is_data_dependent_index(index)`.
"""

from __future__ import annotations

import builtins
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import meta as M
from .ir import ArraySpec, MethodCall
from . import meta_bins as BIN
from . import meta_checks as CHK
from . import meta_create as C
from . import meta_decomp as DEC
from . import meta_fft as FFT
from . import meta_generator as GEN
from . import meta_index as X
from . import meta_linalg as L
from . import meta_random as RND
from . import meta_reduce as R
from . import meta_seq as SEQ
from . import meta_shape as S
from . import meta_stats as ST
from . import meta_ufunc as UM
from . import generic_ufuncs as GU
from .user_ops import UserOp


@dataclass(frozen=True)
class OpDef:
    """One operation the graph can hold.

    name:    NumPy's own name (`matmul`, `tanh`, `sum`); what `node.op` holds and the listing prints.
    impl:    the callable the default backends run (normally the NumPy function itself).
    meta:    spec rule, see the module docstring.
    mutates: argument positions written in place (slice assignment, in-place operators); such a node is
             never removed or reordered by passes. `out=` arguments are found by mutated_args().
    data_dependent_shape: the output shape depends on values (boolean masks, np.nonzero); front ends
             that need static shapes must break before it.
    random:  the result is not a function of the inputs (random draws, uninitialized memory): never
             folded or deduplicated.
    checks:  the op tests something and returns None or raises (np.testing's assertions, a speculated
             branch's `check`): its exception re-runs the function eagerly, arrays the graph wrote restored.

    >>> op = get("tanh"); op.meta(ArraySpec((2, 3), np.float32))
    ArraySpec(shape=(2, 3), dtype=dtype('float32'), scalar=False)
    """

    name: str
    impl: Callable
    meta: Callable[..., Any]
    mutates: tuple[int, ...] = ()
    data_dependent_shape: bool = False
    random: bool = False
    checks: bool = False
    doc: str = field(default="", compare=False)

    @property
    def pure(self) -> bool:
        return not self.mutates and not self.random and not self.checks

    @property
    def user(self) -> bool:
        """A user's function (minidynamo.register_op, graph/user_ops.py): capture never runs it, each node's
        target checks its result against the spec the rule gave, and its exception re-runs eagerly."""
        return isinstance(self.impl, UserOp)

    @property
    def symbolic(self) -> bool:
        """Whether the meta rule understands symbolic sizes and ints (graph/symbolic.py). Every other rule
        gets concrete values: the capture specializes symbols, with guards, before calling it."""
        return self.name in SYMBOLIC_OPS

    @property
    def symbolic_ints(self) -> bool:
        """Whether the rule takes an unspecialized int as its symbol (a size, a bound) rather than as its
        capture-time value (a weak scalar operand, whose value never changes a shape)."""
        return self.name in SYMBOLIC_INT_OPS

    @property
    def weak_int_operands(self) -> bool:
        """Whether every int argument is an elementwise operand (`x + n`, `np.clip(x, 0, n)`): its value
        never changes the result's shape or dtype, so the rule may see it unguarded. Any other op's ints
        (an axis, a shape) are specialized with guards unless the rule takes symbolic ints."""
        return self.name in WEAK_INT_OPS


# Ops whose meta rules propagate symbols exactly; add a name only with differential tests on several sizes.
# SYMBOLIC_INT_OPS take symbolic ints too (sizes, bounds); the others get an int's capture-time value.
SYMBOLIC_OPS: set[str] = set()
SYMBOLIC_INT_OPS: set[str] = set()
WEAK_INT_OPS: set[str] = set()
REGISTRY: dict[str, OpDef] = {}
BY_FUNCTION: dict[int, OpDef] = {}      # id(np.tanh) -> OpDef, for resolving `np.<name>(...)` calls
METHODS: dict[str, OpDef] = {}          # "sum" -> OpDef, for resolving `x.sum(...)` on arrays
BINARY_OPERATORS: dict[str, OpDef] = {}  # "+" -> add via operator.add, "+=" -> iadd via operator.iadd
UNARY_OPERATORS: dict[str, OpDef] = {}   # "-" -> negative via operator.neg, "~", "+", "abs"
_ALIVE: dict[int, Any] = {}             # keeps every id() key of BY_FUNCTION alive, so ids are never reused
USER_OPS: dict[str, OpDef] = {}         # ops of registered user functions: apart from REGISTRY, NumPy's own


def register(opdef: OpDef, *, functions: tuple = (), methods: tuple[str, ...] = ()) -> OpDef:
    """Add an op; `functions` are the public callables (np.tanh) and `methods` the ndarray method names
    that resolve to it."""
    if opdef.name in REGISTRY:
        raise ValueError(f"op {opdef.name!r} registered twice")
    REGISTRY[opdef.name] = opdef
    for fn in functions:
        BY_FUNCTION[id(fn)] = opdef
        _ALIVE[id(fn)] = fn
    for m in methods:
        METHODS[m] = opdef
    return opdef


def alias_function(fn: Any, name: str) -> OpDef:
    """Make another public callable (a front end's `F.tanh`) resolve to the registered op `name`."""
    opdef = get(name)
    BY_FUNCTION[id(fn)] = opdef
    _ALIVE[id(fn)] = fn
    return opdef


def register_user(opdef: OpDef, fn: Any) -> OpDef:
    """Make calls to `fn` the user op `opdef` (its name from user_name())."""
    USER_OPS[opdef.name] = BY_FUNCTION[id(fn)] = opdef
    _ALIVE[id(fn)] = fn
    return opdef


def user_name(fn: Any) -> str:
    """A name for fn's op that no other op has (a user's `tanh` must never read as NumPy's)."""
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in getattr(fn, "__name__", "") or "op") or "op"
    taken = {*REGISTRY, *USER_OPS, *_RESERVED, *(op.name for table in (METHODS, BINARY_OPERATORS, UNARY_OPERATORS)
                                                 for op in table.values())}
    name, i = base, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    return name


# names front ends give nodes outside the tables (`int`, `float`, `not_`, `sym_size`, control flow)
_RESERVED = frozenset({*dir(builtins), *dir(operator), "sym_size", "cond", "while_loop", "fori_loop", "input",
                       "const"})


def op_named(name: str) -> OpDef | None:
    """The OpDef a node's `op` names: NumPy's or a registered user function's."""
    return REGISTRY.get(name) or USER_OPS.get(name)


def get(name: str) -> OpDef:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"no op named {name!r} is registered") from None


def lookup_function(fn: Any) -> OpDef | None:
    """The op for a public callable such as np.tanh or np.linalg.inv, or None. Any other np.ufunc object
    (scipy.special.expit, a numba ufunc) gets its generic op here, on first use (graph/generic_ufuncs.py)."""
    found = BY_FUNCTION.get(id(fn))
    if found is None and type(fn) is np.ufunc and GU.is_generic(fn):
        name = user_name(fn)
        found = register_user(OpDef(name, fn, GU.call_meta(fn, name), doc=f"the ufunc {fn!r}"), fn)
    return found


def is_data_dependent_index(index: Any) -> bool:
    """True when `x[index]` has a data-dependent shape (the index holds a boolean ArraySpec mask)."""
    return X.has_bool_mask(index)


def mutated_args(opdef: OpDef, args: tuple, kwargs: dict | None = None) -> tuple[int | str, ...]:
    """Positions and keyword names this call writes, given the same arguments as its meta rule.

    In-place operators write their left operand only when it is an ndarray (`s += 1` on a NumPy scalar
    rebinds `s`); a ufunc writes its outputs, given positionally after its operands or as out=.
    """
    written: list[int | str] = []
    for i in opdef.mutates:
        if i < len(args) and (opdef.name not in INPLACE_NAMES
                              or (isinstance(args[i], ArraySpec) and not args[i].scalar)):
            written.append(i)
    if isinstance(opdef.impl, np.ufunc):
        written += [i for i in range(opdef.impl.nin, len(args)) if args[i] is not None]
    out = (kwargs or {}).get("out")
    if out is not None and not (isinstance(out, tuple) and all(o is None for o in out)):
        written.append("out")
    return tuple(written)


def sym_size(a: Any, dim: int) -> int:
    """a.shape[dim]: how a graph computes a symbolic size that capture turned into a Python int."""
    return a.shape[dim]


# ---- implementations taking both the function and the method calling convention --------------------------

def reshape(a: Any, *shape: Any, **kwargs: Any) -> Any:
    """np.reshape(a, (2, 3)) and a.reshape(2, 3) in one callable."""
    if not shape:
        return np.reshape(a, **kwargs)
    if len(shape) == 2 and isinstance(shape[1], str):
        return np.reshape(a, shape[0], order=shape[1], **kwargs)
    return np.reshape(a, shape[0] if len(shape) == 1 else shape, **kwargs)


def transpose(a: Any, *axes: Any, **kwargs: Any) -> Any:
    """np.transpose(a, axes), a.transpose(*axes) and a.T in one callable."""
    if kwargs or len(axes) <= 1:
        return np.transpose(a, *axes, **kwargs)
    return np.transpose(a, axes)


def _method(name: str) -> Callable:
    """The ndarray method `name` as a plain function of (self, *args), for method-only ops."""
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(self, name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    return call


def _op(name: str, impl: Callable, meta: Callable, *, functions: tuple = (), methods: tuple = (),
        **flags: Any) -> OpDef:
    return register(OpDef(name, impl, meta, **flags), functions=functions, methods=methods)


# ---- ufuncs: every np.ufunc in the numpy namespace, under its __name__ (aliases such as np.abs, np.pow,
# np.true_divide are the same objects, so BY_FUNCTION resolves them too) -----------------------------------

def _namespace_ufuncs() -> list[np.ufunc]:
    seen: dict[str, np.ufunc] = {}
    for value in vars(np).values():
        if isinstance(value, np.ufunc):
            seen.setdefault(value.__name__, value)
    return [seen[k] for k in sorted(seen)]


for _uf in _namespace_ufuncs():
    _op(_uf.__name__, _uf, M.ufunc_meta(_uf), functions=(_uf,))

# ---- reductions, clip, round ----------------------------------------------------------------------------
for _name, _meta, _fns in (
        ("sum", R.sum_meta, (np.sum,)), ("prod", R.prod_meta, (np.prod,)), ("mean", R.mean_meta, (np.mean,)),
        ("max", R.max_meta, (np.max, np.amax)), ("min", R.min_meta, (np.min, np.amin)),
        ("argmax", R.argmax_meta, (np.argmax,)), ("argmin", R.argmin_meta, (np.argmin,)),
        ("std", R.std_meta, (np.std,)), ("var", R.var_meta, (np.var,)),
        ("any", R.any_meta, (np.any,)), ("all", R.all_meta, (np.all,)),
        ("cumsum", R.cumsum_meta, (np.cumsum,)), ("cumprod", R.cumprod_meta, (np.cumprod,)),
        ("clip", R.clip_meta, (np.clip,)), ("round", R.round_meta, (np.round, np.around))):
    _op(_name, _fns[0], _meta, functions=_fns, methods=(_name,))
_op("nan_to_num", np.nan_to_num, R.nan_to_num_meta, functions=(np.nan_to_num,))

# ---- comparisons answering one bool, np.testing's assertions, speculated branches' checks ------------------
for _name, _impl, _meta, _fns, _checks in [*CHK.OPS, *BIN.OPS]:
    _op(_name, _impl, _meta, functions=_fns, checks=_checks)

# ---- shape ops ------------------------------------------------------------------------------------------
_op("reshape", reshape, S.reshape_meta, functions=(np.reshape,), methods=("reshape",))
_op("transpose", transpose, S.transpose_meta, functions=(np.transpose,), methods=("transpose",))
_op("flatten", _method("flatten"), S.flatten_meta, methods=("flatten",))
for _name, _meta, _methods in (
        ("swapaxes", S.swapaxes_meta, ("swapaxes",)), ("moveaxis", S.moveaxis_meta, ()),
        ("expand_dims", S.expand_dims_meta, ()), ("squeeze", S.squeeze_meta, ("squeeze",)),
        ("ravel", S.ravel_meta, ("ravel",)), ("broadcast_to", S.broadcast_to_meta, ()),
        ("concatenate", S.concatenate_meta, ()), ("stack", S.stack_meta, ()), ("hstack", S.hstack_meta, ()),
        ("vstack", S.vstack_meta, ()), ("column_stack", S.column_stack_meta, ()), ("split", S.split_meta, ()), ("array_split", S.array_split_meta, ()),
        ("hsplit", S.hsplit_meta, ()), ("vsplit", S.vsplit_meta, ()), ("dsplit", S.dsplit_meta, ()),
        ("tile", S.tile_meta, ()), ("repeat", S.repeat_meta, ("repeat",)), ("flip", S.flip_meta, ()),
        ("roll", S.roll_meta, ()), ("rot90", S.rot90_meta, ()), ("pad", S.pad_meta, ()),
        ("triu", S.triangle_meta, ()), ("tril", S.triangle_meta, ())):
    _op(_name, getattr(np, _name), _meta, functions=(getattr(np, _name),), methods=_methods)
for _n in (1, 2, 3):
    _op(f"atleast_{_n}d", getattr(np, f"atleast_{_n}d"), S.atleast_meta(_n), functions=(getattr(np, f"atleast_{_n}d"),))
_op("insert", np.insert, S.insert_meta, functions=(np.insert,))
_op("sliding_window_view", np.lib.stride_tricks.sliding_window_view, S.sliding_window_view_meta,
    functions=(np.lib.stride_tricks.sliding_window_view,))
if getattr(np, "concat", None) is not None and np.concat is not np.concatenate:
    alias_function(np.concat, "concatenate")

# ---- linear algebra (matmul and vecdot are ufuncs, registered above) ------------------------------------
_op("dot", np.dot, L.dot_meta, functions=(np.dot,), methods=("dot",))
for _name, _meta in (("vdot", L.vdot_meta), ("inner", L.inner_meta), ("outer", L.outer_meta),
                     ("tensordot", L.tensordot_meta), ("einsum", L.einsum_meta)):
    _op(_name, getattr(np, _name), _meta, functions=(getattr(np, _name),))
for _name, _meta in (("norm", L.norm_meta), ("inv", L.inv_meta), ("solve", L.solve_meta), ("det", L.det_meta)):
    _op(_name, getattr(np.linalg, _name), _meta, functions=(getattr(np.linalg, _name),))

for _name in ("cholesky", "qr", "svd", "eigh", "eigvalsh", "slogdet", "pinv", "matrix_power", "lstsq"):
    _op(_name, getattr(np.linalg, _name), getattr(DEC, f"{_name}_meta"), functions=(getattr(np.linalg, _name),))
# a real matrix's eigenvalues are assumed real and checked when the graph runs (meta_decomp.eig_real)
_op("eig", DEC.eig_real, DEC.eig_meta, functions=(np.linalg.eig,), checks=True)
_op("eigvals", DEC.eigvals_real, DEC.eigvals_meta, functions=(np.linalg.eigvals,), checks=True)

# ---- numpy.fft: registered as fft.<name> (np.fft.fft prints as fft.fft) ----------------------------------
for _name, _fn in FFT.ONE_AXIS.items():
    _op(f"fft.{_name}", _fn, FFT.one_axis_meta(_fn), functions=(_fn,))
for _name, (_fn, _two) in FFT.MANY_AXES.items():
    _op(f"fft.{_name}", _fn, FFT.many_axes_meta(_fn, _two), functions=(_fn,))
_op("fft.fftfreq", np.fft.fftfreq, FFT.fftfreq_meta, functions=(np.fft.fftfreq,))
_op("fft.rfftfreq", np.fft.rfftfreq, FFT.rfftfreq_meta, functions=(np.fft.rfftfreq,))
for _fn in (np.fft.fftshift, np.fft.ifftshift):
    _op(f"fft.{_fn.__name__}", _fn, FFT.shift_meta(_fn), functions=(_fn,))

# ---- statistics and sequence helpers ---------------------------------------------------------------------
for _name, _meta, _methods in (
        ("cov", ST.cov_meta, ()), ("corrcoef", ST.corrcoef_meta, ()), ("median", ST.median_meta, ()),
        ("percentile", ST.quantile_family_meta(np.percentile), ()),
        ("quantile", ST.quantile_family_meta(np.quantile), ()), ("histogram", ST.histogram_meta, ()),
        ("diff", SEQ.diff_meta, ()), ("convolve", SEQ.convolve_meta, ()), ("correlate", SEQ.correlate_meta, ()),
        ("interp", SEQ.interp_meta, ()), ("searchsorted", SEQ.searchsorted_meta, ("searchsorted",)),
        ("indices", SEQ.indices_meta, ()), ("meshgrid", SEQ.meshgrid_meta, ()), ("angle", SEQ.angle_meta, ()),
        ("real", SEQ.real_meta, ()), ("imag", SEQ.imag_meta, ()), ("sort", SEQ.sort_meta, ()),
        ("argsort", SEQ.argsort_meta, ("argsort",)), ("diag", SEQ.diag_meta, ())):
    _op(_name, getattr(np, _name), _meta, functions=(getattr(np, _name),), methods=_methods)


def _conj_method_meta(x: Any) -> Any:
    """x.conj(): the conjugate ufunc for complex x; any other numeric array is returned itself."""
    if isinstance(x, ArraySpec) and x.dtype.kind != "c":
        if x.dtype.kind not in "biuf":
            raise M.MetaError(f"conj: cannot conjugate an array of dtype {x.dtype}")
        return x
    return get("conjugate").meta(x)


# x.conj() / x.conjugate() take no keywords: method-only OpDefs, outside REGISTRY.
for _m in ("conj", "conjugate"):
    METHODS[_m] = OpDef("conjugate", _method(_m), _conj_method_meta)

# ---- ufunc methods: np.add.outer(...) is the op "add.outer", looked up by ufunc_method(np.add, "outer") ----
UFUNC_METHODS: dict[tuple[str, str], OpDef] = {}
for _uf in _namespace_ufuncs():
    for _m in UM.METHODS:
        if UM.supports(_uf, _m):
            UFUNC_METHODS[(_uf.__name__, _m)] = _op(f"{_uf.__name__}.{_m}", getattr(_uf, _m),
                                                    UM.RULES[_m](_uf), mutates=(0,) if _m == "at" else ())


def ufunc_method(uf: Any, method: str) -> OpDef | None:
    """The op of `uf.method` (np.add.outer -> "add.outer"), or None. A ufunc with a generic op (not one of
    NumPy's namespace) has outer (resolve_dtypes), reduce and accumulate (meta_ufunc's rules), on first use."""
    if not isinstance(uf, np.ufunc):
        return None
    found = UFUNC_METHODS.get((uf.__name__, method))
    if found is not None and found.impl == getattr(uf, method):     # (another ufunc of the same name: not it)
        return found
    call = lookup_function(uf)
    if call is None or call.name not in USER_OPS or method not in ("outer", "reduce", "accumulate") or \
            not UM.supports(uf, method):
        return None
    key = (call.name, method)
    if key not in GENERIC_METHODS:
        name = f"{call.name}.{method}"
        rule = GU.outer_meta(uf, name) if method == "outer" else UM.RULES[method](uf)
        GENERIC_METHODS[key] = USER_OPS[name] = OpDef(name, getattr(uf, method), rule)
    return GENERIC_METHODS[key]


GENERIC_METHODS: dict[tuple[str, str], OpDef] = {}      # (generic op's name, method) -> OpDef


def is_numpy_ufunc(uf: Any) -> bool:
    """One of the ufuncs of NumPy's namespace (registered under its name), not a generic op's."""
    op = REGISTRY.get(getattr(uf, "__name__", None))
    return op is not None and op.impl is uf


# ---- the legacy global random functions: ops "random.<name>", flagged random (never folded, merged,
# dropped or reordered); graphs holding them save and restore the global RNG state if they raise -----------
for _name in RND.DRAWS:
    _op(f"random.{_name}", getattr(np.random, _name), RND.draw_meta(_name), functions=(getattr(np.random, _name),),
        random=True)
for _name in RND.DIMS_DRAWS:
    _op(f"random.{_name}", getattr(np.random, _name), RND.dims_meta(_name), functions=(getattr(np.random, _name),),
        random=True)
for _name, _meta in (("randint", RND.randint_meta), ("choice", RND.choice_meta),
                     ("permutation", RND.permutation_meta)):
    _op(f"random.{_name}", getattr(np.random, _name), _meta, functions=(getattr(np.random, _name),), random=True)
_op("random.shuffle", np.random.shuffle, RND.shuffle_meta, functions=(np.random.shuffle,), random=True,
    mutates=(0,))
_op("random.seed", np.random.seed, RND.seed_meta, functions=(np.random.seed,), random=True)


# ---- generator objects: `np.random.default_rng(seed)` makes one in the graph; the methods of a Generator or
# RandomState (read from the caller or made in the graph) are ops "Generator.<name>" / "RandomState.<name>"
# taking the generator as their first argument, flagged random like the global draws --------------------
_op("random.default_rng", np.random.default_rng, GEN.default_rng_meta, functions=(np.random.default_rng,),
    random=True)
# np.random.RandomState is a class: capture resolves it to this op itself (variables/rng.RngClassVar)
_op("random.RandomState", np.random.RandomState, GEN.random_state_maker_meta, random=True)
for _name in ("random.default_rng", "random.RandomState"):     # a seed passed per call stays a graph input
    SYMBOLIC_OPS.add(_name)
    SYMBOLIC_INT_OPS.add(_name)
RNG_METHODS: dict[tuple[type, str], OpDef] = {}   # (Generator, "normal") -> OpDef
for _name in GEN.GENERATOR_DRAWS + GEN.GENERATOR_SPECIAL:
    _meta = GEN.GENERATOR_SPECIAL_RULES.get(_name) or GEN.generator_draw_meta(_name)
    RNG_METHODS[(np.random.Generator, _name)] = _op(f"Generator.{_name}", MethodCall(_name), _meta, random=True,
                                                    mutates=(1,) if _name == "shuffle" else ())
for _name in GEN.RANDOM_STATE_METHODS:
    RNG_METHODS[(np.random.RandomState, _name)] = _op(
        f"RandomState.{_name}", MethodCall(_name), GEN.random_state_meta(_name), random=True,
        mutates=(1,) if _name == "shuffle" else ())


def rng_method(rng_type: type, name: str) -> OpDef | None:
    """The op of `rng.name(...)` for a generator of that exact type, or None."""
    return RNG_METHODS.get((rng_type, name))


_GLOBAL_DRAWS = frozenset(f"random.{n}" for n in (*RND.DRAWS, *RND.DIMS_DRAWS, "randint", "choice",
                                                  "permutation", "shuffle", "seed"))


def uses_global_rng(node_op: str) -> bool:
    """True for an op that draws from NumPy's global RandomState (an impure user op may: its node saves and
    restores the state as the draws' do)."""
    return node_op in _GLOBAL_DRAWS or node_op in USER_OPS and USER_OPS[node_op].random


# Functions whose output shape depends on the values (np.unique, np.nonzero, ...): a call is a graph break
# with that reason, never an op.
DATA_DEPENDENT_FUNCTIONS = {id(f): f for f in (
    np.unique, np.flatnonzero, np.argwhere, np.extract, np.compress, np.trim_zeros,
    np.setdiff1d, np.intersect1d, np.union1d, np.setxor1d, np.unique_values, np.unique_counts,
    np.unique_inverse, np.unique_all) if f is not None}

# ---- creation and conversion ----------------------------------------------------------------------------
for _name, _meta in (("zeros", C.zeros_meta), ("ones", C.ones_meta), ("full", C.full_meta),
                     ("eye", C.eye_meta), ("tri", C.tri_meta), ("identity", C.identity_meta), ("arange", C.arange_meta),
                     ("linspace", C.linspace_meta), ("zeros_like", C.zeros_like_meta),
                     ("ones_like", C.ones_like_meta), ("full_like", C.full_like_meta),
                     ("where", C.where_meta), ("copy", C.copy_meta), ("array", C.array_meta),
                     ("asarray", C.array_meta), ("asanyarray", C.array_meta),   # (inputs are exact ndarrays)
                     ("ascontiguousarray", C.ascontiguousarray_meta)):
    _op(_name, getattr(np, _name), _meta, functions=(getattr(np, _name),))
# np.nonzero: index arrays as long as the count of nonzero items, a symbol (capture/mask_counts.py)
_op("nonzero", np.nonzero, C.nonzero_meta, functions=(np.nonzero,), methods=("nonzero",),
    data_dependent_shape=True)
# Uninitialized memory is not a function of the inputs: flagged random so passes never fold or CSE it.
_op("empty", np.empty, C.empty_meta, functions=(np.empty,), random=True)
_op("empty_like", np.empty_like, C.empty_like_meta, functions=(np.empty_like,), random=True)
_op("astype", _method("astype"), C.astype_meta, methods=("astype",))
# a.copy() differs from np.copy(a) on a NumPy scalar (it stays a scalar) and in its default order ("C"),
# so the method resolves to its own OpDef of the same name, outside REGISTRY.
METHODS["copy"] = OpDef("copy", _method("copy"), C.copy_method_meta)

# ---- indexing -------------------------------------------------------------------------------------------
_op("getitem", operator.getitem, X.getitem_meta)
_op("take", np.take, X.take_meta, functions=(np.take,), methods=("take",))


def _masked_update(iop: Callable) -> Callable:
    def masked_update(x: Any, mask: Any, value: Any) -> None:
        x[mask] = iop(x[mask], value)       # what `x[mask] op= value` runs: the same NumPy calls
    masked_update.__name__ = f"masked_{iop.__name__}"
    return masked_update


# `x[mask] op= number` (capture/masked_updates.py): the statement as one op writing into x
MASKED_UPDATES = {iop: _op(f"masked_{iop.__name__}", _masked_update(iop), X.masked_update_meta(iop), mutates=(0,))
                  for iop in (operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
                              operator.imod, operator.ipow, operator.iand, operator.ior, operator.ixor)}
_op("setitem", operator.setitem, X.setitem_meta, mutates=(0,))


# ---- Python operators: NumPy names, `operator` implementations (the dunder eager Python runs) -------------
_BINARY = {"+": (operator.add, np.add), "-": (operator.sub, np.subtract), "*": (operator.mul, np.multiply),
           "/": (operator.truediv, np.divide), "//": (operator.floordiv, np.floor_divide),
           "%": (operator.mod, np.remainder), "**": (operator.pow, np.power), "@": (operator.matmul, np.matmul),
           "&": (operator.and_, np.bitwise_and), "|": (operator.or_, np.bitwise_or),
           "^": (operator.xor, np.bitwise_xor), "<<": (operator.lshift, np.left_shift),
           ">>": (operator.rshift, np.right_shift), "<": (operator.lt, np.less),
           "<=": (operator.le, np.less_equal), "==": (operator.eq, np.equal), "!=": (operator.ne, np.not_equal),
           ">": (operator.gt, np.greater), ">=": (operator.ge, np.greater_equal)}
_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
            "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
            "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
            ">>=": operator.irshift}
_UNARY = {"-": (operator.neg, np.negative), "+": (operator.pos, np.positive), "~": (operator.invert, np.invert),
          "abs": (operator.abs, np.absolute)}

for _sym, (_fn, _uf) in _BINARY.items():
    BINARY_OPERATORS[_sym] = OpDef(_uf.__name__, _fn, M.binary_operator_meta(_fn, _uf))
for _sym, _fn in _INPLACE.items():
    _plain = BINARY_OPERATORS[_sym[:-1]]
    BINARY_OPERATORS[_sym] = OpDef(_fn.__name__, _fn, M.inplace_operator_meta(_fn, _plain.meta), mutates=(0,))
for _sym, (_fn, _uf) in _UNARY.items():
    UNARY_OPERATORS[_sym] = OpDef(_uf.__name__, _fn, M.unary_operator_meta(_fn, _uf))

INPLACE_NAMES = frozenset(fn.__name__ for fn in _INPLACE.values())
LIST_RESULTS = frozenset({"split", "array_split", "hsplit", "vsplit", "dsplit"})   # NumPy returns a list of views

# Elementwise ufuncs and the operators over them: broadcasting is symbolic (meta.broadcast).
SYMBOLIC_OPS.update(n for n, op in REGISTRY.items() if isinstance(op.impl, np.ufunc) and op.impl.signature is None)
WEAK_INT_OPS.update(SYMBOLIC_OPS, {"clip", "where"})
# Rules that only compare, sum and rearrange sizes (every comparison of a symbol is guarded) and those
# written out for symbolic ints (reshape with -1, arange, creation from a shape, indexing and slicing).
SYMBOLIC_OPS.update({
    "sum", "prod", "mean", "max", "min", "argmax", "argmin", "std", "var", "any", "all", "cumsum", "cumprod",
    "clip", "round", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze", "ravel", "flatten",
    "concatenate", "stack", "hstack", "vstack", "column_stack", "nan_to_num", "matmul", "imatmul", "dot", "zeros_like", "ones_like",
    "full_like", "empty_like", "where", "nonzero", "copy", "astype", "take",
    # linear algebra, rearrangement and sequences (meta_linalg.py, meta_decomp.py, meta_shape.py, meta_seq.py):
    # sizes are compared (guarded), summed, multiplied and sliced; a split's remainder is specialized
    "solve", "inv", "det", "norm", "outer", "tensordot", "inner", "vdot", "vecdot", "einsum", "cholesky", "qr",
    "svd", "eigh", "eigvalsh", "slogdet", "pinv", "matrix_power", "pad", "tile", "split", "array_split", "hsplit",
    "vsplit", "dsplit",
    "sort", "argsort", "flip", "rot90", "roll", "triu", "tril", "diff", "real", "imag", "angle", "repeat", "diag",
    "convolve", "correlate", "broadcast_to"})
SYMBOLIC_INT_OPS.update({"getitem", "setitem", "reshape", "arange", "zeros", "ones", "empty", "full", "broadcast_to",
                         "tri"})
SYMBOLIC_OPS.update(SYMBOLIC_INT_OPS)
SYMBOLIC_OPS.update(op.name for op in [*BINARY_OPERATORS.values(), *UNARY_OPERATORS.values()]
                    if op.name not in ("matmul", "imatmul"))
WEAK_INT_OPS.update(op.name for op in [*BINARY_OPERATORS.values(), *UNARY_OPERATORS.values()]
                    if op.name not in ("matmul", "imatmul"))
