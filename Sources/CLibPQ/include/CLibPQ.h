#ifndef CLIBPQ_H
#define CLIBPQ_H

// libpq, PostgreSQL's client library, loaded when sync first needs it rather than when a
// program starts: libpq brings some twenty libraries of its own (Kerberos, LDAP, GnuTLS, …),
// which would more than double the start-up of every `security` run. The types and constants
// come from Debian's libpq-dev headers; the functions are libpq's, called through pointers
// found in libpq.so.5 (Debian's libpq5). KeychainSync is the only caller.
#include <postgresql/libpq-fe.h>
#include <stddef.h>

/// Loads libpq once per process. Returns 0 when every function below can be called; otherwise
/// -1, with the loader's reason copied into `reason` (at most `length` bytes, NUL-terminated).
int clibpq_load(char *reason, size_t length);

/// libpq's `PQconnectdb`; callable only after `clibpq_load` returned 0.
PGconn * clibpq_PQconnectdb(const char *conninfo);
/// libpq's `PQfinish`; callable only after `clibpq_load` returned 0.
void clibpq_PQfinish(PGconn *conn);
/// libpq's `PQstatus`; callable only after `clibpq_load` returned 0.
ConnStatusType clibpq_PQstatus(const PGconn *conn);
/// libpq's `PQerrorMessage`; callable only after `clibpq_load` returned 0.
char * clibpq_PQerrorMessage(const PGconn *conn);
/// libpq's `PQserverVersion`; callable only after `clibpq_load` returned 0.
int clibpq_PQserverVersion(const PGconn *conn);
/// libpq's `PQconninfoParse`; callable only after `clibpq_load` returned 0.
PQconninfoOption * clibpq_PQconninfoParse(const char *conninfo, char **errmsg);
/// libpq's `PQconninfoFree`; callable only after `clibpq_load` returned 0.
void clibpq_PQconninfoFree(PQconninfoOption *connOptions);
/// libpq's `PQfreemem`; callable only after `clibpq_load` returned 0.
void clibpq_PQfreemem(void *ptr);
/// libpq's `PQexecParams`; callable only after `clibpq_load` returned 0.
PGresult * clibpq_PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat);
/// libpq's `PQclear`; callable only after `clibpq_load` returned 0.
void clibpq_PQclear(PGresult *res);
/// libpq's `PQresultStatus`; callable only after `clibpq_load` returned 0.
ExecStatusType clibpq_PQresultStatus(const PGresult *res);
/// libpq's `PQresultErrorField`; callable only after `clibpq_load` returned 0.
char * clibpq_PQresultErrorField(const PGresult *res, int fieldcode);
/// libpq's `PQntuples`; callable only after `clibpq_load` returned 0.
int clibpq_PQntuples(const PGresult *res);
/// libpq's `PQnfields`; callable only after `clibpq_load` returned 0.
int clibpq_PQnfields(const PGresult *res);
/// libpq's `PQfname`; callable only after `clibpq_load` returned 0.
char * clibpq_PQfname(const PGresult *res, int field_num);
/// libpq's `PQgetisnull`; callable only after `clibpq_load` returned 0.
int clibpq_PQgetisnull(const PGresult *res, int tup_num, int field_num);
/// libpq's `PQgetvalue`; callable only after `clibpq_load` returned 0.
char * clibpq_PQgetvalue(const PGresult *res, int tup_num, int field_num);
/// libpq's `PQcmdTuples`; callable only after `clibpq_load` returned 0.
char * clibpq_PQcmdTuples(PGresult *res);
/// libpq's `PQsocket`; callable only after `clibpq_load` returned 0.
int clibpq_PQsocket(const PGconn *conn);
/// libpq's `PQconsumeInput`; callable only after `clibpq_load` returned 0.
int clibpq_PQconsumeInput(PGconn *conn);
/// libpq's `PQnotifies`; callable only after `clibpq_load` returned 0.
PGnotify * clibpq_PQnotifies(PGconn *conn);

#endif
