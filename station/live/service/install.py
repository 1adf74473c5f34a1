"""``station install-service [--service NAME]``: a service's unit and config skeleton in
place (the station's also its udev rules and paytables).

The services are one registry, ``SERVICES``: a new service is one line there (its unit and
skeleton shipped in systemd/). Ours to replace (the previous copy kept as ``*.old``): the
unit and the rules, which come with the station's version. Never replaced: the config and
the paytables under /etc/<config_dir>, which are the operator's once written.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SHIPPED = Path(__file__).resolve().parents[2] / "shipped"
UNIT_DIR = Path("etc/systemd/system")
RULES_DIR = Path("etc/udev/rules.d")
DEFAULT_EXEC = "/opt/dealer-station/.venv/bin/station"
# ProtectHome=yes hides these from the service: a station installed there cannot start.
HIDDEN_HOMES = ("/home/", "/root/", "/run/user/")


@dataclass(frozen=True, slots=True)
class Service:
    """One installable service: ``systemd/<unit>`` and ``systemd/<skeleton>`` as shipped."""

    name: str  # install-service --service NAME
    unit: str  # the unit file, installed in /etc/systemd/system/
    skeleton: str  # the config written once as /etc/<config_dir>/<skeleton>
    config_dir: str  # the unit's ConfigurationDirectory=
    check: str  # how to check the installed config ({config}, {etc}); "" when there is none
    key_for: str  # who gets the public half of the unit's signing key
    folders: tuple[str, ...] = ("credentials",)  # made under /etc/<config_dir>
    rules: str | None = None  # udev rules, for a service with devices
    paytables: bool = False  # config/paytables/*.yaml beside the config
    # The unit's devices follow its config: the DeviceAllow= a reader kind needs beyond the
    # shipped unit's (a HID scanner's input or hidraw node) go in a drop-in, only when the
    # config's reader uses them.
    devices: bool = False

    @property
    def etc(self) -> Path:
        return Path("etc") / self.config_dir


SERVICES: dict[str, Service] = {s.name: s for s in (
    Service("station", "dealer-station.service", "station.yaml", "dealer-station",
            "station check-config -c {config} --credentials {etc}/credentials",
            "the game server", rules="99-dealer-station.rules", paytables=True,
            devices=True),
    Service("pit", "dealer-pit.service", "pit.yaml", "dealer-pit",
            "station pit --check -c {config} --credentials {etc}/credentials",
            "each table (upstream.command_keys: pit)",
            folders=("credentials", "keys")),
    Service("archive", "dealer-archive.service", "archive.yaml", "dealer-archive",
            "station archive --check -c {config} --credentials {etc}/credentials",
            "each table (upstream.command_keys, under archive.name)",
            folders=("credentials", "keys")),
)}
# Folders the unit's dynamic user reads (the rest, the secrets, are root's only).
READABLE = ("keys",)


@dataclass(frozen=True, slots=True)
class Done:
    what: str  # wrote, replaced, kept, created, unchanged
    path: Path
    note: str = ""

    def line(self) -> str:
        return f"{self.what:9} {self.path}" + (f" ({self.note})" if self.note else "")


def station_program() -> str:
    """The ``station`` command of this installation, for the unit's ExecStart."""
    beside = Path(sys.executable).parent / "station"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    found = shutil.which("station")
    return str(Path(found).absolute()) if found else DEFAULT_EXEC


def unit_text(service: Service, program: str) -> str:
    text = (SHIPPED / "systemd" / service.unit).read_text(encoding="utf-8")
    return re.sub(r"^ExecStart=\S+", f"ExecStart={program}", text, count=1, flags=re.M)


def exec_start(unit: str) -> str:
    """What the unit runs: its ExecStart= line's command."""
    found = re.search(r"^ExecStart=(.+)$", unit, re.M)
    return found.group(1).strip() if found else ""


def install(root: Path, program: str, service: Service) -> list[Done]:
    """Put the service's files under ``root`` (``/`` on the PC). Raises OSError."""
    etc = root / service.etc
    done = [_ours(root / UNIT_DIR / service.unit, unit_text(service, program))]
    if service.rules is not None:
        done.append(_ours(root / RULES_DIR / service.rules,
                          (SHIPPED / "systemd" / service.rules).read_text(encoding="utf-8")))
    done.append(_theirs(etc / service.skeleton,
                        (SHIPPED / "systemd" / service.skeleton).read_text(encoding="utf-8")))
    if service.paytables:
        for paytable in sorted((SHIPPED / "config" / "paytables").glob("*.yaml")):
            done.append(_theirs(etc / "paytables" / paytable.name,
                                paytable.read_text(encoding="utf-8")))
    for name in service.folders:
        done.append(_folder(etc / name, readable=name in READABLE))
    if service.devices:
        done.append(_devices(root, service))
    return done


