#ifndef COPENSSL_H
#define COPENSSL_H

// OpenSSL's libcrypto, loaded when a process first needs cryptography rather than when a program
// starts: a client of keychaind asks the daemon and never does, and binding libcrypto (built with
// BIND_NOW: some four thousand symbol lookups through every library of the process) was a third
// of a `security` run's start. The types and constants come from Debian's libssl-dev headers; the
// functions are found in libcrypto.so.3 (Debian's libssl3). KeychainCrypto is the only caller:
// it calls OpenSSL through the `COpenSSL_`-prefixed forwarders and helpers below, each of which
// loads the library on first use.

// The prepared HMAC keys below use the SHA-256 functions OpenSSL 3 marks deprecated (they remain
// supported): copying their 112-byte state costs a few instructions where the EVP interface
// allocates and duplicates a provider context per copy.
#define OPENSSL_SUPPRESS_DEPRECATED

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <string.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/// A precomputed HMAC-SHA256 key: the SHA-256 states after absorbing the inner and outer
/// padded keys (RFC 2104), so each MAC costs two short digests instead of a key set-up.
typedef struct COpenSSL_HMACKey {
    SHA256_CTX inner;
    SHA256_CTX outer;
} COpenSSL_HMACKey;

/// Loads libcrypto once per process. Returns 0 when every function below can be called;
/// otherwise -1, with the loader's reason copied into `reason` (at most `length` bytes,
/// NUL-terminated). The functions below load on first use too; when the library cannot be loaded
/// they end the process with the loader's reason and status 127, as the dynamic loader does for a
/// missing linked library.
int COpenSSL_load(char *reason, size_t length);

/// Makes `options` those of libcrypto's first initialisation (`OPENSSL_init_crypto`), which runs
/// when the library is loaded, before any other call; when it is loaded already, initialises with
/// them at once (OpenSSL then applies what it still can).
void COpenSSL_initializeOnLoad(uint64_t options);

/// Zeroes `length` bytes at `pointer` in a way the compiler may not remove (glibc's
/// `explicit_bzero`, which is what `OPENSSL_cleanse` guarantees); needs no libcrypto, so wiping a
/// buffer never loads it.
void COpenSSL_cleanse(void *pointer, size_t length);

