"""Which webhook addresses may be called (SSRF guard).

A clinic-supplied URL must not make this server call into its own network: loopback, private,
link-local (cloud metadata at 169.254.169.254 included), carrier-grade NAT, multicast and
reserved addresses are refused unless `ALLOW_PRIVATE_WEBHOOK_URLS` is set. The check runs when
the URL is saved and again on every send, against what the name resolves to *then*, so a name
re-pointed at an internal address later is refused too.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from services.errors import Unprocessable

ALLOWED_SCHEMES = ("http", "https")
MAX_URL_LENGTH = 2048
# Metadata services that are not covered by the link-local range.
METADATA_ADDRESSES = frozenset({ipaddress.ip_address("fd00:ec2::254"),
                                ipaddress.ip_address("100.100.100.200")})


# One answer whether the name is unknown or internal: two would let any token that may save a
# URL map which names exist inside the clinic's network.
NOT_PUBLIC = ("its host does not resolve to a public address (an unknown name, or a private, "
              "loopback, link-local or metadata address)")


class AddressRefused(Exception):
    """The URL resolves to an address this service does not call."""


def check_url_syntax(url: str, field: str = "webhook_url") -> str:
    """Refuse URLs that are not absolute http(s) with a host (422 on save)."""
    if any(ch.isspace() or not ch.isprintable() for ch in url):
        # Sent, the HTTP client percent-encodes them: the URL called would not be the one
        # stored and shown (and a CR/LF is how a header is smuggled into a request line).
        raise Unprocessable("A URL holds no spaces or control characters (percent-encode "
                            "them).", field=field)
    parts = urlsplit(url)
    if (len(url) > MAX_URL_LENGTH or parts.scheme not in ALLOWED_SCHEMES or not parts.hostname
            or parts.username or parts.password):
        raise Unprocessable("Must be an absolute http(s) URL without credentials.", field=field)
    try:
        port = parts.port  # raises on a malformed port
    except ValueError as exc:
        raise Unprocessable("The URL's port is not valid.", field=field) from exc
    if port == 0:
        raise Unprocessable("The URL's port is not valid.", field=field)
    return url


def is_forbidden(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.is_site_local:  # fec0::/10: deprecated, still routed inside some networks
            return True
        # An IPv4 address carried in IPv6 (mapped, or 6to4 through a gateway) is judged as itself.
        ip = ip.ipv4_mapped or ip.sixtofour or ip
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
            or ip.is_reserved or ip.is_unspecified or not ip.is_global
            or ip in METADATA_ADDRESSES)


def resolve(url: str) -> list[str]:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise AddressRefused(NOT_PUBLIC) from exc
    return sorted({info[4][0] for info in infos})


def check_destination(url: str, allow_private: bool) -> None:
    """Raise AddressRefused when `url` may not be called now."""
    check_url_syntax(url)
    if allow_private:
        return
    addresses = resolve(url)
    bad = [a for a in addresses if is_forbidden(a)]
    if bad:
        raise AddressRefused(NOT_PUBLIC)
