import ast

from pyflakes import checker
from pyflakes import messages as m


def test_annotated_walrus_in_function_body():
    source = (
        "def parse(text):\n"
        "    value: int\n"
        "    if (value := len(text)) > 3:\n"
        "        return value\n"
        "    return -value\n"
    )
    w = checker.Checker(ast.parse(source))
    undefined = [msg for msg in w.messages if isinstance(msg, m.UndefinedName)]
    assert undefined == []
