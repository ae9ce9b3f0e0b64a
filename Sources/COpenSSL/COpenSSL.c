#include "COpenSSL.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The functions of libcrypto this target calls, found with dlsym when first needed.
static struct {
    __typeof__(ASN1_OCTET_STRING_free) *ASN1_OCTET_STRING_free;
    __typeof__(ASN1_STRING_get0_data) *ASN1_STRING_get0_data;
    __typeof__(ASN1_STRING_length) *ASN1_STRING_length;
    __typeof__(ASN1_get_object) *ASN1_get_object;
    __typeof__(BIO_ctrl) *BIO_ctrl;
    __typeof__(BIO_free) *BIO_free;
    __typeof__(BIO_new) *BIO_new;
    __typeof__(BIO_s_secmem) *BIO_s_secmem;
    __typeof__(BIO_write) *BIO_write;
    __typeof__(BN_bin2bn) *BN_bin2bn;
    __typeof__(BN_bn2binpad) *BN_bn2binpad;
    __typeof__(BN_clear_free) *BN_clear_free;
    __typeof__(BN_secure_new) *BN_secure_new;
    __typeof__(CRYPTO_clear_free) *CRYPTO_clear_free;
    __typeof__(CRYPTO_memcmp) *CRYPTO_memcmp;
    __typeof__(CRYPTO_zalloc) *CRYPTO_zalloc;
    __typeof__(EC_GROUP_free) *EC_GROUP_free;
    __typeof__(EC_GROUP_new_by_curve_name) *EC_GROUP_new_by_curve_name;
    __typeof__(EC_POINT_free) *EC_POINT_free;
    __typeof__(EC_POINT_mul) *EC_POINT_mul;
    __typeof__(EC_POINT_new) *EC_POINT_new;
    __typeof__(EC_POINT_point2oct) *EC_POINT_point2oct;
    __typeof__(ERR_clear_error) *ERR_clear_error;
    __typeof__(ERR_get_error) *ERR_get_error;
    __typeof__(EVP_CIPHER_CTX_ctrl) *EVP_CIPHER_CTX_ctrl;
    __typeof__(EVP_CIPHER_CTX_free) *EVP_CIPHER_CTX_free;
    __typeof__(EVP_CIPHER_CTX_new) *EVP_CIPHER_CTX_new;
    __typeof__(EVP_CIPHER_fetch) *EVP_CIPHER_fetch;
    __typeof__(EVP_CIPHER_free) *EVP_CIPHER_free;
    __typeof__(EVP_CipherInit_ex) *EVP_CipherInit_ex;
    __typeof__(EVP_CipherUpdate) *EVP_CipherUpdate;
    __typeof__(EVP_DecryptFinal_ex) *EVP_DecryptFinal_ex;
    __typeof__(EVP_DecryptUpdate) *EVP_DecryptUpdate;
    __typeof__(EVP_Digest) *EVP_Digest;
    __typeof__(EVP_DigestFinal_ex) *EVP_DigestFinal_ex;
    __typeof__(EVP_DigestInit_ex) *EVP_DigestInit_ex;
    __typeof__(EVP_DigestUpdate) *EVP_DigestUpdate;
    __typeof__(EVP_EncryptFinal_ex) *EVP_EncryptFinal_ex;
    __typeof__(EVP_EncryptUpdate) *EVP_EncryptUpdate;
    __typeof__(EVP_MD_CTX_free) *EVP_MD_CTX_free;
    __typeof__(EVP_MD_CTX_new) *EVP_MD_CTX_new;
    __typeof__(EVP_PBE_scrypt) *EVP_PBE_scrypt;
    __typeof__(EVP_PKEY_CTX_free) *EVP_PKEY_CTX_free;
    __typeof__(EVP_PKEY_CTX_new) *EVP_PKEY_CTX_new;
    __typeof__(EVP_PKEY_CTX_new_from_name) *EVP_PKEY_CTX_new_from_name;
    __typeof__(EVP_PKEY_CTX_new_id) *EVP_PKEY_CTX_new_id;
    __typeof__(EVP_PKEY_CTX_set_group_name) *EVP_PKEY_CTX_set_group_name;
    __typeof__(EVP_PKEY_CTX_set_rsa_keygen_bits) *EVP_PKEY_CTX_set_rsa_keygen_bits;
    __typeof__(EVP_PKEY_CTX_set_rsa_mgf1_md) *EVP_PKEY_CTX_set_rsa_mgf1_md;
    __typeof__(EVP_PKEY_CTX_set_rsa_oaep_md) *EVP_PKEY_CTX_set_rsa_oaep_md;
    __typeof__(EVP_PKEY_CTX_set_rsa_padding) *EVP_PKEY_CTX_set_rsa_padding;
    __typeof__(EVP_PKEY_CTX_set_rsa_pss_saltlen) *EVP_PKEY_CTX_set_rsa_pss_saltlen;
    __typeof__(EVP_PKEY_CTX_set_signature_md) *EVP_PKEY_CTX_set_signature_md;
    __typeof__(EVP_PKEY_decrypt) *EVP_PKEY_decrypt;
    __typeof__(EVP_PKEY_decrypt_init) *EVP_PKEY_decrypt_init;
    __typeof__(EVP_PKEY_derive) *EVP_PKEY_derive;
    __typeof__(EVP_PKEY_derive_init) *EVP_PKEY_derive_init;
    __typeof__(EVP_PKEY_derive_set_peer) *EVP_PKEY_derive_set_peer;
    __typeof__(EVP_PKEY_encrypt) *EVP_PKEY_encrypt;
    __typeof__(EVP_PKEY_encrypt_init) *EVP_PKEY_encrypt_init;
    __typeof__(EVP_PKEY_free) *EVP_PKEY_free;
    __typeof__(EVP_PKEY_fromdata) *EVP_PKEY_fromdata;
    __typeof__(EVP_PKEY_fromdata_init) *EVP_PKEY_fromdata_init;
    __typeof__(EVP_PKEY_get_base_id) *EVP_PKEY_get_base_id;
    __typeof__(EVP_PKEY_get_bits) *EVP_PKEY_get_bits;
    __typeof__(EVP_PKEY_get_bn_param) *EVP_PKEY_get_bn_param;
    __typeof__(EVP_PKEY_get_octet_string_param) *EVP_PKEY_get_octet_string_param;
    __typeof__(EVP_PKEY_get_size) *EVP_PKEY_get_size;
    __typeof__(EVP_PKEY_get_utf8_string_param) *EVP_PKEY_get_utf8_string_param;
    __typeof__(EVP_PKEY_keygen) *EVP_PKEY_keygen;
    __typeof__(EVP_PKEY_keygen_init) *EVP_PKEY_keygen_init;
    __typeof__(EVP_PKEY_sign) *EVP_PKEY_sign;
    __typeof__(EVP_PKEY_sign_init) *EVP_PKEY_sign_init;
    __typeof__(EVP_PKEY_verify) *EVP_PKEY_verify;
    __typeof__(EVP_PKEY_verify_init) *EVP_PKEY_verify_init;
    __typeof__(EVP_PKEY_verify_recover) *EVP_PKEY_verify_recover;
    __typeof__(EVP_PKEY_verify_recover_init) *EVP_PKEY_verify_recover_init;
    __typeof__(EVP_aes_128_gcm) *EVP_aes_128_gcm;
    __typeof__(EVP_aes_192_gcm) *EVP_aes_192_gcm;
    __typeof__(EVP_aes_256_cbc) *EVP_aes_256_cbc;
    __typeof__(EVP_aes_256_gcm) *EVP_aes_256_gcm;
    __typeof__(EVP_get_digestbyname) *EVP_get_digestbyname;
    __typeof__(EVP_sha256) *EVP_sha256;
    __typeof__(GENERAL_NAMES_free) *GENERAL_NAMES_free;
    __typeof__(OBJ_obj2nid) *OBJ_obj2nid;
    __typeof__(OBJ_sn2nid) *OBJ_sn2nid;
    __typeof__(OPENSSL_cleanse) *OPENSSL_cleanse;
    __typeof__(OPENSSL_init_crypto) *OPENSSL_init_crypto;
    __typeof__(OPENSSL_sk_new_null) *OPENSSL_sk_new_null;
    __typeof__(OPENSSL_sk_num) *OPENSSL_sk_num;
    __typeof__(OPENSSL_sk_pop_free) *OPENSSL_sk_pop_free;
    __typeof__(OPENSSL_sk_push) *OPENSSL_sk_push;
    __typeof__(OPENSSL_sk_value) *OPENSSL_sk_value;
    __typeof__(OSSL_PARAM_BLD_free) *OSSL_PARAM_BLD_free;
    __typeof__(OSSL_PARAM_BLD_new) *OSSL_PARAM_BLD_new;
    __typeof__(OSSL_PARAM_BLD_push_BN) *OSSL_PARAM_BLD_push_BN;
    __typeof__(OSSL_PARAM_BLD_push_octet_string) *OSSL_PARAM_BLD_push_octet_string;
    __typeof__(OSSL_PARAM_BLD_push_utf8_string) *OSSL_PARAM_BLD_push_utf8_string;
    __typeof__(OSSL_PARAM_BLD_to_param) *OSSL_PARAM_BLD_to_param;
    __typeof__(OSSL_PARAM_free) *OSSL_PARAM_free;
    __typeof__(OSSL_PROVIDER_load) *OSSL_PROVIDER_load;
    __typeof__(PEM_read_bio_PUBKEY) *PEM_read_bio_PUBKEY;
    __typeof__(PEM_read_bio_PrivateKey) *PEM_read_bio_PrivateKey;
    __typeof__(PEM_write_bio_PKCS8PrivateKey) *PEM_write_bio_PKCS8PrivateKey;
    __typeof__(PEM_write_bio_PUBKEY) *PEM_write_bio_PUBKEY;
    __typeof__(PKCS12_create) *PKCS12_create;
    __typeof__(PKCS12_free) *PKCS12_free;
    __typeof__(PKCS12_mac_present) *PKCS12_mac_present;
    __typeof__(PKCS12_parse) *PKCS12_parse;
    __typeof__(PKCS12_verify_mac) *PKCS12_verify_mac;
    __typeof__(PKCS5_PBKDF2_HMAC) *PKCS5_PBKDF2_HMAC;
    __typeof__(RAND_bytes) *RAND_bytes;
    __typeof__(SHA1) *SHA1;
    __typeof__(SHA256) *SHA256;
    __typeof__(SHA256_Final) *SHA256_Final;
    __typeof__(SHA256_Init) *SHA256_Init;
    __typeof__(SHA256_Update) *SHA256_Update;
    __typeof__(X509_EXTENSION_get_data) *X509_EXTENSION_get_data;
    __typeof__(X509_EXTENSION_get_object) *X509_EXTENSION_get_object;
    __typeof__(X509_STORE_CTX_free) *X509_STORE_CTX_free;
    __typeof__(X509_STORE_CTX_get_error) *X509_STORE_CTX_get_error;
    __typeof__(X509_STORE_CTX_init) *X509_STORE_CTX_init;
    __typeof__(X509_STORE_CTX_new) *X509_STORE_CTX_new;
    __typeof__(X509_STORE_free) *X509_STORE_free;
    __typeof__(X509_STORE_new) *X509_STORE_new;
    __typeof__(X509_STORE_set_default_paths) *X509_STORE_set_default_paths;
    __typeof__(X509_alias_get0) *X509_alias_get0;
    __typeof__(X509_check_private_key) *X509_check_private_key;
    __typeof__(X509_free) *X509_free;
    __typeof__(X509_get0_pubkey_bitstr) *X509_get0_pubkey_bitstr;
    __typeof__(X509_get0_serialNumber) *X509_get0_serialNumber;
    __typeof__(X509_get_ext) *X509_get_ext;
    __typeof__(X509_get_ext_count) *X509_get_ext_count;
    __typeof__(X509_get_issuer_name) *X509_get_issuer_name;
    __typeof__(X509_get_pubkey) *X509_get_pubkey;
    __typeof__(X509_get_subject_name) *X509_get_subject_name;
    __typeof__(X509_get_version) *X509_get_version;
    __typeof__(X509_keyid_get0) *X509_keyid_get0;
    __typeof__(X509_up_ref) *X509_up_ref;
    __typeof__(X509_verify_cert) *X509_verify_cert;
    __typeof__(d2i_ASN1_OCTET_STRING) *d2i_ASN1_OCTET_STRING;
    __typeof__(d2i_AutoPrivateKey) *d2i_AutoPrivateKey;
    __typeof__(d2i_GENERAL_NAMES) *d2i_GENERAL_NAMES;
    __typeof__(d2i_PKCS12) *d2i_PKCS12;
    __typeof__(d2i_PUBKEY) *d2i_PUBKEY;
    __typeof__(d2i_PrivateKey) *d2i_PrivateKey;
    __typeof__(d2i_PublicKey) *d2i_PublicKey;
    __typeof__(d2i_X509) *d2i_X509;
    __typeof__(i2d_ASN1_INTEGER) *i2d_ASN1_INTEGER;
    __typeof__(i2d_PKCS12) *i2d_PKCS12;
    __typeof__(i2d_PUBKEY) *i2d_PUBKEY;
    __typeof__(i2d_PrivateKey) *i2d_PrivateKey;
    __typeof__(i2d_PublicKey) *i2d_PublicKey;
    __typeof__(i2d_X509) *i2d_X509;
    __typeof__(i2d_X509_NAME) *i2d_X509_NAME;
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char failure[256];
// The options of the first OPENSSL_init_crypto, when a program chose them (0: none chosen).
static uint64_t initialOptions = 0;

static void load(void) {
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason != NULL ? reason : "libcrypto.so.3 could not be loaded");
        return;
    }
    // The handle is kept for the life of the process: the functions stay callable.
