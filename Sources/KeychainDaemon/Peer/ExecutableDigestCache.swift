import Foundation
import Synchronization

/// The SHA-256 digests of executables already read, by the file's device, inode, size, and
/// modification and change times (to the nanosecond): a file written since changes its change
/// time, which no unprivileged program can set back, so it is read again; a big executable that
/// many clients run is read once.
public final class ExecutableDigestCache: Sendable {
    /// The most digests kept; past it the cache starts afresh.
    public let capacity: Int
    private let entries = Mutex<[ProcessCalls.FileStatus: Data]>([:])
    private let computed = Atomic<Int>(0)

    /// An empty cache of at most `capacity` digests.
    public init(capacity: Int = 512) {
        self.capacity = capacity
    }

    /// How many digests were computed (read from a file) rather than found here.
    public var computedCount: Int { computed.load(ordering: .relaxed) }

    /// The digest of the file with `status`, computed by `compute` when not known. It is kept
    /// only if the file's status is still `status` once computed (`statusAfter`), so content
    /// read while the file changed is never remembered under the old status.
    func digest(for status: ProcessCalls.FileStatus, statusAfter: () throws -> ProcessCalls.FileStatus, compute: () throws -> Data) throws -> Data {
        if let known = entries.withLock({ $0[status] }) { return known }
        let digest = try compute()
        computed.add(1, ordering: .relaxed)
        guard try statusAfter() == status else {
            throw ProcessCallError(message: "the caller's executable changed while it was read", number: EAGAIN)
        }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[status] = digest
        }
        return digest
    }
}
