#ifndef CTSS2_H
#define CTSS2_H

// libtss2 (tpm2-tss): the Enhanced System API, the TCTI loader, marshalling and return-code text,
// loaded when the keychain first talks to a TPM rather than when a program starts. Linked, its
// five libraries cost every `security` run about 3 ms of symbol binding, and a machine without
// Debian's libtss2 runtime packages could not start the command at all. The types and constants
// come from Debian's libtss2-dev headers; the functions are found in libtss2-esys.so.0,
// libtss2-tctildr.so.0, libtss2-mu.so.0 and libtss2-rc.so.0. The helpers below also fill the
// nested TPM structures (unions and fixed arrays) that Swift imports awkwardly. KeychainHardware
// is the only caller.

#include <signal.h>
#include <stddef.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>

/// The code every function below that talks to the TSS returns when libtss2 could not be loaded:
/// the ESAPI layer's "no connection", which callers treat as "no TPM".
#define CTSS2_RC_NOT_LOADED ((TSS2_RC)(TSS2_ESAPI_RC_LAYER | TSS2_BASE_RC_NO_CONNECTION))

/// Loads libtss2 once per process. Returns 0 when every function below can reach the TSS;
/// otherwise -1, with the loader's reason copied into `reason` (at most `length` bytes,
/// NUL-terminated). Calling the functions without loading first is safe: they load on demand and
/// return `CTSS2_RC_NOT_LOADED` (or NULL, for `CTSS2_RC_Decode`) when the library is missing.
int CTSS2_LoadLibrary(char *reason, size_t length);

/// libtss2's `Tss2_TctiLdr_Initialize`.
TSS2_RC CTSS2_TctiLdr_Initialize(const char *configuration, TSS2_TCTI_CONTEXT **context);
/// libtss2's `Tss2_TctiLdr_Finalize`; does nothing when the library is not loaded.
void CTSS2_TctiLdr_Finalize(TSS2_TCTI_CONTEXT **context);
/// libtss2's `Esys_Initialize`.
TSS2_RC CTSS2_Esys_Initialize(ESYS_CONTEXT **context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion);
/// libtss2's `Esys_Finalize`; does nothing when the library is not loaded.
void CTSS2_Esys_Finalize(ESYS_CONTEXT **context);
/// libtss2's `Esys_FlushContext`.
TSS2_RC CTSS2_Esys_FlushContext(ESYS_CONTEXT *context, ESYS_TR handle);
/// libtss2's `Tss2_RC_Decode`: the text of a return code, or NULL when the library is not loaded.
const char *CTSS2_RC_Decode(TSS2_RC code);

/// The calling thread's signal mask before `CTSS2_BlockSIGPIPE`, and whether a SIGPIPE was
/// already pending for it.
typedef struct CTSS2_SignalGuard {
    sigset_t previous;
    int wasPending;
} CTSS2_SignalGuard;

/// Blocks SIGPIPE for the calling thread: the socket TCTIs write with write(2), so a TPM that
/// goes away during a command would otherwise kill the process instead of failing the call.
CTSS2_SignalGuard CTSS2_BlockSIGPIPE(void);

/// Discards a SIGPIPE raised while blocked (unless one was pending before) and restores the mask.
void CTSS2_RestoreSIGPIPE(const CTSS2_SignalGuard *guard);

/// The storage primary key's template: the TCG "SRK" template for ECC NIST P-256 (restricted
/// decrypt, AES-128-CFB symmetric, no unique value), so the owner hierarchy's seed always yields
/// the same key.
TPM2B_PUBLIC CTSS2_StoragePrimaryTemplate(void);

/// The template of a key created under the storage key: ECC NIST P-256, unrestricted sign and
/// decrypt (ECDSA and ECDH chosen per call), fixedTPM | fixedParent | sensitiveDataOrigin |
/// userWithAuth (the private part is made inside the TPM and never leaves it unwrapped).
TPM2B_PUBLIC CTSS2_SigningKeyTemplate(void);

/// Creates the storage primary key in the owner hierarchy (empty owner authorization).
TSS2_RC CTSS2_CreateStoragePrimary(ESYS_CONTEXT *context, ESYS_TR *handle);

/// Creates a P-256 key under `parent` and writes its marshalled TPM2B_PUBLIC and TPM2B_PRIVATE
/// into the buffers (lengths in, lengths out).
TSS2_RC CTSS2_CreateKey(ESYS_CONTEXT *context, ESYS_TR parent,
    uint8_t *publicOut, size_t *publicLength, uint8_t *privateOut, size_t *privateLength);

/// Reads the public point (X and Y, each up to 32 bytes, big-endian) of a marshalled
/// TPM2B_PUBLIC; fails unless it is an ECC NIST P-256 key with the signing key's attributes.
TSS2_RC CTSS2_PublicPoint(const uint8_t *publicBlob, size_t publicLength,
    uint8_t *x, size_t *xLength, uint8_t *y, size_t *yLength);

