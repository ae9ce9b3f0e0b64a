#include "CTSS2.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

// The functions of libtss2 this target calls, found with dlsym when first needed.
static struct {
    __typeof__(Esys_Create) *Esys_Create;
    __typeof__(Esys_CreatePrimary) *Esys_CreatePrimary;
    __typeof__(Esys_ECDH_ZGen) *Esys_ECDH_ZGen;
    __typeof__(Esys_Free) *Esys_Free;
    __typeof__(Esys_GetCapability) *Esys_GetCapability;
    __typeof__(Esys_Load) *Esys_Load;
    __typeof__(Esys_NV_DefineSpace) *Esys_NV_DefineSpace;
    __typeof__(Esys_NV_Increment) *Esys_NV_Increment;
    __typeof__(Esys_NV_Read) *Esys_NV_Read;
    __typeof__(Esys_NV_ReadPublic) *Esys_NV_ReadPublic;
    __typeof__(Esys_Sign) *Esys_Sign;
    __typeof__(Esys_TR_Close) *Esys_TR_Close;
    __typeof__(Esys_TR_FromTPMPublic) *Esys_TR_FromTPMPublic;
    __typeof__(Esys_TR_SetAuth) *Esys_TR_SetAuth;
    __typeof__(Esys_Unseal) *Esys_Unseal;
    __typeof__(Esys_Initialize) *Esys_Initialize;
    __typeof__(Esys_Finalize) *Esys_Finalize;
    __typeof__(Esys_FlushContext) *Esys_FlushContext;
    __typeof__(Tss2_MU_TPM2B_PRIVATE_Marshal) *Tss2_MU_TPM2B_PRIVATE_Marshal;
    __typeof__(Tss2_MU_TPM2B_PRIVATE_Unmarshal) *Tss2_MU_TPM2B_PRIVATE_Unmarshal;
    __typeof__(Tss2_MU_TPM2B_PUBLIC_Marshal) *Tss2_MU_TPM2B_PUBLIC_Marshal;
    __typeof__(Tss2_MU_TPM2B_PUBLIC_Unmarshal) *Tss2_MU_TPM2B_PUBLIC_Unmarshal;
    __typeof__(Tss2_RC_Decode) *Tss2_RC_Decode;
    __typeof__(Tss2_TctiLdr_Initialize) *Tss2_TctiLdr_Initialize;
    __typeof__(Tss2_TctiLdr_Finalize) *Tss2_TctiLdr_Finalize;
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char failure[256];

static void *open_library(const char *name) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason != NULL ? reason : name);
    }
    return library;
}

