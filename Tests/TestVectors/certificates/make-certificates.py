#!/usr/bin/env python3
# Writes the test certificates of this directory: `make-certificates.py <dir>` (needs Python's
# `cryptography` package). They are signed with throwaway keys (EC keys from fixed numbers, one
# fresh RSA key, so a new run changes that certificate's bytes); parsing never checks a signature.
# The last group is made by editing encodings (a negative serial, an explicit or absent version,
# BER indefinite and long-form lengths), which no certificate builder writes.
# expected.json holds what Certificate(der:) extracts from each, or the error it refuses it with
# (see ../README.md); it must be regenerated with the certificates.
import datetime, os, sys
from cryptography import x509
from cryptography.x509.oid import NameOID, ExtensionOID, ObjectIdentifier
from cryptography.x509.name import _ASN1Type
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
def eckey(n, curve=ec.SECP256R1()):
    return ec.derive_private_key(n, curve)
ca = eckey(0x1234567890abcdef)
ca_name = x509.Name([
    x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example  Trust"),
    x509.NameAttribute(NameOID.COMMON_NAME, "Example Issuing CA"),
])
start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
end = datetime.datetime(2044, 1, 1, tzinfo=datetime.timezone.utc)

def build(subject, key, serial, exts=(), issuer=ca_name, signer=ca, version=None):
    b = x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key()) \
        .serial_number(serial).not_valid_before(start).not_valid_after(end)
    for e, crit in exts:
        b = b.add_extension(e, critical=crit)
    cert = b.sign(signer, hashes.SHA256())
    return cert.public_bytes(serialization.Encoding.DER)

def write(name, der):
    open(os.path.join(out, name + ".der"), "wb").write(der)

def skid(k): return x509.SubjectKeyIdentifier.from_public_key(k.public_key())

leaf = eckey(0x1111)
write("leaf-ec-p256", build(x509.Name([
    x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example  Org"),
    x509.NameAttribute(NameOID.COMMON_NAME, "first"),
    x509.NameAttribute(NameOID.COMMON_NAME, "Leaf  Name"),
    x509.NameAttribute(NameOID.EMAIL_ADDRESS, "subject@example.com"),
]), leaf, 0x0123456789, [
    (skid(leaf), False),
    (x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.public_key()), False),
    (x509.SubjectAlternativeName([x509.RFC822Name("leaf@example.com"), x509.DNSName("leaf.example.com"),
        x509.UniformResourceIdentifier("https://example.com/"), x509.IPAddress(__import__('ipaddress').ip_address("192.0.2.1")),
        x509.DirectoryName(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dir")])),
        x509.RFC822Name("second@example.com"), x509.DNSName("*.example.com")]), False),
    (x509.BasicConstraints(ca=False, path_length=None), True),
]))

rsakey = rsa.generate_private_key(public_exponent=65537, key_size=2048)
write("rsa-high-bit-serial", build(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "RSA Server")]), rsakey,
    0x8F000000000000000000000000000000000001, [(skid(rsakey), False)]))

mv = eckey(0x2222)
write("multivalued-utf8", build(x509.Name([
    x509.RelativeDistinguishedName([x509.NameAttribute(NameOID.COMMON_NAME, "  spaced   Out  "),
                                    x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "ünïcødé Unit")]),
    x509.RelativeDistinguishedName([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Ørg\tTabs")]),
]), mv, 1))

st = eckey(0x3333, ec.SECP384R1())
write("string-types-p384", build(x509.Name([
    x509.NameAttribute(NameOID.COUNTRY_NAME, "DE", _type=_ASN1Type.PrintableString),
    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Tëletex", _type=_ASN1Type.T61String),
    x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "BMP Ωmega", _type=_ASN1Type.BMPString),
    x509.NameAttribute(NameOID.LOCALITY_NAME, "Universal ∑", _type=_ASN1Type.UniversalString),
    x509.NameAttribute(NameOID.EMAIL_ADDRESS, "ia5@example.com", _type=_ASN1Type.IA5String),
    x509.NameAttribute(ObjectIdentifier("1.3.6.1.4.1.99999.1"), "private attr", _type=_ASN1Type.UTF8String),
    x509.NameAttribute(NameOID.X500_UNIQUE_IDENTIFIER, b"\x01\x02\x03", _type=_ASN1Type.BitString),
]), st, 0x7F, [(skid(st), False)]))

ou = eckey(0x4444)
write("ou-only-no-cn", build(x509.Name([
    x509.NameAttribute(NameOID.COUNTRY_NAME, "FR"),
    x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "Only Unit"),
]), ou, 42))

em = eckey(0x5555)
write("empty-subject-san-email", build(x509.Name([]), em, 43, [
    (x509.SubjectAlternativeName([x509.RFC822Name("only@example.com")]), True)]))

