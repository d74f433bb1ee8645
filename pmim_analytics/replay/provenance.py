"""Which replay files this installation wrote itself: a signed record of ``pmim simulate``'s output.

``pmim simulate --out DIR`` signs exactly the files it wrote, and nothing else in the folder:
``DIR/pmim-signed.json`` maps each file name to an HMAC-SHA256 of the file's bytes under a secret key kept outside the
repository (``$PMIM_KEY_FILE``, default ``~/.config/pmim/install.key``, created on first use
with owner-only permissions). ``pmim ingest --trust-own`` skips the rules check only for a
file whose bytes still carry a valid signature under this key: a replay from elsewhere, or
one edited after it was written, is checked like any other.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path

from pmim_analytics.limits import MAX_REPLAY_BYTES

KEY_ENV = "PMIM_KEY_FILE"
MANIFEST = "pmim-signed.json"
_MAX_SIGNED_BYTES = 4 * 1024 * 1024 * 1024  # Parquet parts can be large; a signature reads the file once


def key_path() -> Path:
    """Where this installation's signing key lives."""
    env = os.environ.get(KEY_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pmim" / "install.key"


def _load_key(create: bool) -> bytes | None:
    p = key_path()
    try:
        data = p.read_bytes()
        if len(data) >= 32:
            return data
    except OSError:
        pass
    if not create:
        return None
    p.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key)
    return key


def _mac(key: bytes, path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return hmac.new(key, h.digest(), hashlib.sha256).hexdigest()


def sign_files(folder: str | Path, files: Iterable[Path], *, only: bool = False) -> int:
    """Record signatures of ``files`` (inside ``folder``) in its manifest; return how many.

    With ``only`` the manifest lists these files and no others (what one simulation wrote),
    else they are added to the signatures already there.
    """
    key = _load_key(create=True)
    assert key is not None
    folder = Path(folder)
    manifest = folder / MANIFEST
    try:
        entries = {} if only else json.loads(manifest.read_text(encoding="utf-8")).get("files", {})
    except (OSError, ValueError, AttributeError):
        entries = {}
    n = 0
    for f in files:
        entries[f.name] = _mac(key, f)
        n += 1
    tmp = manifest.with_name(MANIFEST + ".tmp")
    tmp.write_text(json.dumps({"files": entries}, sort_keys=True), encoding="utf-8")
    tmp.replace(manifest)
    return n


def own_files_checker() -> Callable[[str], bool]:
    """A function telling whether a replay file (or a Parquet part, by its events file) was
    written and signed by this installation and is unchanged since."""
    key = _load_key(create=False)
    manifests: dict[Path, dict[str, str]] = {}

    def signed(p: Path) -> bool:
        if key is None or not p.is_file() or p.stat().st_size > _MAX_SIGNED_BYTES:
            return False
        folder = p.parent
        if folder not in manifests:
            try:
                raw = (folder / MANIFEST).read_bytes()
                if len(raw) > MAX_REPLAY_BYTES:
                    raise ValueError
                entries = json.loads(raw).get("files", {})
                manifests[folder] = entries if isinstance(entries, dict) else {}
            except (OSError, ValueError, AttributeError):
                manifests[folder] = {}
        want = manifests[folder].get(p.name)
        return isinstance(want, str) and hmac.compare_digest(want, _mac(key, p))

    verdicts: dict[str, bool] = {}

    def check(path: str) -> bool:
        if path not in verdicts:
            p = Path(path)
            if p.name.startswith("events.") and p.suffix == ".parquet":
                verdicts[path] = signed(p) and signed(p.with_name("games." + p.name[len("events."):]))
            else:
                verdicts[path] = signed(p)
        return verdicts[path]

    return check

