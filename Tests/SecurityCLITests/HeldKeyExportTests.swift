import Foundation
@_spi(Testing) import KeychainCore
import Testing

/// `security export` of a private key the keychain holds (its access control has constraints,
/// which guard its export): the user is asked through pinentry, as for any item with access
/// control, and the key is written encrypted with the passphrase only once they say yes.
@Suite struct HeldKeyExportTests {
    let tool: SecurityBinary
    /// The generated key's public bytes.
    let publicKey: Data

    /// Puts a passcode (2580) on the default keychain and generates in it a P-256 key whose
    /// access control is `.devicePasscode` (in this process, with no daemon holding the keychain).
    init() throws {
        let tool = try SecurityBinary()
        self.tool = tool
        publicKey = try tool.withKeychainInProcess(tool.defaultKeychainPath) {
            let keychain = try Keychain.open(path: tool.defaultKeychainPath, create: true, options: KeychainOptions(passcodeIterations: 1_000))
            try keychain.changePasscode(from: nil, to: Data("2580".utf8))
            var request = ItemRequest(itemClass: .key)
            request.attributes = [.type: .integer(KeyType.ellipticCurve.rawValue), .applicationTag: .data(Data("held".utf8))]
            request.accessControl = try AccessControlPolicy(protection: .whenUnlocked, flags: [.devicePasscode])
            request.returns = [.reference]
            let result = try keychain.generateKey(request, type: .ellipticCurve, bits: 256, context: AccessContext(accessGroups: [AccessContext.defaultGroup]))
            guard case .key(let held)? = result?.reference, held.isHeldByKeychain else { throw CocoaError(.coderInvalidValue) }
            return held.publicKeyBytes
        }
    }

    /// The environment choosing the scripted pinentry, answering as `mode` says, logging to `log`.
    func prompting(_ mode: String, pin: String = "", log: String) -> [String: String] {
        [
            "KEYCHAIN_PINENTRY": AccessControlOptionTests.pinentry, "KEYCHAIN_PINENTRY_TIMEOUT": "30", "PINENTRY_DOUBLE_MODE": mode,
            "PINENTRY_DOUBLE_PIN": pin, "PINENTRY_DOUBLE_LOG": log,
        ]
    }

    func prompts(_ log: String) -> Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0 == "GETPIN" }.count
    }

    /// `security export -t privKeys -P phrase` with the keychain's password on standard input.
    func export(_ environment: [String: String]) throws -> ToolRun {
        try tool.start(["export", "-t", "privKeys", "-f", "pkcs8", "-P", "phrase"], input: "2580\n", environment: environment).finish()
    }

    @Test("export of a key the keychain holds asks for the passcode, then writes the key encrypted with the passphrase")
    func exportAsksThenWrites() throws {
        let log = tool.home + "/pinentry.log"
        let run = try export(prompting("pin", pin: "2580", log: log))
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        #expect(prompts(log) == 1)
        let exported = try AsymmetricKey.importing(Data(run.outputBytes), passphrase: "phrase")
        #expect(exported.keyClass == .private)
        #expect(exported.publicKeyBytes == publicKey)
    }

    @Test("export of a key the keychain holds: a cancelled prompt is errSecUserCanceled (128), a wrong passcode errSecAuthFailed (51), no prompt program errSecInteractionNotAllowed (36); nothing is written")
    func refusedExportWritesNothing() throws {
        let log = tool.home + "/pinentry.log"
        let cancelled = try export(prompting("cancel", log: log))
        #expect(cancelled.status == 128)
        #expect(cancelled.error.hasSuffix("security: SecKeychainItemExport: User canceled the operation.\n"))
        #expect(cancelled.output.isEmpty)
        let wrong = try export(prompting("pin", pin: "0000", log: log))
        #expect(wrong.status == 51)
        #expect(wrong.output.isEmpty)
        let unasked = try export(["KEYCHAIN_PINENTRY": "/nonexistent/pinentry"])
        #expect(unasked.status == 36)
        #expect(unasked.error.hasSuffix("security: SecKeychainItemExport: User interaction is not allowed.\n"))
        #expect(unasked.output.isEmpty)
        #expect(prompts(log) == 1 + 3)
        // The key is still there, and exports once the passcode is given.
        #expect(try export(prompting("pin", pin: "2580", log: log)).status == 0)
    }
}
