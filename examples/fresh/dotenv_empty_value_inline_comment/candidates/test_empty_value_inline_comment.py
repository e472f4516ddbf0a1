from dotenv import dotenv_values


def test_empty_value_followed_by_comment(tmp_path):
    env = tmp_path / ".env.test"
    env.write_text("\nWITH_VALUE=hello  # comment\nEMPTY_VALUE=  # comment\nJUST_EMPTY=\n")

    values = dotenv_values(env)

    assert values["EMPTY_VALUE"] == ""
