from pyflakes.checker import checkSource


def test_print_augmented_assignment_does_not_crash():
    warnings = checkSource("print *= -1\n", filename="example.py")
    assert list(warnings) == []


def test_regular_code_still_checked():
    warnings = checkSource("import os\n", filename="example.py")
    assert len(list(warnings)) == 1
