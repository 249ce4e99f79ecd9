"""extractor.row_fields: a field of a dict literal's row the code picks at run time."""
from __future__ import annotations

import libcst as cst
import pytest

from extractor.cst_ir import term
from extractor.ir import IF, Apply, Compare, Const, Expr, In, Ref, RefKind
from extractor.profile import load_profile
from extractor.scope import Scope

PROFILE = load_profile("sglang")
ARCH = Ref(RefKind.FLAG, "arch", "cfg.arch")
PARAMS = """{"A": {"size": 32, "mask": 1}, "B": {"size": 4, "mask": 1},
             "C": {"size": f(x), "mask": -1, "algorithm": "X"}}"""


def read(code: str, **bindings: str) -> Expr:
    scope = Scope(PROFILE, {}, aliases={"cfg"})
    for name, value in bindings.items():
        scope.bind(name, cst.parse_expression(value))
    return term(cst.parse_expression(code), scope)



@pytest.mark.parametrize(("code", "expected"), [
    # a field only one row has: that row's value there, the default elsewhere
    ('params.get("algorithm")', Apply(IF, (Compare("==", ARCH, Const("C")), Const("X"), Const(None)),
                                      "the row's algorithm")),
    ('params.get("algorithm", "Y")', Apply(IF, (Compare("==", ARCH, Const("C")), Const("X"), Const("Y")),
                                           "the row's algorithm")),
    # rows giving one value are one group; the largest group is what holds elsewhere
    ('params["mask"]', Apply(IF, (Compare("==", ARCH, Const("C")), Const(-1), Const(1)), "the row's mask")),
    # groups of one each: tested in the table's order, the last row what holds elsewhere
    ('params["size"]', Apply(IF, (Compare("==", ARCH, Const("A")), Const(32), Apply(
        IF, (Compare("==", ARCH, Const("B")), Const(4), read("f(x)")), "the row's size")), "the row's size")),
    # the row read in place, without a local
    ('PARAMS[cfg.arch].get("algorithm")', Apply(IF, (Compare("==", ARCH, Const("C")), Const("X"), Const(None)),
                                                 "the row's algorithm")),
])
def test_a_field_of_the_row_a_value_picks(code: str, expected: Expr) -> None:
    assert read(code, PARAMS=PARAMS, params="PARAMS[cfg.arch]") == expected


@pytest.mark.parametrize(("code", "expected"), [
    # a known key picks its row
    ('PARAMS["C"]["algorithm"]', Const("X")),
    ('PARAMS["A"].get("algorithm")', Const(None)),
    # a subscript of a field some row lacks fails there: not read row by row
    ('PARAMS[cfg.arch]["algorithm"]', Apply("item", (Apply("item", (Const(("A", "B", "C")), ARCH),
                                                            "PARAMS[cfg.arch]"), Const("algorithm")),
                                             'PARAMS[cfg.arch]["algorithm"]')),
])
def test_rows_by_a_known_key_and_fields_some_row_lacks(code: str, expected: Expr) -> None:
    assert read(code, PARAMS=PARAMS) == expected


def test_several_keys_giving_one_value_are_tested_together() -> None:
    table = '{"A": {"k": 1}, "B": {"k": 1}, "C": {"k": 2}, "D": {"k": 2}, "E": {"k": 2}}'
    assert read('T[cfg.arch]["k"]', T=table) == Apply(IF, (In(ARCH, Const(("A", "B"))), Const(1), Const(2)),
                                                       "the row's k")
