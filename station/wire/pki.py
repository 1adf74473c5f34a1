"""A small studio CA for a lab: ``station ca init|issue`` (docs/operations.md, "Pages over
TLS"). A studio with its own PKI issues the pit's, the displays' and the broker's
certificates there instead; these files are the same PEM either way.

Keys are ECDSA P-256: every browser, OpenSSL and mosquitto take it, and it is small. The
CA may sign end certificates only (path length 0); an end certificate is for a server
(``serverAuth``, with the DNS names and addresses it answers as) or a client (``clientAuth``,
e.g. a station's or the pit's certificate for the broker's ``require_certificate``).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from station.errors import StationError

CA_CERT: Final = "ca.pem"
CA_KEY: Final = "ca-key.pem"
CA_DAYS: Final = 3650
LEAF_DAYS: Final = 397  # under the 398 days browsers accept of a public CA; a lab renews yearly


@dataclass(frozen=True, slots=True)
class Issued:
    cert: Path
    key: Path
    not_after: dt.datetime


def _write_new(path: Path, data: bytes, mode: int) -> None:
    # O_EXCL: a key already handed out is never replaced; the mode is set at creation.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(path, mode)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _fresh(*paths: Path) -> None:
    for path in paths:
        if path.exists():
            raise StationError(f"{path} already exists: not overwriting a certificate or key; "
                               "choose another folder or name, or remove it if it was never "
                               "used")


def init_ca(folder: Path, name: str, now: dt.datetime) -> Issued:
    """A new CA in ``folder``: ca.pem (hand it out: it is what clients trust) and ca-key.pem
    (0600: it issues). Raises StationError when either exists, OSError."""
    cert_path, key_path = folder / CA_CERT, folder / CA_KEY
    _fresh(cert_path, key_path)
    folder.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False,
                                         False), critical=True)
            .add_extension(ski, critical=False)
            .sign(key, hashes.SHA256()))
    _write_new(key_path, _key_pem(key), 0o600)
    _write_new(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return Issued(cert_path, key_path, cert.not_valid_after_utc)


def load_ca(folder: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """The CA ``init_ca`` wrote in ``folder``. Raises StationError."""
    try:
        cert = x509.load_pem_x509_certificate((folder / CA_CERT).read_bytes())
        key = serialization.load_pem_private_key((folder / CA_KEY).read_bytes(), None)
    except FileNotFoundError as exc:
        raise StationError(f"{folder}: no CA here ({exc.filename} is missing); make one with "
                           f"`station ca init {folder}`") from None
    except (ValueError, TypeError) as exc:
        raise StationError(f"{folder}: {CA_CERT}/{CA_KEY} are not a CA's PEM certificate "
                           f"and unencrypted key ({exc})") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise StationError(f"{folder / CA_KEY}: not an EC key as `station ca init` writes")
    return cert, key


def split_names(names: list[str]) -> tuple[list[str], list[ipaddress.IPv4Address |
                                                       ipaddress.IPv6Address]]:
    """The DNS names and the IP addresses among ``names``."""
    dns: list[str] = []
    ips: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for name in names:
        try:
            ips.append(ipaddress.ip_address(name.strip("[]")))
        except ValueError:
            dns.append(name.lower())
    return dns, ips


def issue(folder: Path, name: str, names: list[str], *, client: bool, now: dt.datetime,
          out: Path | None = None) -> Issued:
    """A certificate signed by ``folder``'s CA, written to ``out`` (default ``folder``) as
    NAME.pem (the certificate then the CA's: the chain a server sends) and NAME-key.pem
    (0600). A server's is for ``names`` (DNS names and IP addresses); a client's (``client``)
    names ``name`` as its common name, the user a broker maps it to. Raises StationError."""
    ca_cert, ca_key = load_ca(folder)
    where = out or folder
    cert_path, key_path = where / f"{name}.pem", where / f"{name}-key.pem"
    _fresh(cert_path, key_path)
    dns, ips = split_names(names)
    if not client and not (dns or ips):
        raise StationError("a server certificate needs the names it answers as: --name "
                           "pit.studio.example --name 192.0.2.10 ...")
    where.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    alt: list[x509.GeneralName] = [x509.DNSName(d) for d in dns]
    alt += [x509.IPAddress(i) for i in ips]
    usage = ExtendedKeyUsageOID.CLIENT_AUTH if client else ExtendedKeyUsageOID.SERVER_AUTH
    ca_ski = ca_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
               .issuer_name(ca_cert.subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - dt.timedelta(minutes=5))
               .not_valid_after(min(now + dt.timedelta(days=LEAF_DAYS),
                                    ca_cert.not_valid_after_utc))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(True, False, False, False, False, False, False,
                                            False, False), critical=True)
               .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                              critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
                   ca_ski), critical=False))
    if alt:
        builder = builder.add_extension(x509.SubjectAlternativeName(alt), critical=False)
    cert = builder.sign(ca_key, hashes.SHA256())
    chain = cert.public_bytes(serialization.Encoding.PEM) + ca_cert.public_bytes(
        serialization.Encoding.PEM)
    _write_new(key_path, _key_pem(key), 0o600)
    _write_new(cert_path, chain, 0o644)
    return Issued(cert_path, key_path, cert.not_valid_after_utc)
