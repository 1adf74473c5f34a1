"""``station keygen DIR``: a new Ed25519 key pair for signing upstream messages (or for a pit
system that signs commands to the station)."""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path
from typing import Any

from station.errors import StationError
from station.wire.keyfiles import write_mirror_pair, write_pair


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "keygen",
        help="write a new Ed25519 key pair for signing upstream messages",
        description=(
            "Write NAME.pem (the private key, PEM PKCS#8, mode 0600) and NAME.pub.pem (the "
            "public key) into DIR, and print the config lines for each use of the pair: the "
            "station signing its messages, or a pit system signing commands to the station. "
            "Existing files are never overwritten."
        ),
    )
    parser.add_argument("dir", type=Path, metavar="DIR", help="directory for the two files")
    parser.add_argument("--name", default=None,
                        help="file name stem (default: signing-key, with --mirror "
                             "mirror-key)")
    parser.add_argument("--mirror", action="store_true",
                        help="an X25519 pair instead, for the journal's mirror: the archive "
                             "keeps the private key (archive.mirror_key_file), each station "
                             "seals its records for the public one (upstream.mirror_key)")
    parser.add_argument("--sender", default=None, metavar="NAME",
                        help="the name the signer of commands signs as, under which the "
                             "station lists the public key in upstream.command_keys "
                             "(default: the pit's pit.name, pit)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.services.pit.settings import PitSettings  # noqa: PLC0415
    from station.settings.upstream import KEY_NAME  # noqa: PLC0415
    from station.wire.signing import public_raw_b64  # noqa: PLC0415

    directory: Path = args.dir
    name: str = args.name or ("mirror-key" if args.mirror else "signing-key")
    if not name or "/" in name or name.startswith("."):
        raise StationError(f"--name {name!r}: a plain file name stem, like signing-key")
    # The key's name in command_keys is the signer's name, never the file's: the pit signs
    # as pit.name whatever its key file is called (issue 30: "pit-key" where the pit is "pit").
    sender: str = PitSettings().name if args.sender is None else args.sender
    if not KEY_NAME.fullmatch(sender):
        raise StationError(f"--sender {sender!r}: 1-64 of letters, digits, '_', '-' and '.', "
                           "the name the pit (pit.name) or client signs its commands as")
    private = directory / f"{name}.pem"
    public = directory / f"{name}.pub.pem"
    for path in (private, public):
        if path.exists():
            raise StationError(f"{path} already exists: not overwriting a key; choose another "
                               "DIR or --name, or remove it if it was never used")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        if args.mirror:
            mirror = write_mirror_pair(private, public)
        else:
            key = write_pair(private, public)
    except OSError as exc:
        raise StationError(f"keygen {directory}: {exc.strerror or exc}") from None
    private, public = Path(os.path.abspath(private)), Path(os.path.abspath(public))
    if args.mirror:
        from station.wire.sealing import key_id  # noqa: PLC0415

        for line in mirror_usage(private, public, key_id(mirror.public_key())):
            print(line)
        return 0
    for line in usage(private, public, sender, public_raw_b64(key.public_key())):
        print(line)
    return 0


def usage(private: Path, public: Path, sender: str, fingerprint: str) -> list[str]:
    """What the operator does with the pair, for each of its two uses. Paths are absolute:
    a config names its files relative to its own folder, which keygen cannot know, and an
    absolute path means the same from any config. ``sender``: the name the signer of
    commands signs as (the pit's ``pit.name``)."""
    return [
        f"private key: {private} (mode 0600; it signs: it stays with whoever signs)",
        f"public key:  {public} (it verifies: safe to hand out)",
        f"fingerprint: {fingerprint} (the raw public key, base64)",
        "",
        "If the station signs its messages with this pair, add to the station's config:",
        "  upstream:",
        f"    signing_key_file: {_yaml(private)}",
        "Under systemd, instead: leave signing_key_file unset and add to the unit",
        f"  LoadCredential=signing-key:{private}",
        f"Give the public key, {public}, to the game server: it verifies every message "
        "with it.",
        "",
        "If a pit system or a player's client signs commands to the station with this pair,",
        "keep the private key on that system (it signs each command) and add the public key",
        f"to the station's config, under the name the signer signs as ({sender}: the pit's",
        "pit.name; another with --sender):",
        "  upstream:",
        "    command_keys:",
        f"      {sender}: {_yaml(public)}",
    ]


def mirror_usage(private: Path, public: Path, kid: str) -> list[str]:
    """Where each half of a mirror pair goes."""
    return [
        f"private key: {private} (mode 0600; it opens the journal's mirror: it stays with "
        "the archive)",
        f"public key:  {public} (it seals: give it to every station that mirrors)",
        f"key id:      {kid} (what each sealed record names in its 'to')",
        "",
        "Add to the archive's config:",
        "  archive:",
        f"    mirror_key_file: {_yaml(private)}",
        "Under systemd, instead: leave mirror_key_file unset and add to the archive's unit",
        f"  LoadCredential=mirror-key:{private}",
        "",
        "Add to each station's config:",
        "  upstream:",
        "    mirror: true",
        f"    mirror_key: {_yaml(public)}",
    ]


def _yaml(path: Path) -> str:
    """``path`` as a YAML scalar that reads back as the same text: plain when it can be,
    else double-quoted (a JSON string is a valid YAML double-quoted scalar)."""
    text = str(path)
    return text if re.fullmatch(r"[A-Za-z0-9_./+-]+", text) else json.dumps(text)
