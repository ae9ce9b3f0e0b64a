#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

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

/// Frees a key made by COpenSSL_HMACKey_new, cleansing its states.
static inline void COpenSSL_HMACKey_free(COpenSSL_HMACKey *key) {
    if (key == NULL) return;
    OPENSSL_clear_free(key, sizeof *key);
}

/// Precomputes an HMAC-SHA256 key (keys longer than the block are hashed first). NULL on failure.
static inline COpenSSL_HMACKey *COpenSSL_HMACKey_new(const unsigned char *key, size_t keyLength) {
    unsigned char block[SHA256_CBLOCK] = {0};
    unsigned char pad[SHA256_CBLOCK];
    if (keyLength > sizeof block) {
        if (SHA256(key, keyLength, block) == NULL) return NULL;
    } else if (keyLength > 0) {
        memcpy(block, key, keyLength);
    }
    COpenSSL_HMACKey *result = OPENSSL_zalloc(sizeof *result);
    int ok = result != NULL;
    for (size_t i = 0; ok && i < sizeof pad; i++) pad[i] = block[i] ^ 0x36;
    ok = ok && SHA256_Init(&result->inner) == 1 && SHA256_Update(&result->inner, pad, sizeof pad) == 1;
    for (size_t i = 0; ok && i < sizeof pad; i++) pad[i] = block[i] ^ 0x5c;
    ok = ok && SHA256_Init(&result->outer) == 1 && SHA256_Update(&result->outer, pad, sizeof pad) == 1;
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
    if (!ok) {
        COpenSSL_HMACKey_free(result);
        return NULL;
    }
    return result;
}

/// HMAC-SHA256 of a message under a precomputed key into out[32]. Safe to call from several
/// threads at once: the key's states are only copied. Returns 1 on success.
static inline int COpenSSL_HMACKey_compute(
    const COpenSSL_HMACKey *key, const unsigned char *message, size_t length, unsigned char *out)
{
    unsigned char inner[SHA256_DIGEST_LENGTH];
    SHA256_CTX context = key->inner;
    int ok = SHA256_Update(&context, message, length) == 1 && SHA256_Final(inner, &context) == 1;
    context = key->outer;
    ok = ok && SHA256_Update(&context, inner, sizeof inner) == 1 && SHA256_Final(out, &context) == 1;
    OPENSSL_cleanse(&context, sizeof context);
    OPENSSL_cleanse(inner, sizeof inner);
    return ok;
}

/// HMAC-SHA256 under a precomputed key of the message `head ‖ body` into out[32], without
/// joining the two parts in memory. Safe to call from several threads at once. Returns 1 on success.
static inline int COpenSSL_HMACKey_compute_parts(
    const COpenSSL_HMACKey *key, const unsigned char *head, size_t headLength,
    const unsigned char *body, size_t bodyLength, unsigned char *out)
{
    unsigned char inner[SHA256_DIGEST_LENGTH];
    SHA256_CTX context = key->inner;
    int ok = SHA256_Update(&context, head, headLength) == 1 && SHA256_Update(&context, body, bodyLength) == 1
        && SHA256_Final(inner, &context) == 1;
    context = key->outer;
    ok = ok && SHA256_Update(&context, inner, sizeof inner) == 1 && SHA256_Final(out, &context) == 1;
    OPENSSL_cleanse(&context, sizeof context);
    OPENSSL_cleanse(inner, sizeof inner);
    return ok;
}

