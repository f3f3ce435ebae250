"""Queue statistics from RQ's own registries and worker records."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from redis import Redis
from rq import Queue, Worker

from services.workers import live_workers

# A worker heartbeats at least once per maintenance interval while idle and every 30 s while a
# forked job runs; one silent for three intervals is gone.
SILENT_INTERVALS = 3
REGISTRIES = {
    "started": "started_job_registry",
    "finished": "finished_job_registry",
    "failed": "failed_job_registry",
    "deferred": "deferred_job_registry",
    "scheduled": "scheduled_job_registry",
    "canceled": "canceled_job_registry",
}


def queue_stats(queues: dict[str, Queue], connection: Redis,
                maintenance_interval_s: float = 60) -> dict[str, Any]:
    """Rows named by the queues' names in the service (`analysis`…), not their names in Redis,
    which carry the deployment's QUEUE_PREFIX."""
    rows = []
    for name, queue in queues.items():
        row = {"name": name, "queued": queue.count}
        for field, registry in REGISTRIES.items():
            row[field] = getattr(queue, registry).count
        rows.append(row)
    # A worker still starting (or suspended) is neither: it is counted in the total only, so
    # that `idle` means ready to take a job now. A killed worker is not counted at all.
    stale_after = timedelta(seconds=SILENT_INTERVALS * maintenance_interval_s)
    workers = _workers_of(list(queues.values()), connection)
    states = [w.get_state() for w in live_workers(workers, stale_after)]
    return {"queues": rows, "workers": {"total": len(states), "busy": states.count("busy"),
                                        "idle": states.count("idle")}}


def _workers_of(queues: list[Queue], connection: Redis) -> list[Worker]:
    """The workers that listen on these queues. Deployments that share a Redis database (each
    with its own QUEUE_PREFIX) do not count each other's workers."""
    keys = sorted({key for queue in queues for key in Worker.all_keys(queue=queue)})
    return [w for w in (Worker.find_by_key(key, connection=connection) for key in keys) if w]
