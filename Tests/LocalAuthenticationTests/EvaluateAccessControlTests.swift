import Foundation
import KeychainAuthentication
import LocalAuthentication
import Testing

@Suite("LAContext.evaluateAccessControl")
struct EvaluateAccessControlTests {
    private func accessControl(_ flags: SecAccessControlCreateFlags) throws -> SecAccessControl {
        try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
    }

    @Test("biometryCurrentSet or devicePasscode, for reading: the passcode satisfies it")
    func orFallsBackToPasscode() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(double.environment(.pin, pin: "4321"), authority: authority)
        let control = try accessControl([.biometryCurrentSet, .or, .devicePasscode])
        #expect(try await context.evaluateAccessControl(control, operation: .useItem, localizedReason: "read the token"))
        #expect(double.receivedLines()?.contains("GETPIN") == true)
    }

    @Test("biometryAny alone, or and-ed with the passcode: LAError.biometryNotAvailable, with no prompt")
    func biometryNeeded() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        for flags: SecAccessControlCreateFlags in [[.biometryAny], [.biometryAny, .and, .devicePasscode]] {
            let context = LAContext.testing(double.environment(.pin, pin: "4321"), authority: authority)
            let (success, error) = await replied {
                context.evaluateAccessControl(try! accessControl(flags), operation: .useItem, localizedReason: "r", reply: $0)
            }
            #expect(!success)
            #expect(laCode(error) == .biometryNotAvailable)
        }
        #expect(double.receivedLines() == nil)
    }

    @Test("Operations a constraint does not guard succeed without a prompt (creating; reading a privateKeyUsage key's item)")
    func unguardedOperations() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(double.environment(.cancel), authority: authority)
        #expect(try await context.evaluateAccessControl(try accessControl(.userPresence), operation: .createItem, localizedReason: "r"))
        #expect(try await context.evaluateAccessControl(try accessControl([.userPresence, .privateKeyUsage]), operation: .useItem, localizedReason: "r"))
        #expect(double.receivedLines() == nil)
        let (success, error) = await replied {
            context.evaluateAccessControl(try! accessControl([.userPresence, .privateKeyUsage]), operation: .useKeySign, localizedReason: "r", reply: $0)
        }
        #expect(!success)
        #expect(laCode(error) == .userCancel)
    }

    @Test("An application password is asked through pinentry when no credential is set, and kept on the context")
    func applicationPassword() async throws {
        let directory = try TestDirectory()
        let double = PinentryDouble(directory: directory.path)
        let (_, authority) = try directory.keychain(passcode: "4321")
        let context = LAContext.testing(double.environment(.pin, pin: "app%25pw"), authority: authority)
        #expect(try await context.evaluateAccessControl(try accessControl(.applicationPassword), operation: .useItem, localizedReason: "r"))
        #expect(context.isCredentialSet(.applicationPassword))
        let password = try #require(context.applicationPassword)
        #expect(password.withUnsafeBytes { Array($0) } == Array("app%pw".utf8))
        #expect(double.receivedLines()?.contains { $0.hasPrefix("SETPROMPT Password") } == true)
    }
}
