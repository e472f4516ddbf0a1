import ast

from pyflakes import checker


def test_issue_example_has_no_undefined_names():
    source = (
        "a: int\n"
        "if a := 3:\n"
        "    print(a)\n"
        "\n"
        "print(a)\n"
    )
    w = checker.Checker(ast.parse(source), filename="test.py")
    assert [str(msg) for msg in w.messages] == []
