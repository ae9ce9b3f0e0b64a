import Foundation
import KeychainAuthentication
@_spi(Testing) import KeychainCore
import KeychainTestSupport
import LocalAuthentication
import Testing

/// Biometry through fprintd's D-Bus protocol, against a scripted fprintd on a private bus: the
/// verifier as built, LAContext as apps use it.
@Suite("LAContext biometry through fprintd", .serialized)
struct BiometryTests {
    static let match = [("verify-match", true)]
    static let noMatch = [("verify-no-match", true)]

    /// A fake fprintd, a keychain whose passcode is 4321, and contexts using both.
    struct Rig {
        let fprintd: FprintdDouble
        let directory: TestDirectory
        let keychain: Keychain
        let authority: PasscodeAuthority

        init() throws {
            fprintd = try FprintdDouble()
            directory = try TestDirectory()
            (keychain, authority) = try directory.keychain(passcode: "4321")
        }

        /// A context on the fake fprintd, whose pinentry answers `pin`; the keychain verifies
        /// fingers through the same fprintd, counting failures in `lockout`.
        func context(
            pin: String = "4321", touchTimeout: Double = 30, callTimeout: Double = 5, lockout: BiometryLockout = .inMemory(),
            program: String = "/usr/bin/test-app"
        ) -> (LAContext, PinentryDouble) {
            keychain.useFingerprintReader(
                LockoutGuardedVerifier(fprintd.verifier(touchTimeout: touchTimeout, callTimeout: callTimeout), lockout: lockout))
            let double = PinentryDouble(directory: directory.path)
            let context = LAContext.testing(
                double.environment(.pin, pin: pin), authority: authority,
                fingerprints: fprintd.verifier(touchTimeout: touchTimeout, callTimeout: callTimeout), lockout: lockout, program: program)
            return (context, double)
        }
    }

