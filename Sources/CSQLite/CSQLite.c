#include "CSQLite.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The functions of SQLite this target calls, found with dlsym when first needed.
static struct {
    __typeof__(sqlite3_config) *sqlite3_config;
    __typeof__(sqlite3_open_v2) *sqlite3_open_v2;
    __typeof__(sqlite3_close_v2) *sqlite3_close_v2;
    __typeof__(sqlite3_exec) *sqlite3_exec;
    __typeof__(sqlite3_free) *sqlite3_free;
    __typeof__(sqlite3_errmsg) *sqlite3_errmsg;
    __typeof__(sqlite3_extended_result_codes) *sqlite3_extended_result_codes;
    __typeof__(sqlite3_busy_handler) *sqlite3_busy_handler;
    __typeof__(sqlite3_changes) *sqlite3_changes;
    __typeof__(sqlite3_last_insert_rowid) *sqlite3_last_insert_rowid;
    __typeof__(sqlite3_get_autocommit) *sqlite3_get_autocommit;
    __typeof__(sqlite3_wal_checkpoint_v2) *sqlite3_wal_checkpoint_v2;
    __typeof__(sqlite3_prepare_v3) *sqlite3_prepare_v3;
    __typeof__(sqlite3_bind_blob64) *sqlite3_bind_blob64;
    __typeof__(sqlite3_bind_int64) *sqlite3_bind_int64;
    __typeof__(sqlite3_bind_null) *sqlite3_bind_null;
    __typeof__(sqlite3_bind_text) *sqlite3_bind_text;
    __typeof__(sqlite3_clear_bindings) *sqlite3_clear_bindings;
    __typeof__(sqlite3_step) *sqlite3_step;
    __typeof__(sqlite3_reset) *sqlite3_reset;
    __typeof__(sqlite3_finalize) *sqlite3_finalize;
    __typeof__(sqlite3_column_type) *sqlite3_column_type;
    __typeof__(sqlite3_column_blob) *sqlite3_column_blob;
    __typeof__(sqlite3_column_bytes) *sqlite3_column_bytes;
    __typeof__(sqlite3_column_int64) *sqlite3_column_int64;
    __typeof__(sqlite3_column_text) *sqlite3_column_text;
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char failure[256];

static void load(void) {
    void *library = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason != NULL ? reason : "libsqlite3.so.0 could not be loaded");
        return;
    }
    // The handle is kept for the life of the process: the functions stay callable.
