"""stitch/entry.py: the entry body as statements, and the passes over them (cache.py's, breaking's)."""

from collections import Counter

import pytest

from minidynamo.dispatch import cache
from minidynamo.dispatch.cache import Entry
from minidynamo.guards import RELEASE_READS, GuardSet
from minidynamo.stitch import entry
from minidynamo.stitch.entry import Block, Code, Exit, Release, Rerun, assign, render, walk
from minidynamo.stitch.stitched import _stable


def test_names_are_the_parsers_plain_names_and_keywords_never_attributes_or_strings():
    assert entry.names("___r = f(x.___v1, '___v2 x', k=___v3, *___v4)") == \
        Counter({"___r": 1, "f": 1, "x": 1, "k": 1, "___v3": 1, "___v4": 1})
    assert entry.names("del ___v0, ___v0") == Counter({"___v0": 2})


def test_outputs_are_the_graph_outputs_read_by_index():
    assert entry.outputs("g(___o[0], ___o[12][1], ___x[3], ___o['a'], ___o)") == {0, 12}


def test_a_moved_name_is_handed_over_where_it_is_read_and_nowhere_else():
    line = Code("___r = f('___v0', é.___v0, ___v0, ___v01)", ("___r",), moves=frozenset({"___v0"}))
    assert render([line]) == ["___r = f('___v0', é.___v0, (___v0, ___v0 := None)[0], ___v01)"]


def test_blocks_render_indented_and_bind_what_their_statements_bind():
    block = Block("try:", (assign("___r", "f()"), Block("if ___r:", (Exit("return ___r"),))))
    assert render([block], "  ") == ["  try:", "      ___r = f()", "      if ___r:", "          return ___r"]
    assert block.binds == ("___r",)
    assert [s.text for s in walk([block])] == ["___r = f()", "return ___r"]


def _guarded(rest):
    return [Block("try:", (assign("___o", "g(x)"),)), Block("except Exception:", (assign("___o", "None"), Release())),
            Block("if ___o is None:", (Code("restore()"), Rerun("return ___eager(x)"))), Release(), *rest]


def test_the_rerun_leaves_its_block_and_the_rest_of_the_body_goes_into_else():
    shared = cache._sharing_the_rerun(_guarded([Exit("return ___o[0]")]), "return ___eager(x)")
    assert render(shared)[-6:] == ["if ___o is None:", "    restore()", "    ___eager", "else:", f"    {RELEASE_READS}",
                                   "    return ___o[0]"]
    # nothing may leave the block where the rest does not end in a return, or the re-run is another one
    assert cache._sharing_the_rerun(_guarded([Code("h()")]), "return ___eager(x)") is None
    assert cache._sharing_the_rerun(_guarded([Exit("return ___o[0]")]), "return ___eager(y)") is None


def test_an_entry_read_by_people_drops_its_markers_and_a_block_left_empty_passes():
    e = Entry(GuardSet(), [Block("try:", (assign("___o", "g(x)"),)), Block("finally:", (Release(),)),
                           Exit("return ___o[0]")], {}, "e0")
    assert e.code == ["try:", "    ___o = g(x)", "finally:", "    pass", "return ___o[0]"]
    assert e.body == ["try:", "    ___o = g(x)", "finally:", f"    {RELEASE_READS}", "return ___o[0]"]
    assert Entry(GuardSet(), ["return 1"], {}, "e1").statements == [Code("return 1")]


@pytest.mark.parametrize("expr, stable", [
    ("x", True), ("___o[3]", True), ("-1.5e+3", True), ("'a b'", True), ('"q"', True), ("None", True),
    ("'a\\n'", False), ("'it''s'", False), ("é", False), ("x.y", False), ("1j", False), ("___o[x]", False),
    ("", False), ("-", False), ("f(x)", False), ("(1, 2)", False)])
def test_an_expression_is_read_once_before_the_write_backs_unless_nothing_can_change_it(expr, stable):
    assert _stable(expr) is stable
