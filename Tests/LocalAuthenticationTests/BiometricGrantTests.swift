import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainTestSupport
import LocalAuthentication
import Security
import Testing

/// A finger matched on an `LAContext` is verified by the keychain, which records it in a grant
/// the context holds: a keychain call made with the context (`kSecUseAuthenticationContext`)
/// then opens biometric items without a second finger, for as long as the keychain keeps the
/// factor, against the scripted fprintd on a private bus.
@Suite("A finger matched on an LAContext is a keychain grant", .serialized)
struct BiometricGrantTests {
    static let match = [("verify-match", true)]
    static let caller = AccessContext(accessGroups: [AccessContext.defaultGroup])

    /// A fake fprintd, a keychain whose passcode is 4321 reading fingers through it, and its clock.
    struct Rig {
        let fprintd: FprintdDouble
        let directory: TestDirectory
        let clock = TestClock()
        let keychain: Keychain
        let authority: PasscodeAuthority
        var handle: EmbeddedKeychain { EmbeddedKeychain(keychain, context: BiometricGrantTests.caller) }

        init() throws {
            fprintd = try FprintdDouble()
            directory = try TestDirectory()
            (keychain, authority) = try directory.keychain(passcode: "4321", clock: clock)
            // A finger that never comes ends a verification in 2 s: a second finger asked for
            // fails the read instead of hanging the test.
            keychain.useFingerprintReader(LockoutGuardedVerifier(fprintd.verifier(touchTimeout: 2), lockout: .inMemory()))
        }

        /// A context on the fake fprintd; its pinentry cancels (no passcode is ever given).
        func context() -> LAContext {
            let double = PinentryDouble(directory: directory.path)
            return LAContext.testing(double.environment(.cancel), authority: authority, fingerprints: fprintd.verifier(touchTimeout: 2))
        }

        /// Adds a password protected by `flags` and returns the request reading its secret.
        func protectedItem(_ flags: AccessControlPolicy.Flags, account: String) throws -> ItemRequest {
            var add = ItemRequest(itemClass: .genericPassword)
            add.attributes = [.service: .string("vault"), .account: .string(account)]
            add.accessControl = try AccessControlPolicy(protection: .whenUnlockedThisDeviceOnly, flags: flags)
            add.secret = Data("secret".utf8)
            _ = try handle.add(add)
            var read = ItemRequest(itemClass: .genericPassword)
            read.attributes = [.service: .string("vault"), .account: .string(account)]
            read.returns = .data
            return read
        }

        /// The secret `request` reads with `context`, authenticating as `SecItemCopyMatching` does.
        func read(_ request: ItemRequest, with context: LAContext) throws -> Data? {
            try AuthenticatedCall.run(request, context: context, reason: nil, keychain: handle) { try handle.search($0) }.first?.data
        }

        /// How many verifications fprintd started.
        func verifications() throws -> Int {
            try fprintd.calls().filter { $0 == "VerifyStart any" }.count
        }
    }

    /// The code of the `KeychainError` `body` threw, or nil.
    static func code(_ body: () throws -> Void) -> KeychainError.Code? {
        do {
            try body()
            return nil
        } catch let error as KeychainError {
            return error.code
        } catch {
            return .internal
        }
    }

    @Test("A finger matched by evaluatePolicy (biometrics, or deviceOwnerAuthentication) or evaluateAccessControl opens biometryAny and biometryCurrentSet items without a second finger")
    func evaluatedFingerOpensItems() async throws {
        let rig = try Rig()
        let any = try rig.protectedItem(.biometryAny, account: "any")
        let current = try rig.protectedItem(.biometryCurrentSet, account: "current")
        let presence = try rig.protectedItem(.userPresence, account: "presence")
        try rig.fprintd.setScript([Self.match, Self.match, Self.match])
        let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryCurrentSet, nil))
        let evaluations: [(LAContext) async throws -> Bool] = [
            { try await $0.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r") },
            { try await $0.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r") },
            { try await $0.evaluateAccessControl(control, operation: .useItem, localizedReason: "r") },
        ]
        for (index, evaluate) in evaluations.enumerated() {
            let context = rig.context()
            #expect(try await evaluate(context))
            #expect(try rig.verifications() == index + 1)
            for request in [any, current, presence] {
                #expect(try rig.read(request, with: context) == Data("secret".utf8), "evaluation \(index)")
            }
            #expect(try rig.verifications() == index + 1, "evaluation \(index) asked for a second finger")
        }
    }

    @Test("A finger added after the match: the context's grant no longer opens the biometryCurrentSet item (errSecAuthFailed, no finger asked); biometryAny still opens")
    func enrolmentChangedSinceTheMatch() async throws {
        let rig = try Rig()
        let any = try rig.protectedItem(.biometryAny, account: "any")
        let current = try rig.protectedItem(.biometryCurrentSet, account: "current")
        try rig.fprintd.setScript([Self.match])
        let context = rig.context()
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        #expect(try rig.read(current, with: context) == Data("secret".utf8))
        try rig.fprintd.setEnrolled(["right-index-finger", "left-thumb"])
        #expect(Self.code { _ = try rig.read(current, with: context) } == .authFailed)
        #expect(try rig.read(any, with: context) == Data("secret".utf8))
        #expect(try rig.verifications() == 1)
    }

    @Test("The context's finger serves ten minutes from the match by the keychain's clock; then the keychain asks again (Fail: errSecInteractionNotAllowed)")
    func grantExpires() async throws {
        let rig = try Rig()
        var any = try rig.protectedItem(.biometryAny, account: "any")
        any.authenticationUI = .fail
        try rig.fprintd.setScript([Self.match])
        let context = rig.context()
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        rig.clock.advance(by: 599)
        #expect(try rig.read(any, with: context) == Data("secret".utf8))
        rig.clock.advance(by: 1)
        #expect(Self.code { _ = try rig.read(any, with: context) } == .interactionNotAllowed)
        #expect(try rig.verifications() == 1)
    }

    @Test("invalidate() has the keychain forget the context's grant: presented again, it opens nothing")
    func invalidateRevokesTheGrant() async throws {
        let rig = try Rig()
        var any = try rig.protectedItem(.biometryAny, account: "any")
        try rig.fprintd.setScript([Self.match])
        let context = rig.context()
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        let held = try #require(context.grant(forKeychainAt: rig.keychain.path))
        any.authentication.grant = held
        any.authenticationUI = .fail
        #expect(try rig.handle.search(any).first?.data == Data("secret".utf8))
        context.invalidate()
        #expect(context.grant(forKeychainAt: rig.keychain.path) == nil)
        #expect(Self.code { _ = try rig.handle.search(any) } == .interactionNotAllowed)
    }
}
