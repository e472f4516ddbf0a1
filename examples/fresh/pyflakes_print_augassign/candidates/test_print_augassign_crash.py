import ast

from pyflakes import checker


def test_augmented_assign_to_print_builtin():
    # reported from flake8: "print *= -1" made the pyflakes plugin crash
    tree = ast.parse("print *= -1\n")
    w = checker.Checker(tree, filename="data.py")
    assert w.messages == []
