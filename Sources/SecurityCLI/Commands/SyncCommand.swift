import Foundation
import KeychainCore
import KeychainService
import KeychainSync

/// `sync init-server|enable|join|approve|remove|now|status …`: sync of the default keychain's synchronizable
/// items with an account on a PostgreSQL server (`<conninfo>` is a libpq connection string; the
/// account is the role it logs in as).
///
/// - `init-server <conninfo>`: creates or upgrades the server's schema.
/// - `enable --server <conninfo>`: creates the account with this keychain as its first device and
///   prints the recovery secret as the last line of standard output.
/// - `join --server <conninfo> --recovery-secret-file <file>`: joins the account with the secret;
///   a wrong secret joins nothing.
/// - `join --server <conninfo> [--timeout <seconds>]`: asks to join, prints a code, and waits (300
///   seconds unless told) for a trusted device to approve it; then runs a first exchange. Without
///   an approval in time, nothing is joined and the exit status is 1.
/// - `approve <code>`: on a trusted device, approves the join request the code belongs to.
/// - `remove <device>`: removes a device (its id as `status` shows it) and rolls the account's
///   keys; prints the new recovery secret as the last line of standard output.
/// - `now`: one full exchange (a download of many records prints its progress).
/// - `status`: the account, its devices, the last exchange and the pending changes.
///
/// `now`, `status` and the exchange that ends a `join` awaiting approval run inside the user's
/// keychaind when it serves the keychain (`DaemonSync`); the other actions, and every action
/// through the system daemon, run in this process, through the keychain's item calls.
///
/// Failures print `security: sync <action>: <reason>` and exit with status 1; refused records
/// are each reported and the exchange exits with status 1.
struct SyncCommand: CommandDefinition {
    let name = "sync"
    let usage = """
        init-server <conninfo> | enable --server <conninfo> |
                   join --server <conninfo> [--recovery-secret-file <file> | --timeout <seconds>] |
                   approve <code> | remove <device> | now | status
            init-server  Create or upgrade the sync schema on a PostgreSQL server
            enable       Create the account (this keychain is its first device); prints the recovery secret
            join         Join the account with the recovery secret read from a file, or print a code
                         and wait for a trusted device to approve it
            approve      Approve the joining device that shows this code
            remove       Remove a device and roll the account's keys; prints the new recovery secret
            now          Upload this keychain's changes and download the other devices'
            status       Show the account's devices, the last sync and the pending changes
        """
    let summary = "Sync synchronizable items with the user's other keychains through PostgreSQL."
    let options = OptionParser.operandsOnly
    let needsLegacyAlgorithmNames = false

