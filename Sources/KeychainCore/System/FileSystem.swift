#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The POSIX file calls the store needs, in one place: private directories and files, exclusive
/// creation, and permission checks. Errors carry the path's role, never file contents.
///
/// Privacy rule: the keychain directory must be a directory owned by the calling user (the
/// effective uid) with no group or other permission bits; every file the keychain reads, opens
/// or writes must in addition be a regular file (a symbolic link is refused, never followed).
/// Files and directories are created with their final mode set explicitly (0600, 0700) before
/// any byte is written, whatever the umask. Refusals are `errSecWrPerm` with an `UnsafeFile`.
package enum FileSystem {
    /// The permission bits a private file has.
    static let privateFileMode: mode_t = 0o600
    /// The permission bits a private directory has.
    static let privateDirectoryMode: mode_t = 0o700

    // MARK: - Checks

    /// Refuses the file at `path` unless it is private to the calling user: a regular file (not
    /// a symbolic link, which is not followed) that the calling user owns and that neither group
    /// nor others may use. A missing file passes.
    ///
    /// - Throws: `errSecWrPerm` naming `role` and the fix.
    package static func requirePrivate(path: String, role: FileRole) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw KeychainError(.notAvailable, "the \(role.rawValue) cannot be examined (errno \(errno))")
        }
        try requirePrivate(info, path: path, role: role.rawValue, isDirectory: false)
    }

    /// Refuses the open file `descriptor` (opened from `path`) unless it is private to the
    /// calling user, as `requirePrivate(path:role:)` does; checking the descriptor that is then
    /// read or written leaves no gap between the check and the use.
    ///
    /// - Throws: `errSecWrPerm` naming `role` and the fix.
    package static func requirePrivate(descriptor: Int32, path: String, role: FileRole) throws {
        try requirePrivate(descriptor: descriptor, path: path, role: role.rawValue)
    }

    /// Refuses the directory at `path` unless it is a directory owned by the calling user that
    /// neither group nor others may use. A symbolic link to a directory is followed: the
    /// directory it names is the one checked (through a descriptor). The directories above it
    /// are not checked.
    ///
    /// - Throws: `errSecWrPerm` naming the keychain directory and the fix; `errSecNotAvailable`
    ///   when it cannot be opened.
    package static func requirePrivateDirectory(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOTDIR {
                throw KeychainError(refusing: UnsafeFile(
                    path: path, role: FileRole.directory.rawValue, isDirectory: true, problem: .wrongType))
            }
            throw KeychainError(.notAvailable, "the keychain directory cannot be opened (errno \(errno))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw KeychainError(.notAvailable, "the keychain directory cannot be examined (errno \(errno))")
        }
        try requirePrivate(info, path: path, role: FileRole.directory.rawValue, isDirectory: true)
    }

    private static func requirePrivate(descriptor: Int32, path: String, role: String) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw KeychainError(.notAvailable, "the \(role) cannot be examined (errno \(errno))")
        }
        try requirePrivate(info, path: path, role: role, isDirectory: false)
    }

    /// The one privacy rule: the file's type, then its owner, then its permission bits.
    private static func requirePrivate(_ info: stat, path: String, role: String, isDirectory: Bool) throws {
        func refuse(_ problem: UnsafeFile.Problem) -> KeychainError {
            KeychainError(refusing: UnsafeFile(path: path, role: role, isDirectory: isDirectory, problem: problem))
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK { throw refuse(.symbolicLink) }
        guard type == (isDirectory ? S_IFDIR : S_IFREG) else { throw refuse(.wrongType) }
        let caller = geteuid()
        guard info.st_uid == caller else { throw refuse(.ownedByAnotherUser(owner: info.st_uid, caller: caller)) }
        guard info.st_mode & (S_IRWXG | S_IRWXO) == 0 else {
            throw refuse(.openToOthers(mode: UInt32(info.st_mode & 0o7777)))
        }
    }

    // MARK: - Directories and files

    /// Creates `path` and any missing parent, each with mode 0700 set explicitly (the XDG base
    /// directory specification's mode for directories it makes), then checks that `path` is
    /// private (`requirePrivateDirectory`). Directories that exist keep their mode.
    ///
    /// - Throws: `errSecNotAvailable` when `path` is a file or cannot be created; `errSecWrPerm`
    ///   when it is not private.
    package static func makePrivateDirectory(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR {
            throw KeychainError(.notAvailable, "the keychain directory path is a file")
        }
        var missing: [String] = []
        var current = path
        while !current.isEmpty && current != "/" && lstat(current, &info) != 0 && errno == ENOENT {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() {
            guard mkdir(directory, privateDirectoryMode) == 0 else {
                if errno == EEXIST { continue }  // made by a concurrent process: checked below
                let reason = directory == path ? "the keychain directory" : "the keychain's parent directory"
                throw KeychainError(.notAvailable, "could not create \(reason) (errno \(errno))")
            }
            // The umask may have removed bits the owner needs: set the mode itself.
            let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 {
                fchmod(descriptor, privateDirectoryMode)
                close(descriptor)
            }
        }
        try requirePrivateDirectory(path)
    }

    /// Creates `path` as an empty private file (mode 0600 set explicitly) unless a file is
    /// there; an existing file must be private.
    ///
    /// - Throws: `errSecWrPerm` when the file there is not private; `errSecNotAvailable` when it
    ///   cannot be created.
    package static func createPrivateFileIfMissing(_ path: String, role: FileRole) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, privateFileMode)
        guard descriptor >= 0 else {
            guard errno == EEXIST else {
                throw KeychainError(.notAvailable, "could not create the \(role.rawValue) (errno \(errno))")
            }
            try requirePrivate(path: path, role: role)
            return
        }
        defer { close(descriptor) }
        try makePrivate(descriptor: descriptor, path: path, role: role.rawValue)
    }

    /// Sets a new file's mode to 0600 (whatever the umask left) and checks it on its descriptor:
    /// on a filesystem that ignores modes or owners the file is refused before it holds a byte.
    private static func makePrivate(descriptor: Int32, path: String, role: String) throws {
        guard fchmod(descriptor, privateFileMode) == 0 else {
            throw KeychainError(.notAvailable, "could not set the mode of the \(role) (errno \(errno))")
        }
        try requirePrivate(descriptor: descriptor, path: path, role: role)
    }

    /// Whether a file exists at `path`.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Reads a whole file that is not the keychain's (entitlements, a backup to restore).
    static func read(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Reads a whole keychain file through one descriptor, after checking on that descriptor
    /// that it is private (`requirePrivate`); a symbolic link is refused, not followed.
    ///
    /// - Returns: the contents, or nil when there is no file at `path`.
    /// - Throws: `errSecWrPerm` when the file is not private; `errSecNotAvailable` when it
    ///   cannot be read.
    package static func readPrivate(_ path: String, role: FileRole) throws -> Data? {
        // O_NONBLOCK: a FIFO planted at `path` must not hang the open (it is refused below).
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { try requirePrivate(path: path, role: role) }
            throw KeychainError(.notAvailable, "the \(role.rawValue) cannot be read (errno \(errno))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw KeychainError(.notAvailable, "the \(role.rawValue) cannot be examined (errno \(errno))")
        }
        try requirePrivate(info, path: path, role: role.rawValue, isDirectory: false)
        var contents = Data(count: Int(info.st_size))
        var length = 0
        while true {
            if length == contents.count { contents.count += 4096 }
            let count = contents.withUnsafeMutableBytes { buffer in
                readBytes(descriptor, buffer.baseAddress! + length, buffer.count - length)
            }
            if count < 0 {
                if errno == EINTR { continue }
                contents.wipe()
                throw KeychainError(.notAvailable, "the \(role.rawValue) cannot be read (errno \(errno))")
            }
            if count == 0 { break }
            length += count
        }
        contents.count = length
        return contents
    }

    /// Creates a private file beside `path` under a unique temporary name, checked before any
    /// byte is written (`makePrivate`).
    private static func createTemporary(beside path: String, role: FileRole) throws -> (descriptor: Int32, path: String) {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, privateFileMode)
        guard descriptor >= 0 else { throw writeError(errno) }
        do {
            try makePrivate(descriptor: descriptor, path: temporary, role: "temporary file of the \(role.rawValue)")
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        return (descriptor, temporary)
    }

    /// Writes all of `contents` to `descriptor` and syncs it; 0 when both succeeded, else the
    /// `errno` of the failure.
    private static func writeAndSync(_ contents: Data, to descriptor: Int32) -> Int32 {
        var offset = 0
        while offset < contents.count {
            let written = contents.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return fsync(descriptor) == 0 ? 0 : errno
    }

    /// Publishes `contents` at `path` as a private file unless a file is already there,
    /// atomically: the bytes are written and synced under a temporary name (private before its
    /// first byte), then hard-linked into place, so a concurrent creator either wins or finds a
    /// complete file. Returns false if `path` existed.
    package static func createExclusively(_ path: String, contents: Data, role: FileRole) throws -> Bool {
        let (descriptor, temporary) = try createTemporary(beside: path, role: role)
        defer { unlink(temporary) }
        let failure = writeAndSync(contents, to: descriptor)
        close(descriptor)
        guard failure == 0 else { throw writeError(failure) }
        if link(temporary, path) == 0 {
            syncDirectory(of: path)
            return true
        }
        if errno == EEXIST { return false }
        throw KeychainError(.notAvailable, "could not publish a keychain file (errno \(errno))")
    }

    /// Replaces `path` with `contents` as a private file, atomically: written and synced under a
    /// temporary name (private before its first byte), then renamed over the old file, so a
    /// reader sees the old or the new file, never a mix, and a crash leaves one of them. For a
    /// keychain file (`FileRole.isKeychainFile`) the file being replaced must be private too.
    ///
    /// - Throws: `errSecWrPerm` for a file that is not private; `errSecIO` when the bytes cannot
    ///   be written.
    package static func replaceAtomically(_ path: String, contents: Data, role: FileRole) throws {
        if role.isKeychainFile { try requirePrivate(path: path, role: role) }
        let (descriptor, temporary) = try createTemporary(beside: path, role: role)
        var failure = writeAndSync(contents, to: descriptor)
        close(descriptor)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw writeError(failure)
        }
        syncDirectory(of: path)
    }

    /// `replaceAtomically`, then overwrites the replaced file's bytes with zeroes through a
    /// descriptor opened before the rename (the path already names the new file, so every reader
    /// finds one complete file). Returns false, changing nothing, when the replacement fails.
    @discardableResult
    static func replaceWipingOld(_ path: String, contents: Data, role: FileRole) -> Bool {
        let old = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        defer { if old >= 0 { close(old) } }
        guard (try? replaceAtomically(path, contents: contents, role: role)) != nil else { return false }
        var info = stat()
        if old >= 0 && fstat(old, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_uid == geteuid() {
            let zeroes = [UInt8](repeating: 0, count: Int(info.st_size))
            _ = zeroes.withUnsafeBytes { pwrite(old, $0.baseAddress, $0.count, 0) }
            fsync(old)
        }
        return true
    }

    /// Moves `source` over `destination` atomically and syncs the directory; false when
    /// `source` no longer exists (another process moved it first).
    static func moveAtomically(_ source: String, over destination: String) throws -> Bool {
        if rename(source, destination) != 0 {
            if errno == ENOENT { return false }
            throw writeError(errno)
        }
        syncDirectory(of: destination)
        return true
    }

    /// The status of a failed write with `code` (an `errno` value): `errSecWrPerm` when the
    /// filesystem or directory refuses writes, `errSecDiskFull` when space or quota ran out,
    /// `errSecIO` otherwise. The text names the failure, never a file's contents.
    static func writeError(_ code: Int32) -> KeychainError {
        switch code {
        case EROFS, EACCES, EPERM:
            return KeychainError(.writePermission, "a keychain file cannot be written: the filesystem or directory is read-only")
        case ENOSPC, EDQUOT, EFBIG:
            return KeychainError(.diskFull, "a keychain file cannot be written: the disk is full")
        default:
            return KeychainError(.io, "could not write a keychain file (errno \(code))")
        }
    }

    /// The size of the file at `path`; nil when there is none.
    static func size(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Overwrites `path` with zeroes, then removes it; a missing file is not an error. Only a
    /// regular file the calling user owns, with no other link, is overwritten (never a file a
    /// link leads to); anything else is only removed.
    static func removeSecurely(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFREG && info.st_size > 0 {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            if descriptor >= 0 {
                var opened = stat()
                if fstat(descriptor, &opened) == 0 && (opened.st_mode & S_IFMT) == S_IFREG
                    && opened.st_uid == geteuid() && opened.st_nlink == 1
                {
                    let zeroes = [UInt8](repeating: 0, count: Int(opened.st_size))
                    _ = zeroes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                    fsync(descriptor)
                }
                close(descriptor)
            }
        }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw KeychainError(.notAvailable, "could not remove a keychain file (errno \(errno))")
        }
        syncDirectory(of: path)
    }

    /// Syncs the directory holding `path` so a new entry survives power loss.
    static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }

    /// The value of an environment variable, read without building the whole environment.
    /// An environment variable's value as the C string `getenv` returns; nil when unset or
    /// empty (as `environment` treats it).
    static func environmentBytes(_ name: String) -> UnsafePointer<CChar>? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return UnsafePointer(value)
    }

    /// `environmentBytes` for a name written in the source: its bytes are handed to `getenv` as
    /// they are, where a `String` is first copied into a new C string (an allocation per call).
    package static func environmentBytes(_ name: StaticString) -> UnsafePointer<CChar>? {
        guard let value = getenv(cString(name)), value.pointee != 0 else { return nil }
        return UnsafePointer(value)
    }

    /// A string literal's bytes, which the compiler stores with a terminating NUL.
    static func cString(_ literal: StaticString) -> UnsafePointer<CChar> {
        precondition(literal.hasPointerRepresentation, "an environment variable's name is ASCII text")
        return UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// The running executable's absolute path.
    static var executablePath: String? {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        return path ?? CommandLine.arguments.first
    }
}

/// `read(2)`, reachable inside `FileSystem`, whose own `read` hides it.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