/// libcrypto's `ASN1_OCTET_STRING_free`.
void COpenSSL_ASN1_OCTET_STRING_free(ASN1_OCTET_STRING *a);
/// libcrypto's `ASN1_STRING_get0_data`.
const unsigned char *COpenSSL_ASN1_STRING_get0_data(const ASN1_STRING *x);
/// libcrypto's `ASN1_STRING_length`.
int COpenSSL_ASN1_STRING_length(const ASN1_STRING *x);
/// libcrypto's `ASN1_get_object`.
int COpenSSL_ASN1_get_object(const unsigned char **pp, long *plength, int *ptag, int *pclass, long omax);
/// libcrypto's `BIO_free`.
int COpenSSL_BIO_free(BIO *a);
/// libcrypto's `BIO_new`.
BIO *COpenSSL_BIO_new(const BIO_METHOD *type);
/// libcrypto's `BIO_s_secmem`.
const BIO_METHOD *COpenSSL_BIO_s_secmem(void);
/// libcrypto's `BIO_write`.
int COpenSSL_BIO_write(BIO *b, const void *data, int dlen);
/// libcrypto's `BN_clear_free`.
void COpenSSL_BN_clear_free(BIGNUM *a);
/// libcrypto's `CRYPTO_memcmp`.
int COpenSSL_CRYPTO_memcmp(const void *in_a, const void *in_b, size_t len);
/// libcrypto's `ERR_clear_error`.
void COpenSSL_ERR_clear_error(void);
/// libcrypto's `ERR_get_error`.
unsigned long COpenSSL_ERR_get_error(void);
/// libcrypto's `EVP_CIPHER_CTX_ctrl`.
int COpenSSL_EVP_CIPHER_CTX_ctrl(EVP_CIPHER_CTX *ctx, int type, int arg, void *ptr);
/// libcrypto's `EVP_CIPHER_CTX_free`.
void COpenSSL_EVP_CIPHER_CTX_free(EVP_CIPHER_CTX *c);
/// libcrypto's `EVP_CIPHER_CTX_new`.
EVP_CIPHER_CTX *COpenSSL_EVP_CIPHER_CTX_new(void);
/// libcrypto's `EVP_CipherInit_ex`.
int COpenSSL_EVP_CipherInit_ex(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, ENGINE *impl, const unsigned char *key, const unsigned char *iv, int enc);
/// libcrypto's `EVP_CipherUpdate`.
int COpenSSL_EVP_CipherUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl);
/// libcrypto's `EVP_DecryptFinal_ex`.
int COpenSSL_EVP_DecryptFinal_ex(EVP_CIPHER_CTX *ctx, unsigned char *outm, int *outl);
/// libcrypto's `EVP_DecryptUpdate`.
int COpenSSL_EVP_DecryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl);
/// libcrypto's `EVP_Digest`.
int COpenSSL_EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size, const EVP_MD *type, ENGINE *impl);
/// libcrypto's `EVP_DigestFinal_ex`.
int COpenSSL_EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s);
/// libcrypto's `EVP_DigestInit_ex`.
int COpenSSL_EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl);
/// libcrypto's `EVP_DigestUpdate`.
int COpenSSL_EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *d, size_t cnt);
/// libcrypto's `EVP_EncryptFinal_ex`.
int COpenSSL_EVP_EncryptFinal_ex(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl);
/// libcrypto's `EVP_EncryptUpdate`.
int COpenSSL_EVP_EncryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl);
/// libcrypto's `EVP_MD_CTX_free`.
void COpenSSL_EVP_MD_CTX_free(EVP_MD_CTX *ctx);
/// libcrypto's `EVP_MD_CTX_new`.
EVP_MD_CTX *COpenSSL_EVP_MD_CTX_new(void);
/// libcrypto's `EVP_PBE_scrypt`.
int COpenSSL_EVP_PBE_scrypt(const char *pass, size_t passlen, const unsigned char *salt, size_t saltlen, uint64_t N, uint64_t r, uint64_t p, uint64_t maxmem, unsigned char *key, size_t keylen);
/// libcrypto's `EVP_PKEY_CTX_free`.
void COpenSSL_EVP_PKEY_CTX_free(EVP_PKEY_CTX *ctx);
/// libcrypto's `EVP_PKEY_CTX_new`.
EVP_PKEY_CTX *COpenSSL_EVP_PKEY_CTX_new(EVP_PKEY *pkey, ENGINE *e);
/// libcrypto's `EVP_PKEY_CTX_new_id`.
EVP_PKEY_CTX *COpenSSL_EVP_PKEY_CTX_new_id(int id, ENGINE *e);
/// libcrypto's `EVP_PKEY_CTX_set_group_name`.
int COpenSSL_EVP_PKEY_CTX_set_group_name(EVP_PKEY_CTX *ctx, const char *name);
/// libcrypto's `EVP_PKEY_CTX_set_rsa_keygen_bits`.
int COpenSSL_EVP_PKEY_CTX_set_rsa_keygen_bits(EVP_PKEY_CTX *ctx, int bits);
/// libcrypto's `EVP_PKEY_CTX_set_rsa_mgf1_md`.
int COpenSSL_EVP_PKEY_CTX_set_rsa_mgf1_md(EVP_PKEY_CTX *ctx, const EVP_MD *md);
/// libcrypto's `EVP_PKEY_CTX_set_rsa_oaep_md`.
int COpenSSL_EVP_PKEY_CTX_set_rsa_oaep_md(EVP_PKEY_CTX *ctx, const EVP_MD *md);
/// libcrypto's `EVP_PKEY_CTX_set_rsa_padding`.
int COpenSSL_EVP_PKEY_CTX_set_rsa_padding(EVP_PKEY_CTX *ctx, int pad_mode);
/// libcrypto's `EVP_PKEY_CTX_set_rsa_pss_saltlen`.
int COpenSSL_EVP_PKEY_CTX_set_rsa_pss_saltlen(EVP_PKEY_CTX *ctx, int saltlen);
/// libcrypto's `EVP_PKEY_CTX_set_signature_md`.
int COpenSSL_EVP_PKEY_CTX_set_signature_md(EVP_PKEY_CTX *ctx, const EVP_MD *md);
/// libcrypto's `EVP_PKEY_decrypt`.
int COpenSSL_EVP_PKEY_decrypt(EVP_PKEY_CTX *ctx, unsigned char *out, size_t *outlen, const unsigned char *in, size_t inlen);
/// libcrypto's `EVP_PKEY_decrypt_init`.
int COpenSSL_EVP_PKEY_decrypt_init(EVP_PKEY_CTX *ctx);
/// libcrypto's `EVP_PKEY_derive`.
int COpenSSL_EVP_PKEY_derive(EVP_PKEY_CTX *ctx, unsigned char *key, size_t *keylen);
/// libcrypto's `EVP_PKEY_derive_init`.
int COpenSSL_EVP_PKEY_derive_init(EVP_PKEY_CTX *ctx);
/// libcrypto's `EVP_PKEY_derive_set_peer`.
int COpenSSL_EVP_PKEY_derive_set_peer(EVP_PKEY_CTX *ctx, EVP_PKEY *peer);
/// libcrypto's `EVP_PKEY_encrypt`.
int COpenSSL_EVP_PKEY_encrypt(EVP_PKEY_CTX *ctx, unsigned char *out, size_t *outlen, const unsigned char *in, size_t inlen);
/// libcrypto's `EVP_PKEY_encrypt_init`.
int COpenSSL_EVP_PKEY_encrypt_init(EVP_PKEY_CTX *ctx);
/// libcrypto's `EVP_PKEY_free`.
void COpenSSL_EVP_PKEY_free(EVP_PKEY *pkey);
/// libcrypto's `EVP_PKEY_get_base_id`.
int COpenSSL_EVP_PKEY_get_base_id(const EVP_PKEY *pkey);
/// libcrypto's `EVP_PKEY_get_bits`.
int COpenSSL_EVP_PKEY_get_bits(const EVP_PKEY *pkey);
/// libcrypto's `EVP_PKEY_get_bn_param`.
int COpenSSL_EVP_PKEY_get_bn_param(const EVP_PKEY *pkey, const char *key_name, BIGNUM **bn);
/// libcrypto's `EVP_PKEY_get_octet_string_param`.
int COpenSSL_EVP_PKEY_get_octet_string_param(const EVP_PKEY *pkey, const char *key_name, unsigned char *buf, size_t max_buf_sz, size_t *out_sz);
/// libcrypto's `EVP_PKEY_get_size`.
int COpenSSL_EVP_PKEY_get_size(const EVP_PKEY *pkey);
/// libcrypto's `EVP_PKEY_get_utf8_string_param`.
int COpenSSL_EVP_PKEY_get_utf8_string_param(const EVP_PKEY *pkey, const char *key_name, char *str, size_t max_buf_sz, size_t *out_sz);
/// libcrypto's `EVP_PKEY_keygen`.
int COpenSSL_EVP_PKEY_keygen(EVP_PKEY_CTX *ctx, EVP_PKEY **ppkey);
/// libcrypto's `EVP_PKEY_keygen_init`.
int COpenSSL_EVP_PKEY_keygen_init(EVP_PKEY_CTX *ctx);
/// libcrypto's `EVP_PKEY_sign`.
int COpenSSL_EVP_PKEY_sign(EVP_PKEY_CTX *ctx, unsigned char *sig, size_t *siglen, const unsigned char *tbs, size_t tbslen);
/// libcrypto's `EVP_PKEY_sign_init`.
int COpenSSL_EVP_PKEY_sign_init(EVP_PKEY_CTX *ctx);
/// libcrypto's `EVP_PKEY_verify`.
int COpenSSL_EVP_PKEY_verify(EVP_PKEY_CTX *ctx, const unsigned char *sig, size_t siglen, const unsigned char *tbs, size_t tbslen);
/// libcrypto's `EVP_PKEY_verify_init`.
int COpenSSL_EVP_PKEY_verify_init(EVP_PKEY_CTX *ctx);
/// libcrypto's `EVP_PKEY_verify_recover`.
int COpenSSL_EVP_PKEY_verify_recover(EVP_PKEY_CTX *ctx, unsigned char *rout, size_t *routlen, const unsigned char *sig, size_t siglen);
/// libcrypto's `EVP_PKEY_verify_recover_init`.
int COpenSSL_EVP_PKEY_verify_recover_init(EVP_PKEY_CTX *ctx);
/// libcrypto's `EVP_aes_256_cbc`.
const EVP_CIPHER *COpenSSL_EVP_aes_256_cbc(void);
/// libcrypto's `EVP_get_digestbyname`.
const EVP_MD *COpenSSL_EVP_get_digestbyname(const char *name);
/// libcrypto's `EVP_sha256`.
const EVP_MD *COpenSSL_EVP_sha256(void);
/// libcrypto's `GENERAL_NAMES_free`.
void COpenSSL_GENERAL_NAMES_free(GENERAL_NAMES *a);
/// libcrypto's `OBJ_obj2nid`.
int COpenSSL_OBJ_obj2nid(const ASN1_OBJECT *o);
/// libcrypto's `OPENSSL_cleanse`.
void COpenSSL_OPENSSL_cleanse(void *ptr, size_t len);
/// libcrypto's `OPENSSL_init_crypto`.
int COpenSSL_OPENSSL_init_crypto(uint64_t opts, const OPENSSL_INIT_SETTINGS *settings);
/// libcrypto's `OSSL_PROVIDER_load`.
OSSL_PROVIDER *COpenSSL_OSSL_PROVIDER_load(OSSL_LIB_CTX *argument0, const char *name);
/// libcrypto's `PEM_read_bio_PUBKEY`.
EVP_PKEY *COpenSSL_PEM_read_bio_PUBKEY(BIO *out, EVP_PKEY **x, pem_password_cb *cb, void *u);
/// libcrypto's `PEM_read_bio_PrivateKey`.
EVP_PKEY *COpenSSL_PEM_read_bio_PrivateKey(BIO *out, EVP_PKEY **x, pem_password_cb *cb, void *u);
/// libcrypto's `PEM_write_bio_PKCS8PrivateKey`.
int COpenSSL_PEM_write_bio_PKCS8PrivateKey(BIO *argument0, const EVP_PKEY *argument1, const EVP_CIPHER *argument2, const char *kstr, int klen, pem_password_cb *cb, void *u);
/// libcrypto's `PEM_write_bio_PUBKEY`.
int COpenSSL_PEM_write_bio_PUBKEY(BIO *out, const EVP_PKEY *x);
/// libcrypto's `PKCS12_create`.
PKCS12 *COpenSSL_PKCS12_create(const char *pass, const char *name, EVP_PKEY *pkey, X509 *cert, struct stack_st_X509 *ca, int nid_key, int nid_cert, int iter, int mac_iter, int keytype);
/// libcrypto's `PKCS12_free`.
void COpenSSL_PKCS12_free(PKCS12 *a);
/// libcrypto's `PKCS12_mac_present`.
int COpenSSL_PKCS12_mac_present(const PKCS12 *p12);
/// libcrypto's `PKCS12_parse`.
int COpenSSL_PKCS12_parse(PKCS12 *p12, const char *pass, EVP_PKEY **pkey, X509 **cert, struct stack_st_X509 **ca);
/// libcrypto's `PKCS12_verify_mac`.
int COpenSSL_PKCS12_verify_mac(PKCS12 *p12, const char *pass, int passlen);
/// libcrypto's `PKCS5_PBKDF2_HMAC`.
int COpenSSL_PKCS5_PBKDF2_HMAC(const char *pass, int passlen, const unsigned char *salt, int saltlen, int iter, const EVP_MD *digest, int keylen, unsigned char *out);
/// libcrypto's `RAND_bytes`.
int COpenSSL_RAND_bytes(unsigned char *buf, int num);
/// libcrypto's `SHA1`.
unsigned char *COpenSSL_SHA1(const unsigned char *d, size_t n, unsigned char *md);
/// libcrypto's `SHA256`.
unsigned char *COpenSSL_SHA256(const unsigned char *d, size_t n, unsigned char *md);
/// libcrypto's `X509_EXTENSION_get_data`.
ASN1_OCTET_STRING *COpenSSL_X509_EXTENSION_get_data(X509_EXTENSION *ne);
/// libcrypto's `X509_EXTENSION_get_object`.
ASN1_OBJECT *COpenSSL_X509_EXTENSION_get_object(X509_EXTENSION *ex);
/// libcrypto's `X509_STORE_CTX_free`.
void COpenSSL_X509_STORE_CTX_free(X509_STORE_CTX *ctx);
/// libcrypto's `X509_STORE_CTX_get_error`.
int COpenSSL_X509_STORE_CTX_get_error(const X509_STORE_CTX *ctx);
/// libcrypto's `X509_STORE_CTX_init`.
int COpenSSL_X509_STORE_CTX_init(X509_STORE_CTX *ctx, X509_STORE *trust_store, X509 *target, struct stack_st_X509 *untrusted);
/// libcrypto's `X509_STORE_CTX_new`.
X509_STORE_CTX *COpenSSL_X509_STORE_CTX_new(void);
/// libcrypto's `X509_STORE_free`.
void COpenSSL_X509_STORE_free(X509_STORE *v);
/// libcrypto's `X509_STORE_new`.
X509_STORE *COpenSSL_X509_STORE_new(void);
/// libcrypto's `X509_STORE_set_default_paths`.
int COpenSSL_X509_STORE_set_default_paths(X509_STORE *ctx);
/// libcrypto's `X509_alias_get0`.
unsigned char *COpenSSL_X509_alias_get0(X509 *x, int *len);
/// libcrypto's `X509_check_private_key`.
int COpenSSL_X509_check_private_key(const X509 *x509, const EVP_PKEY *pkey);
/// libcrypto's `X509_free`.
void COpenSSL_X509_free(X509 *a);
/// libcrypto's `X509_get0_pubkey_bitstr`.
ASN1_BIT_STRING *COpenSSL_X509_get0_pubkey_bitstr(const X509 *x);
/// libcrypto's `X509_get0_serialNumber`.
const ASN1_INTEGER *COpenSSL_X509_get0_serialNumber(const X509 *x);
/// libcrypto's `X509_get_ext`.
X509_EXTENSION *COpenSSL_X509_get_ext(const X509 *x, int loc);
/// libcrypto's `X509_get_ext_count`.
int COpenSSL_X509_get_ext_count(const X509 *x);
/// libcrypto's `X509_get_issuer_name`.
X509_NAME *COpenSSL_X509_get_issuer_name(const X509 *a);
/// libcrypto's `X509_get_pubkey`.
EVP_PKEY *COpenSSL_X509_get_pubkey(X509 *x);
/// libcrypto's `X509_get_subject_name`.
X509_NAME *COpenSSL_X509_get_subject_name(const X509 *a);
/// libcrypto's `X509_get_version`.
long COpenSSL_X509_get_version(const X509 *x);
/// libcrypto's `X509_keyid_get0`.
unsigned char *COpenSSL_X509_keyid_get0(X509 *x, int *len);
/// libcrypto's `X509_up_ref`.
int COpenSSL_X509_up_ref(X509 *x);
/// libcrypto's `X509_verify_cert`.
int COpenSSL_X509_verify_cert(X509_STORE_CTX *ctx);
/// libcrypto's `d2i_ASN1_OCTET_STRING`.
ASN1_OCTET_STRING *COpenSSL_d2i_ASN1_OCTET_STRING(ASN1_OCTET_STRING **a, const unsigned char **in, long len);
/// libcrypto's `d2i_AutoPrivateKey`.
EVP_PKEY *COpenSSL_d2i_AutoPrivateKey(EVP_PKEY **a, const unsigned char **pp, long length);
/// libcrypto's `d2i_GENERAL_NAMES`.
GENERAL_NAMES *COpenSSL_d2i_GENERAL_NAMES(GENERAL_NAMES **a, const unsigned char **in, long len);
/// libcrypto's `d2i_PKCS12`.
PKCS12 *COpenSSL_d2i_PKCS12(PKCS12 **a, const unsigned char **in, long len);
/// libcrypto's `d2i_PUBKEY`.
EVP_PKEY *COpenSSL_d2i_PUBKEY(EVP_PKEY **a, const unsigned char **in, long len);
/// libcrypto's `d2i_PrivateKey`.
EVP_PKEY *COpenSSL_d2i_PrivateKey(int type, EVP_PKEY **a, const unsigned char **pp, long length);
/// libcrypto's `d2i_PublicKey`.
EVP_PKEY *COpenSSL_d2i_PublicKey(int type, EVP_PKEY **a, const unsigned char **pp, long length);
/// libcrypto's `d2i_X509`.
X509 *COpenSSL_d2i_X509(X509 **a, const unsigned char **in, long len);
/// libcrypto's `i2d_ASN1_INTEGER`.
int COpenSSL_i2d_ASN1_INTEGER(const ASN1_INTEGER *a, unsigned char **out);
/// libcrypto's `i2d_PKCS12`.
int COpenSSL_i2d_PKCS12(const PKCS12 *a, unsigned char **out);
/// libcrypto's `i2d_PUBKEY`.
int COpenSSL_i2d_PUBKEY(const EVP_PKEY *a, unsigned char **out);
/// libcrypto's `i2d_PrivateKey`.
int COpenSSL_i2d_PrivateKey(const EVP_PKEY *a, unsigned char **pp);
/// libcrypto's `i2d_PublicKey`.
int COpenSSL_i2d_PublicKey(const EVP_PKEY *a, unsigned char **pp);
/// libcrypto's `i2d_X509`.
int COpenSSL_i2d_X509(const X509 *a, unsigned char **out);
/// libcrypto's `i2d_X509_NAME`.
int COpenSSL_i2d_X509_NAME(const X509_NAME *a, unsigned char **out);

