#define _GNU_SOURCE
#include "CLinuxSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int clinux_peer_credentials(int socket, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return errno;
    if (length != sizeof credentials) return EINVAL;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int clinux_peer_pidfd(int socket) {
    int pidfd = -1;
    socklen_t length = sizeof pidfd;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &length) != 0) return -1;
    return pidfd;
}

int clinux_pidfd_alive(int pidfd) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0);
}

int clinux_set_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/// Starts `path` with standard input and output on `input` and `output` (-1: /dev/null),
/// standard error on /dev/null, every other descriptor closed, in a new session when
/// `new_session`.
static pid_t spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int new_session) {
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_t actions;
    pid_t pid = -1;
    int result = posix_spawnattr_init(&attributes);
    if (result != 0) { errno = result; return -1; }
    result = posix_spawn_file_actions_init(&actions);
    if (result != 0) { posix_spawnattr_destroy(&attributes); errno = result; return -1; }
    // A thread of the caller may block signals (Dispatch's workers block nearly all), and the
    // child inherits that mask and any ignored signal: start it with none blocked or ignored.
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, (new_session ? POSIX_SPAWN_SETSID : 0) | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (input >= 0) posix_spawn_file_actions_adddup2(&actions, input, 0);
    else posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (output >= 0) posix_spawn_file_actions_adddup2(&actions, output, 1);
    else posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    result = posix_spawn(&pid, path, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) { errno = result; return -1; }
    return pid;
}

pid_t clinux_spawn_detached(const char *path, char *const argv[], char *const envp[]) {
    return spawn(path, argv, envp, -1, -1, 1);
}

pid_t clinux_spawn_with_streams(const char *path, char *const argv[], char *const envp[], int input, int output) {
    return spawn(path, argv, envp, input, output, 0);
}

int clinux_pass_credentials(int socket) {
    int on = 1;
    return setsockopt(socket, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

ssize_t clinux_receive_with_sender(int socket, void *buffer, size_t length, pid_t *sender_pid, uid_t *sender_uid) {
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(struct ucred))];
    } control;
    struct iovec vector = {.iov_base = buffer, .iov_len = length};
    struct msghdr message = {
        .msg_iov = &vector,
        .msg_iovlen = 1,
        .msg_control = control.space,
        .msg_controllen = sizeof control.space,
    };
    *sender_pid = -1;
    *sender_uid = (uid_t)-1;
    ssize_t count = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (count < 0) return -1;
    for (struct cmsghdr *entry = CMSG_FIRSTHDR(&message); entry != NULL; entry = CMSG_NXTHDR(&message, entry)) {
        if (entry->cmsg_level == SOL_SOCKET && entry->cmsg_type == SCM_CREDENTIALS
            && entry->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
            struct ucred credentials;
            memcpy(&credentials, CMSG_DATA(entry), sizeof credentials);
            *sender_pid = credentials.pid;
            *sender_uid = credentials.uid;
        } else if (entry->cmsg_level == SOL_SOCKET && entry->cmsg_type == SCM_RIGHTS) {
            // Descriptors a client sends are never wanted: closed, not leaked.
            size_t bytes = entry->cmsg_len - CMSG_LEN(0);
            for (size_t offset = 0; offset + sizeof(int) <= bytes; offset += sizeof(int)) {
                int descriptor;
                memcpy(&descriptor, CMSG_DATA(entry) + offset, sizeof descriptor);
                close(descriptor);
            }
        }
    }
    return count;
}

int clinux_become_user(uid_t uid, gid_t gid, int keep_ptrace) {
    // The bounding set, while CAP_SETPCAP is still effective: nothing but CAP_SYS_PTRACE (kept)
    // can ever come back, not even through an exec.
    for (int cap = 0; cap <= 63; cap++) {
        if (keep_ptrace && cap == CAP_SYS_PTRACE) continue;
        int present = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
        if (present < 0) break;  // past the kernel's last capability
        if (present == 1 && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) return errno;
    }
    if (prctl(PR_SET_KEEPCAPS, keep_ptrace ? 1 : 0, 0, 0, 0) != 0) return errno;
    if (setgroups(1, &gid) != 0) return errno;
    if (setresgid(gid, gid, gid) != 0) return errno;
    if (setresuid(uid, uid, uid) != 0) return errno;
    if (keep_ptrace) {
        // setresuid left the permitted set (KEEPCAPS) and cleared the effective one: keep
        // CAP_SYS_PTRACE alone in both.
        struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
        struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
        data[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective = CAP_TO_MASK(CAP_SYS_PTRACE);
        data[CAP_TO_INDEX(CAP_SYS_PTRACE)].permitted = CAP_TO_MASK(CAP_SYS_PTRACE);
        if (syscall(SYS_capset, &header, data) != 0) return errno;
        if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0) return errno;
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return errno;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    return 0;
}

int clinux_wait_for_hang_up(int socket, int wake) {
    struct pollfd entries[2] = {
        { .fd = socket, .events = POLLRDHUP, .revents = 0 },
        { .fd = wake, .events = POLLIN, .revents = 0 },
    };
    for (;;) {
        if (poll(entries, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (entries[1].revents != 0) return 0;
        if (entries[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) return 1;
    }
}