#define COPENSSL_RESOLVE(name) \
    *(void **)(&api.name) = dlsym(library, #name); \
    if (api.name == NULL) { snprintf(failure, sizeof failure, "libcrypto.so.3 has no %s", #name); return; }
    COPENSSL_RESOLVE(ASN1_OCTET_STRING_free)
    COPENSSL_RESOLVE(ASN1_STRING_get0_data)
    COPENSSL_RESOLVE(ASN1_STRING_length)
    COPENSSL_RESOLVE(ASN1_get_object)
    COPENSSL_RESOLVE(BIO_ctrl)
    COPENSSL_RESOLVE(BIO_free)
    COPENSSL_RESOLVE(BIO_new)
    COPENSSL_RESOLVE(BIO_s_secmem)
    COPENSSL_RESOLVE(BIO_write)
    COPENSSL_RESOLVE(BN_bin2bn)
    COPENSSL_RESOLVE(BN_bn2binpad)
    COPENSSL_RESOLVE(BN_clear_free)
    COPENSSL_RESOLVE(BN_secure_new)
    COPENSSL_RESOLVE(CRYPTO_clear_free)
    COPENSSL_RESOLVE(CRYPTO_memcmp)
    COPENSSL_RESOLVE(CRYPTO_zalloc)
    COPENSSL_RESOLVE(EC_GROUP_free)
    COPENSSL_RESOLVE(EC_GROUP_new_by_curve_name)
    COPENSSL_RESOLVE(EC_POINT_free)
    COPENSSL_RESOLVE(EC_POINT_mul)
    COPENSSL_RESOLVE(EC_POINT_new)
    COPENSSL_RESOLVE(EC_POINT_point2oct)
    COPENSSL_RESOLVE(ERR_clear_error)
    COPENSSL_RESOLVE(ERR_get_error)
    COPENSSL_RESOLVE(EVP_CIPHER_CTX_ctrl)
    COPENSSL_RESOLVE(EVP_CIPHER_CTX_free)
    COPENSSL_RESOLVE(EVP_CIPHER_CTX_new)
    COPENSSL_RESOLVE(EVP_CIPHER_fetch)
    COPENSSL_RESOLVE(EVP_CIPHER_free)
    COPENSSL_RESOLVE(EVP_CipherInit_ex)
    COPENSSL_RESOLVE(EVP_CipherUpdate)
    COPENSSL_RESOLVE(EVP_DecryptFinal_ex)
    COPENSSL_RESOLVE(EVP_DecryptUpdate)
    COPENSSL_RESOLVE(EVP_Digest)
    COPENSSL_RESOLVE(EVP_DigestFinal_ex)
    COPENSSL_RESOLVE(EVP_DigestInit_ex)
    COPENSSL_RESOLVE(EVP_DigestUpdate)
    COPENSSL_RESOLVE(EVP_EncryptFinal_ex)
    COPENSSL_RESOLVE(EVP_EncryptUpdate)
    COPENSSL_RESOLVE(EVP_MD_CTX_free)
    COPENSSL_RESOLVE(EVP_MD_CTX_new)
    COPENSSL_RESOLVE(EVP_PBE_scrypt)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_free)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_new)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_new_from_name)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_new_id)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_set_group_name)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_set_rsa_keygen_bits)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_set_rsa_mgf1_md)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_set_rsa_oaep_md)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_set_rsa_padding)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_set_rsa_pss_saltlen)
    COPENSSL_RESOLVE(EVP_PKEY_CTX_set_signature_md)
    COPENSSL_RESOLVE(EVP_PKEY_decrypt)
    COPENSSL_RESOLVE(EVP_PKEY_decrypt_init)
    COPENSSL_RESOLVE(EVP_PKEY_derive)
    COPENSSL_RESOLVE(EVP_PKEY_derive_init)
    COPENSSL_RESOLVE(EVP_PKEY_derive_set_peer)
    COPENSSL_RESOLVE(EVP_PKEY_encrypt)
    COPENSSL_RESOLVE(EVP_PKEY_encrypt_init)
    COPENSSL_RESOLVE(EVP_PKEY_free)
    COPENSSL_RESOLVE(EVP_PKEY_fromdata)
    COPENSSL_RESOLVE(EVP_PKEY_fromdata_init)
    COPENSSL_RESOLVE(EVP_PKEY_get_base_id)
    COPENSSL_RESOLVE(EVP_PKEY_get_bits)
    COPENSSL_RESOLVE(EVP_PKEY_get_bn_param)
    COPENSSL_RESOLVE(EVP_PKEY_get_octet_string_param)
    COPENSSL_RESOLVE(EVP_PKEY_get_size)
    COPENSSL_RESOLVE(EVP_PKEY_get_utf8_string_param)
    COPENSSL_RESOLVE(EVP_PKEY_keygen)
    COPENSSL_RESOLVE(EVP_PKEY_keygen_init)
    COPENSSL_RESOLVE(EVP_PKEY_sign)
    COPENSSL_RESOLVE(EVP_PKEY_sign_init)
    COPENSSL_RESOLVE(EVP_PKEY_verify)
    COPENSSL_RESOLVE(EVP_PKEY_verify_init)
    COPENSSL_RESOLVE(EVP_PKEY_verify_recover)
    COPENSSL_RESOLVE(EVP_PKEY_verify_recover_init)
    COPENSSL_RESOLVE(EVP_aes_128_gcm)
    COPENSSL_RESOLVE(EVP_aes_192_gcm)
    COPENSSL_RESOLVE(EVP_aes_256_cbc)
    COPENSSL_RESOLVE(EVP_aes_256_gcm)
    COPENSSL_RESOLVE(EVP_get_digestbyname)
    COPENSSL_RESOLVE(EVP_sha256)
    COPENSSL_RESOLVE(GENERAL_NAMES_free)
    COPENSSL_RESOLVE(OBJ_obj2nid)
    COPENSSL_RESOLVE(OBJ_sn2nid)
    COPENSSL_RESOLVE(OPENSSL_cleanse)
    COPENSSL_RESOLVE(OPENSSL_init_crypto)
    COPENSSL_RESOLVE(OPENSSL_sk_new_null)
    COPENSSL_RESOLVE(OPENSSL_sk_num)
    COPENSSL_RESOLVE(OPENSSL_sk_pop_free)
    COPENSSL_RESOLVE(OPENSSL_sk_push)
    COPENSSL_RESOLVE(OPENSSL_sk_value)
    COPENSSL_RESOLVE(OSSL_PARAM_BLD_free)
    COPENSSL_RESOLVE(OSSL_PARAM_BLD_new)
    COPENSSL_RESOLVE(OSSL_PARAM_BLD_push_BN)
    COPENSSL_RESOLVE(OSSL_PARAM_BLD_push_octet_string)
    COPENSSL_RESOLVE(OSSL_PARAM_BLD_push_utf8_string)
    COPENSSL_RESOLVE(OSSL_PARAM_BLD_to_param)
    COPENSSL_RESOLVE(OSSL_PARAM_free)
    COPENSSL_RESOLVE(OSSL_PROVIDER_load)
    COPENSSL_RESOLVE(PEM_read_bio_PUBKEY)
    COPENSSL_RESOLVE(PEM_read_bio_PrivateKey)
    COPENSSL_RESOLVE(PEM_write_bio_PKCS8PrivateKey)
    COPENSSL_RESOLVE(PEM_write_bio_PUBKEY)
    COPENSSL_RESOLVE(PKCS12_create)
    COPENSSL_RESOLVE(PKCS12_free)
    COPENSSL_RESOLVE(PKCS12_mac_present)
    COPENSSL_RESOLVE(PKCS12_parse)
    COPENSSL_RESOLVE(PKCS12_verify_mac)
    COPENSSL_RESOLVE(PKCS5_PBKDF2_HMAC)
    COPENSSL_RESOLVE(RAND_bytes)
    COPENSSL_RESOLVE(SHA1)
    COPENSSL_RESOLVE(SHA256)
    COPENSSL_RESOLVE(SHA256_Final)
    COPENSSL_RESOLVE(SHA256_Init)
    COPENSSL_RESOLVE(SHA256_Update)
    COPENSSL_RESOLVE(X509_EXTENSION_get_data)
    COPENSSL_RESOLVE(X509_EXTENSION_get_object)
    COPENSSL_RESOLVE(X509_STORE_CTX_free)
    COPENSSL_RESOLVE(X509_STORE_CTX_get_error)
    COPENSSL_RESOLVE(X509_STORE_CTX_init)
    COPENSSL_RESOLVE(X509_STORE_CTX_new)
    COPENSSL_RESOLVE(X509_STORE_free)
    COPENSSL_RESOLVE(X509_STORE_new)
    COPENSSL_RESOLVE(X509_STORE_set_default_paths)
    COPENSSL_RESOLVE(X509_alias_get0)
    COPENSSL_RESOLVE(X509_check_private_key)
    COPENSSL_RESOLVE(X509_free)
    COPENSSL_RESOLVE(X509_get0_pubkey_bitstr)
    COPENSSL_RESOLVE(X509_get0_serialNumber)
    COPENSSL_RESOLVE(X509_get_ext)
    COPENSSL_RESOLVE(X509_get_ext_count)
    COPENSSL_RESOLVE(X509_get_issuer_name)
    COPENSSL_RESOLVE(X509_get_pubkey)
    COPENSSL_RESOLVE(X509_get_subject_name)
    COPENSSL_RESOLVE(X509_get_version)
    COPENSSL_RESOLVE(X509_keyid_get0)
    COPENSSL_RESOLVE(X509_up_ref)
    COPENSSL_RESOLVE(X509_verify_cert)
    COPENSSL_RESOLVE(d2i_ASN1_OCTET_STRING)
    COPENSSL_RESOLVE(d2i_AutoPrivateKey)
    COPENSSL_RESOLVE(d2i_GENERAL_NAMES)
    COPENSSL_RESOLVE(d2i_PKCS12)
    COPENSSL_RESOLVE(d2i_PUBKEY)
    COPENSSL_RESOLVE(d2i_PrivateKey)
    COPENSSL_RESOLVE(d2i_PublicKey)
    COPENSSL_RESOLVE(d2i_X509)
    COPENSSL_RESOLVE(i2d_ASN1_INTEGER)
    COPENSSL_RESOLVE(i2d_PKCS12)
    COPENSSL_RESOLVE(i2d_PUBKEY)
    COPENSSL_RESOLVE(i2d_PrivateKey)
    COPENSSL_RESOLVE(i2d_PublicKey)
    COPENSSL_RESOLVE(i2d_X509)
    COPENSSL_RESOLVE(i2d_X509_NAME)
