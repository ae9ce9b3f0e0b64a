#include "PowerLossVFS.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// MARK: - State

/// One write or truncate not yet synced. `length` < 0 marks a truncate to `offset` bytes.
typedef struct PendingOperation {
    struct PendingOperation *next;
    sqlite3_int64 offset;
    int length;
    unsigned char bytes[];
} PendingOperation;

/// What the simulated disk knows of one path: its unsynced operations (shared by every handle
/// on the path) and whether its directory entry is still unsynced.
typedef struct FileNode {
    struct FileNode *next;
    char *path;
    /// SQLITE_OPEN_MAIN_DB, SQLITE_OPEN_WAL or a journal's kind.
    int kind;
    int handles;
    int entryUnsynced;
    PendingOperation *first;
    PendingOperation *last;
} FileNode;

/// A handle SQLite holds: the real (unix) file follows it in the same allocation.
typedef struct PowerLossFile {
    sqlite3_file base;
    sqlite3_file *real;
    FileNode *node;
    /// The unix VFS syncs the directory at this handle's first xSync.
    int syncsDirectory;
} PowerLossFile;

static struct {
    sqlite3_vfs vfs;
    sqlite3_vfs *real;
    pthread_mutex_t mutex;
    FileNode *nodes;
    unsigned long long events;
    unsigned long long lossAtEvent;
    PowerLossMode mode;
    uint64_t random;
} disk = {.mutex = PTHREAD_MUTEX_INITIALIZER};

