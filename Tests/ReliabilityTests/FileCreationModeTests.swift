import Foundation
import Testing

/// Every file the keychain and the `security` command create (database, `-wal`, `-shm`, keybag,
/// device key, preferences, backup, export and dump files) is the calling user's and 0600, in a
/// 0700 directory, whatever the umask, and was never open to group or others, not even between
/// its creation and a later chmod (docs/reliability.md §5).
@Suite("File creation modes")
struct FileCreationModeTests {
    /// The commands that create the command's files, run in `output` with the keychain under
    /// `home`: preferences, an imported certificate, a backup, an export (written over the
    /// world-readable file `existingExport` leaves) and a dump.
    private static func commands(home: String, output: String) -> String {
        let security = "'\(Executables.security)'"
        let certificate = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FuzzInputs/importers/seed-certificate-pem").path
        return """
            \(security) default-keychain -s && \
            \(security) import '\(certificate)' && \
            \(security) backup-keychain -P backup-pw -o '\(output)/backup.kcb' && \
            \(security) export -t certs -o '\(output)/export.pem' && \
            \(security) dump-keychain -o '\(output)/dump.txt'
            """
    }

    /// Leaves a world-readable file where the export goes; returns its path.
    @discardableResult
    private static func existingExport(in output: String) throws -> String {
        let path = output + "/export.pem"
        try #require(FileManager.default.createFile(atPath: path, contents: Data("old\n".utf8)))
        try #require(chmod(path, 0o644) == 0)
        return path
    }

    @Test("every file created is the caller's, 0600, in a 0700 directory, under umask 000 and 277", arguments: ["000", "277"])
    func privateWhateverTheUmask(umask: String) throws {
        let directory = try TemporaryDirectory("perm-umask")
        let home = directory.file("home")
        let output = directory.file("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        try Self.existingExport(in: output)

        // While a SecItem client holds the keychain open, SQLite's files exist too.
        let modes = try ChildProcess(
            "/bin/sh", ["-c", "umask \(umask); exec '\(Executables.crashWriter)' file-modes --home '\(home)'"], in: directory.path)
        modes.wait()
        try #require(modes.exitCode == 0, "\(modes.error)")
        let caller = geteuid()
        var seen: Set<String> = []
        for line in modes.output.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            try #require(fields.count == 3)
            seen.insert(fields[0])
            #expect(fields[1] == (fields[0] == "." ? "700" : "600"), "\(line)")
            #expect(fields[2] == "\(caller)", "\(line)")
        }
        #expect(
            Set([".", "login.keychain-db", "login.keychain-db-wal", "login.keychain-db-shm", "login.keychain-db.keybag", "device.key"])
                .isSubset(of: seen), "\(seen)")

        let run = try ChildProcess(
            "/bin/sh", ["-c", "umask \(umask); " + Self.commands(home: home, output: output)],
            environment: ["XDG_DATA_HOME": home], in: directory.path)
        run.wait()
        try #require(run.exitCode == 0, "\(run.error)")
        let files = [home + "/swift-keychain/preferences.plist", output + "/backup.kcb", output + "/export.pem", output + "/dump.txt"]
        for file in files + [home + "/swift-keychain/login.keychain-db", home + "/swift-keychain/device.key"] {
            var info = stat()
            try #require(stat(file, &info) == 0, "\(file)")
            #expect(info.st_mode & 0o7777 == 0o600 && info.st_uid == caller, "\(file): \(String(info.st_mode & 0o7777, radix: 8))")
        }
        var info = stat()
        try #require(stat(home + "/swift-keychain", &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o700)
    }

    @Test("no file or directory is open to group or others at any moment of its creation (traced under umask 000)")
    func privateFromTheFirstByte() throws {
        let strace = "/usr/bin/strace"
        try #require(FileManager.default.isExecutableFile(atPath: strace), "this test traces system calls with strace (apt-get install strace)")
        let directory = try TemporaryDirectory("perm-trace")
        let home = directory.file("home")
        let output = directory.file("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        let export = try Self.existingExport(in: output)
        let trace = directory.file("trace")
        // Through the daemon the keychain's files are created by `keychaind`: a daemon of the
        // test's own, which the first client starts under the trace (`-f` follows it, and it
        // inherits umask 000); the script ends it (SIGTERM) so that the trace ends.
        let daemon = PrivateDaemon()
        let stopDaemon = PrivateDaemon.inUse ? " && kill $(cat '\(daemon.socketPath).lock')" : ""
        let script = "umask 000; '\(Executables.crashWriter)' file-modes --home '\(home)' && "
            + Self.commands(home: home, output: output) + stopDaemon
        let run = try ChildProcess(
            strace, ["-f", "-qq", "-y", "-s", "4096", "-e", "trace=open,openat,creat,mkdir,mkdirat,chmod,fchmod,fchmodat,unlink,unlinkat,rmdir,rename,renameat,renameat2,link,linkat", "-o", trace, "/bin/sh", "-c", script],
            environment: daemon.environment.merging(["XDG_DATA_HOME": home]) { $1 }, in: directory.path)
        run.wait()
        try #require(run.exitCode == 0, "\(run.error)")

        let calls = try SystemCallTrace(
            String(contentsOfFile: trace, encoding: .utf8), under: directory.path + "/", existing: [output, export])
        for call in calls.modeSettings where call.mode & 0o077 != 0 {
            Issue.record("open to group or others: \(call.line)")
        }
        // Each kind of file was seen being created, so the check above covered it.
        let created = calls.modeSettings.filter(\.creates).map(\.path)
        for name in ["swift-keychain", "device.key", "login.keychain-db.keybag", "login.keychain-db", "login.keychain-db-wal",
                     "login.keychain-db-shm", "preferences.plist", "backup.kcb", "export.pem", "dump.txt"]
        {
            #expect(
                created.contains { ($0 as NSString).lastPathComponent == name || ($0 as NSString).lastPathComponent.hasPrefix(name + ".tmp-") },
                "no creation of \(name) was traced")
        }
    }
}

