import ast

from pyflakes import checker
from pyflakes import messages as m


def check(source):
    return checker.Checker(ast.parse(source)).messages


def test_print_chevron_is_flagged():
    msgs = check("import sys\nprint >> sys.stderr, 'oops'\n")
    assert [type(x) for x in msgs] == [m.InvalidPrintSyntax]


def test_print_function_call_is_fine():
    assert check("print('hello', end='')\n") == []


def test_print_reassigned_is_fine():
    assert check("print = 5\nx = print >> 1\n") == []