/// SplitMix64 over `disk.random`.
static uint64_t nextRandom(void) {
    uint64_t z = (disk.random += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static FileNode *findNode(const char *path) {
    for (FileNode *node = disk.nodes; node; node = node->next) {
        if (strcmp(node->path, path) == 0) return node;
    }
    return NULL;
}

static void dropOperations(FileNode *node) {
    PendingOperation *operation = node->first;
    while (operation) {
        PendingOperation *next = operation->next;
        free(operation);
        operation = next;
    }
    node->first = node->last = NULL;
}

/// Forgets `node` once nothing refers to it and it holds nothing a power loss would change.
static void releaseNodeIfIdle(FileNode *node) {
    if (node->handles > 0 || node->first || node->entryUnsynced) return;
    for (FileNode **link = &disk.nodes; *link; link = &(*link)->next) {
        if (*link == node) {
            *link = node->next;
            break;
        }
    }
    free(node->path);
    free(node);
}

static int appendOperation(FileNode *node, sqlite3_int64 offset, const void *bytes, int length) {
    PendingOperation *operation = malloc(sizeof(PendingOperation) + (length > 0 ? (size_t)length : 0));
    if (!operation) return SQLITE_IOERR_NOMEM;
    operation->next = NULL;
    operation->offset = offset;
    operation->length = length;
    if (length > 0) memcpy(operation->bytes, bytes, (size_t)length);
    if (node->last) {
        node->last->next = operation;
    } else {
        node->first = operation;
    }
    node->last = operation;
    return SQLITE_OK;
}

/// Length of the directory part of `path` (up to its last slash), or 0 if it has none.
static size_t directoryLength(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

/// The directory holding `path` was synced: every entry in it is now durable.
static void directorySynced(const char *path) {
    size_t length = directoryLength(path);
    for (FileNode *node = disk.nodes; node; node = node->next) {
        if (directoryLength(node->path) == length && strncmp(node->path, path, length) == 0) {
            node->entryUnsynced = 0;
        }
    }
    for (FileNode *node = disk.nodes, *next; node; node = next) {
        next = node->next;
        releaseNodeIfIdle(node);
    }
}

// MARK: - Power loss

static void writeFully(int descriptor, const unsigned char *bytes, size_t length, off_t offset) {
    while (length > 0) {
        ssize_t written = pwrite(descriptor, bytes, length, offset);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        bytes += written;
        length -= (size_t)written;
        offset += written;
    }
}

/// Puts `operation` on the real disk in `scatter` mode: whole, lost or torn. Returns 0 when
/// lost, 1 when written whole, 2 when torn.
static int scatter(int descriptor, const PendingOperation *operation) {
    uint64_t roll = nextRandom() % 8;
    if (operation->length < 0) {
        if (roll < 4) return 0;
        if (ftruncate(descriptor, operation->offset) != 0) return 0;
        return 1;
    }
    if (roll < 3) return 0;
    if (roll < 6) {
        writeFully(descriptor, operation->bytes, (size_t)operation->length, operation->offset);
        return 1;
    }
    // Torn: each 512-byte sector the write touches gets the new bytes, keeps the old ones or
    // gets garbage, only within the written range.
    sqlite3_int64 end = operation->offset + operation->length;
    for (sqlite3_int64 start = operation->offset; start < end;) {
        sqlite3_int64 sectorEnd = (start / 512 + 1) * 512;
        if (sectorEnd > end) sectorEnd = end;
        size_t length = (size_t)(sectorEnd - start);
        const unsigned char *bytes = operation->bytes + (start - operation->offset);
        switch (nextRandom() % 3) {
        case 0: writeFully(descriptor, bytes, length, start); break;
        case 1: break;
        default: {
            unsigned char garbage[512];
            for (size_t index = 0; index < length; index++) garbage[index] = (unsigned char)nextRandom();
            writeFully(descriptor, garbage, length, start);
        }
        }
        start = sectorEnd;
    }
    return 2;
}

/// The power loss itself; called with the mutex held (other threads wait on it forever).
__attribute__((noreturn)) static void losePowerLocked(void) {
    unsigned long long pending = 0, database = 0, wal = 0, bytes = 0, kept = 0, torn = 0, vanished = 0;
    for (FileNode *node = disk.nodes; node; node = node->next) {
        for (PendingOperation *operation = node->first; operation; operation = operation->next) {
            pending++;
            if (node->kind == SQLITE_OPEN_MAIN_DB) database++;
            if (node->kind == SQLITE_OPEN_WAL) wal++;
            if (operation->length > 0) bytes += (unsigned long long)operation->length;
        }
        int vanishes = node->entryUnsynced && (disk.mode == PowerLossModeDiscard || nextRandom() % 2 == 0);
        if (vanishes) {
            if (unlink(node->path) == 0) vanished++;
            continue;
        }
        if (disk.mode != PowerLossModeScatter || !node->first) continue;
        int descriptor = open(node->path, O_WRONLY | O_CLOEXEC);
        if (descriptor < 0) continue;
        for (PendingOperation *operation = node->first; operation; operation = operation->next) {
            switch (scatter(descriptor, operation)) {
            case 1: kept++; break;
            case 2: torn++; break;
            default: break;
            }
        }
        close(descriptor);
    }
    char report[256];
    int length = snprintf(
        report, sizeof report,
        "power-loss event %llu mode %s pending %llu database %llu wal %llu bytes %llu kept %llu torn %llu "
        "vanished %llu\n",
        disk.events, disk.mode == PowerLossModeScatter ? "scatter" : "discard", pending, database, wal, bytes, kept,
        torn, vanished);
    if (length > 0) {
        ssize_t written;
        do written = write(STDERR_FILENO, report, (size_t)length); while (written < 0 && errno == EINTR);
    }
    _exit(PowerLossExitStatus);
}

/// Counts an event; power is lost instead of the event numbered `lossAtEvent`.
static void countEventLocked(void) {
    disk.events++;
    if (disk.events == disk.lossAtEvent) losePowerLocked();
}

void PowerLossVFS_losePower(void) {
    pthread_mutex_lock(&disk.mutex);
    losePowerLocked();
}

unsigned long long PowerLossVFS_events(void) {
    pthread_mutex_lock(&disk.mutex);
    unsigned long long events = disk.events;
    pthread_mutex_unlock(&disk.mutex);
    return events;
}

// MARK: - File methods

/// The file as the process sees it: the real file with the pending list applied. Fills
/// `buffer` (when not NULL) with `amount` bytes at `offset` and returns the logical size.
static int readLocked(PowerLossFile *file, void *buffer, int amount, sqlite3_int64 offset, sqlite3_int64 *size) {
    sqlite3_file *real = file->real;
    int status = real->pMethods->xFileSize(real, size);
    if (status != SQLITE_OK) return status;
    if (buffer) {
        status = real->pMethods->xRead(real, buffer, amount, offset);
        if (status != SQLITE_OK && status != SQLITE_IOERR_SHORT_READ) return status;
    }
    unsigned char *bytes = buffer;
    sqlite3_int64 end = offset + amount;
    for (PendingOperation *operation = file->node->first; operation; operation = operation->next) {
        if (operation->length < 0) {
            *size = operation->offset;
            if (bytes && operation->offset < end) {
                sqlite3_int64 from = operation->offset > offset ? operation->offset : offset;
                memset(bytes + (from - offset), 0, (size_t)(end - from));
            }
            continue;
        }
        sqlite3_int64 writeEnd = operation->offset + operation->length;
        if (writeEnd > *size) *size = writeEnd;
        if (!bytes) continue;
        sqlite3_int64 from = operation->offset > offset ? operation->offset : offset;
        sqlite3_int64 to = writeEnd < end ? writeEnd : end;
        if (from < to) memcpy(bytes + (from - offset), operation->bytes + (from - operation->offset), (size_t)(to - from));
    }
    return SQLITE_OK;
}

static int fileRead(sqlite3_file *handle, void *buffer, int amount, sqlite3_int64 offset) {
    PowerLossFile *file = (PowerLossFile *)handle;
    pthread_mutex_lock(&disk.mutex);
    sqlite3_int64 size = 0;
    int status = readLocked(file, buffer, amount, offset, &size);
    pthread_mutex_unlock(&disk.mutex);
    if (status != SQLITE_OK) return status;
    if (offset + amount > size) {
        // Beyond the end: SQLite expects the missing part zeroed and a short-read status.
        sqlite3_int64 from = size > offset ? size : offset;
        memset((unsigned char *)buffer + (from - offset), 0, (size_t)(offset + amount - from));
        return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
}

static int fileWrite(sqlite3_file *handle, const void *buffer, int amount, sqlite3_int64 offset) {
    PowerLossFile *file = (PowerLossFile *)handle;
    pthread_mutex_lock(&disk.mutex);
    countEventLocked();
    int status = appendOperation(file->node, offset, buffer, amount);
    pthread_mutex_unlock(&disk.mutex);
    return status;
}

static int fileTruncate(sqlite3_file *handle, sqlite3_int64 size) {
    PowerLossFile *file = (PowerLossFile *)handle;
    pthread_mutex_lock(&disk.mutex);
    countEventLocked();
    int status = appendOperation(file->node, size, NULL, -1);
    pthread_mutex_unlock(&disk.mutex);
    return status;
}

static int fileSync(sqlite3_file *handle, int flags) {
    PowerLossFile *file = (PowerLossFile *)handle;
    sqlite3_file *real = file->real;
    pthread_mutex_lock(&disk.mutex);
    countEventLocked();
    int status = SQLITE_OK;
    FileNode *node = file->node;
    while (node->first && status == SQLITE_OK) {
        PendingOperation *operation = node->first;
        status = operation->length < 0 ? real->pMethods->xTruncate(real, operation->offset)
                                       : real->pMethods->xWrite(real, operation->bytes, operation->length, operation->offset);
        if (status != SQLITE_OK) break;
        node->first = operation->next;
        if (!node->first) node->last = NULL;
        free(operation);
    }
    if (status == SQLITE_OK) status = real->pMethods->xSync(real, flags);
    if (status == SQLITE_OK && file->syncsDirectory) {
        file->syncsDirectory = 0;
        directorySynced(node->path);
    }
    pthread_mutex_unlock(&disk.mutex);
    return status;
}

static int fileSize(sqlite3_file *handle, sqlite3_int64 *size) {
    PowerLossFile *file = (PowerLossFile *)handle;
    pthread_mutex_lock(&disk.mutex);
    int status = readLocked(file, NULL, 0, 0, size);
    pthread_mutex_unlock(&disk.mutex);
    return status;
}

static int fileClose(sqlite3_file *handle) {
    PowerLossFile *file = (PowerLossFile *)handle;
    pthread_mutex_lock(&disk.mutex);
    file->node->handles--;
    releaseNodeIfIdle(file->node);
    file->node = NULL;
    pthread_mutex_unlock(&disk.mutex);
    return file->real->pMethods->xClose(file->real);
}

static int fileControl(sqlite3_file *handle, int operation, void *argument) {
    // A size hint would resize the real file behind the pending list; the unix VFS ignores it
    // unless a chunk size is set, so ignoring it here changes nothing else.
    if (operation == SQLITE_FCNTL_SIZE_HINT) return SQLITE_OK;
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xFileControl(real, operation, argument);
}

// Locks, sector size, device characteristics and shared memory are the real file's.

static int fileLock(sqlite3_file *handle, int level) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xLock(real, level);
}

static int fileUnlock(sqlite3_file *handle, int level) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xUnlock(real, level);
}

static int fileCheckReservedLock(sqlite3_file *handle, int *reserved) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xCheckReservedLock(real, reserved);
}

static int fileSectorSize(sqlite3_file *handle) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xSectorSize(real);
}