/// HKDF-SHA256 (RFC 5869, extract then expand) over the prepared HMAC keys above: no KDF
/// implementation is fetched from a provider (the first fetch of an operation builds the
/// provider's whole method table, a large part of a short process's start). Returns 1 on success.
static inline int COpenSSL_HKDF_SHA256(
    const unsigned char *key, size_t keyLength,
    const unsigned char *salt, size_t saltLength,
    const unsigned char *info, size_t infoLength,
    unsigned char *out, size_t outLength)
{
    if (outLength > 255 * SHA256_DIGEST_LENGTH) return 0;
    unsigned char prk[SHA256_DIGEST_LENGTH];
    unsigned char block[SHA256_DIGEST_LENGTH];
    unsigned char inner[SHA256_DIGEST_LENGTH];
    // Extract: PRK = HMAC(salt, IKM); an empty salt is HashLen zero bytes, which HMAC pads to the same key.
    COpenSSL_HMACKey *saltKey = COpenSSL_HMACKey_new(salt, saltLength);
    int ok = saltKey != NULL && COpenSSL_HMACKey_compute(saltKey, key, keyLength, prk) == 1;
    COpenSSL_HMACKey_free(saltKey);
    COpenSSL_HMACKey *prkKey = ok ? COpenSSL_HMACKey_new(prk, sizeof prk) : NULL;
    ok = ok && prkKey != NULL;
    // Expand: T(n) = HMAC(PRK, T(n-1) | info | n).
    size_t done = 0, previous = 0;
    unsigned char counter = 1;
    SHA256_CTX context;
    while (ok && done < outLength) {
        context = prkKey->inner;
        ok = SHA256_Update(&context, block, previous) == 1 && SHA256_Update(&context, info, infoLength) == 1
            && SHA256_Update(&context, &counter, 1) == 1 && SHA256_Final(inner, &context) == 1;
        context = prkKey->outer;
        ok = ok && SHA256_Update(&context, inner, sizeof inner) == 1 && SHA256_Final(block, &context) == 1;
        size_t take = outLength - done < sizeof block ? outLength - done : sizeof block;
        if (ok) memcpy(out + done, block, take);
        done += take;
        previous = sizeof block;
        counter++;
    }
    COpenSSL_HMACKey_free(prkKey);
    OPENSSL_cleanse(&context, sizeof context);
    OPENSSL_cleanse(prk, sizeof prk);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(inner, sizeof inner);
    return ok;
}

/// SHA-1 or SHA-256 of a message into out (20 or 32 bytes), with the one-shot digest functions:
/// no context is allocated. Returns 1 on success.
static inline int COpenSSL_SHA(int bits, const unsigned char *message, size_t length, unsigned char *out) {
    if (bits == 1) return SHA1(message, length, out) != NULL;
    if (bits == 256) return SHA256(message, length, out) != NULL;
    return 0;
}

