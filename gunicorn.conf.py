"""gunicorn settings shared by bin/serve, the Docker image and the end-to-end tests, so that
the tests start the server exactly as users do. HOST, PORT, WEB_CONCURRENCY and WEB_THREADS
adjust it."""

import os
import sys

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
# Two processes of two threads per core. A process runs Python on one core at a time (its
# GIL); with one process per core, the kernel's uneven spreading of a few keep-alive clients
# over the processes' sockets (reuse_port, below) left one core short of work while the other
# queued. With more processes than cores the scheduler evens out the cores whatever the spread
# (bench, side by side on 2 cores: list, read and create 2-10 % more requests a second than 2 x 4).
workers = int(os.environ.get("WEB_CONCURRENCY", str(2 * (os.cpu_count() or 1))))
# gthread, answering the errors gunicorn handles itself in the API's JSON shape.
worker_class = "web.server_worker.JSONErrorThreadWorker"
# gunicorn's own log, with tracebacks that withhold the messages that quote values.
logger_class = "web.server_worker.ServerLogger"
threads = int(os.environ.get("WEB_THREADS", "2"))
# The master builds the app once, so it alone owns the embedded Redis server; each worker
# opens its own database connections after fork (the app factory releases the master's).
preload_app = True
timeout = 120
graceful_timeout = 30
# No access log: it would print query strings, which may carry patient identifiers.
accesslog = None
# Each worker listens on its own socket and the kernel spreads new connections across them:
# with one shared socket, whichever worker wakes first can take every keep-alive connection
# of a few busy clients and leave the other workers idle.
reuse_port = True
# No control socket (gunicornc): its default path, ~/.gunicorn/gunicorn.ctl, is the same for
# every instance a user runs, so the last one started takes it from the others; and it runs an
# event-loop thread in the master, which then forks replacement workers beside it. Signals
# (TERM, INT, HUP, TTIN/TTOU) control the server as before.
control_socket_disable = True


def when_ready(server) -> None:
    # With reuse_port the master opens no socket, so gunicorn's "Listening at:" names none;
    # the operator reads the address here.
    if server is not None:
        server.log.info("Listening at: %s (each worker binds it: reuse_port)",
                        ",".join(server.cfg.bind))
    # Import the analysis pipeline and load the crisis detector's language models in the
    # master, before the workers fork: they share the pages instead of each worker importing
    # and loading them on its first analysis (half a second or more). Only when the app
    # preloaded is this service (another app run with this file, as the benchmark's
    # hello-world, does not import it).
    analysis = sys.modules.get("services.analysis")
    if analysis is not None:
        analysis.preload()


def worker_int(worker) -> None:
    # SIGINT (Ctrl-C reaches every process of the terminal's group) or the master's SIGQUIT:
    # a quick stop. gunicorn's own handler sleeps, then raises SystemExit; the master's SIGQUIT
    # that follows a Ctrl-C arrived while that exit unwound, and the worker hung in the native
    # destructors (killed at graceful_timeout) or aborted. Leave here, at once, as worker_exit
    # does.
    if os.getpid() == worker.pid and "onnxruntime" in sys.modules:
        worker.log.info("Worker exiting (pid: %s)", worker.pid)
        _leave(0)


def worker_exit(server, worker) -> None:
    # A worker forked after the models loaded does not have onnxruntime's threads, yet at exit
    # the library's native destructors wait on them: the worker hung until the master killed
    # it (a stop took graceful_timeout, 30 s) or aborted. So a worker leaves with os._exit,
    # after what a normal exit would do that matters here: connections closed, logs flushed.
    # Its exit code is kept (the arbiter tells a boot error from a normal exit by it).
    if os.getpid() != worker.pid:
        return  # the master, tidying up after a worker that is already gone
    if "onnxruntime" not in sys.modules:
        return
    _leave(_exit_status(sys.exc_info()[1]))


def _leave(status: int) -> None:
    """Exit this worker now, with ``status``, after closing its connections and logs."""
    import logging
    import signal

    from models.base import release_connections

    for quit_signal in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
        signal.signal(quit_signal, signal.SIG_IGN)  # a second signal must not cut this short
    try:
        release_connections()
    finally:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _exit_status(exiting: BaseException | None) -> int:
    """The status the interpreter would exit with, given what it is exiting on."""
    if not isinstance(exiting, SystemExit):
        return 0 if exiting is None else 1
    code = exiting.code
    return code if isinstance(code, int) else 0 if code is None else 1
