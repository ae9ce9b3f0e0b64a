#ifndef POWER_LOSS_VFS_H
#define POWER_LOSS_VFS_H

/// A simulated disk for SQLite that loses power: an SQLite VFS wrapping the default (unix) VFS
/// that keeps every write not yet synced in memory, and at a chosen write, truncate, sync or
/// delete ("event") throws away what a power loss would and ends the process at once.
///
/// The rules it keeps, as a disk with a volatile cache does:
/// - `xWrite` and `xTruncate` on the database, its WAL and its journals go to a pending list of
///   the file (shared by every handle on that path, as the kernel's page cache is); `xRead` and
///   `xFileSize` see the file with the pending list applied, so the process reads its own writes.
/// - `xSync` on any handle writes the file's pending list to the real file, in order, then syncs
///   it for real: from then on those bytes survive.
/// - A file the VFS created exists after a power loss only once its directory was synced. The
///   unix VFS syncs the directory at the first `xSync` of a journal or WAL handle opened with
///   SQLITE_OPEN_CREATE, and after `xDelete` with `dirSync`; those are the directory syncs the
///   simulation knows (syncs the application makes outside SQLite are not seen).
/// - Deleting a file is durable at once (an unsynced unlink never comes back).
/// - The shared-memory index (`-shm`), locks, sector size and device characteristics are the
///   real file's: after the process ends, the next opener rebuilds the index from the WAL.
///
/// At the power loss, in `discard` mode every pending write and truncate is lost and every file
/// whose directory entry was never synced vanishes. In `scatter` mode (SQLite's own crash test,
/// `test6.c`, does the same) each pending write independently is lost, reaches the disk whole,
/// or reaches it torn (each 512-byte sector of it old, new or garbage; bytes outside the write
/// are never touched, as the unix VFS's SQLITE_IOCAP_POWERSAFE_OVERWRITE promises); each pending
/// truncate is kept or lost; each unsynced new file vanishes or stays. Either way the process
/// then reports the loss on standard error and `_exit`s with `PowerLossExitStatus`; what is on
/// the real disk is then what the disk would hold. The report is one line of names and numbers:
/// `power-loss event E mode discard|scatter pending P database D wal W bytes B kept K torn T
/// vanished V` (P unsynced writes and truncates, D of them to main database files and W to WAL
/// files, of B bytes; K written whole and T torn; V new files vanished).

/// The exit status of a process whose simulated disk lost power.
enum { PowerLossExitStatus = 86 };

/// What happens to writes not yet synced when power is lost.
typedef enum {
    /// Every unsynced write, truncate and new file is lost.
    PowerLossModeDiscard = 0,
    /// Each unsynced write is lost, written whole or torn; truncates and new files kept or lost.
    PowerLossModeScatter = 1,
} PowerLossMode;

/// Registers the simulated disk as SQLite's default VFS, wrapping the current default; power is
/// lost at event number `lossAtEvent` (counting from 1; 0: only when `PowerLossVFS_losePower` is
/// called), before that event takes effect. `seed` drives `scatter` mode's choices. Returns an
/// SQLite status; call it before any database opens, once per process.
int PowerLossVFS_install(unsigned long long lossAtEvent, PowerLossMode mode, unsigned long long seed);

/// The number of events (writes, truncates, syncs and deletes of tracked files) so far.
unsigned long long PowerLossVFS_events(void);

/// Loses power now (see above); never returns.
void PowerLossVFS_losePower(void) __attribute__((noreturn));

#endif