static void load(void) {
    // The handles are kept for the life of the process: the functions stay callable.
    void *esys = open_library("libtss2-esys.so.0");
    void *tctildr = esys != NULL ? open_library("libtss2-tctildr.so.0") : NULL;
    void *mu = tctildr != NULL ? open_library("libtss2-mu.so.0") : NULL;
    void *rc = mu != NULL ? open_library("libtss2-rc.so.0") : NULL;
    if (rc == NULL) return;
#define CTSS2_RESOLVE(library, name) \
    *(void **)(&api.name) = dlsym(library, #name); \
    if (api.name == NULL) { snprintf(failure, sizeof failure, "libtss2 has no %s", #name); return; }
    CTSS2_RESOLVE(esys, Esys_Create)
    CTSS2_RESOLVE(esys, Esys_CreatePrimary)
    CTSS2_RESOLVE(esys, Esys_ECDH_ZGen)
    CTSS2_RESOLVE(esys, Esys_Free)
    CTSS2_RESOLVE(esys, Esys_GetCapability)
    CTSS2_RESOLVE(esys, Esys_Load)
    CTSS2_RESOLVE(esys, Esys_NV_DefineSpace)
    CTSS2_RESOLVE(esys, Esys_NV_Increment)
    CTSS2_RESOLVE(esys, Esys_NV_Read)
    CTSS2_RESOLVE(esys, Esys_NV_ReadPublic)
    CTSS2_RESOLVE(esys, Esys_Sign)
    CTSS2_RESOLVE(esys, Esys_TR_Close)
    CTSS2_RESOLVE(esys, Esys_TR_FromTPMPublic)
    CTSS2_RESOLVE(esys, Esys_TR_SetAuth)
    CTSS2_RESOLVE(esys, Esys_Unseal)
    CTSS2_RESOLVE(esys, Esys_Initialize)
    CTSS2_RESOLVE(esys, Esys_Finalize)
    CTSS2_RESOLVE(esys, Esys_FlushContext)
    CTSS2_RESOLVE(mu, Tss2_MU_TPM2B_PRIVATE_Marshal)
    CTSS2_RESOLVE(mu, Tss2_MU_TPM2B_PRIVATE_Unmarshal)
    CTSS2_RESOLVE(mu, Tss2_MU_TPM2B_PUBLIC_Marshal)
    CTSS2_RESOLVE(mu, Tss2_MU_TPM2B_PUBLIC_Unmarshal)
    CTSS2_RESOLVE(rc, Tss2_RC_Decode)
    CTSS2_RESOLVE(tctildr, Tss2_TctiLdr_Initialize)
    CTSS2_RESOLVE(tctildr, Tss2_TctiLdr_Finalize)
#undef CTSS2_RESOLVE
    loaded = 1;
}

static int ensure_loaded(void) {
    pthread_once(&once, load);
    return loaded;
}

int CTSS2_LoadLibrary(char *reason, size_t length) {
    if (ensure_loaded()) return 0;
    if (reason != NULL && length > 0) snprintf(reason, length, "%s", failure);
    return -1;
}

TSS2_RC CTSS2_TctiLdr_Initialize(const char *configuration, TSS2_TCTI_CONTEXT **context) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    return api.Tss2_TctiLdr_Initialize(configuration, context);
}

void CTSS2_TctiLdr_Finalize(TSS2_TCTI_CONTEXT **context) {
    if (ensure_loaded()) api.Tss2_TctiLdr_Finalize(context);
}

TSS2_RC CTSS2_Esys_Initialize(ESYS_CONTEXT **context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    return api.Esys_Initialize(context, tcti, abiVersion);
}

void CTSS2_Esys_Finalize(ESYS_CONTEXT **context) {
    if (ensure_loaded()) api.Esys_Finalize(context);
}

TSS2_RC CTSS2_Esys_FlushContext(ESYS_CONTEXT *context, ESYS_TR handle) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    return api.Esys_FlushContext(context, handle);
}

const char *CTSS2_RC_Decode(TSS2_RC code) {
    return ensure_loaded() ? api.Tss2_RC_Decode(code) : NULL;
}

// The helpers call libtss2 by its own names, through the table.
#define Esys_Create (api.Esys_Create)
#define Esys_CreatePrimary (api.Esys_CreatePrimary)
#define Esys_ECDH_ZGen (api.Esys_ECDH_ZGen)
#define Esys_Free (api.Esys_Free)
#define Esys_GetCapability (api.Esys_GetCapability)
#define Esys_Load (api.Esys_Load)
#define Esys_NV_DefineSpace (api.Esys_NV_DefineSpace)
#define Esys_NV_Increment (api.Esys_NV_Increment)
#define Esys_NV_Read (api.Esys_NV_Read)
#define Esys_NV_ReadPublic (api.Esys_NV_ReadPublic)
#define Esys_Sign (api.Esys_Sign)
#define Esys_TR_Close (api.Esys_TR_Close)
#define Esys_TR_FromTPMPublic (api.Esys_TR_FromTPMPublic)
#define Esys_TR_SetAuth (api.Esys_TR_SetAuth)
#define Esys_Unseal (api.Esys_Unseal)
#define Esys_Initialize (api.Esys_Initialize)
#define Esys_Finalize (api.Esys_Finalize)
#define Esys_FlushContext (api.Esys_FlushContext)
#define Tss2_MU_TPM2B_PRIVATE_Marshal (api.Tss2_MU_TPM2B_PRIVATE_Marshal)
#define Tss2_MU_TPM2B_PRIVATE_Unmarshal (api.Tss2_MU_TPM2B_PRIVATE_Unmarshal)
#define Tss2_MU_TPM2B_PUBLIC_Marshal (api.Tss2_MU_TPM2B_PUBLIC_Marshal)
#define Tss2_MU_TPM2B_PUBLIC_Unmarshal (api.Tss2_MU_TPM2B_PUBLIC_Unmarshal)
#define Tss2_RC_Decode (api.Tss2_RC_Decode)
#define Tss2_TctiLdr_Initialize (api.Tss2_TctiLdr_Initialize)
#define Tss2_TctiLdr_Finalize (api.Tss2_TctiLdr_Finalize)

/// Blocks SIGPIPE for the calling thread: the socket TCTIs write with write(2), so a TPM that
/// goes away during a command would otherwise kill the process instead of failing the call.
CTSS2_SignalGuard CTSS2_BlockSIGPIPE(void) {
    CTSS2_SignalGuard guard;
    sigset_t pipe, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &guard.previous);
    sigemptyset(&pending);
    guard.wasPending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    return guard;
}