#undef COPENSSL_RESOLVE
    uint64_t options = __atomic_load_n(&initialOptions, __ATOMIC_ACQUIRE);
    if (options != 0) api.OPENSSL_init_crypto(options, NULL);
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

int COpenSSL_load(char *reason, size_t length) {
    pthread_once(&once, load);
    if (loaded) return 0;
    if (reason != NULL && length > 0) snprintf(reason, length, "%s", failure);
    return -1;
}

void COpenSSL_initializeOnLoad(uint64_t options) {
    __atomic_store_n(&initialOptions, options, __ATOMIC_RELEASE);
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) api.OPENSSL_init_crypto(options, NULL);
}

void COpenSSL_cleanse(void *pointer, size_t length) {
    explicit_bzero(pointer, length);
}

// Every call below goes through here first: one check of a flag once the library is loaded.
static inline void require_loaded(void) {
    if (__builtin_expect(__atomic_load_n(&loaded, __ATOMIC_ACQUIRE), 1)) return;
    pthread_once(&once, load);
    if (loaded) return;
    // No status can be returned through OpenSSL's own signatures: end the process as the dynamic
    // loader does when a linked library is missing.
    fprintf(stderr, "swift-keychain: %s\n", failure);
    _exit(127);
}

void COpenSSL_ASN1_OCTET_STRING_free(ASN1_OCTET_STRING *a) { require_loaded(); api.ASN1_OCTET_STRING_free(a); }
const unsigned char *COpenSSL_ASN1_STRING_get0_data(const ASN1_STRING *x) { require_loaded(); return api.ASN1_STRING_get0_data(x); }
int COpenSSL_ASN1_STRING_length(const ASN1_STRING *x) { require_loaded(); return api.ASN1_STRING_length(x); }
int COpenSSL_ASN1_get_object(const unsigned char **pp, long *plength, int *ptag, int *pclass, long omax) { require_loaded(); return api.ASN1_get_object(pp, plength, ptag, pclass, omax); }
int COpenSSL_BIO_free(BIO *a) { require_loaded(); return api.BIO_free(a); }
BIO *COpenSSL_BIO_new(const BIO_METHOD *type) { require_loaded(); return api.BIO_new(type); }
const BIO_METHOD *COpenSSL_BIO_s_secmem(void) { require_loaded(); return api.BIO_s_secmem(); }
int COpenSSL_BIO_write(BIO *b, const void *data, int dlen) { require_loaded(); return api.BIO_write(b, data, dlen); }
void COpenSSL_BN_clear_free(BIGNUM *a) { require_loaded(); api.BN_clear_free(a); }
int COpenSSL_CRYPTO_memcmp(const void *in_a, const void *in_b, size_t len) { require_loaded(); return api.CRYPTO_memcmp(in_a, in_b, len); }
void COpenSSL_ERR_clear_error(void) { require_loaded(); api.ERR_clear_error(); }
unsigned long COpenSSL_ERR_get_error(void) { require_loaded(); return api.ERR_get_error(); }
int COpenSSL_EVP_CIPHER_CTX_ctrl(EVP_CIPHER_CTX *ctx, int type, int arg, void *ptr) { require_loaded(); return api.EVP_CIPHER_CTX_ctrl(ctx, type, arg, ptr); }
void COpenSSL_EVP_CIPHER_CTX_free(EVP_CIPHER_CTX *c) { require_loaded(); api.EVP_CIPHER_CTX_free(c); }
EVP_CIPHER_CTX *COpenSSL_EVP_CIPHER_CTX_new(void) { require_loaded(); return api.EVP_CIPHER_CTX_new(); }
int COpenSSL_EVP_CipherInit_ex(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, ENGINE *impl, const unsigned char *key, const unsigned char *iv, int enc) { require_loaded(); return api.EVP_CipherInit_ex(ctx, cipher, impl, key, iv, enc); }
int COpenSSL_EVP_CipherUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl) { require_loaded(); return api.EVP_CipherUpdate(ctx, out, outl, in, inl); }
int COpenSSL_EVP_DecryptFinal_ex(EVP_CIPHER_CTX *ctx, unsigned char *outm, int *outl) { require_loaded(); return api.EVP_DecryptFinal_ex(ctx, outm, outl); }
int COpenSSL_EVP_DecryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl) { require_loaded(); return api.EVP_DecryptUpdate(ctx, out, outl, in, inl); }
int COpenSSL_EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size, const EVP_MD *type, ENGINE *impl) { require_loaded(); return api.EVP_Digest(data, count, md, size, type, impl); }
int COpenSSL_EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s) { require_loaded(); return api.EVP_DigestFinal_ex(ctx, md, s); }
int COpenSSL_EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl) { require_loaded(); return api.EVP_DigestInit_ex(ctx, type, impl); }
int COpenSSL_EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *d, size_t cnt) { require_loaded(); return api.EVP_DigestUpdate(ctx, d, cnt); }
int COpenSSL_EVP_EncryptFinal_ex(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl) { require_loaded(); return api.EVP_EncryptFinal_ex(ctx, out, outl); }
int COpenSSL_EVP_EncryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl) { require_loaded(); return api.EVP_EncryptUpdate(ctx, out, outl, in, inl); }
void COpenSSL_EVP_MD_CTX_free(EVP_MD_CTX *ctx) { require_loaded(); api.EVP_MD_CTX_free(ctx); }
EVP_MD_CTX *COpenSSL_EVP_MD_CTX_new(void) { require_loaded(); return api.EVP_MD_CTX_new(); }
int COpenSSL_EVP_PBE_scrypt(const char *pass, size_t passlen, const unsigned char *salt, size_t saltlen, uint64_t N, uint64_t r, uint64_t p, uint64_t maxmem, unsigned char *key, size_t keylen) { require_loaded(); return api.EVP_PBE_scrypt(pass, passlen, salt, saltlen, N, r, p, maxmem, key, keylen); }
void COpenSSL_EVP_PKEY_CTX_free(EVP_PKEY_CTX *ctx) { require_loaded(); api.EVP_PKEY_CTX_free(ctx); }
EVP_PKEY_CTX *COpenSSL_EVP_PKEY_CTX_new(EVP_PKEY *pkey, ENGINE *e) { require_loaded(); return api.EVP_PKEY_CTX_new(pkey, e); }
EVP_PKEY_CTX *COpenSSL_EVP_PKEY_CTX_new_id(int id, ENGINE *e) { require_loaded(); return api.EVP_PKEY_CTX_new_id(id, e); }
int COpenSSL_EVP_PKEY_CTX_set_group_name(EVP_PKEY_CTX *ctx, const char *name) { require_loaded(); return api.EVP_PKEY_CTX_set_group_name(ctx, name); }
int COpenSSL_EVP_PKEY_CTX_set_rsa_keygen_bits(EVP_PKEY_CTX *ctx, int bits) { require_loaded(); return api.EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, bits); }
int COpenSSL_EVP_PKEY_CTX_set_rsa_mgf1_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) { require_loaded(); return api.EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md); }
int COpenSSL_EVP_PKEY_CTX_set_rsa_oaep_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) { require_loaded(); return api.EVP_PKEY_CTX_set_rsa_oaep_md(ctx, md); }
int COpenSSL_EVP_PKEY_CTX_set_rsa_padding(EVP_PKEY_CTX *ctx, int pad_mode) { require_loaded(); return api.EVP_PKEY_CTX_set_rsa_padding(ctx, pad_mode); }
int COpenSSL_EVP_PKEY_CTX_set_rsa_pss_saltlen(EVP_PKEY_CTX *ctx, int saltlen) { require_loaded(); return api.EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, saltlen); }
int COpenSSL_EVP_PKEY_CTX_set_signature_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) { require_loaded(); return api.EVP_PKEY_CTX_set_signature_md(ctx, md); }
int COpenSSL_EVP_PKEY_decrypt(EVP_PKEY_CTX *ctx, unsigned char *out, size_t *outlen, const unsigned char *in, size_t inlen) { require_loaded(); return api.EVP_PKEY_decrypt(ctx, out, outlen, in, inlen); }
int COpenSSL_EVP_PKEY_decrypt_init(EVP_PKEY_CTX *ctx) { require_loaded(); return api.EVP_PKEY_decrypt_init(ctx); }
int COpenSSL_EVP_PKEY_derive(EVP_PKEY_CTX *ctx, unsigned char *key, size_t *keylen) { require_loaded(); return api.EVP_PKEY_derive(ctx, key, keylen); }
int COpenSSL_EVP_PKEY_derive_init(EVP_PKEY_CTX *ctx) { require_loaded(); return api.EVP_PKEY_derive_init(ctx); }
int COpenSSL_EVP_PKEY_derive_set_peer(EVP_PKEY_CTX *ctx, EVP_PKEY *peer) { require_loaded(); return api.EVP_PKEY_derive_set_peer(ctx, peer); }
int COpenSSL_EVP_PKEY_encrypt(EVP_PKEY_CTX *ctx, unsigned char *out, size_t *outlen, const unsigned char *in, size_t inlen) { require_loaded(); return api.EVP_PKEY_encrypt(ctx, out, outlen, in, inlen); }
int COpenSSL_EVP_PKEY_encrypt_init(EVP_PKEY_CTX *ctx) { require_loaded(); return api.EVP_PKEY_encrypt_init(ctx); }
void COpenSSL_EVP_PKEY_free(EVP_PKEY *pkey) { require_loaded(); api.EVP_PKEY_free(pkey); }
int COpenSSL_EVP_PKEY_get_base_id(const EVP_PKEY *pkey) { require_loaded(); return api.EVP_PKEY_get_base_id(pkey); }
int COpenSSL_EVP_PKEY_get_bits(const EVP_PKEY *pkey) { require_loaded(); return api.EVP_PKEY_get_bits(pkey); }
int COpenSSL_EVP_PKEY_get_bn_param(const EVP_PKEY *pkey, const char *key_name, BIGNUM **bn) { require_loaded(); return api.EVP_PKEY_get_bn_param(pkey, key_name, bn); }
int COpenSSL_EVP_PKEY_get_octet_string_param(const EVP_PKEY *pkey, const char *key_name, unsigned char *buf, size_t max_buf_sz, size_t *out_sz) { require_loaded(); return api.EVP_PKEY_get_octet_string_param(pkey, key_name, buf, max_buf_sz, out_sz); }
int COpenSSL_EVP_PKEY_get_size(const EVP_PKEY *pkey) { require_loaded(); return api.EVP_PKEY_get_size(pkey); }
int COpenSSL_EVP_PKEY_get_utf8_string_param(const EVP_PKEY *pkey, const char *key_name, char *str, size_t max_buf_sz, size_t *out_sz) { require_loaded(); return api.EVP_PKEY_get_utf8_string_param(pkey, key_name, str, max_buf_sz, out_sz); }
int COpenSSL_EVP_PKEY_keygen(EVP_PKEY_CTX *ctx, EVP_PKEY **ppkey) { require_loaded(); return api.EVP_PKEY_keygen(ctx, ppkey); }
int COpenSSL_EVP_PKEY_keygen_init(EVP_PKEY_CTX *ctx) { require_loaded(); return api.EVP_PKEY_keygen_init(ctx); }
int COpenSSL_EVP_PKEY_sign(EVP_PKEY_CTX *ctx, unsigned char *sig, size_t *siglen, const unsigned char *tbs, size_t tbslen) { require_loaded(); return api.EVP_PKEY_sign(ctx, sig, siglen, tbs, tbslen); }
int COpenSSL_EVP_PKEY_sign_init(EVP_PKEY_CTX *ctx) { require_loaded(); return api.EVP_PKEY_sign_init(ctx); }
int COpenSSL_EVP_PKEY_verify(EVP_PKEY_CTX *ctx, const unsigned char *sig, size_t siglen, const unsigned char *tbs, size_t tbslen) { require_loaded(); return api.EVP_PKEY_verify(ctx, sig, siglen, tbs, tbslen); }
int COpenSSL_EVP_PKEY_verify_init(EVP_PKEY_CTX *ctx) { require_loaded(); return api.EVP_PKEY_verify_init(ctx); }
int COpenSSL_EVP_PKEY_verify_recover(EVP_PKEY_CTX *ctx, unsigned char *rout, size_t *routlen, const unsigned char *sig, size_t siglen) { require_loaded(); return api.EVP_PKEY_verify_recover(ctx, rout, routlen, sig, siglen); }
int COpenSSL_EVP_PKEY_verify_recover_init(EVP_PKEY_CTX *ctx) { require_loaded(); return api.EVP_PKEY_verify_recover_init(ctx); }
const EVP_CIPHER *COpenSSL_EVP_aes_256_cbc(void) { require_loaded(); return api.EVP_aes_256_cbc(); }
const EVP_MD *COpenSSL_EVP_get_digestbyname(const char *name) { require_loaded(); return api.EVP_get_digestbyname(name); }
const EVP_MD *COpenSSL_EVP_sha256(void) { require_loaded(); return api.EVP_sha256(); }
void COpenSSL_GENERAL_NAMES_free(GENERAL_NAMES *a) { require_loaded(); api.GENERAL_NAMES_free(a); }
int COpenSSL_OBJ_obj2nid(const ASN1_OBJECT *o) { require_loaded(); return api.OBJ_obj2nid(o); }
void COpenSSL_OPENSSL_cleanse(void *ptr, size_t len) { require_loaded(); api.OPENSSL_cleanse(ptr, len); }
int COpenSSL_OPENSSL_init_crypto(uint64_t opts, const OPENSSL_INIT_SETTINGS *settings) { require_loaded(); return api.OPENSSL_init_crypto(opts, settings); }
OSSL_PROVIDER *COpenSSL_OSSL_PROVIDER_load(OSSL_LIB_CTX *argument0, const char *name) { require_loaded(); return api.OSSL_PROVIDER_load(argument0, name); }
EVP_PKEY *COpenSSL_PEM_read_bio_PUBKEY(BIO *out, EVP_PKEY **x, pem_password_cb *cb, void *u) { require_loaded(); return api.PEM_read_bio_PUBKEY(out, x, cb, u); }
EVP_PKEY *COpenSSL_PEM_read_bio_PrivateKey(BIO *out, EVP_PKEY **x, pem_password_cb *cb, void *u) { require_loaded(); return api.PEM_read_bio_PrivateKey(out, x, cb, u); }
int COpenSSL_PEM_write_bio_PKCS8PrivateKey(BIO *argument0, const EVP_PKEY *argument1, const EVP_CIPHER *argument2, const char *kstr, int klen, pem_password_cb *cb, void *u) { require_loaded(); return api.PEM_write_bio_PKCS8PrivateKey(argument0, argument1, argument2, kstr, klen, cb, u); }
int COpenSSL_PEM_write_bio_PUBKEY(BIO *out, const EVP_PKEY *x) { require_loaded(); return api.PEM_write_bio_PUBKEY(out, x); }
PKCS12 *COpenSSL_PKCS12_create(const char *pass, const char *name, EVP_PKEY *pkey, X509 *cert, struct stack_st_X509 *ca, int nid_key, int nid_cert, int iter, int mac_iter, int keytype) { require_loaded(); return api.PKCS12_create(pass, name, pkey, cert, ca, nid_key, nid_cert, iter, mac_iter, keytype); }
void COpenSSL_PKCS12_free(PKCS12 *a) { require_loaded(); api.PKCS12_free(a); }
int COpenSSL_PKCS12_mac_present(const PKCS12 *p12) { require_loaded(); return api.PKCS12_mac_present(p12); }
int COpenSSL_PKCS12_parse(PKCS12 *p12, const char *pass, EVP_PKEY **pkey, X509 **cert, struct stack_st_X509 **ca) { require_loaded(); return api.PKCS12_parse(p12, pass, pkey, cert, ca); }
int COpenSSL_PKCS12_verify_mac(PKCS12 *p12, const char *pass, int passlen) { require_loaded(); return api.PKCS12_verify_mac(p12, pass, passlen); }
int COpenSSL_PKCS5_PBKDF2_HMAC(const char *pass, int passlen, const unsigned char *salt, int saltlen, int iter, const EVP_MD *digest, int keylen, unsigned char *out) { require_loaded(); return api.PKCS5_PBKDF2_HMAC(pass, passlen, salt, saltlen, iter, digest, keylen, out); }
int COpenSSL_RAND_bytes(unsigned char *buf, int num) { require_loaded(); return api.RAND_bytes(buf, num); }
unsigned char *COpenSSL_SHA1(const unsigned char *d, size_t n, unsigned char *md) { require_loaded(); return api.SHA1(d, n, md); }
unsigned char *COpenSSL_SHA256(const unsigned char *d, size_t n, unsigned char *md) { require_loaded(); return api.SHA256(d, n, md); }
ASN1_OCTET_STRING *COpenSSL_X509_EXTENSION_get_data(X509_EXTENSION *ne) { require_loaded(); return api.X509_EXTENSION_get_data(ne); }
ASN1_OBJECT *COpenSSL_X509_EXTENSION_get_object(X509_EXTENSION *ex) { require_loaded(); return api.X509_EXTENSION_get_object(ex); }
void COpenSSL_X509_STORE_CTX_free(X509_STORE_CTX *ctx) { require_loaded(); api.X509_STORE_CTX_free(ctx); }
int COpenSSL_X509_STORE_CTX_get_error(const X509_STORE_CTX *ctx) { require_loaded(); return api.X509_STORE_CTX_get_error(ctx); }
int COpenSSL_X509_STORE_CTX_init(X509_STORE_CTX *ctx, X509_STORE *trust_store, X509 *target, struct stack_st_X509 *untrusted) { require_loaded(); return api.X509_STORE_CTX_init(ctx, trust_store, target, untrusted); }
X509_STORE_CTX *COpenSSL_X509_STORE_CTX_new(void) { require_loaded(); return api.X509_STORE_CTX_new(); }
void COpenSSL_X509_STORE_free(X509_STORE *v) { require_loaded(); api.X509_STORE_free(v); }
X509_STORE *COpenSSL_X509_STORE_new(void) { require_loaded(); return api.X509_STORE_new(); }
int COpenSSL_X509_STORE_set_default_paths(X509_STORE *ctx) { require_loaded(); return api.X509_STORE_set_default_paths(ctx); }
unsigned char *COpenSSL_X509_alias_get0(X509 *x, int *len) { require_loaded(); return api.X509_alias_get0(x, len); }
int COpenSSL_X509_check_private_key(const X509 *x509, const EVP_PKEY *pkey) { require_loaded(); return api.X509_check_private_key(x509, pkey); }
void COpenSSL_X509_free(X509 *a) { require_loaded(); api.X509_free(a); }
ASN1_BIT_STRING *COpenSSL_X509_get0_pubkey_bitstr(const X509 *x) { require_loaded(); return api.X509_get0_pubkey_bitstr(x); }
const ASN1_INTEGER *COpenSSL_X509_get0_serialNumber(const X509 *x) { require_loaded(); return api.X509_get0_serialNumber(x); }
X509_EXTENSION *COpenSSL_X509_get_ext(const X509 *x, int loc) { require_loaded(); return api.X509_get_ext(x, loc); }
int COpenSSL_X509_get_ext_count(const X509 *x) { require_loaded(); return api.X509_get_ext_count(x); }
X509_NAME *COpenSSL_X509_get_issuer_name(const X509 *a) { require_loaded(); return api.X509_get_issuer_name(a); }
EVP_PKEY *COpenSSL_X509_get_pubkey(X509 *x) { require_loaded(); return api.X509_get_pubkey(x); }
X509_NAME *COpenSSL_X509_get_subject_name(const X509 *a) { require_loaded(); return api.X509_get_subject_name(a); }
long COpenSSL_X509_get_version(const X509 *x) { require_loaded(); return api.X509_get_version(x); }
unsigned char *COpenSSL_X509_keyid_get0(X509 *x, int *len) { require_loaded(); return api.X509_keyid_get0(x, len); }
int COpenSSL_X509_up_ref(X509 *x) { require_loaded(); return api.X509_up_ref(x); }
int COpenSSL_X509_verify_cert(X509_STORE_CTX *ctx) { require_loaded(); return api.X509_verify_cert(ctx); }
ASN1_OCTET_STRING *COpenSSL_d2i_ASN1_OCTET_STRING(ASN1_OCTET_STRING **a, const unsigned char **in, long len) { require_loaded(); return api.d2i_ASN1_OCTET_STRING(a, in, len); }
EVP_PKEY *COpenSSL_d2i_AutoPrivateKey(EVP_PKEY **a, const unsigned char **pp, long length) { require_loaded(); return api.d2i_AutoPrivateKey(a, pp, length); }
GENERAL_NAMES *COpenSSL_d2i_GENERAL_NAMES(GENERAL_NAMES **a, const unsigned char **in, long len) { require_loaded(); return api.d2i_GENERAL_NAMES(a, in, len); }
PKCS12 *COpenSSL_d2i_PKCS12(PKCS12 **a, const unsigned char **in, long len) { require_loaded(); return api.d2i_PKCS12(a, in, len); }
EVP_PKEY *COpenSSL_d2i_PUBKEY(EVP_PKEY **a, const unsigned char **in, long len) { require_loaded(); return api.d2i_PUBKEY(a, in, len); }
EVP_PKEY *COpenSSL_d2i_PrivateKey(int type, EVP_PKEY **a, const unsigned char **pp, long length) { require_loaded(); return api.d2i_PrivateKey(type, a, pp, length); }
EVP_PKEY *COpenSSL_d2i_PublicKey(int type, EVP_PKEY **a, const unsigned char **pp, long length) { require_loaded(); return api.d2i_PublicKey(type, a, pp, length); }
X509 *COpenSSL_d2i_X509(X509 **a, const unsigned char **in, long len) { require_loaded(); return api.d2i_X509(a, in, len); }
int COpenSSL_i2d_ASN1_INTEGER(const ASN1_INTEGER *a, unsigned char **out) { require_loaded(); return api.i2d_ASN1_INTEGER(a, out); }
int COpenSSL_i2d_PKCS12(const PKCS12 *a, unsigned char **out) { require_loaded(); return api.i2d_PKCS12(a, out); }
int COpenSSL_i2d_PUBKEY(const EVP_PKEY *a, unsigned char **out) { require_loaded(); return api.i2d_PUBKEY(a, out); }
int COpenSSL_i2d_PrivateKey(const EVP_PKEY *a, unsigned char **pp) { require_loaded(); return api.i2d_PrivateKey(a, pp); }
int COpenSSL_i2d_PublicKey(const EVP_PKEY *a, unsigned char **pp) { require_loaded(); return api.i2d_PublicKey(a, pp); }
int COpenSSL_i2d_X509(const X509 *a, unsigned char **out) { require_loaded(); return api.i2d_X509(a, out); }
int COpenSSL_i2d_X509_NAME(const X509_NAME *a, unsigned char **out) { require_loaded(); return api.i2d_X509_NAME(a, out); }