def dropin_path(service: Service) -> Path:
    """The drop-in beside the unit that lets it open the devices its config names."""
    from station.kinds.readers import DEVICES_DROPIN  # noqa: PLC0415

    assert DEVICES_DROPIN.parent.name == f"{service.unit}.d"
    return DEVICES_DROPIN


def device_allow(config_path: Path) -> tuple[str, ...]:
    """The ``DeviceAllow=`` lines the config at ``config_path`` needs beyond the unit's;
    raises ConfigError (the config does not load)."""
    from station.kinds.registry import kind  # noqa: PLC0415
    from station.live.config import load_config  # noqa: PLC0415

    # A config naming the unit's credentials (${CREDENTIALS_DIRECTORY}/ID) loads without
    # them: the reader's devices do not depend on a secret, and there is no unit running yet.
    before = os.environ.get("CREDENTIALS_DIRECTORY")
    with tempfile.TemporaryDirectory(prefix="station-install-") as none_yet:
        os.environ.setdefault("CREDENTIALS_DIRECTORY", none_yet)
        try:
            config = load_config(config_path)
        finally:
            if before is None:
                os.environ.pop("CREDENTIALS_DIRECTORY", None)
    entry = kind("reader", config.reader.type)
    return () if entry.device_allow is None else entry.device_allow(config)


def _devices(root: Path, service: Service) -> Done:
    from station.errors import ConfigError  # noqa: PLC0415

    path = root / dropin_path(service)
    config = root / service.etc / service.skeleton
    try:
        lines = device_allow(config)
    except ConfigError as exc:
        return Done("skipped", path, f"{config} does not load ({str(exc).splitlines()[0]}); "
                    "run install-service again once station check-config passes")
    if not lines:
        if path.is_file():
            path.unlink()
            return Done("removed", path, "the config's reader needs no more devices")
        return Done("unchanged", path, "none needed: the config's reader needs no more "
                    "devices than the unit allows")
    text = ("# Written by `station install-service` from the config's reader "
            f"({config.relative_to(root)}): the devices it opens beyond the unit's own. Run "
            "install-service again after changing the reader.\n[Service]\n"
            + "".join(f"DeviceAllow={line}\n" for line in lines))
    return _ours(path, text)


def _folder(path: Path, *, readable: bool) -> Done:
    if path.is_dir():
        return Done("kept", path)
    mode = 0o755 if readable else 0o700
    path.mkdir(mode=mode, parents=True)
    path.chmod(mode)  # mkdir's mode is cut by the umask
    return Done("created", path, "for the tables' public keys" if readable
                else "for the signing key, readable by root only")


def _ours(path: Path, text: str) -> Done:
    if path.is_file():
        if path.read_text(encoding="utf-8", errors="replace") == text:
            return Done("unchanged", path)
        old = path.with_name(path.name + ".old")
        path.replace(old)
        _write(path, text)
        return Done("replaced", path, f"the previous one is {old.name}")
    _write(path, text)
    return Done("wrote", path)


def _theirs(path: Path, text: str) -> Done:
    if path.exists():
        return Done("kept", path, "yours; not overwritten")
    _write(path, text)
    return Done("wrote", path)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o644)  # systemd, udev and the unit's dynamic user read these
    tmp.replace(path)


def _signing_key(unit: str) -> Path | None:
    """The file the unit loads as its credential ``signing-key``."""
    found = re.search(r"^LoadCredential=signing-key:(\S+)$", unit, re.M)
    return Path(found.group(1)) if found else None


def next_steps(root: Path, program: str, service: Service) -> list[str]:
    etc = root / service.etc
    config = etc / service.skeleton
    name = service.unit.removesuffix(".service")
    steps = [f"edit {config}" + (", then check it:" if service.check else "")]
    if service.check:
        steps.append("  " + service.check.format(config=config, etc=etc))
    key = _signing_key(unit_text(service, program))
    if key is not None:
        steps += [f"make the signing key: station keygen {root / key.parent.relative_to('/')} "
                  f"--name {key.stem}",
                  f"  (give {key.stem}.pub.pem to {service.key_for}; the unit loads "
                  f"{key.name})"]
    if "keys" in service.folders:
        steps.append(f"put each table's public key (<table>.pub.pem) in {etc / 'keys'}")
    if service.devices:
        steps.append(f"after changing the config's reader, run station install-service again: "
                     f"{root / dropin_path(service)} follows it (then systemctl daemon-reload)")
    if service.rules is not None:
        steps += [f"edit the udev rules in {root / RULES_DIR / service.rules} for your "
                  "devices, then:", "  udevadm control --reload && udevadm trigger"]
    steps += [f"systemctl daemon-reload && systemctl enable --now {name}",
              f"journalctl -u {name} -f     # what it says; systemctl status shows its state"]
    if program.startswith(HIDDEN_HOMES):
        steps.insert(0, f"WARNING: {program} is under a home directory, which the unit hides "
                     "(ProtectHome=yes): install the station under /opt (docs/operations.md)")
    return steps