/// Discards a SIGPIPE raised while blocked (unless one was pending before) and restores the mask.
void CTSS2_RestoreSIGPIPE(const CTSS2_SignalGuard *guard) {
    if (!guard->wasPending) {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe, NULL, &zero) == SIGPIPE) {}
    }
    pthread_sigmask(SIG_SETMASK, &guard->previous, NULL);
}

/// The storage primary key's template: the TCG "SRK" template for ECC NIST P-256 (restricted
/// decrypt, AES-128-CFB symmetric, no unique value), so the owner hierarchy's seed always yields
/// the same key.
TPM2B_PUBLIC CTSS2_StoragePrimaryTemplate(void) {
    TPM2B_PUBLIC template;
    memset(&template, 0, sizeof template);
    template.publicArea.type = TPM2_ALG_ECC;
    template.publicArea.nameAlg = TPM2_ALG_SHA256;
    template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
        | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA
        | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
    template.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
    template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128;
    template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
    template.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
    template.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
    template.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
    return template;
}

/// The template of a key created under the storage key: ECC NIST P-256, unrestricted sign and
/// decrypt (ECDSA and ECDH chosen per call), fixedTPM | fixedParent | sensitiveDataOrigin |
/// userWithAuth (the private part is made inside the TPM and never leaves it unwrapped).
TPM2B_PUBLIC CTSS2_SigningKeyTemplate(void) {
    TPM2B_PUBLIC template;
    memset(&template, 0, sizeof template);
    template.publicArea.type = TPM2_ALG_ECC;
    template.publicArea.nameAlg = TPM2_ALG_SHA256;
    template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
        | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH
        | TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT;
    template.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
    template.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
    template.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
    template.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
    return template;
}

/// Creates the storage primary key in the owner hierarchy (empty owner authorization).
TSS2_RC CTSS2_CreateStoragePrimary(ESYS_CONTEXT *context, ESYS_TR *handle) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_SENSITIVE_CREATE sensitive;
    memset(&sensitive, 0, sizeof sensitive);
    TPM2B_PUBLIC template = CTSS2_StoragePrimaryTemplate();
    TPM2B_DATA outside;
    memset(&outside, 0, sizeof outside);
    TPML_PCR_SELECTION pcrs;
    memset(&pcrs, 0, sizeof pcrs);
    TPM2B_PUBLIC *outPublic = NULL;
    TPM2B_CREATION_DATA *creationData = NULL;
    TPM2B_DIGEST *creationHash = NULL;
    TPMT_TK_CREATION *ticket = NULL;
    TSS2_RC rc = Esys_CreatePrimary(context, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
        &sensitive, &template, &outside, &pcrs, handle, &outPublic, &creationData, &creationHash, &ticket);
    Esys_Free(outPublic);
    Esys_Free(creationData);
    Esys_Free(creationHash);
    Esys_Free(ticket);
    return rc;
}