/// Loads a key from its marshalled blobs under `parent`.
TSS2_RC CTSS2_Load(ESYS_CONTEXT *context, ESYS_TR parent,
    const uint8_t *publicBlob, size_t publicLength, const uint8_t *privateBlob, size_t privateLength, ESYS_TR *handle);

/// Signs a digest (20, 32, 48 or 64 bytes: SHA-1/256/384/512) with ECDSA; writes r and s.
TSS2_RC CTSS2_SignECDSA(ESYS_CONTEXT *context, ESYS_TR key, const uint8_t *digest, size_t digestLength,
    uint8_t *r, size_t *rLength, uint8_t *s, size_t *sLength);

/// ECDH: multiplies the peer's point (X, Y) by the key's private scalar; writes the shared X.
TSS2_RC CTSS2_ECDHZGen(ESYS_CONTEXT *context, ESYS_TR key,
    const uint8_t *x, size_t xLength, const uint8_t *y, size_t yLength, uint8_t *shared, size_t *sharedLength);

/// The template of a sealed data object under the storage key: a keyed-hash object with no
/// scheme, fixedTPM | fixedParent | userWithAuth | noDA (empty authorization: the TPM's
/// dictionary-attack lockout must not keep the keychain from opening), holding data the caller
/// supplies (so not sensitiveDataOrigin). The TPM returns the data only to a TPM2_Unseal on
/// the TPM that sealed it.
///
/// With `countsFailures` the object has no noDA: it is meant to carry an authorization value,
/// and every wrong one counts toward the TPM's dictionary-attack lockout, during which the TPM
/// refuses even the right one.
TPM2B_PUBLIC CTSS2_SealedDataTemplate(int countsFailures);

/// Seals `data` (at most 128 bytes) in a new data object under `parent`, with the authorization
/// value `auth` (up to 32 bytes; none when `authLength` is 0, and then the object is noDA), and
/// writes its marshalled TPM2B_PUBLIC and TPM2B_PRIVATE into the buffers (lengths in, lengths out).
TSS2_RC CTSS2_CreateSealed(ESYS_CONTEXT *context, ESYS_TR parent, const uint8_t *data, size_t dataLength,
    const uint8_t *auth, size_t authLength,
    uint8_t *publicOut, size_t *publicLength, uint8_t *privateOut, size_t *privateLength);

/// Whether a marshalled TPM2B_PUBLIC is a sealed data object with exactly the attributes
/// `CTSS2_SealedDataTemplate` gives (TSS2_RC_SUCCESS) or not (TSS2_MU_RC_BAD_VALUE, or the
/// unmarshalling error); `countsFailures` says which of its two forms it is.
TSS2_RC CTSS2_CheckSealedPublic(const uint8_t *publicBlob, size_t publicLength, int *countsFailures);

/// Unseals a loaded sealed data object with the authorization value `auth` (up to 32 bytes);
/// writes the data (lengths in, length out) and zeroes the TSS's copies.
TSS2_RC CTSS2_Unseal(ESYS_CONTEXT *context, ESYS_TR object, const uint8_t *auth, size_t authLength,
    uint8_t *out, size_t *outLength);

/// Reads the TPM's dictionary-attack state: the failures counted now, the failures that lock
/// it out (TPM2_PT_MAX_AUTH_FAIL), the seconds after which one failure is forgotten
/// (TPM2_PT_LOCKOUT_INTERVAL) and the seconds before the lockout hierarchy may be used again
/// after a failure of its own (TPM2_PT_LOCKOUT_RECOVERY).
TSS2_RC CTSS2_ReadDictionaryAttackState(ESYS_CONTEXT *context,
    uint32_t *counter, uint32_t *maxTries, uint32_t *recoveryTime, uint32_t *lockoutRecovery);

/// The attributes of a rollback counter: an NV counter (TPM2_NT_COUNTER: only TPM2_NV_Increment
/// changes it, and a new counter starts at the highest value any counter of the TPM ever had),
/// read and incremented with its own empty authorization value, never blocked by a lockout.
TPMA_NV CTSS2_CounterAttributes(void);

/// Defines the NV counter at `index` in the owner hierarchy (empty owner authorization).
TSS2_RC CTSS2_DefineCounter(ESYS_CONTEXT *context, TPM2_HANDLE index);

/// Whether an NV index is defined at `index`, asked as a capability (TPM2_CAP_HANDLES), which
/// answers without an error for an absent index: asking for its public area instead makes
/// libtss2 log an error line on standard error, in every program that opens a keychain.
TSS2_RC CTSS2_NVIndexDefined(ESYS_CONTEXT *context, TPM2_HANDLE index, int *defined);

/// Reads the NV counter at `index`: `state` is 0 when no index is defined there, 1 when it is
/// defined but never incremented, 2 when `value` holds its value; 3 when the index there is
/// not a counter of these attributes.
TSS2_RC CTSS2_ReadCounter(ESYS_CONTEXT *context, TPM2_HANDLE index, int *state, uint64_t *value);

/// Increments the NV counter at `index` and reads its new value.
TSS2_RC CTSS2_IncrementCounter(ESYS_CONTEXT *context, TPM2_HANDLE index, uint64_t *value);

#endif
