import Foundation
import KeychainCore
import Security

/// `dump-keychain [-adi] [-o file] [keychain...]`: every item of the keychains (the default
/// keychain when none is named), of every class, in the dump format; with `-d` each item's secret
/// follows as a `data:` line and the secret in the dump-value form.
///
/// `-a` reports that items have no (macOS-style) access control list; `-i` is accepted (there
/// is nothing to edit); `-r` (raw encrypted data) is not implemented. `-o` writes the dump to a
/// new file, readable only by its owner, instead of standard output.
struct DumpKeychainCommand: CommandDefinition {
    let name = "dump-keychain"
    let usage = """
        [-adir] [-o file] [keychain...]
            -a  Show each item's access control
            -d  Show each item's (decrypted) data
            -i  Edit access control interactively
            -r  Show each item's raw (encrypted) data
            -o  Write the dump to "file"
        With no keychain, the default keychain is dumped.
        """
    let summary = "Dump the contents of one or more keychains."
    let options = OptionParser("adhiro:")

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var showData = false
        var showAccess = false
        var outputPath: String?
        for element in scan.elements {
            switch element {
            case .option("d", _): showData = true
            case .option("a", _): showAccess = true
            case .option("i", _): break
            case .option("o", let path): outputPath = path
            case .option("r", _): throw ToolError.failed(result: errSecUnimplemented, message: Self.rawDataMessage)
            default: throw invocation.usageError(for: element)
            }
        }

        let keychains = try KeychainSession.searchList(scan.operands)
        var dump: [UInt8] = []
        defer { SecretWiping.wipe(&dump) }
        var warnings = ""
        for keychain in keychains {
            let items: [ItemResult]
            do {
                let (found, damage) = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                    try keychain.allItemsWithDamage(includingData: showData)
                }
                items = found
                if !damage.isEmpty { warnings += Self.damageWarning(damage, keychain: keychain.path) }
            } catch {
                throw ToolError.api("SecKeychainSearchCopyNext", error)
            }
            for item in items {
                dump += ItemPrinter.render(item, keychainPath: keychain.path, includeData: showData)
                if showAccess { dump += Array("no access control for this item\n".utf8) }
            }
        }
        if let outputPath {
            try Self.write(dump, to: outputPath)
        } else {
            invocation.console.writeOutput(dump)
        }
        if !warnings.isEmpty { invocation.console.writeError(Array(warnings.utf8)) }
        return 0
    }

    /// What a dump says of a keychain's damage, after the items it could read.
    static func damageWarning(_ damage: KeychainDamage, keychain: String) -> String {
        var parts: [String] = []
        if damage.unreadableItems > 0 {
            parts.append("\(damage.unreadableItems) item\(damage.unreadableItems == 1 ? "" : "s") cannot be read (altered or rolled back)")
        }
        if damage.missingItems > 0 {
            parts.append("\(damage.missingItems) item\(damage.missingItems == 1 ? " is" : "s are") missing from its database (removed, or lost with its -wal file)")
        }
        return "security: the keychain \(keychain) is damaged: " + parts.joined(separator: "; ") + "\n"
    }

    private static let rawDataMessage = "security: dump-keychain: -r: " + ToolError.text(for: errSecUnimplemented) + "\n"

    /// Writes the dump to a new private file (mode 0600 before its first byte: it may hold
    /// secrets), renamed over any file at `path`.
    private static func write(_ bytes: [UInt8], to path: String) throws {
        var contents = Data(bytes)
        defer { contents.resetBytes(in: 0..<contents.count) }
        do {
            try FileSystem.replaceAtomically(KeychainSession.absolutePath(path), contents: contents, role: .dump)
        } catch let error as KeychainError where error.code == .writePermission {
            throw ToolError.api("dump-keychain", error)
        } catch {
            throw ToolError.failed(result: 1, message: "security: dump-keychain: could not write \(path)\n")
        }
    }
}