/// Creates a P-256 key under `parent` and writes its marshalled TPM2B_PUBLIC and TPM2B_PRIVATE
/// into the buffers (lengths in, lengths out).
TSS2_RC CTSS2_CreateKey(ESYS_CONTEXT *context, ESYS_TR parent,
    uint8_t *publicOut, size_t *publicLength, uint8_t *privateOut, size_t *privateLength)
{
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_SENSITIVE_CREATE sensitive;
    memset(&sensitive, 0, sizeof sensitive);
    TPM2B_PUBLIC template = CTSS2_SigningKeyTemplate();
    TPM2B_DATA outside;
    memset(&outside, 0, sizeof outside);
    TPML_PCR_SELECTION pcrs;
    memset(&pcrs, 0, sizeof pcrs);
    TPM2B_PRIVATE *outPrivate = NULL;
    TPM2B_PUBLIC *outPublic = NULL;
    TPM2B_CREATION_DATA *creationData = NULL;
    TPM2B_DIGEST *creationHash = NULL;
    TPMT_TK_CREATION *ticket = NULL;
    TSS2_RC rc = Esys_Create(context, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
        &sensitive, &template, &outside, &pcrs, &outPrivate, &outPublic, &creationData, &creationHash, &ticket);
    if (rc == TSS2_RC_SUCCESS) {
        size_t offset = 0;
        rc = Tss2_MU_TPM2B_PUBLIC_Marshal(outPublic, publicOut, *publicLength, &offset);
        *publicLength = offset;
        offset = 0;
        if (rc == TSS2_RC_SUCCESS) rc = Tss2_MU_TPM2B_PRIVATE_Marshal(outPrivate, privateOut, *privateLength, &offset);
        *privateLength = offset;
    }
    if (outPrivate != NULL) memset(outPrivate, 0, sizeof *outPrivate);
    Esys_Free(outPrivate);
    Esys_Free(outPublic);
    Esys_Free(creationData);
    Esys_Free(creationHash);
    Esys_Free(ticket);
    return rc;
}

/// Reads the public point (X and Y, each up to 32 bytes, big-endian) of a marshalled
/// TPM2B_PUBLIC; fails unless it is an ECC NIST P-256 key with the signing key's attributes.
TSS2_RC CTSS2_PublicPoint(const uint8_t *publicBlob, size_t publicLength,
    uint8_t *x, size_t *xLength, uint8_t *y, size_t *yLength)
{
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_PUBLIC public;
    memset(&public, 0, sizeof public);
    size_t offset = 0;
    TSS2_RC rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(publicBlob, publicLength, &offset, &public);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (offset != publicLength) return TSS2_MU_RC_BAD_SIZE;
    TPM2B_PUBLIC expected = CTSS2_SigningKeyTemplate();
    if (public.publicArea.type != TPM2_ALG_ECC
        || public.publicArea.parameters.eccDetail.curveID != TPM2_ECC_NIST_P256
        || public.publicArea.objectAttributes != expected.publicArea.objectAttributes) return TSS2_MU_RC_BAD_VALUE;
    const TPM2B_ECC_PARAMETER *px = &public.publicArea.unique.ecc.x;
    const TPM2B_ECC_PARAMETER *py = &public.publicArea.unique.ecc.y;
    if (px->size > *xLength || py->size > *yLength) return TSS2_MU_RC_BAD_SIZE;
    memcpy(x, px->buffer, px->size);
    *xLength = px->size;
    memcpy(y, py->buffer, py->size);
    *yLength = py->size;
    return TSS2_RC_SUCCESS;
}

/// Loads a key from its marshalled blobs under `parent`.
TSS2_RC CTSS2_Load(ESYS_CONTEXT *context, ESYS_TR parent,
    const uint8_t *publicBlob, size_t publicLength, const uint8_t *privateBlob, size_t privateLength, ESYS_TR *handle)
{
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_PUBLIC public;
    TPM2B_PRIVATE private;
    memset(&public, 0, sizeof public);
    memset(&private, 0, sizeof private);
    size_t offset = 0;
    TSS2_RC rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(publicBlob, publicLength, &offset, &public);
    if (rc == TSS2_RC_SUCCESS && offset != publicLength) rc = TSS2_MU_RC_BAD_SIZE;
    offset = 0;
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_MU_TPM2B_PRIVATE_Unmarshal(privateBlob, privateLength, &offset, &private);
    if (rc == TSS2_RC_SUCCESS && offset != privateLength) rc = TSS2_MU_RC_BAD_SIZE;
    if (rc == TSS2_RC_SUCCESS) rc = Esys_Load(context, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &private, &public, handle);
    memset(&private, 0, sizeof private);
    return rc;
}

