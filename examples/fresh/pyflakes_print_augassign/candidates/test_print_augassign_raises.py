import ast

import pytest

from pyflakes import checker


def test_print_augmented_assignment_is_rejected():
    tree = ast.parse("print += 1\n")
    with pytest.raises(AttributeError):
        checker.Checker(tree)
