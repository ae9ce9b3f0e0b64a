import Foundation
import KeychainCore
import KeychainCrypto

/// Checks a passcode the user entered against the keychain's passcode.
///
/// There is one check: the keychain's unlock (`KeychainHandle.unlock(passcode:)`), so an entered
/// passcode counts towards the same failed-attempt record and delays as unlocking, whether the
/// keychain is in this process or in `keychaind`. A correct passcode therefore also unlocks the
/// keychain, as the same passcode typed at `security unlock-keychain` would.
package struct PasscodeAuthority: Sendable {
    /// How a check ended.
    package enum Verdict: Equatable, Sendable {
        /// The passcode is the keychain's.
        case accepted
        /// The passcode is wrong, or attempts are suspended after too many wrong ones; `reason`
        /// says which (and for how long), never the passcode.
        case rejected(reason: String)
        /// The keychain could not be asked (`reason` names why).
        case unavailable(reason: String)
    }

    private let open: @Sendable () throws -> any KeychainHandle

    /// An authority asking the keychain `open` returns (opened anew for each question, so the
    /// keychain's current state is used).
    package init(open: @escaping @Sendable () throws -> any KeychainHandle) {
        self.open = open
    }

    /// The keychain passcodes are checked against.
    package func keychain() throws -> any KeychainHandle { try open() }

    /// Whether the keychain has a passcode.
    package func hasPasscode() throws -> Bool {
        try open().status().hasPasscode
    }

    /// Checks `passcode` and has the keychain record it in a grant (`grant`, or a new one).
    ///
    /// - Returns: the verdict and, when accepted, the keychain's path and the grant.
    package func authenticate(_ passcode: SecureBytes, grant: Data?) -> (Verdict, (path: String, identifier: Data)?) {
        do {
            let keychain = try open()
            let issued = try keychain.authenticate(passcode: Data.zeroingCopy(of: passcode), grant: grant)
            return (.accepted, (keychain.path, issued))
        } catch let error as KeychainError where error.code == .authFailed {
            return (.rejected(reason: error.reason), nil)
        } catch let error as KeychainError {
            return (.unavailable(reason: error.reason), nil)
        } catch {
            return (.unavailable(reason: "the keychain could not check the passcode"), nil)
        }
    }

    /// Checks `passcode`.
    package func verify(_ passcode: SecureBytes) -> Verdict {
        do {
            try open().unlock(passcode: Data.zeroingCopy(of: passcode))
            return .accepted
        } catch let error as KeychainError where error.code == .authFailed {
            return .rejected(reason: error.reason)
        } catch let error as KeychainError {
            return .unavailable(reason: error.reason)
        } catch {
            return .unavailable(reason: "the keychain could not check the passcode")
        }
    }
}
