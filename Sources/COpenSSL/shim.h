#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

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

/// HKDF-SHA256 (RFC 5869, extract then expand). OSSL_PARAM arrays keep pointers to their
/// names and values, so they are built here in C where those pointers are static or outlive
/// the call. Returns 1 on success.
static inline int COpenSSL_HKDF_SHA256(
    const unsigned char *key, size_t keyLength,
    const unsigned char *salt, size_t saltLength,
    const unsigned char *info, size_t infoLength,
    unsigned char *out, size_t outLength)
{
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *context = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (context == NULL) return 0;
    OSSL_PARAM params[5];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)key, keyLength);
    params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, saltLength);
    params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, infoLength);
    params[4] = OSSL_PARAM_construct_end();
    int status = EVP_KDF_derive(context, out, outLength, params);
    EVP_KDF_CTX_free(context);
    return status;
}

/// A precomputed HMAC-SHA256 key: the SHA-256 states after absorbing the inner and outer
/// padded keys (RFC 2104), so each MAC costs two short digests instead of a key set-up.
typedef struct COpenSSL_HMACKey {
    EVP_MD_CTX *inner;
    EVP_MD_CTX *outer;
} COpenSSL_HMACKey;

/// Frees a key made by COpenSSL_HMACKey_new; EVP_MD_CTX_free cleanses the digest states.
static inline void COpenSSL_HMACKey_free(COpenSSL_HMACKey *key) {
    if (key == NULL) return;
    EVP_MD_CTX_free(key->inner);
    EVP_MD_CTX_free(key->outer);
    OPENSSL_free(key);
}

/// Precomputes an HMAC-SHA256 key (keys longer than the block are hashed first). NULL on failure.
static inline COpenSSL_HMACKey *COpenSSL_HMACKey_new(const unsigned char *key, size_t keyLength) {
    unsigned char block[64] = {0};
    unsigned char pad[64];
    const EVP_MD *sha256 = EVP_sha256();
    if (keyLength > sizeof block) {
        unsigned int length = 0;
        if (EVP_Digest(key, keyLength, block, &length, sha256, NULL) != 1) return NULL;
    } else if (keyLength > 0) {
        memcpy(block, key, keyLength);
    }
    COpenSSL_HMACKey *result = OPENSSL_zalloc(sizeof *result);
    if (result == NULL) return NULL;
    result->inner = EVP_MD_CTX_new();
    result->outer = EVP_MD_CTX_new();
    int ok = result->inner != NULL && result->outer != NULL;
    for (size_t i = 0; ok && i < sizeof pad; i++) pad[i] = block[i] ^ 0x36;
    ok = ok && EVP_DigestInit_ex2(result->inner, sha256, NULL) == 1
        && EVP_DigestUpdate(result->inner, pad, sizeof pad) == 1;
    for (size_t i = 0; ok && i < sizeof pad; i++) pad[i] = block[i] ^ 0x5c;
    ok = ok && EVP_DigestInit_ex2(result->outer, sha256, NULL) == 1
        && EVP_DigestUpdate(result->outer, pad, sizeof pad) == 1;
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
    unsigned char inner[32];
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int ok = context != NULL
        && EVP_MD_CTX_copy_ex(context, key->inner) == 1
        && EVP_DigestUpdate(context, message, length) == 1
        && EVP_DigestFinal_ex(context, inner, NULL) == 1
        && EVP_MD_CTX_copy_ex(context, key->outer) == 1
        && EVP_DigestUpdate(context, inner, sizeof inner) == 1
        && EVP_DigestFinal_ex(context, out, NULL) == 1;
    EVP_MD_CTX_free(context);
    OPENSSL_cleanse(inner, sizeof inner);
    return ok;
}

/// The AES-256-GCM implementation, fetched from the default provider once: passing a fetched
/// cipher to EVP_*Init_ex avoids an implicit fetch on every operation.
static inline const EVP_CIPHER *COpenSSL_AES256GCM(void) {
    static EVP_CIPHER *cipher = NULL;
    EVP_CIPHER *current = __atomic_load_n(&cipher, __ATOMIC_ACQUIRE);
    if (current != NULL) return current;
    EVP_CIPHER *fetched = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
    if (fetched == NULL) return EVP_aes_256_gcm();
    EVP_CIPHER *expected = NULL;
    if (!__atomic_compare_exchange_n(&cipher, &expected, fetched, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        EVP_CIPHER_free(fetched);
        return expected;
    }
    return fetched;
}

#endif
