"""legalog.digest: the same SHA-256 as hashlib's, bit for bit, without loading OpenSSL."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from legalog.digest import sha256


@given(st.lists(st.binary(max_size=300), max_size=5))
def test_the_digest_is_hashlibs_for_any_bytes_in_any_pieces(pieces: list[bytes]) -> None:
    ours = sha256(pieces[0] if pieces else b"")
    for piece in pieces[1:]:
        ours.update(piece)
    theirs = hashlib.sha256(b"".join(pieces))
    assert ours.hexdigest() == theirs.hexdigest()
    assert ours.digest() == theirs.digest()


def test_a_digest_loads_no_openssl_where_the_interpreter_has_its_own() -> None:
    probe = (
        "import sys, importlib.util\n"
        "from legalog.digest import sha256\n"
        "sha256(b'x').hexdigest()\n"
        "builtin = any(importlib.util.find_spec(n) for n in ('_sha2', '_sha256'))\n"
        "print(builtin, '_hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    builtin, openssl = out.split()
    if builtin == "False":
        pytest.skip("this interpreter builds in no SHA-256: legalog.digest uses hashlib's, and OpenSSL")
    assert openssl == "False"
