import Foundation
import Security

/// `fill`: adds items until the disk (or the file-size limit) is full, then tries an update, a
/// delete and reads, logging every outcome.
///
/// With `--headroom BYTES` the process limits the size of any file it writes (RLIMIT_FSIZE, with
/// SIGXFSZ ignored so writes fail with EFBIG instead of killing it) to the largest keychain file
/// plus that headroom: a full disk for an unprivileged process. Without it, the keychain is
/// expected to sit on a small filesystem that really fills up (ENOSPC). Through the daemon
/// (`KEYCHAIN_MODE=daemon` with a test's own daemon on `KEYCHAIND_SOCKET`) the process that
/// writes the files is `keychaind`: the limit is set on it instead (`prlimit`), and the daemon
/// ignores SIGXFSZ itself.
///
/// Log lines: `A <account> <tag>` (an acknowledged add), `U <account> <tag>` (an acknowledged
/// update), `D <account>` (an acknowledged delete), `F <operation> <status>` (a refused write),
/// `V <account> <label> ok|torn` or `N <account> <status>` (a read after the disk filled), and
/// `limit <bytes>` when a limit was set.
struct DiskFiller {
    static let service = "disk.filler"

    let log: OperationLog
    let populate: Int
    let headroom: Int?

    init(_ arguments: HelperArguments) throws {
        log = try OperationLog(path: try arguments.string("log"))
        populate = try arguments.integer("populate")
        let headroom = try arguments.integer("headroom", default: -1)
        self.headroom = headroom >= 0 ? headroom : nil
    }

    func run() throws {
        let client = PasswordClient(service: Self.service)
        var generator = SplitMix(seed: 7)
        for index in 0..<populate {
            let tag = ItemValue.tag(writer: "pre", sequence: index, length: 512 + generator.below(1024))
            let status = client.add(account: "pre-\(index)", label: tag, secret: ItemValue.secret(for: tag))
            guard status == errSecSuccess else { throw HelperError("populating failed with \(status)") }
            log.append("A pre-\(index) \(tag)", durable: true)
        }
        if let headroom { try limitFileSize(headroom: headroom) }

        var refused = 0
        var index = 0
        while refused == 0 && index < 100_000 {
            let tag = ItemValue.tag(writer: "fill", sequence: index, length: 16_384)
            let status = client.add(account: "fill-\(index)", label: tag, secret: ItemValue.secret(for: tag))
            if status == errSecSuccess {
                log.append("A fill-\(index) \(tag)", durable: true)
            } else {
                log.append("F add \(status)", durable: true)
                refused += 1
            }
            index += 1
        }

        // More writes on the full disk: each may succeed (a freed page) or fail; either is logged.
        if populate > 0 {
            let tag = ItemValue.tag(writer: "upd", sequence: 0, length: 65_536)
            let status = client.update(account: "pre-0", label: tag, secret: ItemValue.secret(for: tag))
            log.append(status == errSecSuccess ? "U pre-0 \(tag)" : "F update \(status)", durable: true)
        }
        if populate > 1 {
            let status = client.delete(account: "pre-1")
            log.append(status == errSecSuccess ? "D pre-1" : "F delete \(status)", durable: true)
        }
        for index in 0..<populate {
            let (status, item) = client.read(account: "pre-\(index)")
            if let item, status == errSecSuccess {
                let intact = ItemValue.isIntact(label: item.label, secret: item.secret)
                log.append("V pre-\(index) \(item.label) \(intact ? "ok" : "torn")", durable: true)
            } else {
                log.append("N pre-\(index) \(status)", durable: true)
            }
        }
    }

    /// `prlimit(pid, RLIMIT_FSIZE, bounds, nil)`: not in the Glibc module map, so looked up in libc.
    private static func setLimit(of pid: pid_t, _ bounds: inout rlimit) -> Bool {
        typealias SetLimit = @convention(c) (pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prlimit") else { return false }
        return unsafeBitCast(symbol, to: SetLimit.self)(pid, Int32(RLIMIT_FSIZE.rawValue), &bounds, nil) == 0
    }

    /// The daemon this process's keychain calls go to, when they go through one: the pid in the
    /// lock file beside the socket `KEYCHAIND_SOCKET` names (the test's own daemon).
    private static func daemonProcess() throws -> pid_t? {
        let environment = ProcessInfo.processInfo.environment
        guard environment["KEYCHAIN_MODE"] == "daemon" else { return nil }
        guard let socket = environment["KEYCHAIND_SOCKET"],
            let text = try? String(contentsOfFile: socket + ".lock", encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw HelperError("through the daemon, the filler needs a daemon of its own (KEYCHAIND_SOCKET)") }
        return pid
    }

    /// Caps every file this process (or the daemon that writes for it) writes at the largest keychain file plus `headroom` bytes.
    private func limitFileSize(headroom: Int) throws {
        let database = StateDump.databasePath
        var largest = 0
        for path in [database, database + "-wal", database + "-shm", database + ".key"] {
            var info = stat()
            if stat(path, &info) == 0 { largest = max(largest, Int(info.st_size)) }
        }
        let limit = rlim_t(largest + headroom)
        var bounds = rlimit(rlim_cur: limit, rlim_max: limit)
        if let daemon = try Self.daemonProcess() {
            guard Self.setLimit(of: daemon, &bounds) else {
                throw HelperError("prlimit on keychaind failed (errno \(errno))")
            }
        } else {
            signal(SIGXFSZ, SIG_IGN)
            guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &bounds) == 0 else {
                throw HelperError("setrlimit failed (errno \(errno))")
            }
        }
        log.append("limit \(limit)", durable: true)
    }
}
