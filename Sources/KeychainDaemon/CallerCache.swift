import Foundation
import KeychainCore

#if canImport(Glibc)
import Glibc
#endif

/// One connection's decisions about its caller, by keychain: the caller policy's answer is kept
/// while the caller's executable is the same file version and no registry of programs changed
/// (`Keychain.registryGeneration`), so a request costs one `stat`, not the whole policy (reading
/// the executable's link, the sandbox file and the registry). A process that `exec`s another
/// program changes its executable, and is decided again.
final class CallerCache: @unchecked Sendable {
    /// The caller's executable file as `stat` sees it through `/proc/<pid>/exe`.
    struct ExecutableStamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
        var modifiedNanoseconds: Int
        var changed: Int
        var changedNanoseconds: Int

        init?(pid: Int32) {
            var info = stat()
            guard stat("/proc/\(pid)/exe", &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.st_mtim.tv_sec
            modifiedNanoseconds = info.st_mtim.tv_nsec
            changed = info.st_ctim.tv_sec
            changedNanoseconds = info.st_ctim.tv_nsec
        }
    }

    private struct Entry {
        var stamp: ExecutableStamp
        var generation: UInt64
        var access: CallerAccess
    }

    /// Used by the connection's one thread only.
    private var entries: [String: Entry] = [:]

    /// The caller's access in the keychain at `path`: kept, or decided by `decide` and kept.
    func access(pid: Int32, path: String, _ decide: () throws -> CallerAccess) throws -> CallerAccess {
        // Read before deciding: a registry changed meanwhile makes the kept answer stale at once.
        let generation = Keychain.registryGeneration
        guard let stamp = ExecutableStamp(pid: pid) else { return try decide() }
        if let entry = entries[path], entry.stamp == stamp, entry.generation == generation {
            return entry.access
        }
        let access = try decide()
        if entries.count >= 64 { entries.removeAll() }
        entries[path] = Entry(stamp: stamp, generation: generation, access: access)
        return access
    }
}
