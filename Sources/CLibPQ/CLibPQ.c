#include "CLibPQ.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct {
    PGconn * (*PQconnectdb)(const char *conninfo);
    void (*PQfinish)(PGconn *conn);
    ConnStatusType (*PQstatus)(const PGconn *conn);
    char * (*PQerrorMessage)(const PGconn *conn);
    int (*PQserverVersion)(const PGconn *conn);
    PQconninfoOption * (*PQconninfoParse)(const char *conninfo, char **errmsg);
    void (*PQconninfoFree)(PQconninfoOption *connOptions);
    void (*PQfreemem)(void *ptr);
    PGresult * (*PQexecParams)(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat);
    void (*PQclear)(PGresult *res);
    ExecStatusType (*PQresultStatus)(const PGresult *res);
    char * (*PQresultErrorField)(const PGresult *res, int fieldcode);
    int (*PQntuples)(const PGresult *res);
    int (*PQnfields)(const PGresult *res);
    char * (*PQfname)(const PGresult *res, int field_num);
    int (*PQgetisnull)(const PGresult *res, int tup_num, int field_num);
    char * (*PQgetvalue)(const PGresult *res, int tup_num, int field_num);
    char * (*PQcmdTuples)(PGresult *res);
    int (*PQsocket)(const PGconn *conn);
    int (*PQconsumeInput)(PGconn *conn);
    PGnotify * (*PQnotifies)(PGconn *conn);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char failure[256];

static void load(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason != NULL ? reason : "libpq.so.5 could not be loaded");
        return;
    }
    // The handle is kept for the life of the process: the functions stay callable.
#define CLIBPQ_RESOLVE(name) \
    *(void **)(&api.name) = dlsym(library, #name); \
    if (api.name == NULL) { snprintf(failure, sizeof failure, "libpq.so.5 has no %s", #name); return; }
    CLIBPQ_RESOLVE(PQconnectdb)
    CLIBPQ_RESOLVE(PQfinish)
    CLIBPQ_RESOLVE(PQstatus)
    CLIBPQ_RESOLVE(PQerrorMessage)
    CLIBPQ_RESOLVE(PQserverVersion)
    CLIBPQ_RESOLVE(PQconninfoParse)
    CLIBPQ_RESOLVE(PQconninfoFree)
    CLIBPQ_RESOLVE(PQfreemem)
    CLIBPQ_RESOLVE(PQexecParams)
    CLIBPQ_RESOLVE(PQclear)
    CLIBPQ_RESOLVE(PQresultStatus)
    CLIBPQ_RESOLVE(PQresultErrorField)
    CLIBPQ_RESOLVE(PQntuples)
    CLIBPQ_RESOLVE(PQnfields)
    CLIBPQ_RESOLVE(PQfname)
    CLIBPQ_RESOLVE(PQgetisnull)
    CLIBPQ_RESOLVE(PQgetvalue)
    CLIBPQ_RESOLVE(PQcmdTuples)
    CLIBPQ_RESOLVE(PQsocket)
    CLIBPQ_RESOLVE(PQconsumeInput)
    CLIBPQ_RESOLVE(PQnotifies)
#undef CLIBPQ_RESOLVE
    loaded = 1;
}

int clibpq_load(char *reason, size_t length) {
    pthread_once(&once, load);
    if (loaded) return 0;
    if (reason != NULL && length > 0) snprintf(reason, length, "%s", failure);
    return -1;
}

PGconn * clibpq_PQconnectdb(const char *conninfo) { return api.PQconnectdb(conninfo); }
void clibpq_PQfinish(PGconn *conn) { api.PQfinish(conn); }
ConnStatusType clibpq_PQstatus(const PGconn *conn) { return api.PQstatus(conn); }
char * clibpq_PQerrorMessage(const PGconn *conn) { return api.PQerrorMessage(conn); }
int clibpq_PQserverVersion(const PGconn *conn) { return api.PQserverVersion(conn); }
PQconninfoOption * clibpq_PQconninfoParse(const char *conninfo, char **errmsg) { return api.PQconninfoParse(conninfo, errmsg); }
void clibpq_PQconninfoFree(PQconninfoOption *connOptions) { api.PQconninfoFree(connOptions); }
void clibpq_PQfreemem(void *ptr) { api.PQfreemem(ptr); }
PGresult * clibpq_PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) { return api.PQexecParams(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat); }
void clibpq_PQclear(PGresult *res) { api.PQclear(res); }
ExecStatusType clibpq_PQresultStatus(const PGresult *res) { return api.PQresultStatus(res); }
char * clibpq_PQresultErrorField(const PGresult *res, int fieldcode) { return api.PQresultErrorField(res, fieldcode); }
int clibpq_PQntuples(const PGresult *res) { return api.PQntuples(res); }
int clibpq_PQnfields(const PGresult *res) { return api.PQnfields(res); }
char * clibpq_PQfname(const PGresult *res, int field_num) { return api.PQfname(res, field_num); }
int clibpq_PQgetisnull(const PGresult *res, int tup_num, int field_num) { return api.PQgetisnull(res, tup_num, field_num); }
char * clibpq_PQgetvalue(const PGresult *res, int tup_num, int field_num) { return api.PQgetvalue(res, tup_num, field_num); }
char * clibpq_PQcmdTuples(PGresult *res) { return api.PQcmdTuples(res); }
int clibpq_PQsocket(const PGconn *conn) { return api.PQsocket(conn); }
int clibpq_PQconsumeInput(PGconn *conn) { return api.PQconsumeInput(conn); }
PGnotify * clibpq_PQnotifies(PGconn *conn) { return api.PQnotifies(conn); }