static int fileDeviceCharacteristics(sqlite3_file *handle) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xDeviceCharacteristics(real);
}

static int fileShmMap(sqlite3_file *handle, int region, int size, int extend, void volatile **memory) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xShmMap(real, region, size, extend, memory);
}

static int fileShmLock(sqlite3_file *handle, int offset, int count, int flags) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xShmLock(real, offset, count, flags);
}

static void fileShmBarrier(sqlite3_file *handle) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    real->pMethods->xShmBarrier(real);
}

static int fileShmUnmap(sqlite3_file *handle, int deleteFlag) {
    sqlite3_file *real = ((PowerLossFile *)handle)->real;
    return real->pMethods->xShmUnmap(real, deleteFlag);
}

/// Version 2: no xFetch, so SQLite never maps a file and every read goes through `fileRead`.
static const sqlite3_io_methods fileMethods = {
    2,
    fileClose,
    fileRead,
    fileWrite,
    fileTruncate,
    fileSync,
    fileSize,
    fileLock,
    fileUnlock,
    fileCheckReservedLock,
    fileControl,
    fileSectorSize,
    fileDeviceCharacteristics,
    fileShmMap,
    fileShmLock,
    fileShmBarrier,
    fileShmUnmap,
};

// MARK: - VFS methods

static int vfsOpen(sqlite3_vfs *vfs, const char *path, sqlite3_file *handle, int flags, int *outFlags) {
    (void)vfs;
    const int durableKinds = SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL | SQLITE_OPEN_SUPER_JOURNAL;
    if (!path || (flags & SQLITE_OPEN_DELETEONCLOSE) || !(flags & durableKinds)) {
        // Temporary files do not outlive the process: the real file, unwrapped.
        return disk.real->xOpen(disk.real, path, handle, flags, outFlags);
    }
    PowerLossFile *file = (PowerLossFile *)handle;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    pthread_mutex_lock(&disk.mutex);
    int existed = access(path, F_OK) == 0;
    int status = disk.real->xOpen(disk.real, path, file->real, flags, outFlags);
    if (status != SQLITE_OK) {
        pthread_mutex_unlock(&disk.mutex);
        if (file->real->pMethods) file->real->pMethods->xClose(file->real);
        return status;
    }
    FileNode *node = findNode(path);
    if (!node) {
        node = calloc(1, sizeof *node);
        char *copy = strdup(path);
        if (!node || !copy) {
            free(node);
            free(copy);
            pthread_mutex_unlock(&disk.mutex);
            file->real->pMethods->xClose(file->real);
            return SQLITE_NOMEM;
        }
        node->path = copy;
        node->kind = flags & durableKinds;
        node->next = disk.nodes;
        disk.nodes = node;
    }
    node->handles++;
    if (!existed && (flags & SQLITE_OPEN_CREATE)) node->entryUnsynced = 1;
    file->node = node;
    file->syncsDirectory = (flags & SQLITE_OPEN_CREATE) &&
        (flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL | SQLITE_OPEN_WAL));
    file->base.pMethods = &fileMethods;
    pthread_mutex_unlock(&disk.mutex);
    return SQLITE_OK;
}

