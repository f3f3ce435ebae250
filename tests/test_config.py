"""Settings read from the environment."""

import pytest

from config import ConfigError, from_env


def test_job_retry_intervals_are_read_from_the_environment():
    # The README names JOB_RETRY_INTERVALS_S as a setting; the environment was not read.
    assert from_env({"JOB_RETRY_INTERVALS_S": "2,4,6"})["JOB_RETRY_INTERVALS_S"] == [2, 4, 6]
    assert from_env({})["JOB_RETRY_INTERVALS_S"] is None  # the built-in 5, 30, 120 s


@pytest.mark.parametrize("name, value, says", [
    ("MAX_CONTENT_LENGTH", "4MB", "MAX_CONTENT_LENGTH must be a whole number, not '4MB'"),
    ("MAX_CONTENT_LENGTH", "-5", "MAX_CONTENT_LENGTH must be at least 1"),
    ("TOKEN_TRUST_SECONDS", "one", "TOKEN_TRUST_SECONDS must be a number"),
    ("OPENAI_TIMEOUT_S", "0", "OPENAI_TIMEOUT_S must be at least 0.1"),
    ("PROXY_FIX_X_FOR", "-1", "PROXY_FIX_X_FOR must be at least 0"),
    ("JOB_RETRY_INTERVALS_S", "5;30", "JOB_RETRY_INTERVALS_S must be numbers of seconds"),
    ("RATELIMIT_DEFAULT", "lots", "RATELIMIT_DEFAULT must be a rate"),
    ("LOG_LEVEL", "LOUD", "LOG_LEVEL must be one of DEBUG, INFO"),
    ("LOG_FORMAT", "xml", "LOG_FORMAT must be one of json, text"),
    ("SAFETY_MODEL_CHECK", "maybe", "SAFETY_MODEL_CHECK must be true or false"),
    ("DATABASE_URL", "mysql://db/cws", "DATABASE_URL must be a URL of sqlite://"),
    ("REDIS_URL", "http://cache:6379", "REDIS_URL must be a URL of redis://"),
])
def test_a_value_the_service_cannot_use_names_its_variable(name, value, says):
    # Before: a traceback ending in "invalid literal for int() with base 10: '4MB'", or the
    # value taken silently (-5 bytes, "xml" logs).
    with pytest.raises(ConfigError) as refused:
        from_env({name: value})
    assert says in str(refused.value)


def test_good_values_are_read():
    config = from_env({"MAX_CONTENT_LENGTH": "1000", "LOG_LEVEL": "debug", "LOG_FORMAT": "TEXT",
                       "SAFETY_MODEL_CHECK": "yes", "DATABASE_URL": "postgresql://h/db",
                       "REDIS_URL": "unix:///tmp/r.sock", "RATELIMIT_PER_IP": "50/minute"})
    assert (config["MAX_CONTENT_LENGTH"], config["LOG_LEVEL"], config["LOG_FORMAT"]) == \
        (1000, "DEBUG", "text")
    assert config["SAFETY_MODEL_CHECK"] is True and config["RATELIMIT_PER_IP"] == "50/minute"


def test_the_cli_stops_on_a_bad_value_with_one_line(tmp_path):
    import os
    import subprocess
    import sys

    from config import PROJECT_ROOT

    env = {**os.environ, "INSTANCE_PATH": str(tmp_path), "MAX_CONTENT_LENGTH": "4MB"}
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "app", "init-db"],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == \
        "Configuration error: MAX_CONTENT_LENGTH must be a whole number, not '4MB'"
    assert "Traceback" not in done.stderr
