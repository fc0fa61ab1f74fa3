"""Building and unpacking containers: BUILD_*, LIST_*, MAP_ADD, DICT_*, UNPACK_*."""

from __future__ import annotations

from bytecode import Instr

from ..frame import Frame
from ..variables.base import unsupported
from ..variables.const import ConstVar
from ..variables.containers import DictVar, ListVar, TupleVar, slice_of
from ..variables.sets import SetVar
from .registry import Plain, handler, plain_form, result
from ..breaks import BreakCategory


@handler("BUILD_TUPLE")
def build_tuple(frame: Frame, inst: Instr) -> None:
    # (items... -- tuple)
    frame.push(TupleVar(frame.popn(inst.arg)))


@handler("BUILD_LIST")
def build_list(frame: Frame, inst: Instr) -> None:
    # (items... -- list)
    frame.push(ListVar(frame.popn(inst.arg)))


@handler("BUILD_MAP")
def build_map(frame: Frame, inst: Instr) -> None:
    # (k1, v1, ..., kn, vn -- dict)
    flat = frame.popn(2 * inst.arg)
    frame.push(DictVar({k.as_constant(): v for k, v in zip(flat[::2], flat[1::2])}))


@handler("BUILD_CONST_KEY_MAP", until=(3, 13))
def build_const_key_map(frame: Frame, inst: Instr) -> None:
    # (values..., keys_tuple -- dict)
    keys = frame.pop().as_constant()
    frame.push(DictVar(dict(zip(keys, frame.popn(inst.arg)))))


@handler("BUILD_SLICE")
def build_slice(frame: Frame, inst: Instr) -> None:
    # (start, stop, [step] -- slice)
    parts = frame.popn(inst.arg)
    if len(parts) == 2:
        parts.append(ConstVar(None))
    frame.push(slice_of(*parts))


# The container these opcodes add to was built on the stack, so it is normally the frame's own. In a resume
# function it may be a stack argument: the caller's half-built object, which the entry hands on at the
# next break. Then an addition is a recorded mutation (written back), like list.append on any other list.

@handler("LIST_APPEND")
def list_append(frame: Frame, inst: Instr) -> None:
    # (list, [arg-1 items], value -- list, [...])   comprehensions
    value = frame.pop()
    target = frame.peek(inst.arg)
    if target.source is not None:
        target.call_method(frame, "append", [value], {})
    else:
        target.items.append(value)


@handler("LIST_EXTEND")
def list_extend(frame: Frame, inst: Instr) -> None:
    # (list, [...], iterable -- list, [...])
    iterable = frame.pop()
    target = frame.peek(inst.arg)
    if target.source is not None:
        target.call_method(frame, "extend", [iterable], {})
    else:
        target.items.extend(iterable.iterate(frame))


@handler("MAP_ADD")
def map_add(frame: Frame, inst: Instr) -> None:
    # (dict, [...], key, value -- dict, [...])
    value, key = frame.pop(), frame.pop()
    _store(frame, frame.peek(inst.arg), key, value)


@handler("DICT_UPDATE", "DICT_MERGE")
def dict_update(frame: Frame, inst: Instr) -> None:
    # (dict, [...], mapping -- dict, [...])   DICT_MERGE is the same for ** in calls, but a repeated key
    # is a TypeError naming the callee ("f() got multiple values for keyword argument 'k'")
    mapping = frame.pop()
    target = frame.peek(inst.arg)
    if not isinstance(mapping, DictVar):
        raise unsupported(BreakCategory.UNSUPPORTED, f"** of {mapping.describe()}")
    for key in mapping.iterate(frame):
        if inst.name == "DICT_MERGE" and key.as_constant() in target.items:
            raise unsupported(BreakCategory.EXCEPTION, f"repeated keyword argument {key.as_constant()!r} (TypeError)")
        _store(frame, target, key, mapping.getitem(frame, key))


def _store(frame: Frame, target: DictVar, key, value) -> None:
    if target.source is not None:
        target.setitem(frame, key, value)
    else:
        target.items[key.as_constant()] = value


