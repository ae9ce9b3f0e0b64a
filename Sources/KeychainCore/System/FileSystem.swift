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
enum FileSystem {
    /// Creates `path` and missing parents; the last component gets mode 0700.
    static func makePrivateDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw KeychainError(.notAvailable, "the keychain directory path is a file")
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path && !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw KeychainError(.notAvailable, "could not create the keychain's parent directory")
            }
        }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw KeychainError(.notAvailable, "could not create the keychain directory (errno \(errno))")
        }
    }

    /// Creates `path` as an empty 0600 file if it does not exist.
    static func touchPrivateFile(_ path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.notAvailable, "could not create a keychain file (errno \(errno))")
        }
        close(descriptor)
    }

    /// Refuses a path that users other than its owner can write.
    static func requireNotWritableByOthers(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw KeychainError(.notAvailable, "refusing a keychain path that other users can write")
        }
    }

    /// Whether a file exists at `path`.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Reads a whole file (used for the key file and entitlements).
    static func read(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Publishes `contents` at `path` with mode 0600 unless a file is already there, atomically:
    /// the bytes are written and synced under a temporary name, then hard-linked into place, so a
    /// concurrent creator either wins or finds a complete file. Returns false if `path` existed.
    static func createExclusively(_ path: String, contents: Data) throws -> Bool {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.notAvailable, "could not create a keychain file (errno \(errno))")
        }
        defer { unlink(temporary) }
        let written = contents.withUnsafeBytes { buffer in
            write(descriptor, buffer.baseAddress, buffer.count)
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == contents.count, synced else {
            throw KeychainError(.io, "could not write a keychain file")
        }
        if link(temporary, path) == 0 {
            syncDirectory(of: path)
            return true
        }
        if errno == EEXIST { return false }
        throw KeychainError(.notAvailable, "could not publish a keychain file (errno \(errno))")
    }

    /// Replaces `path` with `contents` (mode 0600) atomically: written and synced under a
    /// temporary name, then renamed over the old file, so a reader sees the old or the new file,
    /// never a mix, and a crash leaves one of them.
    ///
    /// - Throws: `writeError(_:)`'s status for the failure (`errSecWrPerm` on a read-only
    ///   filesystem or directory, `errSecDiskFull` when space runs out, `errSecIO` otherwise);
    ///   `path` is then unchanged.
    static func replaceAtomically(_ path: String, contents: Data) throws {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw writeError(errno) }
        var failure: Int32 = 0
        let written = contents.withUnsafeBytes { buffer in
            let count = write(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 { failure = errno }
            return count
        }
        if written >= 0 && written != contents.count { failure = ENOSPC }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw writeError(failure)
        }
        syncDirectory(of: path)
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

    /// Overwrites `path` with zeroes, then removes it; a missing file is not an error.
    static func removeSecurely(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFREG && info.st_size > 0 {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
            if descriptor >= 0 {
                let zeroes = [UInt8](repeating: 0, count: Int(info.st_size))
                _ = zeroes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                fsync(descriptor)
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
