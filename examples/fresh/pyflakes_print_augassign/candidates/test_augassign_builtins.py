import ast

from pyflakes import checker
from pyflakes import messages as m


def flakes(source):
    w = checker.Checker(ast.parse(source))
    return [type(msg) for msg in w.messages]


def test_augmented_assignment_cases():
    # plain augmented assignment to a defined name is fine
    assert flakes("x = 1\nx += 1") == []
    # augmented assignment to an undefined name is reported
    assert flakes("y += 1") == [m.UndefinedName]
    # the python 2 style print chevron is reported
    assert flakes("import sys\nprint >> sys.stderr, 'hi'") == [m.InvalidPrintSyntax]
    # augmenting the print builtin is nonsense too and should be reported
    assert flakes("print += 1") == [m.InvalidPrintSyntax]
    assert flakes("print *= -1") == [m.InvalidPrintSyntax]
