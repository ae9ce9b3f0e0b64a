// Linux calls Swift cannot import from Glibc: variadic functions (prctl, syscall) and
// declarations glibc hides without _GNU_SOURCE (struct ucred, POSIX_SPAWN_SETSID, SO_PEERPIDFD).
// Only KeychainDaemon and KeychainService use it, through one Swift wrapper each.
#ifndef CLINUX_SUPPORT_H
#define CLINUX_SUPPORT_H

#include <sys/types.h>
#include <spawn.h>

/// The peer of a connected Unix socket: pid, uid and gid (SO_PEERCRED). Returns 0 or an errno.
int clinux_peer_credentials(int socket, pid_t *pid, uid_t *uid, gid_t *gid);

/// A pidfd for the peer of a connected Unix socket (SO_PEERPIDFD, Linux 6.5 and later), or -1
/// with errno (ENOPROTOOPT on older kernels).
int clinux_peer_pidfd(int socket);

/// Sends signal 0 through a pidfd: 0 while the process lives, -1 with errno (ESRCH) after.
int clinux_pidfd_alive(int pidfd);

/// Makes the process non-dumpable: no core dump, no ptrace by processes of the same user
/// without CAP_SYS_PTRACE, /proc/<pid>/mem and environ closed to them. Returns 0 or -1.
int clinux_set_not_dumpable(void);

/// Runs `path` with `argv` in a new session, its standard streams on /dev/null and every other
/// descriptor closed (so the child holds nothing of the caller's: a pipe a parent waits on would
/// otherwise stay open as long as the daemon lives). Returns the pid, or -1 with errno.
pid_t clinux_spawn_detached(const char *path, char *const argv[], char *const envp[]);

/// Starts `path` with `argv` and `envp` in the caller's session, its standard input on `input`,
/// its standard output on `output` (both may be the same descriptor, which dup2 clears of
/// close-on-exec in the child), standard error on /dev/null, every other descriptor closed, and
/// no signal blocked or ignored. Returns the pid, or -1 with errno set.
pid_t clinux_spawn_with_streams(const char *path, char *const argv[], char *const envp[], int input, int output);

/// Asks the kernel to attach the sending process's credentials to every message received on
/// `socket` (SO_PASSCRED; a listening socket passes it on to the connections it accepts).
/// Returns 0 or -1 with errno.
int clinux_pass_credentials(int socket);

/// Receives at most `length` bytes from a Unix stream socket that passes credentials. The bytes
/// of one call come from one sending process (the kernel does not join writes of different
/// senders): its pid and uid, in the receiver's namespaces, are stored in `sender_pid` and
/// `sender_uid`, or -1 and (uid_t)-1 when the message carried none. Returns the byte count, 0 at
/// the end of the stream, -1 with errno.
ssize_t clinux_receive_with_sender(int socket, void *buffer, size_t length, pid_t *sender_pid, uid_t *sender_uid);

/// Makes the process (every thread) `uid`:`gid` with `gid` as its only group, for good: real,
/// effective and saved ids all changed, no new privileges on exec, no ambient capabilities, and
/// the bounding set emptied. With `keep_ptrace` it keeps exactly CAP_SYS_PTRACE (permitted and
/// effective, in the bounding set), and no other capability. Call as root, before any other
/// thread starts. Returns 0 or an errno.
int clinux_become_user(uid_t uid, gid_t gid, int keep_ptrace);

/// Waits until the peer of the connected stream `socket` closes its end or shuts down its writing
/// (POLLRDHUP, which glibc declares only with _GNU_SOURCE), or until `wake` becomes readable.
/// Returns 1 when the peer left, 0 when woken, -1 with errno on failure.
int clinux_wait_for_hang_up(int socket, int wake);

#endif
