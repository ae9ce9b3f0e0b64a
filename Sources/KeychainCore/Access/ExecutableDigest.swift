import Foundation
import Synchronization

/// SHA-256 of executables, computed once per file version (device, inode, size, change time):
/// how a registered program is recognised.
public final class ExecutableDigest: Sendable {
    /// The process's cache.
    public static let shared = ExecutableDigest()

    private struct Version: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var changed: Int
        var changedNanoseconds: Int
    }

    private let cache = Mutex<[Version: Data]>([:])

    /// The digest of the file at `path` (followed if a link).
    public func digest(ofFileAt path: String) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw KeychainError(.param, "the program is not a regular file")
        }
        let version = Version(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            changed: info.st_ctim.tv_sec, changedNanoseconds: info.st_ctim.tv_nsec)
        if let known = cache.withLock({ $0[version] }) { return known }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw KeychainError(.param, "the program cannot be read")
        }
        let digest = try CertificateDigest.sha256(contents)
        cache.withLock { $0[version] = digest }
        return digest
    }
}
