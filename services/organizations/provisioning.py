"""Provisioning an organization: a durable, resumable saga of sixteen recorded steps.

Every step's status, attempts, timestamps and error live in `provisioning_step`, so the status
resource shows real progress and a job whose worker died resumes at the step it was on (done
steps are never run again). A transient failure is retried with backoff; a permanent one undoes
what the done steps made, in reverse, and leaves the organization `failed`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from peewee import IntegrityError

from models.base import db, truncate_wal, utcnow
from models.jobs import QUEUE_PROVISIONING, job_id, record_job
from models.organizations import ProvisioningJob, ProvisioningStep, SlugReservation
from services.errors import Conflict, DomainError, NotFound
from services.organizations import steps as step_defs
from services.organizations.accounts import slug_taken, slugify
from services.organizations.steps import (
    STEPS,
    PermanentStepError,
    StepContext,
    StepSkipped,
    TransientStepError,
)

logger = logging.getLogger(__name__)

STEP_ATTEMPTS = 3
RETRY_DELAYS_S = (1.0, 5.0)
JOB_ATTEMPTS = 3  # whole-job attempts: a worker that dies mid-step
MAX_ERROR_CHARS = 500
DONE = ("done", "skipped")


def _normalised(data: Mapping[str, Any]) -> dict[str, Any]:
    request = {k: v for k, v in data.items() if v is not None}
    request["slug"] = data.get("slug") or slugify(str(data.get("name") or ""))
    return request


def create_job(data: Mapping[str, Any]) -> ProvisioningJob:
    """The job row, its sixteen pending steps and the slug's reservation, in one transaction
    (a taken slug is a Conflict now, not a failure later)."""
    request = _normalised(data)
    taken = Conflict(f"The slug {request['slug']!r} is already taken"
                     + ("." if data.get("slug") else
                        " (it was made from the name; give another `slug`)."), field="slug")
    if slug_taken(request["slug"]):
        raise taken
    try:
        with db.atomic():
            job = ProvisioningJob.create(request=request)
            ProvisioningStep.insert_many(
                [{"job": job.id, "index": i, "name": step.name}
                 for i, step in enumerate(STEPS, start=1)]).execute()
            SlugReservation.create(slug=request["slug"], job=job.id)
    except IntegrityError as error:  # a concurrent request reserved it first
        raise taken from error
    return job


PROVISIONING_JOB = "jobs.organizations.run_provisioning"
PROVISIONING_FAILED_HOOK = "jobs.organizations.fail_provisioning"


def request_provisioning(data: Mapping[str, Any]) -> ProvisioningJob:
    """Record the job and queue it once the caller's transaction commits."""
    with db.atomic():
        job = create_job(data)
        record_job(PROVISIONING_JOB, job.id, id=job_id("provision", job.id),
                   queue=QUEUE_PROVISIONING, max_attempts=JOB_ATTEMPTS,
                   on_failure=PROVISIONING_FAILED_HOOK)
    return job


def _update_step(step: ProvisioningStep, **fields: Any) -> None:
    ProvisioningStep.update(**fields).where(ProvisioningStep.id == step.id).execute()
    for name, value in fields.items():
        setattr(step, name, value)


def _update_job(job: ProvisioningJob, **fields: Any) -> None:
    fields["updated_at"] = utcnow()
    ProvisioningJob.update(**fields).where(ProvisioningJob.id == job.id).execute()
    for name, value in fields.items():
        setattr(job, name, value)


def _error_text(error: BaseException) -> str:
    return (str(error) or type(error).__name__)[:MAX_ERROR_CHARS]


def _run_step(ctx: StepContext, definition: step_defs.Step, row: ProvisioningStep,
              delays: tuple[float, ...], sleep: Callable[[float], None]) -> None:
    """Run one step to `done`/`skipped`, retrying transient failures; raises
    PermanentStepError when it cannot succeed."""
    while True:
        _update_step(row, status="running", attempts=row.attempts + 1,
                     started_at=row.started_at or utcnow(), error=None)
        _update_job(ctx.job, current_step=definition.name)
        try:
            if definition.calls_peer:
                output = definition.run(ctx)
                _update_step(row, status="done", output=output, finished_at=utcnow())
            else:
                with db.atomic():
                    output = definition.run(ctx)
                    _update_step(row, status="done", output=output, finished_at=utcnow())
            ctx.outputs[definition.name] = output
            return
        except StepSkipped as skipped:
            _update_step(row, status="skipped", error=str(skipped), finished_at=utcnow())
            return
        except DomainError as error:  # the request is refused (a URL, a number): no retry helps
            raise PermanentStepError(error.message) from error
        except TransientStepError as error:
            if row.attempts >= STEP_ATTEMPTS:
                raise PermanentStepError(
                    f"{_error_text(error)} (after {row.attempts} attempts)") from error
            _update_step(row, error=_error_text(error))
            delay = delays[min(row.attempts - 1, len(delays) - 1)] if delays else 0
            logger.info("provisioning %s step %s attempt %s failed; retry in %ss",
                        ctx.job.id, definition.name, row.attempts, delay)
            sleep(delay)


def _context(job: ProvisioningJob, config: Mapping[str, Any]) -> tuple[StepContext, list]:
    rows = list(ProvisioningStep.select().where(ProvisioningStep.job == job.id)
                .order_by(ProvisioningStep.index))
    ctx = StepContext(job=job, config=config,
                      outputs={r.name: r.output for r in rows if r.status == "done"})
    return ctx, rows


