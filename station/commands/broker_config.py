"""``station broker-config -c STUDIO.yaml --out DIR``: the studio's Mosquitto 2 configuration,
``DIR/mosquitto.conf`` and ``DIR/acl``, from its tables, pits, archives, game servers and
bridges (station.services.broker.profile; docs/operations.md, "The studio's broker")."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from station.errors import ConfigError, StationError

SUMMARY = "write the studio's Mosquitto configuration: TLS, identities, one ACL per party"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "broker-config", help=SUMMARY,
        description="Read STUDIO.yaml (config/studio.yaml is the example) and write "
        "DIR/mosquitto.conf (a TLS listener, no anonymous clients, each party known by its "
        "client certificate or by a password file) and DIR/acl (each table publishes only "
        "its own events, status and journal and reads only its own commands; pits, archives "
        "and game servers what their role needs; nobody else anything). Both files are "
        "replaced whole, or not at all. Run the broker with mosquitto -c DIR/mosquitto.conf.",
    )
    p.add_argument("-c", "--config", type=Path, required=True, help="the studio's YAML")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="the folder the two files go in (made if missing)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.services.broker.profile import ACL, CONF, acl_text, conf_text  # noqa: PLC0415
    from station.services.broker.studio import load_studio  # noqa: PLC0415

    studio = load_studio(args.config)
    b = studio.broker
    for key, path in (("broker.ca_file", b.ca_file), ("broker.cert_file", b.cert_file),
                      ("broker.key_file", b.key_file), ("broker.password_file",
                                                        b.password_file)):
        if path is not None and not path.is_file():
            raise ConfigError(f"{args.config}: {key}: {path}: no such file; "
                              + ("make it with `mosquitto_passwd -c FILE NAME`"
                                 if key == "broker.password_file" else
                                 "name the studio CA's PEM files (docs/operations.md)"))
    out = Path(os.path.abspath(args.out))
    try:
        if out.exists() and not out.is_dir():
            raise StationError(f"--out {out}: a file, not a folder; choose another --out")
        out.mkdir(parents=True, exist_ok=True)
        acl = out / ACL
        files = {acl: acl_text(studio), out / CONF: conf_text(studio, acl)}
        temps = []
        for path, text in files.items():
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.chmod(tmp, 0o644)
            temps.append((tmp, path))
        for tmp, path in temps:
            os.replace(tmp, path)
    except OSError as exc:
        raise StationError(f"--out {out}: {exc.strerror or exc}") from None
    print(f"wrote {out / CONF} and {acl}: {len(studio.tables)} table(s), "
          f"{len(studio.pits)} pit(s), {len(studio.archives)} archive(s), "
          f"{len(studio.game_servers)} game server(s), {len(studio.bridges)} bridge(s) out, "
          f"{len(studio.peers)} in")
    how = ("a client certificate from the studio CA with this common name"
           if b.identity == "certificate" else f"a user of {b.password_file}")
    print(f"each party connects with {how}:")
    for identity in studio.identities():
        print(f"  {identity}")
    print(f"run: mosquitto -c {out / CONF}   (after a change: run this again, then restart "
          "the broker, or SIGHUP it for the ACL alone)")
    return 0
