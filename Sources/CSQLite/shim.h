#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type CSQLite_TRANSIENT(void) {
    return (sqlite3_destructor_type)-1;
}

/// Turns off SQLite's memory statistics, whose upkeep takes one process-wide mutex on every
/// allocation and release (threads using their own connections then contend on it). Only
/// possible before SQLite is initialised; returns SQLITE_MISUSE, harmlessly, after.
static inline int CSQLite_disableMemoryStatistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
