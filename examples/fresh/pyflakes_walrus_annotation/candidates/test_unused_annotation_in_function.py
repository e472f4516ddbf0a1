import ast

from pyflakes import checker


def test_bare_annotation_in_function_is_quiet():
    source = "def f():\n    total: int\n    return 0\n"
    w = checker.Checker(ast.parse(source))
    # a declaration without a value should not produce any warning
    assert w.messages == []
