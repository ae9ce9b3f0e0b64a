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

#endif
