import Foundation
import KeychainCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Lets the owner of a prompt withdraw it from another thread: the pinentry program showing it
/// is killed, and the prompt ends as `.interrupted`; a prompt that is not a program (a
/// fingerprint verification) registers an action to run instead (`onCancel`).
package final class PromptCancellation: Sendable {
    private enum State {
        case idle
        case running(pid_t)
        case cancelled
    }

    private let state = Mutex(State.idle)
    /// What `cancel()` runs besides killing a program, taken once.
    private let cancelAction = Mutex<(@Sendable () -> Void)?>(nil)

    package init() {}

    /// Whether `cancel()` was called.
    package var isCancelled: Bool {
        state.withLock { if case .cancelled = $0 { return true } else { return false } }
    }

    /// Withdraws the prompt: a running program is killed; one not yet started never starts.
    package func cancel() {
        state.withLock { current in
            if case .running(let pid) = current { kill(pid, SIGKILL) }
            current = .cancelled
        }
        cancelAction.withLock { action in
            defer { action = nil }
            return action
        }?()
    }

    /// Runs `action` (once, on the cancelling thread) when `cancel()` is called, at once if it
    /// was called already; `removeCancelAction()` withdraws it.
    package func onCancel(_ action: @escaping @Sendable () -> Void) {
        cancelAction.withLock { $0 = action }
        if isCancelled {
            cancelAction.withLock { action in
                defer { action = nil }
                return action
            }?()
        }
    }

    /// Withdraws the action `onCancel` registered.
    package func removeCancelAction() {
        cancelAction.withLock { $0 = nil }
    }

    /// Records the running program; false (and the program killed) when already cancelled.
    func started(_ pid: pid_t) -> Bool {
        state.withLock { current in
            if case .cancelled = current {
                kill(pid, SIGKILL)
                return false
            }
            current = .running(pid)
            return true
        }
    }

    /// Forgets the program before it is reaped, so that `cancel()` never signals a reused pid.
    func finished() {
        state.withLock { current in
            if case .running = current { current = .idle }
        }
    }
}

/// A prompt's cancellation also withdraws a fingerprint verification the keychain runs for it.
extension PromptCancellation: BiometricCancellation {}
