import ast

from pyflakes import checker
from pyflakes import messages as m


def test_print_augassign_inside_function():
    source = (
        "def f():\n"
        "    print -= 2\n"
    )
    w = checker.Checker(ast.parse(source))
    kinds = {type(msg) for msg in w.messages}
    # print is a builtin here, so it is read before being assigned locally
    assert m.UndefinedLocal in kinds
    assert m.InvalidPrintSyntax not in kinds
