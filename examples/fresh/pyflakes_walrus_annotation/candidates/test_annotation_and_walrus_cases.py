import ast

from pyflakes import checker
from pyflakes import messages as m


def kinds(source):
    return [type(msg) for msg in checker.Checker(ast.parse(source)).messages]


def test_annotation_followed_by_binding():
    # plain assignment after a bare annotation
    assert kinds("x: int\nx = 3\nprint(x)\n") == []
    # assignment expression after a bare annotation
    assert kinds("a: int\nif a := 3:\n    print(a)\nprint(a)\n") == []
    # a walrus inside a comprehension binds in the enclosing scope
    assert kinds("n: int\n[n := i for i in range(3)]\nprint(n)\n") == []
    # the annotation alone declares the name, so reading it is fine
    assert kinds("y: int\nprint(y)\n") == []
    # a name never bound anywhere is still undefined
    assert kinds("print(z)\n") == [m.UndefinedName]
