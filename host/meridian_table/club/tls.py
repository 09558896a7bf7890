"""The club's own certificate authority, and the certificates it signs (``cryptography``).

``club init --tls`` (and ``club serve`` for its private PostgreSQL) makes a CA once; the
server's certificate names every address the tables use, so they connect with
``sslmode=verify-full``: encrypted, and sure it is the club's server. The CA's
certificate is public (``club.meta``, and inside each invitation code as its SHA-256
fingerprint); its private key never leaves the organiser's folder (mode 0600).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from meridian_table.club.errors import ClubError

LOGGER = logging.getLogger(__name__)

CA_YEARS = 10
SERVER_YEARS = 2


@dataclass(frozen=True)
class Authority:
    """A CA's files: ``ca.crt`` (public) and ``ca.key`` (0600) in ``folder``."""

    folder: Path

    @property
    def cert_file(self) -> Path:
        return self.folder / "ca.crt"

    @property
    def key_file(self) -> Path:
        return self.folder / "ca.key"

    def pem(self) -> str:
        return self.cert_file.read_text()


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def authority(folder: Path, name: str) -> Authority:
    """The CA in ``folder``, made there first when it has none."""
    made = Authority(folder)
    if made.cert_file.exists() and made.key_file.exists():
        return made
    folder.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Meridian club CA ({name})")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=365 * CA_YEARS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=False, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    _write_private(made.key_file, _key_pem(key))
    made.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    LOGGER.info("made the club's certificate authority in %s", folder)
    return made


def issue(ca: Authority, names: list[str], cert_file: Path, key_file: Path) -> None:
    """A server certificate for every name and address in ``names``, signed by ``ca``."""
    if not names:
        raise ClubError("a server certificate needs at least one name or address")
    ca_cert = x509.load_pem_x509_certificate(ca.cert_file.read_bytes())
    ca_key = serialization.load_pem_private_key(ca.key_file.read_bytes(), None)
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
        raise ClubError(f"{ca.key_file} is not the club CA's key; remove the folder "
                        f"{ca.folder} to make a new CA")
    alternatives: list[x509.GeneralName] = []
    for name in names:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=365 * SERVER_YEARS))
            .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    _write_private(key_file, _key_pem(key))
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def fingerprint(pem: str) -> str:
    """The SHA-256 of a certificate (DER), base64url without padding: what an invitation
    code carries so the table can check the CA it is given."""
    der = x509.load_pem_x509_certificate(pem.encode()).public_bytes(serialization.Encoding.DER)
    return base64.urlsafe_b64encode(hashlib.sha256(der).digest()).decode().rstrip("=")