p521 = eckey(0x6666, ec.SECP521R1())
write("self-signed-p521", build(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Root")]), p521, 1,
    [(skid(p521), False), (x509.BasicConstraints(ca=True, path_length=None), True)],
    issuer=x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Root")]), signer=p521))

# Extensions that are DER but not what they claim to be, and that are not DER.
odd = eckey(0x7777)
def unrec(oid, value): return (x509.UnrecognizedExtension(oid, value), False)
base_subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Odd")])
write("skid-wrong-type", build(base_subject, odd, 7, [unrec(ExtensionOID.SUBJECT_KEY_IDENTIFIER, b"\x30\x03\x04\x01\xAA")]))
write("skid-not-der", build(base_subject, odd, 8, [unrec(ExtensionOID.SUBJECT_KEY_IDENTIFIER, b"\x04\x05\xAA")]))
write("skid-trailing", build(base_subject, odd, 9, [unrec(ExtensionOID.SUBJECT_KEY_IDENTIFIER, b"\x04\x01\xAA\x00")]))
write("san-not-der", build(base_subject, odd, 10, [unrec(ExtensionOID.SUBJECT_ALTERNATIVE_NAME, b"\x30\x05\x81\x03ab")]))
write("san-bad-name", build(base_subject, odd, 11, [unrec(ExtensionOID.SUBJECT_ALTERNATIVE_NAME, b"\x30\x05\x81\x01a\x05\x00")]))
write("san-wrong-type", build(base_subject, odd, 12, [unrec(ExtensionOID.SUBJECT_ALTERNATIVE_NAME, b"\x31\x03\x81\x01a")]))
write("bc-not-der", build(base_subject, odd, 13, [unrec(ExtensionOID.BASIC_CONSTRAINTS, b"\x30\x05\x01")]))
write("unknown-ext-garbage", build(base_subject, odd, 14, [unrec(ObjectIdentifier("1.3.6.1.4.1.99999.2"), b"\xFF\xFF")]))

# Edited encodings.
def read(name): return open(os.path.join(out, name + ".der"), "rb").read()
def write(name, b): open(os.path.join(out, name + ".der"), "wb").write(b)
def tlv(b, i=0):
    tag = b[i]; l = b[i+1]; j = i + 2
    if l & 0x80:
        n = l & 0x7f; l = int.from_bytes(b[j:j+n], 'big'); j += n
    return tag, b[j:j+l], b[i:j+l], j + l
def children(content):
    i = 0; r = []
    while i < len(content):
        t, c, whole, i = tlv(content, i); r.append((t, c, whole))
    return r
def enc_len(n):
    if n < 0x80: return bytes([n])
    s = n.to_bytes((n.bit_length() + 7) // 8, 'big'); return bytes([0x80 | len(s)]) + s
def enc(tag, content): return bytes([tag]) + enc_len(len(content)) + content

src = read("ou-only-no-cn")
_, certc, _, _ = tlv(src)
tbs, alg, sig = children(certc)
tbs_kids = children(tbs[1])
assert tbs_kids[0][0] == 0xA0 and tbs_kids[1][0] == 0x02
# negative serial -42 (0xD6)
neg = [tbs_kids[0][2], enc(0x02, b"\xD6")] + [k[2] for k in tbs_kids[2:]]
write("negative-serial", enc(0x30, enc(0x30, b"".join(neg)) + alg[2] + sig[2]))
# explicit version 0 (v1 with the DEFAULT written out)
ex = [enc(0xA0, enc(0x02, b"\x00"))] + [k[2] for k in tbs_kids[1:]]
write("explicit-v1", enc(0x30, enc(0x30, b"".join(ex)) + alg[2] + sig[2]))
# v1 without version
v1 = [k[2] for k in tbs_kids[1:]]
write("v1-no-version", enc(0x30, enc(0x30, b"".join(v1)) + alg[2] + sig[2]))
# BER: indefinite length outside, then inside the TBS
write("ber-indefinite-outer", b"\x30\x80" + tbs[2] + alg[2] + sig[2] + b"\x00\x00")
write("ber-indefinite-tbs", enc(0x30, b"\x30\x80" + tbs[1] + b"\x00\x00" + alg[2] + sig[2]))
# non-minimal length in the outer header and in the TBS header
body = tbs[2] + alg[2] + sig[2]
write("long-form-outer-length", b"\x30\x84" + len(body).to_bytes(4, 'big') + body)
write("long-form-tbs-length", enc(0x30, b"\x30\x84" + len(tbs[1]).to_bytes(4, 'big') + tbs[1] + alg[2] + sig[2]))
# non-minimal length inside the subject Name (a definite, long-form length)
subj_idx = 5
subj = tbs_kids[subj_idx]
assert subj[0] == 0x30
longsubj = b"\x30\x84" + len(subj[1]).to_bytes(4, 'big') + subj[1]
ks = [k[2] for k in tbs_kids]; ks[subj_idx] = longsubj
write("long-form-subject-length", enc(0x30, enc(0x30, b"".join(ks)) + alg[2] + sig[2]))
# BER indefinite inside the validity
val_idx = 4
val = tbs_kids[val_idx]
ks = [k[2] for k in tbs_kids]; ks[val_idx] = b"\x30\x80" + val[1] + b"\x00\x00"
write("ber-indefinite-validity", enc(0x30, enc(0x30, b"".join(ks)) + alg[2] + sig[2]))