/// Frees a key made by COpenSSL_HMACKey_new, cleansing its states.
void COpenSSL_HMACKey_free(COpenSSL_HMACKey *key);

/// Precomputes an HMAC-SHA256 key (keys longer than the block are hashed first). NULL on failure.
COpenSSL_HMACKey *COpenSSL_HMACKey_new(const unsigned char *key, size_t keyLength);

/// HMAC-SHA256 of a message under a precomputed key into out[32]. Safe to call from several
/// threads at once: the key's states are only copied. Returns 1 on success.
int COpenSSL_HMACKey_compute(
    const COpenSSL_HMACKey *key, const unsigned char *message, size_t length, unsigned char *out);

/// HMAC-SHA256 under a precomputed key of the message `head ‖ body` into out[32], without
/// joining the two parts in memory. Safe to call from several threads at once. Returns 1 on success.
int COpenSSL_HMACKey_compute_parts(
    const COpenSSL_HMACKey *key, const unsigned char *head, size_t headLength,
    const unsigned char *body, size_t bodyLength, unsigned char *out);

/// HKDF-SHA256 (RFC 5869, extract then expand) over the prepared HMAC keys above: no KDF
/// implementation is fetched from a provider (the first fetch of an operation builds the
/// provider's whole method table, a large part of a short process's start). Returns 1 on success.
int COpenSSL_HKDF_SHA256(
    const unsigned char *key, size_t keyLength,
    const unsigned char *salt, size_t saltLength,
    const unsigned char *info, size_t infoLength,
    unsigned char *out, size_t outLength);

