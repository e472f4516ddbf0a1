import ast

from pyflakes import checker
from pyflakes import messages as m


def kinds(source):
    return [type(msg) for msg in checker.Checker(ast.parse(source)).messages]


def test_walrus_rebinds_existing_name():
    assert kinds("a = 1\nif (a := 2):\n    pass\nprint(a)\n") == []


def test_walrus_then_annotation():
    assert kinds("if (a := 3):\n    pass\na: int\nprint(a)\n") == []


def test_undefined_name_still_reported():
    assert kinds("if (b := c):\n    pass\n") == [m.UndefinedName]
