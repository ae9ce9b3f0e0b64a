#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

// libpq, PostgreSQL's client library (Debian's libpq-dev). KeychainSync is its only caller.
#include <libpq-fe.h>

#endif