#define CSQLITE_RESOLVE(name) \
    *(void **)(&api.name) = dlsym(library, #name); \
    if (api.name == NULL) { snprintf(failure, sizeof failure, "libsqlite3.so.0 has no %s", #name); return; }
    CSQLITE_RESOLVE(sqlite3_config)
    CSQLITE_RESOLVE(sqlite3_open_v2)
    CSQLITE_RESOLVE(sqlite3_close_v2)
    CSQLITE_RESOLVE(sqlite3_exec)
    CSQLITE_RESOLVE(sqlite3_free)
    CSQLITE_RESOLVE(sqlite3_errmsg)
    CSQLITE_RESOLVE(sqlite3_extended_result_codes)
    CSQLITE_RESOLVE(sqlite3_busy_handler)
    CSQLITE_RESOLVE(sqlite3_changes)
    CSQLITE_RESOLVE(sqlite3_last_insert_rowid)
    CSQLITE_RESOLVE(sqlite3_get_autocommit)
    CSQLITE_RESOLVE(sqlite3_wal_checkpoint_v2)
    CSQLITE_RESOLVE(sqlite3_prepare_v3)
    CSQLITE_RESOLVE(sqlite3_bind_blob64)
    CSQLITE_RESOLVE(sqlite3_bind_int64)
    CSQLITE_RESOLVE(sqlite3_bind_null)
    CSQLITE_RESOLVE(sqlite3_bind_text)
    CSQLITE_RESOLVE(sqlite3_clear_bindings)
    CSQLITE_RESOLVE(sqlite3_step)
    CSQLITE_RESOLVE(sqlite3_reset)
    CSQLITE_RESOLVE(sqlite3_finalize)
    CSQLITE_RESOLVE(sqlite3_column_type)
    CSQLITE_RESOLVE(sqlite3_column_blob)
    CSQLITE_RESOLVE(sqlite3_column_bytes)
    CSQLITE_RESOLVE(sqlite3_column_int64)
    CSQLITE_RESOLVE(sqlite3_column_text)
#undef CSQLITE_RESOLVE
    loaded = 1;
}

int CSQLite_load(char *reason, size_t length) {
    pthread_once(&once, load);
    if (loaded) return 0;
    if (reason != NULL && length > 0) snprintf(reason, length, "%s", failure);
    return -1;
}

sqlite3_destructor_type CSQLite_TRANSIENT(void) {
    return SQLITE_TRANSIENT;
}

int CSQLite_disableMemoryStatistics(void) {
    return api.sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int CSQLite_open_v2(const char *filename, sqlite3 **database, int flags, const char *vfs) { return api.sqlite3_open_v2(filename, database, flags, vfs); }
int CSQLite_close_v2(sqlite3 *database) { return api.sqlite3_close_v2(database); }
int CSQLite_exec(sqlite3 *database, const char *sql, int (*callback)(void *, int, char **, char **), void *context, char **message) { return api.sqlite3_exec(database, sql, callback, context, message); }
void CSQLite_free(void *pointer) { api.sqlite3_free(pointer); }
const char *CSQLite_errmsg(sqlite3 *database) { return api.sqlite3_errmsg(database); }
int CSQLite_extended_result_codes(sqlite3 *database, int on) { return api.sqlite3_extended_result_codes(database, on); }
int CSQLite_busy_handler(sqlite3 *database, int (*handler)(void *, int), void *context) { return api.sqlite3_busy_handler(database, handler, context); }
int CSQLite_changes(sqlite3 *database) { return api.sqlite3_changes(database); }
sqlite3_int64 CSQLite_last_insert_rowid(sqlite3 *database) { return api.sqlite3_last_insert_rowid(database); }
int CSQLite_get_autocommit(sqlite3 *database) { return api.sqlite3_get_autocommit(database); }
int CSQLite_wal_checkpoint_v2(sqlite3 *database, const char *schema, int mode, int *logFrames, int *checkpointedFrames) { return api.sqlite3_wal_checkpoint_v2(database, schema, mode, logFrames, checkpointedFrames); }
int CSQLite_prepare_v3(sqlite3 *database, const char *sql, int length, unsigned int flags, sqlite3_stmt **statement, const char **tail) { return api.sqlite3_prepare_v3(database, sql, length, flags, statement, tail); }
int CSQLite_bind_blob64(sqlite3_stmt *statement, int index, const void *bytes, sqlite3_uint64 length, sqlite3_destructor_type destructor) { return api.sqlite3_bind_blob64(statement, index, bytes, length, destructor); }
int CSQLite_bind_int64(sqlite3_stmt *statement, int index, sqlite3_int64 value) { return api.sqlite3_bind_int64(statement, index, value); }
int CSQLite_bind_null(sqlite3_stmt *statement, int index) { return api.sqlite3_bind_null(statement, index); }
int CSQLite_bind_text(sqlite3_stmt *statement, int index, const char *text, int length, sqlite3_destructor_type destructor) { return api.sqlite3_bind_text(statement, index, text, length, destructor); }
int CSQLite_clear_bindings(sqlite3_stmt *statement) { return api.sqlite3_clear_bindings(statement); }
int CSQLite_step(sqlite3_stmt *statement) { return api.sqlite3_step(statement); }
int CSQLite_reset(sqlite3_stmt *statement) { return api.sqlite3_reset(statement); }
int CSQLite_finalize(sqlite3_stmt *statement) { return api.sqlite3_finalize(statement); }
int CSQLite_column_type(sqlite3_stmt *statement, int column) { return api.sqlite3_column_type(statement, column); }
const void *CSQLite_column_blob(sqlite3_stmt *statement, int column) { return api.sqlite3_column_blob(statement, column); }
int CSQLite_column_bytes(sqlite3_stmt *statement, int column) { return api.sqlite3_column_bytes(statement, column); }
sqlite3_int64 CSQLite_column_int64(sqlite3_stmt *statement, int column) { return api.sqlite3_column_int64(statement, column); }
const unsigned char *CSQLite_column_text(sqlite3_stmt *statement, int column) { return api.sqlite3_column_text(statement, column); }
