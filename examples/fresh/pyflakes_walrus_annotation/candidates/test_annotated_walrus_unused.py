import ast

from pyflakes import checker
from pyflakes import messages as m


def test_annotation_then_unused_walrus_in_function():
    source = "def f():\n    a: int\n    (a := 3)\n"
    w = checker.Checker(ast.parse(source))
    # the annotated name is never read, so the annotation is reported as unused
    assert [type(msg) for msg in w.messages] == [m.UnusedAnnotation]
