import Foundation
import Glibc
import KeychainCore

/// The Linux calls that identify a Unix socket's peer process and read its files, wrapped once:
/// every other type of the peer's identification goes through these.
enum ProcessCalls {
    /// `SO_PEERPIDFD` (Linux 6.5), which libc headers may not name yet.
    static let peerPidfdOption: Int32 = 77

    /// The peer's credentials as the kernel recorded them when it connected (`SO_PEERCRED`).
    struct Credentials: Equatable {
        let pid: Int32
        let uid: UInt32
        let gid: UInt32
    }

    /// `SO_PEERCRED` of the connected socket `socket`.
    ///
    /// - Throws: `errSecAuthFailed` when the socket has no peer credentials (not a connected
    ///   Unix socket).
    static func peerCredentials(socket: Int32) throws -> Credentials {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields.
        var fields: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &fields, &length) == 0, length == 12, fields.0 > 0 else {
            throw failure("the caller's credentials cannot be read", errno)
        }
        return Credentials(pid: fields.0, uid: fields.1, gid: fields.2)
    }

    /// A pidfd for the peer of `socket` (`SO_PEERPIDFD`), close-on-exec; nil when the kernel
    /// does not offer the option (`ENOPROTOOPT`, before Linux 6.5).
    ///
    /// - Throws: `errSecAuthFailed` when the peer has already exited, or another failure.
    static func peerPidfd(socket: Int32) throws -> Int32? {
        var descriptor: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, peerPidfdOption, &descriptor, &length) == 0 else {
            let error = errno
            if error == ENOPROTOOPT { return nil }
            throw failure("the caller's process cannot be held", error)
        }
        guard descriptor >= 0 else { throw failure("the caller's process cannot be held", EBADF) }
        return descriptor
    }

    /// Whether the process `pidfd` refers to has exited (a pidfd polls readable from the moment
    /// its process terminates, zombie or reaped; a live process's never does).
    static func hasExited(pidfd: Int32) -> Bool {
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, 0)
            if result >= 0 { return result > 0 }
            // Anything but an interruption is taken as exited: the process is not vouched for.
            if errno != EINTR { return true }
        }
    }

    /// Opens `path` read-only and close-on-exec (`O_NOFOLLOW` refuses a symbolic link as the last
    /// component). A magic link of /proc (`/proc/<pid>/exe`) opens the file the process runs,
    /// not whatever now has its name.
    static func openReadOnly(_ path: String, noFollow: Bool = false) throws -> Int32 {
        let flags = O_RDONLY | O_CLOEXEC | (noFollow ? O_NOFOLLOW : 0)
        while true {
            let descriptor = open(path, flags)
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw failure("a file of the caller's process cannot be opened", errno) }
        }
    }

    /// Closes a descriptor this type opened.
    static func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    /// What `fstat` says about an open file.
    struct FileStatus: Equatable, Hashable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let isRegularFile: Bool
        let modified: timespec
        let changed: timespec

        static func == (a: FileStatus, b: FileStatus) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size && a.isRegularFile == b.isRegularFile
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }

        func hash(into hasher: inout Hasher) {
            for value in [Int64(bitPattern: device), Int64(bitPattern: inode), size, Int64(modified.tv_sec), Int64(modified.tv_nsec),
                Int64(changed.tv_sec), Int64(changed.tv_nsec)] { hasher.combine(value) }
        }
    }

    /// `fstat` of `descriptor`.
    static func status(of descriptor: Int32) throws -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("a file of the caller's process cannot be examined", errno) }
        return FileStatus(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            isRegularFile: info.st_mode & S_IFMT == S_IFREG, modified: info.st_mtim, changed: info.st_ctim)
    }

    /// The target of the symbolic link `path` (for `/proc/<pid>/exe`: the executable's path now,
    /// followed by " (deleted)" when it was removed).
    static func readLink(_ path: String) throws -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count)
        guard count >= 0, count < buffer.count else { throw failure("the caller's executable path cannot be read", errno) }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Reads up to `buffer.count` bytes at the descriptor's offset; 0 at the end.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw failure("a file of the caller's process cannot be read", errno) }
        }
    }

    /// The whole content of the small file at `path` (at most `limit` bytes); nil when it does
    /// not exist.
    ///
    /// - Throws: `errSecAuthFailed` when it cannot be read or is larger than `limit`.
    static func readSmallFile(_ path: String, limit: Int, noFollow: Bool = false) throws -> Data? {
        let descriptor: Int32
        do {
            descriptor = try openReadOnly(path, noFollow: noFollow)
        } catch let error as ProcessCallError where error.number == ENOENT {
            return nil
        }
        defer { close(descriptor) }
        var content = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try read(descriptor, into: $0) }
            if count == 0 { return content }
            content.append(contentsOf: chunk[0..<count])
            guard content.count <= limit else { throw failure("a file of the caller's process is too large", EFBIG) }
        }
    }

    private static func failure(_ message: String, _ number: Int32) -> ProcessCallError {
        ProcessCallError(message: message, number: number)
    }
}

/// A failed call of `ProcessCalls`: what could not be done and the `errno` it ended with.
struct ProcessCallError: Error, CustomStringConvertible {
    let message: String
    let number: Int32

    var description: String { "\(message): \(String(cString: strerror(number)))" }

    /// The status a client is refused with: `errSecAuthFailed` (its identity is not established).
    var keychainError: KeychainError { KeychainError(.authFailed, description) }
}
