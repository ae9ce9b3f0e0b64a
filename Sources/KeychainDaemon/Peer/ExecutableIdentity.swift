import Foundation
import KeychainCore
import KeychainCrypto

/// An executable file as a process runs it: where it is, which file it is (device and inode) and
/// what it holds (SHA-256 of its content).
public struct ExecutableIdentity: Sendable, Equatable {
    /// The executable's path as the kernel names the file now; a file removed since the process
    /// started ends with " (deleted)".
    public let path: String
    /// The device of the file.
    public let device: UInt64
    /// The inode of the file.
    public let inode: UInt64
    /// SHA-256 of the file's content.
    public let digest: Data

    /// The identity of the file at `path`, read through one open descriptor: the device, inode
    /// and content all belong to the file that was opened, even if the name is given to another
    /// file meanwhile. For a process's `/proc/<pid>/exe` the descriptor is the running file
    /// itself; `path` is then the link's target.
    ///
    /// - Throws: `errSecAuthFailed` when the file cannot be opened or read, or is not a regular file.
    public static func of(file path: String, digests: ExecutableDigestCache) throws -> ExecutableIdentity {
        try of(opening: path, name: { path }, digests: digests)
    }

    /// The identity of the executable the process `pid` runs, read through `/proc/<pid>/exe`
    /// (under `proc`): the file the process runs, named by the link's target.
    static func ofProcess(_ pid: Int32, proc: String = "/proc", digests: ExecutableDigestCache) throws -> ExecutableIdentity {
        let link = "\(proc)/\(pid)/exe"
        return try of(opening: link, name: { try ProcessCalls.readLink(link) }, digests: digests)
    }

    private static func of(opening path: String, name: () throws -> String, digests: ExecutableDigestCache) throws -> ExecutableIdentity {
        do {
            let descriptor = try ProcessCalls.openReadOnly(path)
            defer { ProcessCalls.close(descriptor) }
            let status = try ProcessCalls.status(of: descriptor)
            guard status.isRegularFile else {
                throw ProcessCallError(message: "the caller's executable is not a regular file", number: EINVAL)
            }
            let digest = try digests.digest(for: status, statusAfter: { try ProcessCalls.status(of: descriptor) }) {
                try contentDigest(of: descriptor)
            }
            return ExecutableIdentity(path: try name(), device: status.device, inode: status.inode, digest: digest)
        } catch let error as ProcessCallError {
            throw error.keychainError
        } catch let error as KeychainError {
            throw error
        } catch {
            throw KeychainError(.internal, "the caller's executable could not be digested")
        }
    }

    /// The identity of the executable the calling process runs (`/proc/self/exe`).
    public static func current(digests: ExecutableDigestCache) throws -> ExecutableIdentity {
        try of(opening: "/proc/self/exe", name: { try ProcessCalls.readLink("/proc/self/exe") }, digests: digests)
    }

    /// SHA-256 of everything `descriptor` reads from its start.
    private static func contentDigest(of descriptor: Int32) throws -> Data {
        do {
            return try SHA256Stream.digest(reading: descriptor)
        } catch let failure as SHA256Stream.ReadFailure {
            throw ProcessCallError(message: "a file of the caller's process cannot be read", number: failure.number)
        }
    }
}