/// Signs a digest (20, 32, 48 or 64 bytes: SHA-1/256/384/512) with ECDSA; writes r and s.
TSS2_RC CTSS2_SignECDSA(ESYS_CONTEXT *context, ESYS_TR key, const uint8_t *digest, size_t digestLength,
    uint8_t *r, size_t *rLength, uint8_t *s, size_t *sLength)
{
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_DIGEST value;
    memset(&value, 0, sizeof value);
    TPMI_ALG_HASH hash;
    switch (digestLength) {
    case 20: hash = TPM2_ALG_SHA1; break;
    case 32: hash = TPM2_ALG_SHA256; break;
    case 48: hash = TPM2_ALG_SHA384; break;
    case 64: hash = TPM2_ALG_SHA512; break;
    default: return TSS2_ESYS_RC_BAD_VALUE;
    }
    value.size = (UINT16)digestLength;
    memcpy(value.buffer, digest, digestLength);
    TPMT_SIG_SCHEME scheme;
    memset(&scheme, 0, sizeof scheme);
    scheme.scheme = TPM2_ALG_ECDSA;
    scheme.details.ecdsa.hashAlg = hash;
    TPMT_TK_HASHCHECK validation;
    memset(&validation, 0, sizeof validation);
    validation.tag = TPM2_ST_HASHCHECK;
    validation.hierarchy = TPM2_RH_NULL;
    TPMT_SIGNATURE *signature = NULL;
    TSS2_RC rc = Esys_Sign(context, key, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &value, &scheme, &validation, &signature);
    if (rc == TSS2_RC_SUCCESS) {
        const TPM2B_ECC_PARAMETER *sr = &signature->signature.ecdsa.signatureR;
        const TPM2B_ECC_PARAMETER *ss = &signature->signature.ecdsa.signatureS;
        if (signature->sigAlg != TPM2_ALG_ECDSA || sr->size > *rLength || ss->size > *sLength) {
            rc = TSS2_ESYS_RC_MALFORMED_RESPONSE;
        } else {
            memcpy(r, sr->buffer, sr->size);
            *rLength = sr->size;
            memcpy(s, ss->buffer, ss->size);
            *sLength = ss->size;
        }
    }
    Esys_Free(signature);
    return rc;
}

/// ECDH: multiplies the peer's point (X, Y) by the key's private scalar; writes the shared X.
TSS2_RC CTSS2_ECDHZGen(ESYS_CONTEXT *context, ESYS_TR key,
    const uint8_t *x, size_t xLength, const uint8_t *y, size_t yLength, uint8_t *shared, size_t *sharedLength)
{
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_ECC_POINT point;
    memset(&point, 0, sizeof point);
    if (xLength > sizeof point.point.x.buffer || yLength > sizeof point.point.y.buffer) return TSS2_ESYS_RC_BAD_VALUE;
    point.point.x.size = (UINT16)xLength;
    memcpy(point.point.x.buffer, x, xLength);
    point.point.y.size = (UINT16)yLength;
    memcpy(point.point.y.buffer, y, yLength);
    TPM2B_ECC_POINT *out = NULL;
    TSS2_RC rc = Esys_ECDH_ZGen(context, key, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &point, &out);
    if (rc == TSS2_RC_SUCCESS) {
        if (out->point.x.size > *sharedLength) {
            rc = TSS2_ESYS_RC_MALFORMED_RESPONSE;
        } else {
            memcpy(shared, out->point.x.buffer, out->point.x.size);
            *sharedLength = out->point.x.size;
        }
        memset(out, 0, sizeof *out);
    }
    Esys_Free(out);
    return rc;
}

/// The template of a sealed data object under the storage key: a keyed-hash object with no
/// scheme, fixedTPM | fixedParent | userWithAuth | noDA (empty authorization: the TPM's
/// dictionary-attack lockout must not keep the keychain from opening), holding data the caller
/// supplies (so not sensitiveDataOrigin). The TPM returns the data only to a TPM2_Unseal on
/// the TPM that sealed it.
///
/// With `countsFailures` the object has no noDA: it is meant to carry an authorization value,
/// and every wrong one counts toward the TPM's dictionary-attack lockout, during which the TPM
/// refuses even the right one.
TPM2B_PUBLIC CTSS2_SealedDataTemplate(int countsFailures) {
    TPM2B_PUBLIC template;
    memset(&template, 0, sizeof template);
    template.publicArea.type = TPM2_ALG_KEYEDHASH;
    template.publicArea.nameAlg = TPM2_ALG_SHA256;
    template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
        | TPMA_OBJECT_USERWITHAUTH | (countsFailures ? 0 : TPMA_OBJECT_NODA);
    template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL;
    return template;
}

