"""The units' systemd credentials, for the services and for their checks.

A unit names its secrets with ``LoadCredential=ID:FILE``; systemd copies each into
``$CREDENTIALS_DIRECTORY/ID`` for the service. A check run by hand (``station check-config``,
``station pit --check``, ``station archive --check``) has no such folder: ``--credentials DIR``
gives it the one the unit loads from, and ``credentials_from`` sets up what systemd would.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from station.errors import ConfigError, StationError
from station.live.service.install import SERVICES, SHIPPED
from station.wire.signing import CREDENTIAL_NAME, Signer, default_key_path, load_private_key


def unit_credentials(service: str = "station") -> dict[str, Path]:
    """The shipped unit's ``LoadCredential=ID:FILE`` lines (commented ones too), ID to file."""
    text = (SHIPPED / "systemd" / SERVICES[service].unit).read_text(encoding="utf-8")
    return {m[1]: Path(m[2])
            for m in re.finditer(r"^#?LoadCredential=([\w.-]+):(\S+)$", text, re.M)}


@contextlib.contextmanager
def credentials_from(folder: Path | None, service: str = "station") -> Iterator[None]:
    """``$CREDENTIALS_DIRECTORY`` as the unit of ``service`` would have it, from ``folder``
    (the folder its LoadCredential= files are in); nothing when ``folder`` is None."""
    if folder is None:
        yield
        return
    if not folder.is_dir():
        raise StationError(f"--credentials {folder}: not a folder; name the folder the "
                           "unit's LoadCredential= files are in")
    before = os.environ.get("CREDENTIALS_DIRECTORY")
    with tempfile.TemporaryDirectory(prefix="station-credentials-") as tmp:
        for cred, source in unit_credentials(service).items():
            if (folder / source.name).is_file():
                (Path(tmp) / cred).symlink_to((folder / source.name).absolute())
        os.environ["CREDENTIALS_DIRECTORY"] = tmp
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("CREDENTIALS_DIRECTORY", None)
            else:
                os.environ["CREDENTIALS_DIRECTORY"] = before


def service_signer(config: Path, key: str, path: Path | None, service: str, command: str
                   ) -> Signer:
    """The signer of a service (the pit, the archive): ``path`` (its config's ``key``), or,
    unset, its unit's credential ``signing-key``. The error names that service's key and
    the file its unit loads, never the station's ``upstream:``; ``command`` is the service's
    check (``station pit --check``), named with the ``--credentials`` a check by hand needs."""
    if path is None:
        path = default_key_path()
        if path is None or not path.exists():
            unit = unit_credentials(service).get(CREDENTIAL_NAME)
            etc = unit.parent if unit is not None else Path("DIR")
            stem = unit.stem if unit is not None else CREDENTIAL_NAME
            where = (f" ({path} does not exist)" if path is not None
                     else f"; a check by hand names the unit's folder: {command} -c {config} "
                     f"--credentials {etc}")
            raise ConfigError(
                f"{config}: {key} is not set and there is no systemd credential "
                f"{CREDENTIAL_NAME}{where}; `station keygen {etc} --name {stem}` makes the key "
                f"pair the unit loads ({stem}.pem), or name a PEM file in {key}")
    try:
        return Signer(load_private_key(path))
    except ConfigError as exc:
        raise ConfigError(f"{config}: {key}: {exc}") from exc
