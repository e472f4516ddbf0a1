import io

from pyflakes import api
from pyflakes.reporter import Reporter


def test_check_print_augmented_assign_reports_nothing():
    out = io.StringIO()
    err = io.StringIO()
    reporter = Reporter(out, err)

    count = api.check("print *= -1\n", "submission.py", reporter)

    assert count == 0
    assert out.getvalue() == ""
    assert err.getvalue() == ""
