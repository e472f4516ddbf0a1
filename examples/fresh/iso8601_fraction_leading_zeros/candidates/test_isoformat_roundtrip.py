import datetime

import iso8601


def test_roundtrip_of_small_microseconds():
    for micro in (1, 42, 999, 5000, 60000):
        original = datetime.datetime(
            2021, 3, 4, 5, 6, 7, micro, tzinfo=datetime.timezone.utc
        )
        parsed = iso8601.parse_date(original.isoformat())
        assert parsed == original, original.isoformat()
