import parse


def test_findall_zero_precision_values():
    text = "sizes: 1920x1080, 1280x720"
    found = [tuple(r.fixed) for r in parse.findall("{:.0f}x{:.0f}", text)]
    assert found == [(1920.0, 1080.0), (1280.0, 720.0)]


def test_compiled_zero_precision_pattern():
    p = parse.compile("{:5.0f}|")
    assert p.parse("   20|")[0] == 20.0