# Sets of constants are SetVars (variables/sets.py). A set display whose items are not plain constants is a
# graph break: the entry builds the set in plain Python and the resume function gets it as a stack argument,
# the very object the SET_ADD and SET_UPDATE after it (comprehensions, `{*a, b}`, 3.12's frozenset constant
# of a literal) add to, each again a break run as plain Python.

@handler("BUILD_SET")
def build_set(frame: Frame, inst: Instr) -> None:
    # (items... -- set)   added bottom first, as CPython adds them
    s = SetVar()
    for item in frame.stack[len(frame.stack) - inst.arg:]:
        s.call_method(frame, "add", [item], {})
    frame.popn(inst.arg)
    frame.push(s)


@handler("SET_ADD")
def set_add(frame: Frame, inst: Instr) -> None:
    # (set, [arg-1 items], item -- set, [...])   set comprehensions
    frame.peek(inst.arg + 1).call_method(frame, "add", [frame.peek()], {})
    frame.pop()


@handler("SET_UPDATE")
def set_update(frame: Frame, inst: Instr) -> None:
    # (set, [arg-1 items], iterable -- set, [...])   `{*a, b}`, 3.12's `{1, 2, 3}` (a frozenset constant)
    target = frame.peek(inst.arg + 1)
    if not isinstance(target, SetVar):
        raise unsupported(BreakCategory.UNSUPPORTED, f"SET_UPDATE on {target.describe()}")
    target.update(frame, frame.peek())
    frame.pop()

@plain_form("BUILD_SET")
def build_set_plain(frame: Frame, inst: Instr, em) -> Plain:
    # (items... -- set)   items are added bottom first, as in a display `{a, b}`
    items = [em.value(v) for v in frame.stack[len(frame.stack) - inst.arg:]]
    return result(inst.arg, f"{{{', '.join(items)}}}" if items else "set()")


@plain_form("SET_ADD")
def set_add_plain(frame: Frame, inst: Instr, em) -> Plain:
    # (set, [arg-1 items], item -- set, [...])
    target, item = em.value(frame.stack[-1 - inst.arg]), em.value(frame.stack[-1])
    return Plain(1, [], [f"{target}.add({item})"])


@plain_form("SET_UPDATE")
def set_update_plain(frame: Frame, inst: Instr, em) -> Plain:
    # (set, [arg-1 items], iterable -- set, [...])
    target, iterable = em.value(frame.stack[-1 - inst.arg]), em.value(frame.stack[-1])
    return Plain(1, [], [f"{target}.update({iterable})"])


@handler("LIST_TO_TUPLE", until=(3, 11))
def list_to_tuple(frame: Frame, inst: Instr) -> None:
    # (list -- tuple)
    frame.push(TupleVar(frame.pop().iterate(frame)))


@handler("UNPACK_SEQUENCE")
def unpack_sequence(frame: Frame, inst: Instr) -> None:
    # (seq -- item_n-1, ..., item_0)   item 0 ends on top
    items = frame.pop().iterate(frame)
    if len(items) != inst.arg:
        raise unsupported(BreakCategory.EXCEPTION, f"cannot unpack {len(items)} values into {inst.arg} (ValueError)")
    for item in reversed(items):
        frame.push(item)


@plain_form("UNPACK_SEQUENCE")
def unpack_sequence_plain(frame: Frame, inst: Instr, em) -> Plain:
    names = [f"___u{i}" for i in range(inst.arg)]
    return Plain(1, list(reversed(names)), [f"{', '.join(names)}, = {em.value(frame.stack[-1])}"])


@handler("UNPACK_EX")
def unpack_ex(frame: Frame, inst: Instr) -> None:
    # (seq -- after..., starred_list, before...)   arg = before | (after << 8)
    before, after = inst.arg & 0xFF, inst.arg >> 8
    items = frame.pop().iterate(frame)
    if len(items) < before + after:
        raise unsupported(BreakCategory.EXCEPTION, "not enough values to unpack (ValueError)")
    rest = items[before:len(items) - after]
    for item in reversed(items[len(items) - after:]):
        frame.push(item)
    frame.push(ListVar(rest))
    for item in reversed(items[:before]):
        frame.push(item)
