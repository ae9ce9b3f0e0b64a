import Foundation
import KeychainCore
import Synchronization

/// Watches a keychain while the user is asked for what an item needs: when the keychain locks
/// meanwhile (the login session was locked, an auto-lock, `security lock-keychain`), the prompt is
/// withdrawn, as Apple withdraws its prompts when the device locks, and the request fails with
/// `errSecAuthFailed` instead of going on with a passcode typed at a locked session.
///
/// The keychain is asked for its lock state every `interval` seconds (through `keychaind`, one
/// small request each), only while a prompt is up.
package final class LockWatch: Sendable {
    /// How often the lock state is asked.
    package static let interval = 0.1

    private let stopRequested = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let lockSeen = Atomic<Bool>(false)

    /// Starts watching `keychain`, cancelling `cancellation` when it locks; nil when there is
    /// nothing to watch: a keychain without a passcode never locks, and a locked one is being
    /// unlocked by the very passcode the prompt asks for.
    package init?(keychain: any KeychainHandle, cancellation: PromptCancellation) {
        guard let status = try? keychain.status(), status.hasPasscode, status.lockState == .unlocked else { return nil }
        Thread.detachNewThread { [self] in
            defer { ended.signal() }
            while stopRequested.wait(timeout: .now() + Self.interval) == .timedOut {
                guard let state = try? keychain.status().lockState, state != .unlocked else { continue }
                lockSeen.store(true, ordering: .sequentiallyConsistent)
                cancellation.cancel()
                return
            }
        }
    }

    /// Whether the keychain locked while watched.
    package var sawLock: Bool { lockSeen.load(ordering: .sequentiallyConsistent) }

    /// Stops watching (the prompt ended).
    package func stop() {
        stopRequested.signal()
        ended.wait()
    }

    /// The keychain's error for a request whose prompt the lock withdrew.
    package static let lockedError = KeychainError(.authFailed, "the keychain was locked while the user was being asked")
}
