import ast

from pyflakes import checker
from pyflakes.messages import UndefinedVariable


def test_walrus_after_annotation_not_undefined():
    source = "a: int\nif a := 3:\n    print(a)\nprint(a)\n"
    w = checker.Checker(ast.parse(source))
    assert not any(isinstance(msg, UndefinedVariable) for msg in w.messages)
