import ast

from pyflakes import checker


def test_print_chevron_message_text():
    tree = ast.parse("import sys\nprint >> sys.stderr, 'hello'\n")
    w = checker.Checker(tree, filename="legacy.py")
    assert len(w.messages) == 1
    msg = w.messages[0]
    assert msg.lineno == 2
    assert msg.msg == "use of >> is invalid with print function"