static int vfsDelete(sqlite3_vfs *vfs, const char *path, int syncDirectory) {
    (void)vfs;
    pthread_mutex_lock(&disk.mutex);
    FileNode *node = findNode(path);
    if (node) countEventLocked();
    int status = disk.real->xDelete(disk.real, path, syncDirectory);
    if (node && status == SQLITE_OK) {
        dropOperations(node);
        node->entryUnsynced = 0;
        releaseNodeIfIdle(node);
    }
    if (status == SQLITE_OK && syncDirectory) directorySynced(path);
    pthread_mutex_unlock(&disk.mutex);
    return status;
}

static int vfsAccess(sqlite3_vfs *vfs, const char *path, int flags, int *result) {
    (void)vfs;
    return disk.real->xAccess(disk.real, path, flags, result);
}

static int vfsFullPathname(sqlite3_vfs *vfs, const char *path, int size, char *output) {
    (void)vfs;
    return disk.real->xFullPathname(disk.real, path, size, output);
}

static void *vfsDlOpen(sqlite3_vfs *vfs, const char *path) {
    (void)vfs;
    return disk.real->xDlOpen(disk.real, path);
}

static void vfsDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    disk.real->xDlError(disk.real, size, message);
}

static void (*vfsDlSym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return disk.real->xDlSym(disk.real, library, symbol);
}