/// SHA-1 or SHA-256 of a message into out (20 or 32 bytes), with the one-shot digest functions:
/// no context is allocated. Returns 1 on success.
int COpenSSL_SHA(int bits, const unsigned char *message, size_t length, unsigned char *out);

/// The AES-GCM implementation for a 16-, 24- or 32-byte key, fetched from the default provider
/// once per key size: passing a fetched cipher to EVP_*Init_ex avoids an implicit fetch on every
/// operation. NULL for any other key length.
const EVP_CIPHER *COpenSSL_AESGCM(size_t keyLength);

/// An EC key of curve `group` from an uncompressed point and, when `priv` is not NULL, the
/// big-endian private scalar. OpenSSL checks that the point is on the curve. Returns NULL on
/// failure; the caller owns the key.
EVP_PKEY *COpenSSL_ECKeyFromData(
    const char *group, const unsigned char *pub, size_t pubLength,
    const unsigned char *priv, size_t privLength);

/// Computes the uncompressed public point (`04 ‖ X ‖ Y`) of the private scalar `priv` on curve
/// `group`, into `out` (`outLength` bytes). Returns the length written, 0 on failure.
size_t COpenSSL_ECPublicPoint(
    const char *group, const unsigned char *priv, size_t privLength, unsigned char *out, size_t outLength);