// The helpers call libcrypto by its own names, through the table.
#define ASN1_OCTET_STRING_free (api.ASN1_OCTET_STRING_free)
#define ASN1_STRING_get0_data (api.ASN1_STRING_get0_data)
#define ASN1_STRING_length (api.ASN1_STRING_length)
#define ASN1_get_object (api.ASN1_get_object)
#define BIO_ctrl (api.BIO_ctrl)
#define BIO_free (api.BIO_free)
#define BIO_new (api.BIO_new)
#define BIO_s_secmem (api.BIO_s_secmem)
#define BIO_write (api.BIO_write)
#define BN_bin2bn (api.BN_bin2bn)
#define BN_bn2binpad (api.BN_bn2binpad)
#define BN_clear_free (api.BN_clear_free)
#define BN_secure_new (api.BN_secure_new)
#define CRYPTO_clear_free (api.CRYPTO_clear_free)
#define CRYPTO_memcmp (api.CRYPTO_memcmp)
#define CRYPTO_zalloc (api.CRYPTO_zalloc)
#define EC_GROUP_free (api.EC_GROUP_free)
#define EC_GROUP_new_by_curve_name (api.EC_GROUP_new_by_curve_name)
#define EC_POINT_free (api.EC_POINT_free)
#define EC_POINT_mul (api.EC_POINT_mul)
#define EC_POINT_new (api.EC_POINT_new)
#define EC_POINT_point2oct (api.EC_POINT_point2oct)
#define ERR_clear_error (api.ERR_clear_error)
#define ERR_get_error (api.ERR_get_error)
#define EVP_CIPHER_CTX_ctrl (api.EVP_CIPHER_CTX_ctrl)
#define EVP_CIPHER_CTX_free (api.EVP_CIPHER_CTX_free)
#define EVP_CIPHER_CTX_new (api.EVP_CIPHER_CTX_new)
#define EVP_CIPHER_fetch (api.EVP_CIPHER_fetch)
#define EVP_CIPHER_free (api.EVP_CIPHER_free)
#define EVP_CipherInit_ex (api.EVP_CipherInit_ex)
#define EVP_CipherUpdate (api.EVP_CipherUpdate)
#define EVP_DecryptFinal_ex (api.EVP_DecryptFinal_ex)
#define EVP_DecryptUpdate (api.EVP_DecryptUpdate)
#define EVP_Digest (api.EVP_Digest)
#define EVP_DigestFinal_ex (api.EVP_DigestFinal_ex)
#define EVP_DigestInit_ex (api.EVP_DigestInit_ex)
#define EVP_DigestUpdate (api.EVP_DigestUpdate)
#define EVP_EncryptFinal_ex (api.EVP_EncryptFinal_ex)
#define EVP_EncryptUpdate (api.EVP_EncryptUpdate)
#define EVP_MD_CTX_free (api.EVP_MD_CTX_free)
#define EVP_MD_CTX_new (api.EVP_MD_CTX_new)
#define EVP_PBE_scrypt (api.EVP_PBE_scrypt)
#define EVP_PKEY_CTX_free (api.EVP_PKEY_CTX_free)
#define EVP_PKEY_CTX_new (api.EVP_PKEY_CTX_new)
#define EVP_PKEY_CTX_new_from_name (api.EVP_PKEY_CTX_new_from_name)
#define EVP_PKEY_CTX_new_id (api.EVP_PKEY_CTX_new_id)
#define EVP_PKEY_CTX_set_group_name (api.EVP_PKEY_CTX_set_group_name)
#define EVP_PKEY_CTX_set_rsa_keygen_bits (api.EVP_PKEY_CTX_set_rsa_keygen_bits)
#define EVP_PKEY_CTX_set_rsa_mgf1_md (api.EVP_PKEY_CTX_set_rsa_mgf1_md)
#define EVP_PKEY_CTX_set_rsa_oaep_md (api.EVP_PKEY_CTX_set_rsa_oaep_md)
#define EVP_PKEY_CTX_set_rsa_padding (api.EVP_PKEY_CTX_set_rsa_padding)
#define EVP_PKEY_CTX_set_rsa_pss_saltlen (api.EVP_PKEY_CTX_set_rsa_pss_saltlen)
#define EVP_PKEY_CTX_set_signature_md (api.EVP_PKEY_CTX_set_signature_md)
#define EVP_PKEY_decrypt (api.EVP_PKEY_decrypt)
#define EVP_PKEY_decrypt_init (api.EVP_PKEY_decrypt_init)
#define EVP_PKEY_derive (api.EVP_PKEY_derive)
#define EVP_PKEY_derive_init (api.EVP_PKEY_derive_init)
#define EVP_PKEY_derive_set_peer (api.EVP_PKEY_derive_set_peer)
#define EVP_PKEY_encrypt (api.EVP_PKEY_encrypt)
#define EVP_PKEY_encrypt_init (api.EVP_PKEY_encrypt_init)
#define EVP_PKEY_free (api.EVP_PKEY_free)
#define EVP_PKEY_fromdata (api.EVP_PKEY_fromdata)
#define EVP_PKEY_fromdata_init (api.EVP_PKEY_fromdata_init)
#define EVP_PKEY_get_base_id (api.EVP_PKEY_get_base_id)
#define EVP_PKEY_get_bits (api.EVP_PKEY_get_bits)
#define EVP_PKEY_get_bn_param (api.EVP_PKEY_get_bn_param)
#define EVP_PKEY_get_octet_string_param (api.EVP_PKEY_get_octet_string_param)
#define EVP_PKEY_get_size (api.EVP_PKEY_get_size)
#define EVP_PKEY_get_utf8_string_param (api.EVP_PKEY_get_utf8_string_param)
#define EVP_PKEY_keygen (api.EVP_PKEY_keygen)
#define EVP_PKEY_keygen_init (api.EVP_PKEY_keygen_init)
#define EVP_PKEY_sign (api.EVP_PKEY_sign)
#define EVP_PKEY_sign_init (api.EVP_PKEY_sign_init)
#define EVP_PKEY_verify (api.EVP_PKEY_verify)
#define EVP_PKEY_verify_init (api.EVP_PKEY_verify_init)
#define EVP_PKEY_verify_recover (api.EVP_PKEY_verify_recover)
#define EVP_PKEY_verify_recover_init (api.EVP_PKEY_verify_recover_init)
#define EVP_aes_128_gcm (api.EVP_aes_128_gcm)
#define EVP_aes_192_gcm (api.EVP_aes_192_gcm)
#define EVP_aes_256_cbc (api.EVP_aes_256_cbc)
#define EVP_aes_256_gcm (api.EVP_aes_256_gcm)
#define EVP_get_digestbyname (api.EVP_get_digestbyname)
#define EVP_sha256 (api.EVP_sha256)
#define GENERAL_NAMES_free (api.GENERAL_NAMES_free)
#define OBJ_obj2nid (api.OBJ_obj2nid)
#define OBJ_sn2nid (api.OBJ_sn2nid)
#define OPENSSL_cleanse (api.OPENSSL_cleanse)
#define OPENSSL_init_crypto (api.OPENSSL_init_crypto)
#define OPENSSL_sk_new_null (api.OPENSSL_sk_new_null)
#define OPENSSL_sk_num (api.OPENSSL_sk_num)
#define OPENSSL_sk_pop_free (api.OPENSSL_sk_pop_free)
#define OPENSSL_sk_push (api.OPENSSL_sk_push)
#define OPENSSL_sk_value (api.OPENSSL_sk_value)
#define OSSL_PARAM_BLD_free (api.OSSL_PARAM_BLD_free)
#define OSSL_PARAM_BLD_new (api.OSSL_PARAM_BLD_new)
#define OSSL_PARAM_BLD_push_BN (api.OSSL_PARAM_BLD_push_BN)
#define OSSL_PARAM_BLD_push_octet_string (api.OSSL_PARAM_BLD_push_octet_string)
#define OSSL_PARAM_BLD_push_utf8_string (api.OSSL_PARAM_BLD_push_utf8_string)
#define OSSL_PARAM_BLD_to_param (api.OSSL_PARAM_BLD_to_param)
#define OSSL_PARAM_free (api.OSSL_PARAM_free)
#define OSSL_PROVIDER_load (api.OSSL_PROVIDER_load)
#define PEM_read_bio_PUBKEY (api.PEM_read_bio_PUBKEY)
#define PEM_read_bio_PrivateKey (api.PEM_read_bio_PrivateKey)
#define PEM_write_bio_PKCS8PrivateKey (api.PEM_write_bio_PKCS8PrivateKey)
#define PEM_write_bio_PUBKEY (api.PEM_write_bio_PUBKEY)
#define PKCS12_create (api.PKCS12_create)
#define PKCS12_free (api.PKCS12_free)
#define PKCS12_mac_present (api.PKCS12_mac_present)
#define PKCS12_parse (api.PKCS12_parse)
#define PKCS12_verify_mac (api.PKCS12_verify_mac)
#define PKCS5_PBKDF2_HMAC (api.PKCS5_PBKDF2_HMAC)
#define RAND_bytes (api.RAND_bytes)
#define SHA1 (api.SHA1)
#define SHA256 (api.SHA256)
#define SHA256_Final (api.SHA256_Final)
#define SHA256_Init (api.SHA256_Init)
#define SHA256_Update (api.SHA256_Update)
#define X509_EXTENSION_get_data (api.X509_EXTENSION_get_data)
#define X509_EXTENSION_get_object (api.X509_EXTENSION_get_object)
#define X509_STORE_CTX_free (api.X509_STORE_CTX_free)
#define X509_STORE_CTX_get_error (api.X509_STORE_CTX_get_error)
#define X509_STORE_CTX_init (api.X509_STORE_CTX_init)
#define X509_STORE_CTX_new (api.X509_STORE_CTX_new)
#define X509_STORE_free (api.X509_STORE_free)
#define X509_STORE_new (api.X509_STORE_new)
#define X509_STORE_set_default_paths (api.X509_STORE_set_default_paths)
#define X509_alias_get0 (api.X509_alias_get0)
#define X509_check_private_key (api.X509_check_private_key)
#define X509_free (api.X509_free)
#define X509_get0_pubkey_bitstr (api.X509_get0_pubkey_bitstr)
#define X509_get0_serialNumber (api.X509_get0_serialNumber)
#define X509_get_ext (api.X509_get_ext)
#define X509_get_ext_count (api.X509_get_ext_count)
#define X509_get_issuer_name (api.X509_get_issuer_name)
#define X509_get_pubkey (api.X509_get_pubkey)
#define X509_get_subject_name (api.X509_get_subject_name)
#define X509_get_version (api.X509_get_version)
#define X509_keyid_get0 (api.X509_keyid_get0)
#define X509_up_ref (api.X509_up_ref)
#define X509_verify_cert (api.X509_verify_cert)
#define d2i_ASN1_OCTET_STRING (api.d2i_ASN1_OCTET_STRING)
#define d2i_AutoPrivateKey (api.d2i_AutoPrivateKey)
#define d2i_GENERAL_NAMES (api.d2i_GENERAL_NAMES)
#define d2i_PKCS12 (api.d2i_PKCS12)
#define d2i_PUBKEY (api.d2i_PUBKEY)
#define d2i_PrivateKey (api.d2i_PrivateKey)
#define d2i_PublicKey (api.d2i_PublicKey)
#define d2i_X509 (api.d2i_X509)
#define i2d_ASN1_INTEGER (api.i2d_ASN1_INTEGER)
#define i2d_PKCS12 (api.i2d_PKCS12)
#define i2d_PUBKEY (api.i2d_PUBKEY)
#define i2d_PrivateKey (api.i2d_PrivateKey)
#define i2d_PublicKey (api.i2d_PublicKey)
#define i2d_X509 (api.i2d_X509)
#define i2d_X509_NAME (api.i2d_X509_NAME)

