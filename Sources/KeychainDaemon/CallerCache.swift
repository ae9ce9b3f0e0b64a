import Foundation
import KeychainCore

/// One connection's decisions about its caller, by keychain: the caller policy's answer is kept
/// while the caller's executable is the same file version and no registry of programs changed
/// (`Keychain.registryGeneration`), so a request costs one `stat`, not the whole policy (reading
/// the executable's link, the sandbox file and the registry). A process that `exec`s another
/// program changes its executable, and is decided again.
final class CallerCache: @unchecked Sendable {
    private struct Entry {
        var stamp: FileVersion
        var generation: UInt64
        var access: CallerAccess
    }

    /// Used by the connection's one thread only.
    private var entries: [String: Entry] = [:]

    /// The caller's access in the keychain at `path`: kept, or decided by `decide` and kept.
    func access(pid: Int32, path: String, _ decide: () throws -> CallerAccess) throws -> CallerAccess {
        // Read before deciding: a registry changed meanwhile makes the kept answer stale at once.
        let generation = Keychain.registryGeneration
        guard let stamp = FileVersion(path: "/proc/\(pid)/exe") else { return try decide() }
        if let entry = entries[path], entry.stamp == stamp, entry.generation == generation {
            return entry.access
        }
        let access = try decide()
        if entries.count >= 64 { entries.removeAll() }
        entries[path] = Entry(stamp: stamp, generation: generation, access: access)
        return access
    }
}
