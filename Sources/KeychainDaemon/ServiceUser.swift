import CLinuxSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The user the system daemon runs as, and the one-way switch to it.
///
/// Started as root, the daemon becomes the service user for good (`become()`): real, effective
/// and saved user and group ids, its group as the only one, no new privileges on exec. It keeps
/// one capability, CAP_SYS_PTRACE, and nothing else: the kernel lets a process read another
/// user's `/proc/<pid>/exe` and `/proc/<pid>/root` (how callers are identified) only with it.
/// Started as any other user, the daemon is its own service user and changes nothing.
struct ServiceUser: Equatable {
    /// The service user's id.
    let uid: uid_t
    /// Its primary group, the daemon's only group.
    let gid: gid_t

    /// The capability kept after the switch (CAP_SYS_PTRACE, 19): reading callers' `/proc` links.
    static let keptCapabilities: UInt64 = 1 << 19

    /// The user named `name` in the user database.
    ///
    /// - Throws: `ServiceUserError` when there is none.
    static func named(_ name: String) throws -> ServiceUser {
        guard let entry = getpwnam(name) else {
            throw ServiceUserError(message: "no user named \(name) (create it: useradd --system --no-create-home --shell /usr/sbin/nologin \(name))")
        }
        return ServiceUser(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    /// The user the process runs as.
    static var current: ServiceUser { ServiceUser(uid: geteuid(), gid: getegid()) }

    /// Switches the process from root to this user for good, then proves it cannot come back
    /// (`requireIrrevocable`). Call before any other thread starts.
    ///
    /// - Throws: `ServiceUserError` when a step fails or the proof does not hold.
    func become() throws {
        guard uid != 0 else { throw ServiceUserError(message: "the service user must not be root") }
        let result = clinux_become_user(uid, gid, 1)
        guard result == 0 else { throw ServiceUserError(message: "cannot switch to uid \(uid) (errno \(result))") }
        try requireIrrevocable()
    }

    /// Proves the switch: `setuid(0)` and `setgid(0)` fail, and every thread's ids are this
    /// user's, its groups this group alone, its capabilities `keptCapabilities` at most, none
    /// inheritable or ambient (read from `/proc/self/task/*/status`).
    func requireIrrevocable() throws {
        guard setuid(0) != 0, setgid(0) != 0 else {
            throw ServiceUserError(message: "the daemon could become root again")
        }
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        guard !tasks.isEmpty else { throw ServiceUserError(message: "cannot read the daemon's threads") }
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else {
                throw ServiceUserError(message: "cannot read the status of thread \(task)")
            }
            let fields = Self.fields(text)
            let ids = fields["Uid"] == Array(repeating: String(uid), count: 4) && fields["Gid"] == Array(repeating: String(gid), count: 4)
            let groups = fields["Groups", default: []].allSatisfy { $0 == String(gid) }
            let capabilities = ["CapPrm", "CapEff", "CapBnd"].allSatisfy { name in
                fields[name].flatMap { $0.first }.flatMap { UInt64($0, radix: 16) }.map { $0 & ~Self.keptCapabilities == 0 } ?? false
            }
            let noneInherited = ["CapInh", "CapAmb"].allSatisfy { fields[$0].flatMap { $0.first }.flatMap { UInt64($0, radix: 16) } == 0 }
            guard ids, groups, capabilities, noneInherited else {
                throw ServiceUserError(message: "thread \(task) kept privileges after the switch to uid \(uid)")
            }
        }
    }

    /// The `Name:\tvalue value` lines of a `status` file, split on whitespace.
    private static func fields(_ text: String) -> [String: [String]] {
        var fields: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
        return fields
    }
}

/// Why the daemon could not become (or prove it became) its service user.
struct ServiceUserError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