/// Frees a key made by COpenSSL_HMACKey_new, cleansing its states.
void COpenSSL_HMACKey_free(COpenSSL_HMACKey *key) {
    require_loaded();
    if (key == NULL) return;
    OPENSSL_clear_free(key, sizeof *key);
}

/// Precomputes an HMAC-SHA256 key (keys longer than the block are hashed first). NULL on failure.
COpenSSL_HMACKey *COpenSSL_HMACKey_new(const unsigned char *key, size_t keyLength) {
    require_loaded();
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
int COpenSSL_HMACKey_compute(
    const COpenSSL_HMACKey *key, const unsigned char *message, size_t length, unsigned char *out)
{
    require_loaded();
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
int COpenSSL_HMACKey_compute_parts(
    const COpenSSL_HMACKey *key, const unsigned char *head, size_t headLength,
    const unsigned char *body, size_t bodyLength, unsigned char *out)
{
    require_loaded();
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
int COpenSSL_HKDF_SHA256(
    const unsigned char *key, size_t keyLength,
    const unsigned char *salt, size_t saltLength,
    const unsigned char *info, size_t infoLength,
    unsigned char *out, size_t outLength)
{
    require_loaded();
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
int COpenSSL_SHA(int bits, const unsigned char *message, size_t length, unsigned char *out) {
    require_loaded();
    if (bits == 1) return SHA1(message, length, out) != NULL;
    if (bits == 256) return SHA256(message, length, out) != NULL;
    return 0;
}

/// The AES-GCM implementation for a 16-, 24- or 32-byte key, fetched from the default provider
/// once per key size: passing a fetched cipher to EVP_*Init_ex avoids an implicit fetch on every
/// operation. NULL for any other key length.
const EVP_CIPHER *COpenSSL_AESGCM(size_t keyLength) {
    require_loaded();
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
EVP_PKEY *COpenSSL_ECKeyFromData(
    const char *group, const unsigned char *pub, size_t pubLength,
    const unsigned char *priv, size_t privLength)
{
    require_loaded();
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
size_t COpenSSL_ECPublicPoint(
    const char *group, const unsigned char *priv, size_t privLength, unsigned char *out, size_t outLength)
{
    require_loaded();
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
int COpenSSL_ECPrivateScalar(const EVP_PKEY *key, unsigned char *out, size_t length)
{
    require_loaded();
    BIGNUM *scalar = NULL;
    if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) != 1) return 0;
    int written = BN_bn2binpad(scalar, out, (int)length);
    BN_clear_free(scalar);
    return written == (int)length ? 1 : 0;
}

/// The bytes a memory BIO holds (`BIO_get_mem_data`).
long COpenSSL_BIOMemoryData(BIO *bio, char **data)
{
    require_loaded();
    return BIO_get_mem_data(bio, data);
}

/// The number of names in a GeneralNames value (`sk_GENERAL_NAME_num`).
int COpenSSL_GeneralNamesCount(const GENERAL_NAMES *names) { require_loaded(); return sk_GENERAL_NAME_num(names); }

/// The kind of the `index`th name of a GeneralNames value (GEN_EMAIL, GEN_DNS, …); `text` receives
/// its IA5String for an rfc822Name or a dNSName, NULL for every other kind.
int COpenSSL_GeneralNameAt(const GENERAL_NAMES *names, int index, const ASN1_IA5STRING **text)
{
    require_loaded();
    const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, index);
    *text = NULL;
    if (name == NULL) return -1;
    if (name->type == GEN_EMAIL) *text = name->d.rfc822Name;
    if (name->type == GEN_DNS) *text = name->d.dNSName;
    return name->type;
}

/// `sk_X509_num`.
int COpenSSL_X509StackCount(const STACK_OF(X509) *stack) { require_loaded(); return sk_X509_num(stack); }
/// `sk_X509_value`.
X509 *COpenSSL_X509StackValue(const STACK_OF(X509) *stack, int index) { require_loaded(); return sk_X509_value(stack, index); }
/// `sk_X509_new_null`.
STACK_OF(X509) *COpenSSL_X509StackNew(void) { require_loaded(); return sk_X509_new_null(); }
/// `sk_X509_push` (the stack takes ownership of `certificate`). Returns the new count, 0 on failure.
int COpenSSL_X509StackPush(STACK_OF(X509) *stack, X509 *certificate) { require_loaded(); return sk_X509_push(stack, certificate); }
/// `sk_X509_pop_free(stack, X509_free)`.
void COpenSSL_X509StackFree(STACK_OF(X509) *stack) { require_loaded(); sk_X509_pop_free(stack, X509_free); }
