"""stitch/snapshots.py: before a writing graph whose exception re-runs the function eagerly, the entry saves
only the parts of input arrays the graph's writes can reach, and puts them back before the re-run. Each
case raises in some calls (a singular matrix, an index out of range) and is compared with eager: results,
exceptions, the arrays and lists after the call."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo.stitch import snapshots
from tests.conftest import check

SINGULAR, REGULAR = np.ones((2, 2)), np.array([[2.0, 1.0], [1.0, 3.0]])


def log_then_write_rows(x, i, a, log):
    log.append(i)                       # seen by the caller before the op that may raise: snapshot + re-run
    x[i] = 7.0
    x[i, 1:3] += 1.0
    row = x[i - 1]
    row *= 2.0                          # a view of an input written in place
    return np.linalg.inv(a)


def write_in_try(x, i, a):
    try:
        x[i, :] = -1.0
        r = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        r = x[i].sum()
    return r


def masked_then_log(x, a, log):
    log.append(len(log))
    x[x > 2.0] = 0.0                    # a mask: the whole array is saved
    return np.linalg.inv(a)


def many_rows(x, a, log):
    log.append(0)
    for j in range(12):                 # unrolled: twelve parts of x, more than MAX_PARTS
        x[j % 4, j % 3] += 1.0
    return np.linalg.inv(a)


def entry(fn, *args) -> str:
    return "\n".join(md.explain(fn)(*args).entry_code)


def grid():
    return np.arange(20.0).reshape(4, 5)


@pytest.mark.parametrize("i", [1, 2, 3, 7])          # 7: x[i] raises IndexError (nothing saved there)
def test_rows_written_after_a_visible_write_back(i):
    check(log_then_write_rows, grid(), i, REGULAR, [0],
          calls=[(grid(), i, SINGULAR, []), (grid(), 2, SINGULAR, [1]), (grid(), 3, REGULAR, [])])


def test_only_the_written_parts_are_saved():
    code = entry(log_then_write_rows, grid(), 2, REGULAR, [])
    assert "___take(x, (2, ))" in code and "___take(x, ((2, slice(1, 3, None), ), ))" in code
    assert "___take(x, (1, ))" in code and "x.copy()" not in code
    cfn = md.compile(log_then_write_rows)
    for i in (1, 2):                    # i changes: a graph input from the second capture on
        cfn(grid(), i, REGULAR, [])
    code = "\n".join(cfn._minidynamo.cache.entries[-1].body)
    assert "___take(x, (i, ))" in code and "___take(x, ((i - 1), ))" in code and "x.copy()" not in code


def test_write_in_try_region_is_undone_before_the_handler_runs():
    check(write_in_try, grid(), 1, SINGULAR, calls=[(grid(), 3, REGULAR), (grid(), 2, SINGULAR)])
    assert "___take(x, ((1, slice(None, None, None), ), ))" in entry(write_in_try, grid(), 1, SINGULAR)


@pytest.mark.parametrize("fn", [masked_then_log, many_rows])
def test_masks_and_many_parts_save_the_whole_array(fn):
    check(fn, grid(), REGULAR, [], calls=[(grid(), SINGULAR, [3]), (grid(), REGULAR, [])])
    code = entry(fn, grid(), REGULAR, [])
    assert "x.copy()" in code and "___take" not in code


def rows_in_loop(x, a, log):
    for i in range(x.shape[0]):         # longer than unroll_limit: a driven body per row
        log.append(i)
        x[i] = np.linalg.inv(a).sum() + i
        if i == 66:
            a = a - a                   # singular from here on: the body raises in iteration 67
    return x


def test_a_driven_body_saves_the_row_it_writes_not_the_array():
    tall = np.arange(140.0).reshape(70, 2)
    res = check(rows_in_loop, tall, REGULAR, [], calls=[(tall * 2, REGULAR, [5])] * 3)
    bodies = [r for c in res.compiled._minidynamo.children.values() if hasattr(c, "_minidynamo")
              for r in c._minidynamo.records if "___take" in "\n".join(r.entry.body)]
    assert bodies and not any("x.copy()" in "\n".join(r.entry.body) for r in bodies)


def test_take_and_put():
    x = grid()
    saved = snapshots.take(x, ((1, slice(0, 2)),))
    x[1, 0:2] = 0.0
    snapshots.put(x, ((1, slice(0, 2)),), saved)
    assert np.array_equal(x, grid())
    assert snapshots.take(x, (9,)) is None
    snapshots.put(x, (9,), None)                     # nothing saved, nothing written
    y = grid()
    y.flags.writeable = False
    snapshots.put(y, (0,), np.zeros(5))              # read-only: the graph never wrote it
    assert np.array_equal(y, grid())


def log_then_write_temps(x, log):
    log.append(0)                       # a visible write-back first: the graph's writes are snapshotted
    acc = x * 1.0
    for j in range(30):                 # unrolled: each write into a value made from x saves x whole
        acc = acc * 0.5 + x
        acc[j % 3] += j
    x[0] = acc.sum()
    return acc


def test_sources_of_many_writes_are_found_in_one_walk(monkeypatch):
    """Each write's input arrays were found by a walk over everything it is made from: an unrolled loop's
    writes walked the graph once per write. One walk shared by the writes visits each node once."""
    visits, sizes = [], []
    inputs, written = snapshots.Node.inputs, snapshots.written_parts

    def counting_inputs(node):
        visits.append(1)
        return inputs(node)

    def counted(ctx):
        sizes.append(len(ctx.graph.nodes))
        monkeypatch.setattr(snapshots.Node, "inputs", counting_inputs)
        try:
            return written(ctx)
        finally:
            monkeypatch.setattr(snapshots.Node, "inputs", inputs)

    monkeypatch.setattr(snapshots, "written_parts", counted)
    check(log_then_write_temps, np.arange(6.0), [])
    assert sizes and len(visits) <= sum(sizes)      # (a walk per write: 990 visits of 154 nodes)
