import io

from pyflakes import api
from pyflakes.reporter import Reporter


def test_annotated_loop_variable_with_walrus():
    source = (
        "import sys\n"
        "line: str\n"
        "while (line := sys.stdin.readline()):\n"
        "    print(line.strip())\n"
    )
    out, err = io.StringIO(), io.StringIO()
    count = api.check(source, "reader.py", Reporter(out, err))
    assert out.getvalue() == ""
    assert count == 0
