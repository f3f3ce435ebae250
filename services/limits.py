"""Size limits shared by the request schemas, the services and the jobs (one definition each)."""

MAX_TRANSCRIPT_CHARS = 200_000
# Error texts stored on rows (a job's last error, a session's analysis error) are cut to this.
MAX_ERROR_CHARS = 500