/// The AES-GCM implementation for a 16-, 24- or 32-byte key, fetched from the default provider
/// once per key size: passing a fetched cipher to EVP_*Init_ex avoids an implicit fetch on every
/// operation. NULL for any other key length.
static inline const EVP_CIPHER *COpenSSL_AESGCM(size_t keyLength) {
    static EVP_CIPHER *ciphers[3] = {NULL, NULL, NULL};
    int slot;
    const char *name;
    switch (keyLength) {
    case 16: slot = 0; name = "AES-128-GCM"; break;
    case 24: slot = 1; name = "AES-192-GCM"; break;
    case 32: slot = 2; name = "AES-256-GCM"; break;
    default: return NULL;
    }
    EVP_CIPHER *current = __atomic_load_n(&ciphers[slot], __ATOMIC_ACQUIRE);
    if (current != NULL) return current;
    EVP_CIPHER *fetched = EVP_CIPHER_fetch(NULL, name, NULL);
    if (fetched == NULL) return slot == 0 ? EVP_aes_128_gcm() : slot == 1 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
    EVP_CIPHER *expected = NULL;
    if (!__atomic_compare_exchange_n(&ciphers[slot], &expected, fetched, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        EVP_CIPHER_free(fetched);
        return expected;
    }
    return fetched;
}

/// An EC key of curve `group` from an uncompressed point and, when `priv` is not NULL, the
/// big-endian private scalar. OpenSSL checks that the point is on the curve. Returns NULL on
/// failure; the caller owns the key.
static inline EVP_PKEY *COpenSSL_ECKeyFromData(
    const char *group, const unsigned char *pub, size_t pubLength,
    const unsigned char *priv, size_t privLength)
{
    EVP_PKEY *key = NULL;
    BIGNUM *scalar = NULL;
    OSSL_PARAM *params = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (builder == NULL || context == NULL) goto done;
    if (!OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, group, 0)) goto done;
    if (!OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, pub, pubLength)) goto done;
    if (priv != NULL) {
        scalar = BN_secure_new();
        if (scalar == NULL || BN_bin2bn(priv, (int)privLength, scalar) == NULL) goto done;
        if (!OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, scalar)) goto done;
    }
    params = OSSL_PARAM_BLD_to_param(builder);
    if (params == NULL) goto done;
    if (EVP_PKEY_fromdata_init(context) != 1) goto done;
    if (EVP_PKEY_fromdata(context, &key, priv != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
done:
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    EVP_PKEY_CTX_free(context);
    BN_clear_free(scalar);
    return key;
}

/// Computes the uncompressed public point (`04 ‖ X ‖ Y`) of the private scalar `priv` on curve
/// `group`, into `out` (`outLength` bytes). Returns the length written, 0 on failure.
static inline size_t COpenSSL_ECPublicPoint(
    const char *group, const unsigned char *priv, size_t privLength, unsigned char *out, size_t outLength)
{
    size_t written = 0;
    EC_GROUP *curve = EC_GROUP_new_by_curve_name(OBJ_sn2nid(group));
    BIGNUM *scalar = BN_secure_new();
    EC_POINT *point = curve != NULL ? EC_POINT_new(curve) : NULL;
    if (curve == NULL || scalar == NULL || point == NULL) goto done;
    if (BN_bin2bn(priv, (int)privLength, scalar) == NULL) goto done;
    if (EC_POINT_mul(curve, point, scalar, NULL, NULL, NULL) != 1) goto done;
    written = EC_POINT_point2oct(curve, point, POINT_CONVERSION_UNCOMPRESSED, out, outLength, NULL);
done:
    EC_POINT_free(point);
    BN_clear_free(scalar);
    EC_GROUP_free(curve);
    return written;
}

/// Writes an EC key's private scalar, left-padded to `length` bytes. Returns 1 on success.
static inline int COpenSSL_ECPrivateScalar(const EVP_PKEY *key, unsigned char *out, size_t length)
{
    BIGNUM *scalar = NULL;
    if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) != 1) return 0;
    int written = BN_bn2binpad(scalar, out, (int)length);
    BN_clear_free(scalar);
    return written == (int)length ? 1 : 0;
}

/// The bytes a memory BIO holds (`BIO_get_mem_data`).
static inline long COpenSSL_BIOMemoryData(BIO *bio, char **data)
{
    return BIO_get_mem_data(bio, data);
}

/// The number of names in a GeneralNames value (`sk_GENERAL_NAME_num`).
static inline int COpenSSL_GeneralNamesCount(const GENERAL_NAMES *names) { return sk_GENERAL_NAME_num(names); }

/// The kind of the `index`th name of a GeneralNames value (GEN_EMAIL, GEN_DNS, …); `text` receives
/// its IA5String for an rfc822Name or a dNSName, NULL for every other kind.
static inline int COpenSSL_GeneralNameAt(const GENERAL_NAMES *names, int index, const ASN1_IA5STRING **text)
{
    const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, index);
    *text = NULL;
    if (name == NULL) return -1;
    if (name->type == GEN_EMAIL) *text = name->d.rfc822Name;
    if (name->type == GEN_DNS) *text = name->d.dNSName;
    return name->type;
}

/// `sk_X509_num`.
static inline int COpenSSL_X509StackCount(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
/// `sk_X509_value`.
static inline X509 *COpenSSL_X509StackValue(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
/// `sk_X509_new_null`.
static inline STACK_OF(X509) *COpenSSL_X509StackNew(void) { return sk_X509_new_null(); }
/// `sk_X509_push` (the stack takes ownership of `certificate`). Returns the new count, 0 on failure.
static inline int COpenSSL_X509StackPush(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
/// `sk_X509_pop_free(stack, X509_free)`.
static inline void COpenSSL_X509StackFree(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

#endif