def run(provisioning_id: str, config: Mapping[str, Any],
        sleep: Callable[[float], None] = time.sleep) -> ProvisioningJob:
    """Run (or resume) the job: every step not yet done, in order."""
    job = ProvisioningJob.get_by_id(provisioning_id)
    if job.status in ("succeeded", "failed"):
        return job
    _update_job(job, status="running")
    delays = tuple(config.get("PROVISIONING_RETRY_DELAYS_S") or RETRY_DELAYS_S)
    ctx, rows = _context(job, config)
    for definition, row in zip(STEPS, rows, strict=True):
        if row.status in DONE:
            continue
        try:
            _run_step(ctx, definition, row, delays, sleep)
        except PermanentStepError as error:
            _update_step(row, status="failed", error=_error_text(error), finished_at=utcnow())
            logger.warning("provisioning %s failed at %s", job.id, definition.name)
            _compensate(ctx, rows)
            _update_job(job, status="failed", error=f"{definition.name}: {_error_text(error)}",
                        finished_at=utcnow())
            return job
    prefix = ctx.outputs["issue_api_token"]["token_prefix"]
    organization_id = ctx.outputs["create_organization"]["organization_id"]
    _update_job(job, status="succeeded", current_step=None, finished_at=utcnow(),
                result={"admin_email": job.request["admin_email"].lower(),
                        "organization_id": organization_id, "admin_token_prefix": prefix})
    logger.info("provisioning %s succeeded: organization %s", job.id, organization_id)
    return job


def _compensate(ctx: StepContext, rows: list[ProvisioningStep]) -> None:
    """Undo the done steps in reverse order; what cannot be undone is recorded on its step."""
    by_name = {step.name: step for step in STEPS}
    for row in reversed(rows):
        undo = by_name[row.name].undo
        if row.status != "done" or undo is None:
            continue
        try:
            with db.atomic():
                undo(ctx, row.output)
                _update_step(row, status="compensated")
        except Exception as error:  # keep undoing the rest; the step says what went wrong
            logger.exception("provisioning %s: undoing %s failed", ctx.job.id, row.name)
            _update_step(row, error=f"compensation failed: {_error_text(error)}")


def fail(provisioning_id: str, error: str, config: Mapping[str, Any]) -> None:
    """The job crashed on its every attempt: undo what it made and record the failure."""
    job = ProvisioningJob.get_or_none(ProvisioningJob.id == provisioning_id)
    if job is None or job.status in ("succeeded", "failed"):
        return
    ctx, rows = _context(job, config)
    for row in rows:
        if row.status == "running":
            _update_step(row, status="failed", error=error[:MAX_ERROR_CHARS],
                         finished_at=utcnow())
    _compensate(ctx, rows)
    _update_job(job, status="failed", error=error[:MAX_ERROR_CHARS], finished_at=utcnow())


def provision_now(data: Mapping[str, Any], config: Mapping[str, Any]) -> ProvisioningJob:
    """The operator's path (`flask orgs create`): the same job and steps, run in-process."""
    job = create_job(data)
    run(job.id, config)
    return get_job(job.id)  # as stored: the steps wrote the admin token to the row


def get_job(provisioning_id: str) -> ProvisioningJob:
    job = ProvisioningJob.get_or_none(ProvisioningJob.id == provisioning_id)
    if job is None:
        raise NotFound("Provisioning job not found.")
    return job


def take_admin_token(job: ProvisioningJob) -> str | None:
    """The admin token in full, to the first reader of the succeeded job only: the row's
    copy is cleared by a conditional update that exactly one reader wins."""
    if job.status != "succeeded" or not job.admin_token:
        return None
    token = job.admin_token
    cleared = (ProvisioningJob.update(admin_token=None)
               .where((ProvisioningJob.id == job.id)
                      & ProvisioningJob.admin_token.is_null(False)).execute())
    if cleared:
        truncate_wal()  # else the worker's maintenance does, within its interval
    return token if cleared else None


def _step_body(row: ProvisioningStep) -> dict[str, Any]:
    # A skipped step's row keeps why in `error`; the resource says it as `detail`, so that a
    # client showing every step's `error` does not show a skip as a failure.
    skipped = row.status == "skipped"
    return {"index": row.index, "name": row.name, "status": row.status,
            "started_at": row.started_at, "finished_at": row.finished_at,
            "attempts": row.attempts, "error": None if skipped else row.error,
            "detail": row.error if skipped else None}


def status_body(job: ProvisioningJob) -> dict[str, Any]:
    """The SPEC's status resource."""
    rows = list(ProvisioningStep.select().where(ProvisioningStep.job == job.id)
                .order_by(ProvisioningStep.index))
    result = None
    if job.status == "succeeded" and job.result:
        token = take_admin_token(job)
        result = {"admin_token": token or f"{job.result['admin_token_prefix']}…",
                  "admin_email": job.result["admin_email"],
                  "organization_id": job.result["organization_id"]}
    return {"job_id": job.id, "status": job.status, "current_step": job.current_step,
            "steps_total": len(STEPS),
            "steps": [_step_body(r) for r in rows],
            "organization_id": job.organization_id, "result": result, "error": job.error,
            "created_at": job.created_at, "finished_at": job.finished_at}
