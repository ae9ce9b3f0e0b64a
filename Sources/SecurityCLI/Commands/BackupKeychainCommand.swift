import Foundation
import KeychainCore
import Security

/// `backup-keychain [-P passphrase] -o file [keychain]`: writes every item of a keychain (the
/// default one when none is named) to one backup file protected by a passphrase: the keychain's
/// analogue of an encrypted device backup. macOS's `security` has no such command (its `export`
/// writes keys and certificates), hence a name of its own.
///
/// Without `-P` the passphrase is asked for twice (`passphrase for backup: `, `retype passphrase
/// for backup: `). A locked keychain is unlocked with a password prompt first. Items that require
/// the keychain's password (`kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`) are never backed
/// up; the command says how many were left out.
struct BackupKeychainCommand: CommandDefinition {
    let name = "backup-keychain"
    let usage = """
        [-P passphrase] -o file [keychain]
            -P  Protect the backup with "passphrase" (asked for twice when omitted)
            -o  Write the backup to "file"
        Items that require the keychain password are never backed up.
        """
    let summary = "Back up every item of a keychain to a passphrase-protected file."
    let options = OptionParser("hP:o:", secrets: ["P"])

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var passphrase: [UInt8]?
        var output: String?
        for element in scan.elements {
            switch element {
            case .secret("P", let value): passphrase = value
            case .option("o", let value): output = value
            default: throw invocation.usageError(for: element)
            }
        }
        defer { if passphrase != nil { SecretWiping.wipe(&passphrase!) } }
        guard let output, !output.isEmpty, scan.operands.count <= 1, scan.operands.first?.isEmpty != true else {
            throw ToolError.usage(reason: nil)
        }
        let keychain = try scan.operands.first.map(KeychainSession.open) ?? KeychainSession.openDefault()
        let console = invocation.console
        if passphrase == nil {
            passphrase = try CreateKeychainCommand.promptTwice(
                console, first: "passphrase for backup: ", second: "retype passphrase for backup: ")
        }
        var secret = Data(passphrase ?? [])
        defer { secret.resetBytes(in: secret.startIndex..<secret.endIndex) }
        let summary: BackupSummary
        do {
            summary = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                try keychain.backup(to: KeychainSession.absolutePath(output), password: secret)
            }
        } catch {
            throw ToolError.api("backup-keychain", error)
        }
        console.output("\(Self.count(summary.itemCount)) backed up to \(output)\n")
        if summary.passcodeOnlyItemsLeftOut > 0 {
            console.output(
                "\(Self.count(summary.passcodeOnlyItemsLeftOut)) left out: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly items are never backed up\n")
        }
        return 0
    }

    /// "1 item", "2 items".
    static func count(_ number: Int) -> String { "\(number) item\(number == 1 ? "" : "s")" }
}
