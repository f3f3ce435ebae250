"""Whether an RQ worker is still there. A killed worker's record stays in Redis until its TTL
runs out (seven minutes): the reaper of dead workers' jobs and the queue statistics must not
take it for a live one."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from datetime import datetime, timedelta

from rq import Worker
from rq.utils import now as rq_now


def process_is_dead(worker: Worker, hostname: str | None = None) -> bool:
    """The worker ran on this host and its process is gone (a SIGKILL leaves its record)."""
    if worker.hostname != (hostname or socket.gethostname()) or not worker.pid:
        return False
    try:
        os.kill(worker.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, under another user
        return False
    return False


def live_workers(workers: Iterable[Worker], stale_after: timedelta,
                 now: datetime | None = None) -> list[Worker]:
    """The workers that are there: not dead on this host, and heard from within `stale_after`
    (a worker on another host cannot be looked at; its heartbeat says it lives)."""
    moment = now or rq_now()
    hostname = socket.gethostname()
    return [w for w in workers if not process_is_dead(w, hostname)
            and (w.last_heartbeat is None or moment - w.last_heartbeat <= stale_after)]
