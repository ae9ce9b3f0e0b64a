import Foundation
import KeychainCrypto

#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 of an executable's content, by which a registered program is recognised: read
/// through one descriptor, in constant memory (`SHA256Stream.digest(reading:)`, the reading
/// `keychaind` also digests its callers' executables with).
public enum ExecutableDigest {
    /// The digest of the file at `path` (followed if a link).
    ///
    /// - Throws: `.param` when it is not a readable regular file.
    public static func of(fileAt path: String) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw KeychainError(.param, "the program cannot be read") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw KeychainError(.param, "the program is not a regular file")
        }
        do {
            return try SHA256Stream.digest(reading: descriptor)
        } catch is SHA256Stream.ReadFailure {
            throw KeychainError(.param, "the program cannot be read")
        } catch {
            throw KeychainError(.internal, "the program's digest could not be computed")
        }
    }
}