/// What an strace log (`strace -f -y`, file calls) shows about the files under one directory:
/// every call that gave a file or directory its permission bits, in order. A call with
/// `O_CREAT` counts only when the file did not exist then (tracked through the log's creations,
/// renames, links and removals), since the mode of an open of an existing file is ignored.
struct SystemCallTrace {
    /// A call that gives `path` the permission bits `mode`.
    struct ModeSetting {
        let path: String
        let mode: UInt32
        /// Whether the call creates the file or directory (rather than changing its mode).
        let creates: Bool
        let line: String
    }

    let modeSettings: [ModeSetting]

    /// Reads `log`; `existing` are the paths under `prefix` that existed before it began.
    init(_ log: String, under prefix: String, existing: Set<String>) throws {
        let call = try Regex(#"^(\d+) +(\w+)\((.*)\) += (-?\d+)"#)
        let quoted = try Regex(#""((?:[^"\\]|\\.)*)""#)
        let descriptorPath = try Regex(#"^\d+<([^>]*)>"#)
        let finalMode = try Regex(#", (0[0-7]*)$"#)
        var exists = existing
        var settings: [ModeSetting] = []
        for line in Self.joinResumedCalls(log) {
            guard let match = try call.firstMatch(in: line), let result = Int(match.output[4].substring ?? ""), result >= 0 else { continue }
            let name = String(match.output[2].substring ?? "")
            let arguments = String(match.output[3].substring ?? "")
            let paths = arguments.matches(of: quoted).map { String($0.output[1].substring ?? "") }
            let mode = (try finalMode.firstMatch(in: arguments)).flatMap { UInt32(String($0.output[1].substring ?? ""), radix: 8) }
            switch name {
            case "open", "openat", "creat":
                guard let path = paths.first, name == "creat" || arguments.contains("O_CREAT"), let mode else { continue }
                if exists.insert(path).inserted && path.hasPrefix(prefix) {
                    settings.append(ModeSetting(path: path, mode: mode, creates: true, line: line))
                }
            case "mkdir", "mkdirat":
                guard let path = paths.first, let mode else { continue }
                exists.insert(path)
                if path.hasPrefix(prefix) { settings.append(ModeSetting(path: path, mode: mode, creates: true, line: line)) }
            case "chmod", "fchmodat":
                guard let path = paths.first, let mode, path.hasPrefix(prefix) else { continue }
                settings.append(ModeSetting(path: path, mode: mode, creates: false, line: line))
            case "fchmod":
                guard let annotated = try descriptorPath.firstMatch(in: arguments), let mode else { continue }
                let path = String(annotated.output[1].substring ?? "")
                if path.hasPrefix(prefix) { settings.append(ModeSetting(path: path, mode: mode, creates: false, line: line)) }
            case "unlink", "unlinkat", "rmdir":
                if let path = paths.first { exists.remove(path) }
            case "rename", "renameat", "renameat2":
                guard paths.count == 2 else { continue }
                exists.remove(paths[0])
                exists.insert(paths[1])
            case "link", "linkat":
                if paths.count == 2 { exists.insert(paths[1]) }
            default: continue
            }
        }
        modeSettings = settings
    }

    /// The log's lines with each call that another thread interrupted (`… <unfinished ...>`,
    /// later `<pid> <... name resumed>…`) joined into one line.
    private static func joinResumedCalls(_ log: String) -> [String] {
        var unfinished: [Substring: String] = [:]
        var lines: [String] = []
        for line in log.split(separator: "\n") {
            let pid = line.prefix { $0.isNumber }
            if line.hasSuffix(" <unfinished ...>") {
                unfinished[pid] = String(line.dropLast(" <unfinished ...>".count))
            } else if let range = line.range(of: " resumed>"), line.contains("<... "), let start = unfinished.removeValue(forKey: pid) {
                lines.append(start + line[range.upperBound...])
            } else {
                lines.append(String(line))
            }
        }
        return lines
    }
}
