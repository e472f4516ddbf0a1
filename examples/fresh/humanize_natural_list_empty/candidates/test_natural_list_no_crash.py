# Building a sentence from a list of tags that may be empty must not crash.
import humanize


def describe(tags):
    return f"Tags: {humanize.natural_list(tags)}".strip()


def test_describe_without_tags():
    assert describe([]) == "Tags:"


def test_describe_with_tags():
    assert describe(["red", "blue"]) == "Tags: red and blue"
