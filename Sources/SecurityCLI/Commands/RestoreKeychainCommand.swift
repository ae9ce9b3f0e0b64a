import Foundation
import KeychainCore
import Security

/// `restore-keychain [-P passphrase] [-k keychain] file`: replaces the items of a keychain (the
/// default one when `-k` is not given) with those of a backup made by `backup-keychain`.
///
/// Without `-P` the passphrase is asked for (`passphrase for backup: `). A locked keychain is
/// unlocked with a password prompt first. On another device (another keychain directory, so
/// another device key) the `…ThisDeviceOnly` items cannot be decrypted: they are left out, and
/// the command says how many. A wrong passphrase is errSecAuthFailed (exit 51); a damaged or
/// altered backup errSecDecode (exit 93); in both cases the keychain is unchanged.
struct RestoreKeychainCommand: CommandDefinition {
    let name = "restore-keychain"
    let usage = """
        [-P passphrase] [-k keychain] file
            -P  The backup's passphrase (asked for when omitted)
            -k  Restore into "keychain" (the default keychain when omitted)
        Replaces the keychain's items with the backup's; on another device the
        ThisDeviceOnly items are left out.
        """
    let summary = "Replace a keychain's items with those of a backup."
    let options = OptionParser("hP:k:", secrets: ["P"])

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var passphrase: [UInt8]?
        var keychainName: String?
        for element in scan.elements {
            switch element {
            case .secret("P", let value): passphrase = value
            case .option("k", let value): keychainName = value
            default: throw invocation.usageError(for: element)
            }
        }
        defer { if passphrase != nil { SecretWiping.wipe(&passphrase!) } }
        guard scan.operands.count == 1, let file = scan.operands.first, !file.isEmpty else { throw ToolError.usage(reason: nil) }
        let keychain = try keychainName.map(KeychainSession.open) ?? KeychainSession.openDefault()
        let console = invocation.console
        if passphrase == nil {
            passphrase = console.readSecret(prompt: "passphrase for backup: ")
            guard passphrase != nil else { throw ToolError.failed(result: 1, message: "security: no password was entered\n") }
        }
        var secret = Data(passphrase ?? [])
        defer { secret.resetBytes(in: secret.startIndex..<secret.endIndex) }
        let path = KeychainSession.absolutePath(file)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ToolError.failed(result: 1, message: "security: restore-keychain: cannot read \(file)\n")
        }
        let summary: RestoreSummary
        do {
            summary = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                try keychain.restore(from: path, password: secret)
            }
        } catch {
            throw ToolError.api("restore-keychain", error)
        }
        console.output("\(BackupKeychainCommand.count(summary.restoredCount)) restored\n")
        if summary.thisDeviceOnlyItemsLeftOut > 0 {
            console.output(
                "\(BackupKeychainCommand.count(summary.thisDeviceOnlyItemsLeftOut)) left out: ThisDeviceOnly items restore only on the device that made the backup\n")
        }
        return 0
    }
}
