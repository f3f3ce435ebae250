"""HTTP load from a separate process with wrk (bounded by duration), results as numbers."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

LUA = """
wrk.method = %(method)s
wrk.body = %(body)s
%(headers)s
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nRESULT {"requests": %%d, "duration_us": %%d, "p50_us": %%d, ' ..
    '"p99_us": %%d, "errors": %%d, "non2xx": %%d}\\n', summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), e.connect + e.read + e.write + e.timeout,
    e.status))
end
"""


@dataclass
class LoadResult:
    requests: int
    rps: float
    p50_ms: float
    p99_ms: float
    failures: int


def _lua_string(value: str) -> str:
    return json.dumps(value)  # a JSON string literal is a valid Lua string literal here


def wrk_available() -> bool:
    return shutil.which("wrk") is not None


def run(url: str, *, method: str = "GET", body: str | None = None,
        headers: dict[str, str] | None = None, connections: int = 8, threads: int = 1,
        duration_s: int = 10, rate: int | None = None) -> LoadResult:
    """Drive `url` for `duration_s` seconds with `connections` keep-alive connections."""
    header_lines = "\n".join(f"wrk.headers[{_lua_string(k)}] = {_lua_string(v)}"
                             for k, v in (headers or {}).items())
    script = LUA % {"method": _lua_string(method),
                    "body": _lua_string(body) if body is not None else "nil",
                    "headers": header_lines}
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    try:
        command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration_s}s",
                   "--timeout", "10s", "-s", handle.name, url]
        if rate:
            command[1:1] = ["-R", str(rate)]  # only wrk2 knows -R; plain wrk is closed-loop
        output = subprocess.run(command, capture_output=True, text=True,
                                timeout=duration_s + 60).stdout
    finally:
        Path(handle.name).unlink()
    line = next(x for x in output.splitlines() if x.startswith("RESULT "))
    data = json.loads(line[len("RESULT "):])
    seconds = data["duration_us"] / 1e6
    return LoadResult(requests=data["requests"], rps=data["requests"] / seconds,
                      p50_ms=data["p50_us"] / 1000, p99_ms=data["p99_us"] / 1000,
                      failures=data["errors"] + data["non2xx"])
