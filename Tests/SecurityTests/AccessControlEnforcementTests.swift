import Foundation
import KeychainAuthentication
import LocalAuthentication
@_spi(Testing) import Security
import Testing

/// Items whose access control has constraints, read through the `Security` API (in-process and
/// through `keychaind`), with the passcode asked through the scripted pinentry.
@Suite("Access control enforcement through SecItem")
struct AccessControlEnforcementSecItemTests {
    static let passcode = "2580"

    /// A fresh keychain with the passcode set, and an item protected by `flags` (service "acl").
    static func prepare(_ flags: SecAccessControlCreateFlags, account: String = "me") throws {
        #expect(SecDataProtectionTesting.useFastKeyDerivation() == errSecSuccess)
        #expect(SecDataProtectionTesting.setPasscode(Data(passcode.utf8), old: nil) == errSecSuccess)
        try addProtected(flags, account: account)
    }

    static func addProtected(_ flags: SecAccessControlCreateFlags, account: String) throws {
        let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
        let item: Query = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "acl", kSecAttrAccount as String: account,
            kSecValueData as String: Data("top secret".utf8), kSecAttrAccessControl as String: control,
        ]
        #expect(add(item) == errSecSuccess)
    }

    static func read(account: String = "me", _ extra: Query = [:]) -> (status: OSStatus, result: CFTypeRef?) {
        copyMatching(merged([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "acl", kSecAttrAccount as String: account,
            kSecReturnData as String: true,
        ], extra))
    }

    @Test("A devicePasscode item: its secret is refused without authentication (Fail), its attributes and deletion need none")
    func secretNeedsAuthentication() throws {
        try TemporaryKeychain.run { environment in
            try Self.prepare(.devicePasscode)
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let (status, result) = Self.read([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])
            #expect(status == errSecInteractionNotAllowed)
            #expect(result == nil)
            let context = pinentry.context(.cancel)
            let attributes = copyMatching([
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "acl",
                kSecReturnAttributes as String: true, kSecUseAuthenticationContext as String: context,
            ])
            #expect(attributes.status == errSecSuccess)
            #expect(pinentry.prompts == 0)
            #expect(delete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "acl"]) == errSecSuccess)
        }
    }

    @Test("The keychain locking while the passcode is asked withdraws the prompt: the read fails with errSecAuthFailed at once, not at the prompt's timeout")
    func lockWithdrawsThePrompt() throws {
        try TemporaryKeychain.run { environment in
            try Self.prepare(.devicePasscode)
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let context = pinentry.context(.hang)
            let locked = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                for _ in 0..<3_000 where !pinentry.receivedLines.contains("GETPIN") { usleep(10_000) }
                #expect(SecDataProtectionTesting.lock() == errSecSuccess)
                locked.signal()
            }
            let (status, result) = Self.read([kSecUseAuthenticationContext as String: context])
            locked.wait()
            // The prompt's own timeout (30 s) would have ended it as errSecInteractionNotAllowed.
            #expect(status == errSecAuthFailed)
            #expect(result == nil)
            #expect(pinentry.prompts == 1)
            // The same context, after the passcode unlocks the keychain again, opens the item.
            #expect(SecDataProtectionTesting.unlock(Data(Self.passcode.utf8)) == errSecSuccess)
            let again = Self.read([kSecUseAuthenticationContext as String: pinentry.context(.pin, pin: Self.passcode)])
            #expect(again.status == errSecSuccess)
        }
    }

    @Test("One LAContext: the passcode is asked once for two reads; without a context each read asks")
    func contextReuse() throws {
        try TemporaryKeychain.run { environment in
            try Self.prepare(.devicePasscode)
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let context = pinentry.context(.pin, pin: Self.passcode)
            for _ in 0..<2 {
                let (status, result) = Self.read([kSecUseAuthenticationContext as String: context])
                #expect(status == errSecSuccess)
                #expect(result as? Data == Data("top secret".utf8))
            }
            #expect(pinentry.prompts == 1)

            let fresh = ScriptedPinentry(directory: environment.dataHome)
            OneCallAuthentication.overrideDefaultEnvironment(fresh.environment(.pin, pin: Self.passcode))
            defer { OneCallAuthentication.overrideDefaultEnvironment(nil) }
            for _ in 0..<2 {
                let (status, result) = Self.read()
                #expect(status == errSecSuccess)
                #expect(result as? Data == Data("top secret".utf8))
            }
            #expect(fresh.prompts == 2)
        }
    }

    @Test("A context evaluated with deviceOwnerAuthentication opens the item without a second prompt")
    func evaluatedContext() throws {
        try TemporaryKeychain.run { environment in
            try Self.prepare(.userPresence)
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let context = pinentry.context(.pin, pin: Self.passcode)
            let done = DispatchSemaphore(value: 0)
            let outcome = OutcomeBox()
            context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "read the token") { success, _ in
                outcome.success = success
                done.signal()
            }
            done.wait()
            #expect(outcome.success)
            #expect(pinentry.prompts == 1)
            let (status, result) = Self.read([kSecUseAuthenticationContext as String: context])
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("top secret".utf8))
            #expect(pinentry.prompts == 1)
        }
    }

    /// An evaluation's outcome, handed from its reply queue.
    final class OutcomeBox: @unchecked Sendable {
        var success = false
    }

    @Test("Cancel is errSecUserCanceled; three wrong passcodes are errSecAuthFailed; interactionNotAllowed is errSecInteractionNotAllowed")
    func failures() throws {
        try TemporaryKeychain.run { environment in
            try Self.prepare(.userPresence)
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            #expect(Self.read([kSecUseAuthenticationContext as String: pinentry.context(.cancel)]).status == errSecUserCanceled)
            let wrong = pinentry.context(.pin, pin: Self.passcode, pins: ["1111", "2222", "3333"])
            #expect(Self.read([kSecUseAuthenticationContext as String: wrong]).status == errSecAuthFailed)
            let quiet = pinentry.context(.pin, pin: Self.passcode)
            quiet.interactionNotAllowed = true
            #expect(Self.read([kSecUseAuthenticationContext as String: quiet]).status == errSecInteractionNotAllowed)
            #expect(pinentry.prompts == 4)
        }
    }

    @Test("Skip leaves protected items out of a search (errSecItemNotFound when nothing else matches)")
    func skip() throws {
        try TemporaryKeychain.run { _ in
            try Self.prepare(.devicePasscode)
            let open: Query = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "acl", kSecAttrAccount as String: "open",
                kSecValueData as String: Data("plain".utf8),
            ]
            #expect(add(open) == errSecSuccess)
            let all: Query = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "acl", kSecReturnData as String: true,
                kSecMatchLimit as String: kSecMatchLimitAll, kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
            ]
            let (status, result) = copyMatching(all)
            #expect(status == errSecSuccess)
            #expect((result as? [Data]) == [Data("plain".utf8)])
            #expect(Self.read([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]).status == errSecItemNotFound)
        }
    }

    @Test("Each flag: userPresence and devicePasscode open with the passcode; biometry and watch are errSecAuthFailed without a prompt")
    func eachFlag() throws {
        try TemporaryKeychain.run { environment in
            #expect(SecDataProtectionTesting.useFastKeyDerivation() == errSecSuccess)
            #expect(SecDataProtectionTesting.setPasscode(Data(Self.passcode.utf8), old: nil) == errSecSuccess)
            let cases: [(String, SecAccessControlCreateFlags, OSStatus)] = [
                ("presence", .userPresence, errSecSuccess),
                ("passcode", .devicePasscode, errSecSuccess),
                ("any", .biometryAny, errSecAuthFailed),
                ("current", .biometryCurrentSet, errSecAuthFailed),
                ("watch", .watch, errSecAuthFailed),
                ("or", [.biometryCurrentSet, .or, .devicePasscode], errSecSuccess),
                ("and", [.biometryAny, .and, .devicePasscode], errSecAuthFailed),
            ]
            for (account, flags, expected) in cases {
                try Self.addProtected(flags, account: account)
                let pinentry = ScriptedPinentry(directory: environment.dataHome)
                let (status, result) = Self.read(account: account, [kSecUseAuthenticationContext as String: pinentry.context(.pin, pin: Self.passcode)])
                #expect(status == expected, "\(account)")
                #expect((result as? Data) == (expected == errSecSuccess ? Data("top secret".utf8) : nil), "\(account)")
                #expect(pinentry.prompts == (expected == errSecSuccess ? 1 : 0), "\(account)")
            }
        }
    }

    @Test("applicationPassword: the context's credential seals and opens the item; a wrong one is errSecAuthFailed; without one it is asked through pinentry")
    func applicationPassword() throws {
        try TemporaryKeychain.run { environment in
            let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .applicationPassword, nil))
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let item: Query = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "acl", kSecAttrAccount as String: "me",
                kSecValueData as String: Data("top secret".utf8), kSecAttrAccessControl as String: control,
            ]
            #expect(add(merged(item, [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])) == errSecInteractionNotAllowed)
            let owner = pinentry.context(.cancel)
            owner.setCredential(Data("hunter2".utf8), type: .applicationPassword)
            #expect(add(merged(item, [kSecUseAuthenticationContext as String: owner])) == errSecSuccess)

            let (status, result) = Self.read([kSecUseAuthenticationContext as String: owner])
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("top secret".utf8))

            let intruder = pinentry.context(.cancel)
            intruder.setCredential(Data("hunter3".utf8), type: .applicationPassword)
            #expect(Self.read([kSecUseAuthenticationContext as String: intruder]).status == errSecAuthFailed)
            #expect(pinentry.prompts == 0)

            let asked = pinentry.context(.pin, pin: "hunter2")
            let prompted = Self.read([kSecUseAuthenticationContext as String: asked])
            #expect(prompted.status == errSecSuccess)
            #expect(prompted.result as? Data == Data("top secret".utf8))
            #expect(pinentry.prompts == 1)
            #expect(pinentry.receivedLines.contains { $0.hasPrefix("SETPROMPT Password") })
            #expect(asked.isCredentialSet(.applicationPassword))
        }
    }
}