    @Test("biometryType and canEvaluatePolicy follow the reader: enrolled → touchID; no finger → biometryNotEnrolled; no reader or no fprintd → biometryNotAvailable")
    func readerStates() throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        let (context, _) = rig.context()
        var error: NSError?
        #expect(context.biometryType == .touchID)
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error == nil)

        try fprintd.setEnrolled([])
        #expect(context.biometryType == .none)
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == LAError.Code.biometryNotEnrolled.rawValue)

        try fprintd.setReader(present: false)
        #expect(context.biometryType == .none)
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)

        try fprintd.setReader(present: true)
        try fprintd.setEnrolled(["left-thumb"])
        fprintd.stopService()
        #expect(context.biometryType == .none)
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)
    }

    @Test("A keychain without a passcode: biometry cannot be evaluated (LAError.passcodeNotSet), though a finger is enrolled, and no finger is asked")
    func biometryNeedsThePasscode() async throws {
        let fprintd = try FprintdDouble()
        let directory = try TestDirectory()
        let (_, authority) = try directory.keychain(passcode: nil)
        let double = PinentryDouble(directory: directory.path)
        let context = LAContext.testing(double.environment(.pin, pin: ""), authority: authority, fingerprints: fprintd.verifier())
        var error: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == LAError.Code.passcodeNotSet.rawValue)
        let (success, replyError) = await replied {
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0)
        }
        #expect(!success)
        #expect(laCode(replyError) == .passcodeNotSet)
        #expect(try !fprintd.calls().contains("Claim "))
    }

    @Test("A matching finger: the evaluation succeeds after Claim, VerifyStart(any), VerifyStop and Release, and the context has a domain state")
    func match() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        try fprintd.setScript([Self.match])
        let (context, double) = rig.context()
        #expect(context.evaluatedPolicyDomainState == nil)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "open the vault"))
        #expect(context.isBiometryAuthenticated)
        #expect(context.evaluatedPolicyDomainState?.count == 32)
        #expect(context.domainState.biometry.stateHash == context.evaluatedPolicyDomainState)
        #expect(context.domainState.biometry.biometryType == .touchID)
        let calls = try fprintd.calls()
        let claim = try #require(calls.firstIndex(of: "Claim "))
        let release = try #require(calls.firstIndex(of: "Release"))
        #expect(calls[claim...release].filter { !$0.hasPrefix("VerifyStatus") } == ["Claim ", "VerifyStart any", "VerifyStop", "Release"])
        #expect(double.receivedLines() == nil)
    }

    @Test("A wrong finger may be tried again; three wrong fingers in one evaluation are LAError.authenticationFailed")
    func noMatchThenRetry() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        try fprintd.setScript([Self.noMatch, Self.match, Self.noMatch, Self.noMatch, Self.noMatch])
        let lockout = BiometryLockout.inMemory()
        let (context, _) = rig.context(lockout: lockout)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        #expect(lockout.failures == 0)

        let (other, _) = rig.context(lockout: lockout)
        let (success, error) = await replied { other.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(!success)
        #expect(laCode(error) == .authenticationFailed)
        #expect(lockout.failures == 3)
        #expect(!other.isBiometryAuthenticated)
        #expect(try fprintd.calls().filter { $0 == "VerifyStart any" }.count == 5)
    }

    @Test("retry-scan, swipe-too-short, finger-not-centered and remove-and-retry keep the verification going; none counts as a failure")
    func retryStatuses() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        try fprintd.setScript([
            [("verify-retry-scan", false), ("verify-swipe-too-short", false), ("verify-finger-not-centered", false),
             ("verify-remove-and-retry", false), ("verify-match", true)],
        ])
        let lockout = BiometryLockout.inMemory()
        let (context, _) = rig.context(lockout: lockout)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        #expect(lockout.failures == 0)
        #expect(try fprintd.calls().filter { $0 == "VerifyStart any" }.count == 1)
    }

    @Test("Five wrong fingers in a row over two evaluations lock biometry out; deviceOwnerAuthentication then asks for the passcode, which lifts the lockout")
    func lockout() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        try fprintd.setScript(Array(repeating: Self.noMatch, count: 5))
        let lockout = BiometryLockout.inMemory()
        let (first, _) = rig.context(lockout: lockout)
        let (_, firstError) = await replied { first.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(laCode(firstError) == .authenticationFailed)
        let (second, _) = rig.context(lockout: lockout)
        let (_, secondError) = await replied { second.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(laCode(secondError) == .biometryLockout)
        #expect(try fprintd.calls().filter { $0 == "VerifyStart any" }.count == 5)

        let (third, double) = rig.context(lockout: lockout)
        var error: NSError?
        #expect(!third.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == LAError.Code.biometryLockout.rawValue)
        #expect(third.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
        #expect(try await third.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
        #expect(third.isPasscodeAuthenticated)
        #expect(double.receivedLines()?.contains("GETPIN") == true)
        #expect(try fprintd.calls().filter { $0 == "VerifyStart any" }.count == 5)
        #expect(!lockout.isLockedOut)
        #expect(third.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    }

    @Test("deviceOwnerAuthentication uses a matching finger without asking for the passcode")
    func ownerAuthenticationByFinger() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        try fprintd.setScript([Self.match])
        let (context, double) = rig.context()
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
        #expect(context.isBiometryAuthenticated)
        #expect(!context.isPasscodeAuthenticated)
        #expect(double.receivedLines() == nil)
    }

    @Test("invalidate() during a verification ends it with LAError.appCancel, and fprintd's verification is stopped and the reader released")
    func cancel() throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        // No finger ever touches: only invalidate() ends this verification in time.
        let (context, _) = rig.context(touchTimeout: 120)
        let pending = Evaluation { context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(fprintd.waitForCalls("VerifyStart any"))
        context.invalidate()
        let (success, error) = pending.result()
        #expect(!success)
        #expect(laCode(error) == .appCancel)
        #expect(fprintd.waitForCalls("Release"))
        #expect(try fprintd.calls().contains("VerifyStop"))
    }

    @Test("A reader disconnected during the verification is LAError.biometryDisconnected; deviceOwnerAuthentication then asks for the passcode")
    func disconnected() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        try fprintd.setScript([[("verify-disconnected", true)], [("verify-disconnected", true)]])
        let (context, _) = rig.context()
        let (success, error) = await replied { context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(!success)
        #expect(laCode(error) == .biometryDisconnected)

        let (owner, double) = rig.context()
        #expect(try await owner.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
        #expect(owner.isPasscodeAuthenticated)
        #expect(double.receivedLines()?.contains("GETPIN") == true)
    }

    @Test("No finger within the verifier's time is the fallback choice: LAError.userFallback, or systemCancel with the fallback hidden")
    func noFingerInTime() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        let (context, _) = rig.context(touchTimeout: 0.5)
        let (_, error) = await replied { context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(laCode(error) == .userFallback)
        let (hidden, _) = rig.context(touchTimeout: 0.5)
        hidden.localizedFallbackTitle = ""
        let (_, hiddenError) = await replied { hidden.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(laCode(hiddenError) == .systemCancel)
        #expect(fprintd.waitForCalls("Release", count: 2))
    }

    @Test("A VerifyStatus sent by another peer than fprintd's owner is ignored")
    func spoofedStatusIgnored() throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        let lockout = BiometryLockout.inMemory()
        let (context, _) = rig.context(touchTimeout: 120, lockout: lockout)
        let pending = Evaluation { context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(fprintd.waitForCalls("VerifyStart any"))
        let verifier = try #require(try fprintd.ownConnections().first)
        try fprintd.spoofStatus(to: verifier, "verify-match", done: true)
        // fprintd's own no-match comes after the spoofed match: the verifier must wait for it
        // and start a second attempt, which only invalidate() ends.
        try fprintd.emitStatus("verify-no-match", done: true)
        #expect(fprintd.waitForCalls("VerifyStart any", count: 2))
        context.invalidate()
        let (success, error) = pending.result()
        #expect(!success)
        #expect(laCode(error) == .appCancel)
        #expect(lockout.failures == 1)
    }

    @Test("fprintd refusing the claim (AlreadyInUse, PermissionDenied) or leaving the bus mid-verification: biometryNotAvailable")
    func serviceFailures() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        for (name, kind) in [("AlreadyInUse", FingerprintUnavailability.busy), ("PermissionDenied", .denied)] {
            try fprintd.setClaimError(name)
            let verdict = fprintd.verifier().verify(reason: "r", cancellation: PromptCancellation())
            guard case .unavailable(let reason) = verdict else {
                Issue.record("\(name): \(verdict)")
                continue
            }
            #expect(FingerprintUnavailability(reason: reason) == kind)
            let (context, _) = rig.context()
            let (_, error) = await replied { context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
            #expect(laCode(error) == .biometryNotAvailable)
        }
        try fprintd.setClaimError("")
        let (context, _) = rig.context(touchTimeout: 120)
        let pending = Evaluation { context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(fprintd.waitForCalls("VerifyStart any"))
        fprintd.stopService()
        let (success, error) = pending.result()
        #expect(!success)
        #expect(laCode(error) == .biometryNotAvailable)
    }

    @Test("An fprintd that stops answering (SIGSTOP) makes biometry unavailable after the call timeout; nothing hangs, and deviceOwnerAuthentication asks for the passcode")
    func unresponsiveService() async throws {
        let rig = try Rig()
        let (context, double) = rig.context(callTimeout: 0.5)
        rig.fprintd.freezeService()
        var error: NSError?
        #expect(context.biometryType == .none)
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)
        let (success, replyError) = await replied {
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0)
        }
        #expect(!success)
        #expect(laCode(replyError) == .biometryNotAvailable)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
        #expect(double.receivedLines()?.contains("GETPIN") == true)
    }

    @Test("evaluateAccessControl: biometryAny, biometryCurrentSet and userPresence are satisfied by a finger; the context then reads without a second finger")
    func accessControlByFinger() async throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        try fprintd.setScript([Self.match, Self.match, Self.match])
        for flags: SecAccessControlCreateFlags in [[.biometryAny], [.biometryCurrentSet], [.userPresence]] {
            let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
            let (context, double) = rig.context()
            #expect(try await context.evaluateAccessControl(control, operation: .useItem, localizedReason: "r"))
            #expect(try await context.evaluateAccessControl(control, operation: .useItem, localizedReason: "r"))
            #expect(context.isBiometryAuthenticated)
            #expect(double.receivedLines() == nil)
        }
        #expect(try fprintd.calls().filter { $0 == "VerifyStart any" }.count == 3)
    }

    @Test("The domain state is stable across calls and contexts of one program, differs for another program, and changes when a finger is added or removed")
    func domainStateFollowsEnrolment() throws {
        let rig = try Rig()
        let fprintd = rig.fprintd
        func state(_ program: String = "/usr/bin/test-app") throws -> Data? {
            let (context, _) = rig.context(program: program)
            var error: NSError?
            #expect(context.evaluatedPolicyDomainState == nil)
            _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
            return context.evaluatedPolicyDomainState
        }
        try fprintd.setEnrolled(["right-index-finger"])
        let first = try #require(try state())
        #expect(try state() == first)
        #expect(try state("/usr/bin/other-app") != first)
        try fprintd.setEnrolled(["right-index-finger", "left-thumb"])
        let added = try #require(try state())
        #expect(added != first)
        try fprintd.setEnrolled(["left-thumb", "right-index-finger"])
        #expect(try state() == added)
        try fprintd.setEnrolled(["right-index-finger"])
        #expect(try state() == first)
        try fprintd.setEnrolled([])
        #expect(try state() == nil)
    }
}
