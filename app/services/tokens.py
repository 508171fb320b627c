"""Tokens, recovery codes and the encryption of stored idempotent answers.

Tokens are 256-bit random strings, shown once and stored as SHA-256 hashes: with that
much entropy a slow password hash adds nothing, and a fast one keeps every request cheap.
A recovery code is 160 random bits written for people (32 letters and digits of RFC 4648
base32 in groups of four, read back whatever their case, spaces and hyphens), stored as
a SHA-256 hash of its letters, for the same reason.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_HKDF_SALT = b"vatican-report/idempotency/v1"
_NONCE_BYTES = 12
RECOVERY_CODE_BITS = 160
_RECOVERY_GROUP = 4
_RECOVERY_SEPARATORS = re.compile(r"[\s-]+")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_recovery_code() -> str:
    """160 random bits as 32 base32 letters and digits, in groups of four."""
    letters = base64.b32encode(secrets.token_bytes(RECOVERY_CODE_BITS // 8)).decode("ascii")
    return "-".join(
        letters[i : i + _RECOVERY_GROUP] for i in range(0, len(letters), _RECOVERY_GROUP)
    )


def hash_recovery_code(code: str) -> str:
    """The stored form of a recovery code: the hash of its letters, uppercased, without
    the spaces and hyphens a person may write it with."""
    letters = _RECOVERY_SEPARATORS.sub("", code).upper()
    return hashlib.sha256(f"recovery-code\x00{letters}".encode()).hexdigest()


#: Constant-time comparison of two hashes (hex digits), so a token cannot be guessed by
#: timing. ``compare_digest`` takes ASCII strings as they are (and refuses any other), so
#: every request's check of its token encodes nothing and calls no Python function.
same_hash: Callable[[str, str], bool] = hmac.compare_digest


def new_seed(upper: int) -> int:
    return secrets.randbelow(upper + 1)


def idempotency_key_hash(scope: str, key: str) -> str:
    return hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()


def _cipher(scope: str, key: str) -> AESGCM:
    # Imported on the first idempotent request: OpenSSL's bindings are about 7 MiB of a
    # worker's RSS, and many workers never see an Idempotency-Key.
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    # The encryption key comes from the Idempotency-Key itself, which only the client
    # holds: the database alone cannot give back a stored answer (it may hold tokens).
    derived = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=scope.encode()
    ).derive(key.encode("utf-8"))
    return AESGCM(derived)


def seal(scope: str, key: str, plaintext: bytes) -> bytes:
    nonce = os.urandom(_NONCE_BYTES)
    return nonce + _cipher(scope, key).encrypt(nonce, plaintext, None)


def unseal(scope: str, key: str, sealed: bytes) -> bytes:
    return _cipher(scope, key).decrypt(sealed[:_NONCE_BYTES], sealed[_NONCE_BYTES:], None)
