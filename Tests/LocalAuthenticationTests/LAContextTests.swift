import Foundation
import KeychainAuthentication
import KeychainCore
import LocalAuthentication
import Testing

@Suite("LAContext: policies, errors and the passcode through pinentry")
struct LAContextTests {
    @Test("deviceOwnerAuthentication asks for the keychain passcode; the right one succeeds and the context remembers it")
    func passcodeSucceeds() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(double.environment(.pin, pin: "4321"), authority: authority)
        var error: NSError?
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
        #expect(error == nil)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "open the vault"))
        #expect(context.isPasscodeAuthenticated)
        let description = try #require(double.receivedLines()?.first { $0.hasPrefix("SETDESC ") })
        #expect(description.contains("open the vault") && description.contains("test-app"))
    }

    @Test("A wrong passcode is asked again with the reason shown; after three wrong ones, LAError.authenticationFailed")
    func wrongPasscode() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(double.environment(.pin, pin: "0000"), authority: authority)
        let (success, error) = await replied { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }
        #expect(!success)
        #expect(laCode(error) == .authenticationFailed)
        #expect(!context.isPasscodeAuthenticated)
        let lines = try #require(double.receivedLines())
        #expect(lines.filter { $0 == "GETPIN" }.count == 3)
        #expect(lines.filter { $0.hasPrefix("SETERROR Wrong passcode") }.count == 2)
    }

    @Test("A wrong passcode and then the right one, in one prompt: success")
    func wrongThenRight() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(double.environment(.pin, pins: ["1111", "4321"]), authority: authority)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
        let lines = try #require(double.receivedLines())
        #expect(lines.filter { $0 == "GETPIN" }.count == 2)
        #expect(lines.contains { $0.hasPrefix("SETERROR Wrong passcode") })
    }

    @Test("Wrong passcodes entered at the prompt count as failed unlocks: after five, even the right one waits")
    func sharesTheAttemptCounter() async throws {
        let directory = try TestDirectory()
        let (keychain, authority) = try directory.keychain(passcode: "4321")
        for attempt in 0..<5 {
            let context = LAContext.testing(PinentryDouble(directory: directory.path).environment(.pin, pin: "000\(attempt)"), authority: authority)
            let (_, error) = await replied { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }
            #expect(laCode(error) == .authenticationFailed)
        }
        #expect(try keychain.passcodeRetryDelay != nil)
        let right = LAContext.testing(PinentryDouble(directory: directory.path).environment(.pin, pin: "4321"), authority: authority)
        let (success, error) = await replied { right.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }
        #expect(!success)
        #expect(laCode(error) == .authenticationFailed)
    }

    @Test("Cancel at the prompt is LAError.userCancel, caught as `catch LAError.userCancel`")
    func cancel() async throws {
        let directory = try TestDirectory()
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(PinentryDouble(directory: directory.path).environment(.cancel), authority: authority)
        var caught = false
        do {
            _ = try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r")
        } catch LAError.userCancel {
            caught = true
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(caught)
    }

    @Test("No pinentry, or one that fails or never answers: LAError.notInteractive")
    func noPrompt() async throws {
        let directory = try TestDirectory()
        let (_, authority) = try directory.keychain(passcode: "4321")
        let environments = [
            PinentryEnvironment(variables: ["KEYCHAIN_PINENTRY": "/nonexistent/pinentry"], terminal: nil),
            PinentryEnvironment(variables: ["PATH": directory.path], terminal: "/dev/pts/9"),
            PinentryEnvironment(variables: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"], terminal: nil),
            PinentryDouble(directory: directory.path).environment(.error),
            PinentryDouble(directory: directory.path).environment(.hang, timeout: 1),
        ]
        for environment in environments {
            let context = LAContext.testing(environment, authority: authority)
            let (success, error) = await replied { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }
            #expect(!success)
            #expect(laCode(error) == .notInteractive)
        }
    }

    @Test("interactionNotAllowed fails with LAError.notInteractive and starts no program")
    func interactionNotAllowed() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(double.environment(.pin, pin: "4321"), authority: authority)
        context.interactionNotAllowed = true
        let (success, error) = await replied { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }
        #expect(!success)
        #expect(laCode(error) == .notInteractive)
        #expect(double.receivedLines() == nil)
    }

    @Test("Without a passcode and without biometry, canEvaluatePolicy is false with LAError.passcodeNotSet, and nothing is asked")
    func passcodeNotSet() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: nil)
        let context = LAContext.testing(double.environment(.pin, pin: ""), authority: authority)
        var error: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
        #expect(error?.domain == "com.apple.LocalAuthentication")
        #expect(error?.code == LAError.Code.passcodeNotSet.rawValue)
        let (success, replyError) = await replied { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }
        #expect(!success)
        #expect(laCode(replyError) == .passcodeNotSet)
        #expect(double.receivedLines() == nil)
    }

    @Test("Without a fingerprint service, biometric policies fail with LAError.biometryNotAvailable; biometryType is none, no domain state")
    func noBiometry() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(double.environment(.pin, pin: "4321"), authority: authority)
        var error: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == -6)
        #expect(context.biometryType == .none)
        #expect(context.evaluatedPolicyDomainState == nil)
        #expect(context.domainState.biometry.stateHash == nil)
        #expect(context.domainState.stateHash == nil)
        let (success, replyError) = await replied {
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0)
        }
        #expect(!success)
        #expect(laCode(replyError) == .biometryNotAvailable)
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithCompanion, error: &error))
        #expect(error?.code == LAError.Code.companionNotAvailable.rawValue)
        #expect(double.receivedLines() == nil)
    }

    @Test("invalidate() ends a pending evaluation with LAError.appCancel and refuses later ones with invalidContext")
    func invalidate() throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        // A long timeout: only invalidate() can end this prompt in time.
        let context = LAContext.testing(double.environment(.hang, timeout: 120), authority: authority)
        let pending = Evaluation { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }
        // Waits on this thread (the program may be slow to start on a busy machine).
        for _ in 0..<3_000 where double.receivedLines()?.contains("GETPIN") != true { usleep(10_000) }
        context.invalidate()
        context.invalidate()
        let (success, error) = pending.result()
        #expect(!success)
        #expect(laCode(error) == .appCancel)
        let (_, later) = Evaluation { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }.result()
        #expect(laCode(later) == .invalidContext)
        var canError: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &canError))
        #expect(canError?.code == LAError.Code.invalidContext.rawValue)
    }

    @Test("The reuse duration is clamped to LATouchIDAuthenticationMaximumAllowableReuseDuration (300 s) and to 0")
    func reuseDuration() {
        let context = LAContext()
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 0)
        context.touchIDAuthenticationAllowableReuseDuration = 10_000
        #expect(context.touchIDAuthenticationAllowableReuseDuration == LATouchIDAuthenticationMaximumAllowableReuseDuration)
        #expect(LATouchIDAuthenticationMaximumAllowableReuseDuration == 300)
        context.touchIDAuthenticationAllowableReuseDuration = -5
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 0)
        context.touchIDAuthenticationAllowableReuseDuration = 42
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 42)
    }

    @Test("setCredential stores and clears the application password; smart-card PINs are refused")
    func credentials() {
        let context = LAContext()
        #expect(!context.isCredentialSet(.applicationPassword))
        #expect(context.setCredential(Data("app-secret".utf8), type: .applicationPassword))
        #expect(context.isCredentialSet(.applicationPassword))
        #expect(context.setCredential(nil, type: .applicationPassword))
        #expect(!context.isCredentialSet(.applicationPassword))
        #expect(!context.setCredential(Data("1234".utf8), type: .smartCardPIN))
        context.invalidate()
        #expect(!context.setCredential(Data("x".utf8), type: .applicationPassword))
    }

    @Test("LAError bridges to NSError with Apple's domain and codes")
    func errorBridging() throws {
        let codes: [(LAError.Code, Int)] = [
            (.authenticationFailed, -1), (.userCancel, -2), (.userFallback, -3), (.systemCancel, -4),
            (.passcodeNotSet, -5), (.biometryNotAvailable, -6), (.biometryNotEnrolled, -7), (.biometryLockout, -8),
            (.appCancel, -9), (.invalidContext, -10), (.companionNotAvailable, -11), (.biometryNotPaired, -12),
            (.biometryDisconnected, -13), (.invalidDimensions, -14), (.notInteractive, -1004),
        ]
        for (code, value) in codes {
            #expect(code.rawValue == value)
            let error: any Error = LAError(try #require(LAError.Code(rawValue: value)))
            #expect((error as NSError).domain == LAErrorDomain)
            #expect((error as NSError).code == value)
        }
        #expect(LAErrorDomain == "com.apple.LocalAuthentication")
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue == 1)
        #expect(LAPolicy.deviceOwnerAuthentication.rawValue == 2)
        #expect(LABiometryType.opticID.rawValue == 4)
        #expect(LAAccessControlOperation.useKeyKeyExchange.rawValue == 5)
    }
}