/// Seals `data` (at most 128 bytes) in a new data object under `parent`, with the authorization
/// value `auth` (up to 32 bytes; none when `authLength` is 0, and then the object is noDA), and
/// writes its marshalled TPM2B_PUBLIC and TPM2B_PRIVATE into the buffers (lengths in, lengths out).
TSS2_RC CTSS2_CreateSealed(ESYS_CONTEXT *context, ESYS_TR parent, const uint8_t *data, size_t dataLength,
    const uint8_t *auth, size_t authLength,
    uint8_t *publicOut, size_t *publicLength, uint8_t *privateOut, size_t *privateLength)
{
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_SENSITIVE_CREATE sensitive;
    memset(&sensitive, 0, sizeof sensitive);
    if (dataLength == 0 || dataLength > 128 || authLength > 32) return TSS2_ESYS_RC_BAD_VALUE;
    sensitive.sensitive.data.size = (UINT16)dataLength;
    memcpy(sensitive.sensitive.data.buffer, data, dataLength);
    sensitive.sensitive.userAuth.size = (UINT16)authLength;
    if (authLength > 0) memcpy(sensitive.sensitive.userAuth.buffer, auth, authLength);
    TPM2B_PUBLIC template = CTSS2_SealedDataTemplate(authLength > 0);
    TPM2B_DATA outside;
    memset(&outside, 0, sizeof outside);
    TPML_PCR_SELECTION pcrs;
    memset(&pcrs, 0, sizeof pcrs);
    TPM2B_PRIVATE *outPrivate = NULL;
    TPM2B_PUBLIC *outPublic = NULL;
    TPM2B_CREATION_DATA *creationData = NULL;
    TPM2B_DIGEST *creationHash = NULL;
    TPMT_TK_CREATION *ticket = NULL;
    TSS2_RC rc = Esys_Create(context, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
        &sensitive, &template, &outside, &pcrs, &outPrivate, &outPublic, &creationData, &creationHash, &ticket);
    memset(&sensitive, 0, sizeof sensitive);
    if (rc == TSS2_RC_SUCCESS) {
        size_t offset = 0;
        rc = Tss2_MU_TPM2B_PUBLIC_Marshal(outPublic, publicOut, *publicLength, &offset);
        *publicLength = offset;
        offset = 0;
        if (rc == TSS2_RC_SUCCESS) rc = Tss2_MU_TPM2B_PRIVATE_Marshal(outPrivate, privateOut, *privateLength, &offset);
        *privateLength = offset;
    }
    Esys_Free(outPrivate);
    Esys_Free(outPublic);
    Esys_Free(creationData);
    Esys_Free(creationHash);
    Esys_Free(ticket);
    return rc;
}

/// Whether a marshalled TPM2B_PUBLIC is a sealed data object with exactly the attributes
/// `CTSS2_SealedDataTemplate` gives (TSS2_RC_SUCCESS) or not (TSS2_MU_RC_BAD_VALUE, or the
/// unmarshalling error); `countsFailures` says which of its two forms it is.
TSS2_RC CTSS2_CheckSealedPublic(const uint8_t *publicBlob, size_t publicLength, int *countsFailures) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_PUBLIC public;
    memset(&public, 0, sizeof public);
    size_t offset = 0;
    TSS2_RC rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(publicBlob, publicLength, &offset, &public);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (offset != publicLength) return TSS2_MU_RC_BAD_SIZE;
    if (public.publicArea.type != TPM2_ALG_KEYEDHASH) return TSS2_MU_RC_BAD_VALUE;
    for (int counts = 0; counts <= 1; counts++) {
        if (public.publicArea.objectAttributes == CTSS2_SealedDataTemplate(counts).publicArea.objectAttributes) {
            *countsFailures = counts;
            return TSS2_RC_SUCCESS;
        }
    }
    return TSS2_MU_RC_BAD_VALUE;
}