/// Writes an EC key's private scalar, left-padded to `length` bytes. Returns 1 on success.
int COpenSSL_ECPrivateScalar(const EVP_PKEY *key, unsigned char *out, size_t length);

/// The bytes a memory BIO holds (`BIO_get_mem_data`).
long COpenSSL_BIOMemoryData(BIO *bio, char **data);

/// The number of names in a GeneralNames value (`sk_GENERAL_NAME_num`).
int COpenSSL_GeneralNamesCount(const GENERAL_NAMES *names);

/// The kind of the `index`th name of a GeneralNames value (GEN_EMAIL, GEN_DNS, …); `text` receives
/// its IA5String for an rfc822Name or a dNSName, NULL for every other kind.
int COpenSSL_GeneralNameAt(const GENERAL_NAMES *names, int index, const ASN1_IA5STRING **text);

/// `sk_X509_num`.
int COpenSSL_X509StackCount(const STACK_OF(X509) *stack);

/// `sk_X509_value`.
X509 *COpenSSL_X509StackValue(const STACK_OF(X509) *stack, int index);

/// `sk_X509_new_null`.
STACK_OF(X509) *COpenSSL_X509StackNew(void);

/// `sk_X509_push` (the stack takes ownership of `certificate`). Returns the new count, 0 on failure.
int COpenSSL_X509StackPush(STACK_OF(X509) *stack, X509 *certificate);

/// `sk_X509_pop_free(stack, X509_free)`.
void COpenSSL_X509StackFree(STACK_OF(X509) *stack);

#endif
