"""``station install-service``: the unit, the udev rules and a config skeleton in place.

Ours to replace (the previous copy kept as ``*.old``): the unit and the rules, which come
with the station's version. Never replaced: the config and the paytables under
/etc/dealer-station, which are the operator's once written.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

SHIPPED = Path(__file__).resolve().parent.parent / "shipped"
UNIT_NAME = "dealer-station.service"
RULES_NAME = "99-dealer-station.rules"
CONFIG_DIR = Path("etc/dealer-station")
UNIT_DIR = Path("etc/systemd/system")
RULES_DIR = Path("etc/udev/rules.d")
DEFAULT_EXEC = "/opt/dealer-station/.venv/bin/station"
# ProtectHome=yes hides these from the service: a station installed there cannot start.
HIDDEN_HOMES = ("/home/", "/root/", "/run/user/")


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


def unit_text(program: str) -> str:
    text = (SHIPPED / "systemd" / UNIT_NAME).read_text(encoding="utf-8")
    return re.sub(r"^ExecStart=\S+", f"ExecStart={program}", text, count=1, flags=re.M)


def install(root: Path, program: str) -> list[Done]:
    """Put every file under ``root`` (``/`` on the PC). Raises OSError."""
    done = [
        _ours(root / UNIT_DIR / UNIT_NAME, unit_text(program)),
        _ours(root / RULES_DIR / RULES_NAME,
              (SHIPPED / "systemd" / RULES_NAME).read_text(encoding="utf-8")),
        _theirs(root / CONFIG_DIR / "station.yaml",
                (SHIPPED / "systemd" / "station.yaml").read_text(encoding="utf-8")),
    ]
    for paytable in sorted((SHIPPED / "config" / "paytables").glob("*.yaml")):
        done.append(_theirs(root / CONFIG_DIR / "paytables" / paytable.name,
                            paytable.read_text(encoding="utf-8")))
    creds = root / CONFIG_DIR / "credentials"
    if creds.is_dir():
        done.append(Done("kept", creds))
    else:
        creds.mkdir(mode=0o700, parents=True)
        creds.chmod(0o700)  # mkdir's mode is cut by the umask
        done.append(Done("created", creds, "for the signing key, readable by root only"))
    return done


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


def next_steps(root: Path, program: str) -> list[str]:
    etc = root / CONFIG_DIR
    steps = [
        f"edit {etc / 'station.yaml'} (table.id at least), then check it:",
        f"  station check-config -c {etc / 'station.yaml'} --credentials {etc / 'credentials'}",
        f"make the signing key: station keygen {etc / 'credentials'}",
        "  (give the game server signing-key.pub.pem; the unit loads signing-key.pem)",
        f"edit the udev rules in {root / RULES_DIR / RULES_NAME} for your devices, then:",
        "  udevadm control --reload && udevadm trigger",
        "systemctl daemon-reload && systemctl enable --now dealer-station",
        "journalctl -u dealer-station -f     # what it says; systemctl status shows its state",
    ]
    if program.startswith(HIDDEN_HOMES):
        steps.insert(0, f"WARNING: {program} is under a home directory, which the unit hides "
                     "(ProtectHome=yes): install the station under /opt (docs/operations.md)")
    return steps