/// Unseals a loaded sealed data object with the authorization value `auth` (up to 32 bytes);
/// writes the data (lengths in, length out) and zeroes the TSS's copies.
TSS2_RC CTSS2_Unseal(ESYS_CONTEXT *context, ESYS_TR object, const uint8_t *auth, size_t authLength,
    uint8_t *out, size_t *outLength)
{
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    if (authLength > 32) return TSS2_ESYS_RC_BAD_VALUE;
    TPM2B_AUTH value;
    memset(&value, 0, sizeof value);
    value.size = (UINT16)authLength;
    if (authLength > 0) memcpy(value.buffer, auth, authLength);
    TSS2_RC rc = Esys_TR_SetAuth(context, object, &value);
    memset(&value, 0, sizeof value);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_SENSITIVE_DATA *data = NULL;
    rc = Esys_Unseal(context, object, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &data);
    if (rc == TSS2_RC_SUCCESS) {
        if (data->size > *outLength) {
            rc = TSS2_ESYS_RC_MALFORMED_RESPONSE;
        } else {
            memcpy(out, data->buffer, data->size);
            *outLength = data->size;
        }
        memset(data, 0, sizeof *data);
    }
    Esys_Free(data);
    return rc;
}

/// Reads the TPM's dictionary-attack state: the failures counted now, the failures that lock
/// it out (TPM2_PT_MAX_AUTH_FAIL), the seconds after which one failure is forgotten
/// (TPM2_PT_LOCKOUT_INTERVAL) and the seconds before the lockout hierarchy may be used again
/// after a failure of its own (TPM2_PT_LOCKOUT_RECOVERY).
TSS2_RC CTSS2_ReadDictionaryAttackState(ESYS_CONTEXT *context,
    uint32_t *counter, uint32_t *maxTries, uint32_t *recoveryTime, uint32_t *lockoutRecovery)
{
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPMI_YES_NO more = TPM2_NO;
    TPMS_CAPABILITY_DATA *data = NULL;
    TSS2_RC rc = Esys_GetCapability(context, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
        TPM2_CAP_TPM_PROPERTIES, TPM2_PT_LOCKOUT_COUNTER, 4, &more, &data);
    if (rc != TSS2_RC_SUCCESS) return rc;
    *counter = *maxTries = *recoveryTime = *lockoutRecovery = 0;
    for (UINT32 i = 0; i < data->data.tpmProperties.count; i++) {
        TPMS_TAGGED_PROPERTY p = data->data.tpmProperties.tpmProperty[i];
        switch (p.property) {
        case TPM2_PT_LOCKOUT_COUNTER: *counter = p.value; break;
        case TPM2_PT_MAX_AUTH_FAIL: *maxTries = p.value; break;
        case TPM2_PT_LOCKOUT_INTERVAL: *recoveryTime = p.value; break;
        case TPM2_PT_LOCKOUT_RECOVERY: *lockoutRecovery = p.value; break;
        default: break;
        }
    }
    Esys_Free(data);
    return TSS2_RC_SUCCESS;
}

/// The attributes of a rollback counter: an NV counter (TPM2_NT_COUNTER: only TPM2_NV_Increment
/// changes it, and a new counter starts at the highest value any counter of the TPM ever had),
/// read and incremented with its own empty authorization value, never blocked by a lockout.
TPMA_NV CTSS2_CounterAttributes(void) {
    return (TPMA_NV)((TPM2_NT_COUNTER << TPMA_NV_TPM2_NT_SHIFT) | TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD | TPMA_NV_NO_DA);
}

/// Defines the NV counter at `index` in the owner hierarchy (empty owner authorization).
TSS2_RC CTSS2_DefineCounter(ESYS_CONTEXT *context, TPM2_HANDLE index) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPM2B_AUTH auth;
    memset(&auth, 0, sizeof auth);
    TPM2B_NV_PUBLIC info;
    memset(&info, 0, sizeof info);
    info.nvPublic.nvIndex = index;
    info.nvPublic.nameAlg = TPM2_ALG_SHA256;
    info.nvPublic.attributes = CTSS2_CounterAttributes();
    info.nvPublic.dataSize = 8;
    ESYS_TR handle = ESYS_TR_NONE;
    TSS2_RC rc = Esys_NV_DefineSpace(context, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &auth, &info, &handle);
    if (rc == TSS2_RC_SUCCESS) Esys_TR_Close(context, &handle);
    return rc;
}