    func run(_ invocation: Invocation) throws -> Int32 {
        let words = invocation.scan.operands
        guard let action = words.first else { throw ToolError.usage(reason: nil) }
        let (named, positional) = try Self.split(Array(words.dropFirst()))
        do {
            switch (action, positional.count) {
            case ("init-server", 1) where named.isEmpty:
                let outcome = try SyncEngine.initServer(conninfo: positional[0])
                switch outcome {
                case .created: invocation.console.output("sync schema version \(SyncSchema.currentVersion) created\n")
                case .upgraded(let from): invocation.console.output("sync schema upgraded from version \(from) to \(SyncSchema.currentVersion)\n")
                case .current: invocation.console.output("sync schema version \(SyncSchema.currentVersion) is current\n")
                }
            case ("enable", 0) where Set(named.keys) == ["server"]:
                let secret = try SyncEngine.enable(try KeychainSession.openDefault(), conninfo: named["server"]!)
                invocation.console.output("sync enabled; keep this recovery secret to join other devices:\n\(secret)\n")
            case ("join", 0) where Set(named.keys) == ["server", "recovery-secret-file"]:
                let file = named["recovery-secret-file"]!
                guard let data = FileManager.default.contents(atPath: file), let secret = String(data: data, encoding: .utf8) else {
                    throw ToolError.failed(result: 1, message: "security: sync join: cannot read \(file)\n")
                }
                try SyncEngine.join(try KeychainSession.openDefault(), conninfo: named["server"]!, recoverySecret: secret)
                invocation.console.output("joined; run security sync now to fetch the account's items\n")
            case ("join", 0) where named["server"] != nil && Set(named.keys).isSubset(of: ["server", "timeout"]):
                var timeout: TimeInterval = 300
                if let text = named["timeout"] {
                    guard let seconds = Int(text), seconds > 0 else { throw ToolError.usage(reason: nil) }
                    timeout = TimeInterval(seconds)
                }
                let keychain = try KeychainSession.openDefault()
                let pending = try SyncEngine.requestJoin(keychain, conninfo: named["server"]!)
                invocation.console.output(
                    "this device: \(pending.deviceID.uuidString.lowercased())\n"
                        + "on a trusted device, run: security sync approve \(pending.code)\n"
                        + "code: \(pending.code)\n")
                (invocation.console as? StandardConsole)?.flush()
                let report = try SyncEngine.awaitApproval(pending, keychain: keychain, timeout: timeout)
                invocation.console.output("joined; applied \(report.applied) changes\n")
                guard report.refused.isEmpty else {
                    let lines = report.refused.map { "security: sync join: refused: \($0)\n" }.joined()
                    throw ToolError.failed(result: 1, message: lines)
                }
            case ("approve", 1) where named.isEmpty:
                let device = try SyncEngine.approve(try KeychainSession.openDefault(), code: positional[0])
                invocation.console.output("approved device \(device.uuidString.lowercased())\n")
            case ("remove", 1) where named.isEmpty:
                let removal = try SyncEngine.remove(try KeychainSession.openDefault(), device: positional[0])
                invocation.console.output(
                    "removed device \(removal.device.uuidString.lowercased()); the account's keys rolled (\(removal.resealed) records sealed again)\n"
                        + "the old recovery secret no longer works; keep this new one to join other devices:\n\(removal.recoverySecret)\n")
            case ("now", 0) where named.isEmpty:
                // A download of many records reports its progress (a first sync), batch by batch.
                let progress: SyncEngine.Progress = { applied, total in
                    guard total >= SyncEngine.additionBatch else { return }
                    invocation.console.output("applied \(applied) of \(total) records\n")
                    (invocation.console as? StandardConsole)?.flush()
                }
                // Through keychaind, the daemon runs the exchange on its own keychain.
                let keychain = try KeychainSession.openDefault()
                let report = try DaemonSync.exchange(keychain, progress: progress)
                if report.fullRefetch {
                    invocation.console.output("fetched every record again (this device's last sync is older than the server's tombstone horizon)\n")
                }
                if report.damagedLocally {
                    invocation.console.output(
                        "synchronizable items are missing from the keychain's database (removed behind its back): "
                            + "they were not uploaded as deletions; security dump-keychain lists the damage\n")
                }
                invocation.console.output(
                    "uploaded \(report.uploaded) changes and \(report.uploadedDeletions) deletions; "
                        + "applied \(report.applied) changes and \(report.appliedDeletions) deletions\n")
                guard report.refused.isEmpty else {
                    let lines = report.refused.map { "security: sync now: refused: \($0)\n" }.joined()
                    throw ToolError.failed(result: 1, message: lines)
                }
            case ("status", 0) where named.isEmpty:
                let keychain = try KeychainSession.openDefault()
                let status = try DaemonSync.servingDaemon(of: keychain).map(DaemonSync.status) ?? SyncEngine.status(keychain)
                invocation.console.output(Self.describe(status))
            default:
                throw ToolError.usage(reason: nil)
            }
        } catch let error as SyncError {
            throw ToolError.failed(result: 1, message: "security: sync \(action): \(error.message)\n")
        }
        return 0
    }

    /// `--name value` pairs and the other words.
    private static func split(_ words: [String]) throws -> (named: [String: String], positional: [String]) {
        var named: [String: String] = [:]
        var positional: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("--") {
                guard index + 1 < words.count, named[String(word.dropFirst(2))] == nil else { throw ToolError.usage(reason: nil) }
                named[String(word.dropFirst(2))] = words[index + 1]
                index += 2
            } else {
                positional.append(word)
                index += 1
            }
        }
        return (named, positional)
    }

    private static func describe(_ status: SyncStatus) -> String {
        var text = "account: \(status.accountID.uuidString.lowercased())\n"
        text += "this device: \(status.deviceID.uuidString.lowercased())\n"
        if let devices = status.devices {
            text += "devices: \(devices.filter { $0.standing != .pending }.count)\n"
            for device in devices {
                let this = device.id == status.deviceID ? " (this device)" : ""
                let standing: String
                switch device.standing {
                case .trusted: standing = "trusted"
                case .notTrusted: standing = "NOT TRUSTED"
                case .pending: standing = "pending approval"
                }
                text += "    \(device.id.uuidString.lowercased())\(this) \(standing)\n"
            }
        } else {
            text += "devices: unknown (\(status.serverError ?? "the server cannot be reached"))\n"
        }
        text += "last sync: \(status.lastSync.map { ISO8601DateFormatter().string(from: $0) } ?? "never")\n"
        text += "pending changes: \(status.pendingChanges)\n"
        if let error = status.lastError { text += "last error: \(error)\n" }
        return text
    }
}
