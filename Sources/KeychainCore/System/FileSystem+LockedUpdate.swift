#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

extension FileSystem {
    /// Reads the small private file at `path` (created empty, mode 0600, if missing) and, when
    /// `change` returns new contents, writes them in place, all under an exclusive `flock` on
    /// the file, so that processes updating it at once never lose an update. The file must be
    /// private (`requirePrivate`); a symbolic link is refused, not followed.
    ///
    /// - Returns: the contents after the update.
    /// - Throws: `errSecWrPerm` for a file that is not private; `errSecNotAvailable` when it
    ///   cannot be opened, locked or read; a write error as `writeError` names it.
    package static func updateLocked(_ path: String, role: FileRole, limit: Int = 4096, _ change: (Data) -> Data?) throws -> Data {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, privateFileMode)
        guard descriptor >= 0 else {
            if errno == ELOOP { try requirePrivate(path: path, role: role) }
            throw KeychainError(.notAvailable, "the \(role.rawValue) cannot be opened (errno \(errno))")
        }
        defer { close(descriptor) }
        try requirePrivate(descriptor: descriptor, path: path, role: role)
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw KeychainError(.notAvailable, "the \(role.rawValue) cannot be locked (errno \(errno))")
            }
        }
        var buffer = [UInt8](repeating: 0, count: limit)
        let length = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard length >= 0 else { throw KeychainError(.notAvailable, "the \(role.rawValue) cannot be read (errno \(errno))") }
        let current = Data(buffer[..<length])
        guard let new = change(current), new != current else { return current }
        let written = new.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == new.count, ftruncate(descriptor, off_t(new.count)) == 0, fsync(descriptor) == 0 else {
            throw writeError(errno)
        }
        return new
    }
}
