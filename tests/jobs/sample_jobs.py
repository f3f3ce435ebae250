"""Jobs used by the queue tests: each leaves a trace in the database the test can read."""

from services.usage import record_usage


def meter_one(organization_id: str, label: str) -> str:
    record_usage(organization_id, "workflow_executions", details={"label": label})
    return label


def always_fails(organization_id: str, label: str) -> None:
    record_usage(organization_id, "workflow_executions", details={"label": f"attempt:{label}"})
    raise RuntimeError("deliberate failure")


def note_failure(organization_id: str, label: str, error: str) -> None:
    record_usage(organization_id, "webhook_deliveries", details={"label": label, "error": error})


def slow_first_attempt(organization_id: str, label: str) -> str:
    """Hangs on its first attempt (long enough to be killed), finishes on a retry."""
    import time

    from rq import get_current_job

    from models.jobs import JobRecord

    attempt = JobRecord.get_by_id(get_current_job().id).attempts
    if attempt == 1:
        time.sleep(60)
    record_usage(organization_id, "workflow_executions", details={"label": label})
    return label


# What psycopg2 says of a unique violation: the row's values are in its DETAIL.
QUOTED_VALUE = "PATIENT-SECRET-123"
UNIQUE_VIOLATION = ('duplicate key value violates unique constraint "therapy_session_pkey"\n'
                    f"DETAIL:  Key (patient_id)=({QUOTED_VALUE}) already exists.\n")


def fails_quoting_a_row(organization_id: str, label: str) -> None:
    """Fails as a write that meets a unique violation does: peewee's IntegrityError raised
    while handling the driver's."""
    import peewee
    import psycopg2.errors

    record_usage(organization_id, "workflow_executions", details={"label": label})
    try:
        raise psycopg2.errors.UniqueViolation(UNIQUE_VIOLATION)
    except psycopg2.Error as exc:
        raise peewee.IntegrityError(*exc.args)  # chained implicitly, as peewee does


def fails_as_the_model_server_does(organization_id: str) -> None:
    """Fails as an analysis does when the model server answers 500."""
    from services.analysis.llm import LLMUpstreamError

    raise LLMUpstreamError("The model server answered 500.", status_code=500)
