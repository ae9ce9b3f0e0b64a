import Foundation
import KeychainCore

/// `entitlements add|list|remove [-k keychain] …`: the keychain owner's registry of programs and
/// the access groups `keychaind` grants them (this tool's own command; macOS decides entitlements
/// from code signatures instead).
///
/// - `add <executable> <file.entitlements>`: registers the executable, pinned to its current
///   content (SHA-256), with the property list's `keychain-access-groups` and
///   `application-identifier`; registering it again replaces the entry.
/// - `list`: prints each registered program, its digest and its groups.
/// - `remove <executable>`: removes the registration.
///
/// A program whose file changes after it was registered (an update, a replacement) gets only the
/// default group until it is registered again.
struct EntitlementsCommand: CommandDefinition {
    let name = "entitlements"
    let usage = """
        add|list|remove [-k keychain] [executable [file.entitlements]]
            add <executable> <file.entitlements>  Grant the executable the entitlements' access groups
            list                                   List registered programs
            remove <executable>                    Remove a registration
            -k  Use the specified keychain rather than the default keychain
        """
    let summary = "Register programs and the keychain access groups keychaind grants them."
    let options = OptionParser("k:", leadingOperands: 1)
    let needsLegacyAlgorithmNames = false

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var keychainName: String?
        for element in scan.elements {
            guard case .option("k", let value?) = element else { throw invocation.usageError(for: element) }
            keychainName = value
        }
        guard let action = scan.operands.first else { throw ToolError.usage(reason: nil) }
        let arguments = Array(scan.operands.dropFirst())
        let keychain = try keychainName.map(KeychainSession.open) ?? KeychainSession.openDefault()
        switch (action, arguments.count) {
        case ("add", 2):
            let executable = KeychainSession.absolutePath(arguments[0])
            guard let entitlements = FileManager.default.contents(atPath: arguments[1]) else {
                throw ToolError.failed(result: 1, message: "security: cannot read \(arguments[1])\n")
            }
            try apiCall("SecEntitlementsRegister") {
                try keychain.registerProgram(executablePath: executable, entitlements: entitlements)
            }
        case ("list", 0):
            let programs = try apiCall("SecEntitlementsCopyRegistered") { try keychain.registeredPrograms() }
            for program in programs.sorted(by: { $0.executablePath < $1.executablePath }) {
                var text = "\(program.executablePath)\n"
                text += "    sha256: \(program.executableDigest.map { String(format: "%02x", $0) }.joined())\n"
                if let identifier = program.entitlements.applicationIdentifier {
                    text += "    application-identifier: \(identifier)\n"
                }
                text += "    access groups: \(program.entitlements.accessGroups.joined(separator: ", "))\n"
                invocation.console.output(text)
            }
        case ("remove", 1):
            try apiCall("SecEntitlementsRemove") {
                try keychain.removeProgram(executablePath: KeychainSession.absolutePath(arguments[0]))
            }
        default:
            throw ToolError.usage(reason: nil)
        }
        return 0
    }

    private func apiCall<T>(_ api: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw ToolError.api(api, error) }
    }
}