static void vfsDlClose(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    disk.real->xDlClose(disk.real, library);
}

static int vfsRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return disk.real->xRandomness(disk.real, size, output);
}

static int vfsSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return disk.real->xSleep(disk.real, microseconds);
}

static int vfsCurrentTime(sqlite3_vfs *vfs, double *time) {
    (void)vfs;
    return disk.real->xCurrentTime(disk.real, time);
}

static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return disk.real->xGetLastError(disk.real, size, message);
}

static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    return disk.real->xCurrentTimeInt64(disk.real, time);
}

int PowerLossVFS_install(unsigned long long lossAtEvent, PowerLossMode mode, unsigned long long seed) {
    int status = sqlite3_initialize();
    if (status != SQLITE_OK) return status;
    if (disk.real) return SQLITE_MISUSE;
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (!real || real->iVersion < 2) return SQLITE_ERROR;
    disk.real = real;
    disk.lossAtEvent = lossAtEvent;
    disk.mode = mode;
    disk.random = seed;
    disk.vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(PowerLossFile) + real->szOsFile,
        .mxPathname = real->mxPathname,
        .zName = "power-loss",
        .xOpen = vfsOpen,
        .xDelete = vfsDelete,
        .xAccess = vfsAccess,
        .xFullPathname = vfsFullPathname,
        .xDlOpen = vfsDlOpen,
        .xDlError = vfsDlError,
        .xDlSym = vfsDlSym,
        .xDlClose = vfsDlClose,
        .xRandomness = vfsRandomness,
        .xSleep = vfsSleep,
        .xCurrentTime = vfsCurrentTime,
        .xGetLastError = vfsGetLastError,
        .xCurrentTimeInt64 = vfsCurrentTimeInt64,
    };
    return sqlite3_vfs_register(&disk.vfs, 1);
}
