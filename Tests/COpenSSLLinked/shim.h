#ifndef COPENSSLLINKED_SHIM_H
#define COPENSSLLINKED_SHIM_H

// libcrypto linked, for the benchmark floor that measures OpenSSL itself (AES-GCM with no
// keychain around it); the library's sources use COpenSSL.
#include <openssl/evp.h>

#endif
