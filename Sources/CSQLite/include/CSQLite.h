#ifndef CSQLITE_H
#define CSQLITE_H

// SQLite, loaded when the first keychain is opened in this process rather than when a program
// starts: a client of keychaind never opens one, and binding libsqlite3 (built with BIND_NOW)
// cost every `security` run about a seventh of its start. The types and constants come from
// Debian's libsqlite3-dev header; the functions are found in libsqlite3.so.0 (Debian's
// libsqlite3-0). KeychainSQLite is the only caller. A process that links SQLite itself (a test
// with its own VFS) gets the same library instance: the loader returns the one already mapped.
#include <sqlite3.h>
#include <stddef.h>

/// Loads SQLite once per process. Returns 0 when every function below can be called; otherwise
/// -1, with the loader's reason copied into `reason` (at most `length` bytes, NUL-terminated).
int CSQLite_load(char *reason, size_t length);

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
sqlite3_destructor_type CSQLite_TRANSIENT(void);

/// Turns off SQLite's memory statistics, whose upkeep takes one process-wide mutex on every
/// allocation and release (threads using their own connections then contend on it). Only
/// possible before SQLite is initialised; returns SQLITE_MISUSE, harmlessly, after. Callable only
/// after `CSQLite_load` returned 0.
int CSQLite_disableMemoryStatistics(void);

/// SQLite's `sqlite3_open_v2`; callable only after `CSQLite_load` returned 0.
int CSQLite_open_v2(const char *filename, sqlite3 **database, int flags, const char *vfs);
/// SQLite's `sqlite3_close_v2`; callable only after `CSQLite_load` returned 0.
int CSQLite_close_v2(sqlite3 *database);
/// SQLite's `sqlite3_exec`; callable only after `CSQLite_load` returned 0.
int CSQLite_exec(sqlite3 *database, const char *sql, int (*callback)(void *, int, char **, char **), void *context, char **message);
/// SQLite's `sqlite3_free`; callable only after `CSQLite_load` returned 0.
void CSQLite_free(void *pointer);
/// SQLite's `sqlite3_errmsg`; callable only after `CSQLite_load` returned 0.
const char *CSQLite_errmsg(sqlite3 *database);
/// SQLite's `sqlite3_extended_result_codes`; callable only after `CSQLite_load` returned 0.
int CSQLite_extended_result_codes(sqlite3 *database, int on);
/// SQLite's `sqlite3_busy_handler`; callable only after `CSQLite_load` returned 0.
int CSQLite_busy_handler(sqlite3 *database, int (*handler)(void *, int), void *context);
/// SQLite's `sqlite3_changes`; callable only after `CSQLite_load` returned 0.
int CSQLite_changes(sqlite3 *database);
/// SQLite's `sqlite3_last_insert_rowid`; callable only after `CSQLite_load` returned 0.
sqlite3_int64 CSQLite_last_insert_rowid(sqlite3 *database);
/// SQLite's `sqlite3_get_autocommit`; callable only after `CSQLite_load` returned 0.
int CSQLite_get_autocommit(sqlite3 *database);
/// SQLite's `sqlite3_wal_checkpoint_v2`; callable only after `CSQLite_load` returned 0.
int CSQLite_wal_checkpoint_v2(sqlite3 *database, const char *schema, int mode, int *logFrames, int *checkpointedFrames);
/// SQLite's `sqlite3_prepare_v3`; callable only after `CSQLite_load` returned 0.
int CSQLite_prepare_v3(sqlite3 *database, const char *sql, int length, unsigned int flags, sqlite3_stmt **statement, const char **tail);
/// SQLite's `sqlite3_bind_blob64`; callable only after `CSQLite_load` returned 0.
int CSQLite_bind_blob64(sqlite3_stmt *statement, int index, const void *bytes, sqlite3_uint64 length, sqlite3_destructor_type destructor);
/// SQLite's `sqlite3_bind_int64`; callable only after `CSQLite_load` returned 0.
int CSQLite_bind_int64(sqlite3_stmt *statement, int index, sqlite3_int64 value);
/// SQLite's `sqlite3_bind_null`; callable only after `CSQLite_load` returned 0.
int CSQLite_bind_null(sqlite3_stmt *statement, int index);
/// SQLite's `sqlite3_bind_text`; callable only after `CSQLite_load` returned 0.
int CSQLite_bind_text(sqlite3_stmt *statement, int index, const char *text, int length, sqlite3_destructor_type destructor);
/// SQLite's `sqlite3_clear_bindings`; callable only after `CSQLite_load` returned 0.
int CSQLite_clear_bindings(sqlite3_stmt *statement);
/// SQLite's `sqlite3_step`; callable only after `CSQLite_load` returned 0.
int CSQLite_step(sqlite3_stmt *statement);
/// SQLite's `sqlite3_reset`; callable only after `CSQLite_load` returned 0.
int CSQLite_reset(sqlite3_stmt *statement);
/// SQLite's `sqlite3_finalize`; callable only after `CSQLite_load` returned 0.
int CSQLite_finalize(sqlite3_stmt *statement);
/// SQLite's `sqlite3_column_type`; callable only after `CSQLite_load` returned 0.
int CSQLite_column_type(sqlite3_stmt *statement, int column);
/// SQLite's `sqlite3_column_blob`; callable only after `CSQLite_load` returned 0.
const void *CSQLite_column_blob(sqlite3_stmt *statement, int column);
/// SQLite's `sqlite3_column_bytes`; callable only after `CSQLite_load` returned 0.
int CSQLite_column_bytes(sqlite3_stmt *statement, int column);
/// SQLite's `sqlite3_column_int64`; callable only after `CSQLite_load` returned 0.
sqlite3_int64 CSQLite_column_int64(sqlite3_stmt *statement, int column);
/// SQLite's `sqlite3_column_text`; callable only after `CSQLite_load` returned 0.
const unsigned char *CSQLite_column_text(sqlite3_stmt *statement, int column);

#endif
