"""``station ca init DIR`` and ``station ca issue DIR NAME``: a small studio CA for a lab,
and the certificates the pit, the displays (server) and the broker's clients need
(docs/operations.md, "Pages over TLS"). Nothing is ever overwritten."""

from __future__ import annotations

import argparse
import datetime as dt
import re
from pathlib import Path
from typing import Any

from station.errors import StationError

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "ca", help="make a small studio CA and its server and client certificates",
        description="init: a new CA in DIR (ca.pem to hand out, ca-key.pem to keep). issue: "
        "a certificate signed by DIR's CA, NAME.pem and NAME-key.pem, for a server (the pit, "
        "a display, the broker: --name for each DNS name and address it answers as) or, with "
        "--client, for a client of the broker. A studio with its own PKI uses its own.",
    )
    p.add_argument("action", choices=("init", "issue"))
    p.add_argument("dir", type=Path, metavar="DIR", help="the CA's folder")
    p.add_argument("cn", nargs="?", default=None, metavar="NAME",
                   help="issue: the certificate's name (its files' stem and common name)")
    p.add_argument("--name", dest="names", action="append", default=[], metavar="HOST",
                   help="issue: a DNS name or IP address the server answers as (repeat)")
    p.add_argument("--client", action="store_true", help="issue: a client certificate")
    p.add_argument("--out", type=Path, default=None,
                   help="issue: the folder for the two files (default: DIR)")
    p.add_argument("--ca-name", default="dealer-station studio CA",
                   help="init: the CA's common name")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.wire import pki  # noqa: PLC0415 - only this command loads x509

    now = dt.datetime.now(dt.UTC)
    try:
        if args.action == "init":
            if args.cn is not None or args.names or args.client or args.out is not None:
                raise StationError("ca init takes only DIR (and --ca-name)")
            made = pki.init_ca(args.dir, args.ca_name[:64], now)
            print(f"CA certificate: {made.cert} (give it to every browser and client that "
                  "must trust the studio's servers)")
            print(f"CA key:         {made.key} (mode 0600; keep it off the network)")
            return 0
        if args.cn is None or not _NAME.fullmatch(args.cn):
            raise StationError("ca issue DIR NAME: NAME is 1-64 of A-Z a-z 0-9 . _ -, e.g. pit")
        made = pki.issue(args.dir, args.cn, args.names, client=args.client, now=now,
                         out=args.out)
    except OSError as exc:
        raise StationError(f"ca {args.action} {args.dir}: {exc.strerror or exc}") from None
    print(f"certificate: {made.cert} (then the CA's; valid until {made.not_after:%Y-%m-%d})")
    print(f"key:         {made.key} (mode 0600)")
    if args.client:
        print(f"for the broker: cafile {args.dir / pki.CA_CERT}, require_certificate true, "
              f"use_identity_as_username true: it signs in as {args.cn}")
    else:
        print("for a page: tls: {cert_file: " + str(made.cert) + ", key_file: "
              + str(made.key) + "}")
    return 0
