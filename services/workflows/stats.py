"""Queue statistics from RQ's own registries and worker records."""

from __future__ import annotations

from typing import Any

from redis import Redis
from rq import Queue, Worker

REGISTRIES = {
    "started": "started_job_registry",
    "finished": "finished_job_registry",
    "failed": "failed_job_registry",
    "deferred": "deferred_job_registry",
    "scheduled": "scheduled_job_registry",
    "canceled": "canceled_job_registry",
}


def queue_stats(queues: list[Queue], connection: Redis) -> dict[str, Any]:
    rows = []
    for queue in queues:
        row = {"name": queue.name, "queued": queue.count}
        for field, registry in REGISTRIES.items():
            row[field] = getattr(queue, registry).count
        rows.append(row)
    # A worker still starting (or suspended) is neither: it is counted in the total only, so
    # that `idle` means ready to take a job now.
    states = [w.get_state() for w in Worker.all(connection=connection)]
    return {"queues": rows, "workers": {"total": len(states), "busy": states.count("busy"),
                                        "idle": states.count("idle")}}
