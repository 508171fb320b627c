"""A request's id (``X-Request-ID``): the client's own when it sent a sane one, else 32
new random hex digits. The app's front gives one to every answer it sends, and the edge
to the answers it gives itself once it has read a request's headers, both by this rule,
so that the id a client is answered is the one its access line carries. This module
imports nothing of the app: the server's worker loads it before the app."""

from __future__ import annotations

import re
from collections.abc import Iterable
from os import urandom

HEADER = b"x-request-id"

# A client's id is echoed only when it is short and plainly printable: it lands in logs.
_SANE = re.compile(rb"[\x21-\x7e]{1,128}")


def request_id_for(sent: bytes | None) -> str:
    """The id of a request whose client sent ``sent`` (the last ``X-Request-ID``)."""
    if sent is not None and _SANE.fullmatch(sent):
        return sent.decode("ascii")
    return new_request_id()


def new_request_id() -> str:
    """32 random hex digits, as ``secrets.token_hex(16)`` gives them."""
    return urandom(16).hex()


def sent_request_id(headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
    """The last ``X-Request-ID`` among ``headers`` (names in lower case, as ASGI has them)."""
    sent = None
    for name, value in headers:
        if name == HEADER:
            sent = value
    return sent
