"""Settings read from the environment."""

from config import from_env


def test_job_retry_intervals_are_read_from_the_environment():
    # The README names JOB_RETRY_INTERVALS_S as a setting; the environment was not read.
    assert from_env({"JOB_RETRY_INTERVALS_S": "2,4,6"})["JOB_RETRY_INTERVALS_S"] == [2, 4, 6]
    assert from_env({})["JOB_RETRY_INTERVALS_S"] is None  # the built-in 5, 30, 120 s