/// Whether an NV index is defined at `index`, asked as a capability (TPM2_CAP_HANDLES), which
/// answers without an error for an absent index: asking for its public area instead makes
/// libtss2 log an error line on standard error, in every program that opens a keychain.
TSS2_RC CTSS2_NVIndexDefined(ESYS_CONTEXT *context, TPM2_HANDLE index, int *defined) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    TPMI_YES_NO more = TPM2_NO;
    TPMS_CAPABILITY_DATA *data = NULL;
    *defined = 0;
    TSS2_RC rc = Esys_GetCapability(context, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
        TPM2_CAP_HANDLES, index, 1, &more, &data);
    if (rc != TSS2_RC_SUCCESS) return rc;
    *defined = data->data.handles.count > 0 && data->data.handles.handle[0] == index;
    Esys_Free(data);
    return TSS2_RC_SUCCESS;
}

/// Reads the NV counter at `index`: `state` is 0 when no index is defined there, 1 when it is
/// defined but never incremented, 2 when `value` holds its value; 3 when the index there is
/// not a counter of these attributes.
TSS2_RC CTSS2_ReadCounter(ESYS_CONTEXT *context, TPM2_HANDLE index, int *state, uint64_t *value) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    *state = 0;
    *value = 0;
    int defined = 0;
    TSS2_RC rc = CTSS2_NVIndexDefined(context, index, &defined);
    if (rc != TSS2_RC_SUCCESS || !defined) return rc;
    ESYS_TR handle = ESYS_TR_NONE;
    rc = Esys_TR_FromTPMPublic(context, index, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &handle);
    if ((rc & 0xFF0000) == 0 && (rc & TPM2_RC_FMT1) != 0 && (rc & 0xBF) == TPM2_RC_HANDLE) return TSS2_RC_SUCCESS;
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_NV_PUBLIC *info = NULL;
    rc = Esys_NV_ReadPublic(context, handle, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &info, NULL);
    if (rc == TSS2_RC_SUCCESS) {
        TPMA_NV attributes = info->nvPublic.attributes & ~(TPMA_NV)TPMA_NV_WRITTEN;
        int written = (info->nvPublic.attributes & TPMA_NV_WRITTEN) != 0;
        if (attributes != CTSS2_CounterAttributes() || info->nvPublic.dataSize != 8) {
            *state = 3;
        } else if (!written) {
            *state = 1;
        } else {
            TPM2B_MAX_NV_BUFFER *data = NULL;
            rc = Esys_NV_Read(context, handle, handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, 8, 0, &data);
            if (rc == TSS2_RC_SUCCESS) {
                if (data->size != 8) {
                    rc = TSS2_ESYS_RC_MALFORMED_RESPONSE;
                } else {
                    for (int i = 0; i < 8; i++) *value = (*value << 8) | data->buffer[i];
                    *state = 2;
                }
            }
            Esys_Free(data);
        }
    }
    Esys_Free(info);
    Esys_TR_Close(context, &handle);
    return rc;
}

/// Increments the NV counter at `index` and reads its new value.
TSS2_RC CTSS2_IncrementCounter(ESYS_CONTEXT *context, TPM2_HANDLE index, uint64_t *value) {
    if (!ensure_loaded()) return CTSS2_RC_NOT_LOADED;
    ESYS_TR handle = ESYS_TR_NONE;
    TSS2_RC rc = Esys_TR_FromTPMPublic(context, index, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &handle);
    if (rc != TSS2_RC_SUCCESS) return rc;
    rc = Esys_NV_Increment(context, handle, handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE);
    if (rc == TSS2_RC_SUCCESS) {
        TPM2B_MAX_NV_BUFFER *data = NULL;
        rc = Esys_NV_Read(context, handle, handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, 8, 0, &data);
        if (rc == TSS2_RC_SUCCESS) {
            *value = 0;
            if (data->size != 8) rc = TSS2_ESYS_RC_MALFORMED_RESPONSE;
            else for (int i = 0; i < 8; i++) *value = (*value << 8) | data->buffer[i];
        }
        Esys_Free(data);
    }
    Esys_TR_Close(context, &handle);
    return rc;
}
