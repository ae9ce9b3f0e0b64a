import Foundation
import KeychainCrypto
import Synchronization

/// The keys one process holds for one keychain, which make its lock state real: a class is
/// available exactly when its working keys are in memory. Locking removes the class A keys, and
/// since keys live in `SecureBytes`, their memory is zeroed as soon as no operation uses them.
///
/// - Without a passcode every class is available from the start and locking changes nothing
///   (Apple: without a passcode the class keys need no secret to unwrap).
/// - With a passcode a new process starts before the first unlock (class D only); an unlock adds
///   A and C; a lock removes A; C stays until the process ends.
/// - With an auto-lock interval, the A keys are removed after that long without use: when a
///   timer fires, or at the next use if that comes first.
final class KeyRing: Sendable {
    /// The index keys (tokens, group names): always available.
    let index: IndexKeys
    private let clock: any KeychainClock
    private let state: Mutex<State>

    private struct State {
        var classes: [KeybagClass: ClassKeys] = [:]
        var hasPasscode: Bool
        var autoLock: TimeInterval?
        var lastActivity: Date
        var timerScheduled = false
        var passcodeClassEntry: Data?
    }

    /// A key ring holding `keys` (class keys, unwrapped) and the index keys.
    init(
        index: IndexKeys, classKeys keys: [KeybagClass: SymmetricKey], hasPasscode: Bool, passcodeClassEntry: Data?,
        autoLock: TimeInterval?, clock: any KeychainClock
    ) throws {
        self.index = index
        self.clock = clock
        var classes: [KeybagClass: ClassKeys] = [:]
        for (keyClass, key) in keys where keyClass != .index { classes[keyClass] = try ClassKeys(classKey: key) }
        state = Mutex(
            State(
                classes: classes, hasPasscode: hasPasscode, autoLock: autoLock, lastActivity: clock.now,
                passcodeClassEntry: classes[.whenPasscodeSetThisDeviceOnly] == nil ? nil : passcodeClassEntry))
    }

    /// Whether the working keys for items of `keyClass` are held now.
    enum Availability {
        /// The class is unlocked: here are its keys.
        case available(ClassKeys)
        /// The class is locked (an unlock makes it available).
        case locked
        /// The passcode-only class when no passcode exists: its items were lost with the passcode.
        case lost
    }

    /// The working keys for items of `keyClass`, or why they are not held.
    func availability(of keyClass: KeybagClass) -> Availability {
        let keys: ClassKeys? = state.withLock { state in
            // Only an auto-lock needs the time of each use (the clock is read under the lock).
            guard state.hasPasscode && state.autoLock != nil else { return state.classes[keyClass] }
            let now = clock.now
            Self.expireIfIdle(&state, now: now)
            let keys = state.classes[keyClass]
            if keys != nil { state.lastActivity = now }
            return keys
        }
        if let keys { return .available(keys) }
        return keyClass == .whenPasscodeSetThisDeviceOnly && !hasPasscode ? .lost : .locked
    }

    /// The working keys for items of `keyClass`.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when the class is locked; `errSecDecode` for the
    ///   passcode-only class when no passcode exists (such items were lost with the passcode).
    func classKeys(for keyClass: KeybagClass) throws -> ClassKeys {
        switch availability(of: keyClass) {
        case .available(let keys): return keys
        case .locked: throw KeychainError.classLocked
        case .lost: throw KeychainError(.decode, "the item was protected by a passcode that has been removed")
        }
    }

    /// Whether items of `keyClass` can be used now.
    func isAvailable(_ keyClass: KeybagClass) -> Bool {
        let now = clock.now
        return state.withLock { state in
            Self.expireIfIdle(&state, now: now)
            return state.classes[keyClass] != nil
        }
    }

    /// The lock state in this process.
    var lockState: LockState {
        let now = clock.now
        return state.withLock { state in
            Self.expireIfIdle(&state, now: now)
            if !state.hasPasscode || state.classes[.whenUnlocked] != nil { return .unlocked }
            return state.classes[.afterFirstUnlock] != nil ? .locked : .beforeFirstUnlock
        }
    }

    /// Whether the keychain has a passcode (as this process last saw it).
    var hasPasscode: Bool { state.withLock { $0.hasPasscode } }

    /// The keybag entry (wrapped bytes) the passcode-only class key was unwrapped from, so an add
    /// can check that no other process has since removed or replaced it.
    var passcodeClassEntry: Data? { state.withLock { $0.passcodeClassEntry } }

    /// Makes `keys` available (after an unlock or a passcode change) and starts the auto-lock
    /// clock; `passcodeClassEntry` is the keybag entry of the passcode-only key among them.
    func install(_ keys: [KeybagClass: SymmetricKey], hasPasscode: Bool, passcodeClassEntry: Data?) throws {
        var derived: [KeybagClass: ClassKeys] = [:]
        for (keyClass, key) in keys where keyClass != .index { derived[keyClass] = try ClassKeys(classKey: key) }
        let now = clock.now
        let schedule: TimeInterval? = state.withLock { state in
            state.classes.merge(derived) { _, new in new }
            state.hasPasscode = hasPasscode
            if derived[.whenPasscodeSetThisDeviceOnly] != nil { state.passcodeClassEntry = passcodeClassEntry }
            state.lastActivity = now
            return Self.claimTimer(&state)
        }
        if let schedule { scheduleTimer(after: schedule) }
    }

    /// Replaces every class key with `keys` (the keychain's keybag was replaced: its passcode was
    /// set, changed or removed, here or in another process). Classes missing from `keys` become
    /// unavailable; the index keys, which a replacement never changes, stay.
    func replaceAll(_ keys: [KeybagClass: SymmetricKey], hasPasscode: Bool, passcodeClassEntry: Data?) throws {
        var derived: [KeybagClass: ClassKeys] = [:]
        for (keyClass, key) in keys where keyClass != .index { derived[keyClass] = try ClassKeys(classKey: key) }
        let now = clock.now
        let schedule: TimeInterval? = state.withLock { state in
            state.classes = derived
            state.hasPasscode = hasPasscode
            state.passcodeClassEntry = derived[.whenPasscodeSetThisDeviceOnly] == nil ? nil : passcodeClassEntry
            state.lastActivity = now
            return Self.claimTimer(&state)
        }
        if let schedule { scheduleTimer(after: schedule) }
    }

    /// Removes the passcode-only class (its key was removed or replaced); `passcodeRemoved` also
    /// records that the keychain no longer has a passcode.
    func dropPasscodeClass(passcodeRemoved: Bool) {
        state.withLock { state in
            state.classes.removeValue(forKey: .whenPasscodeSetThisDeviceOnly)
            state.passcodeClassEntry = nil
            if passcodeRemoved { state.hasPasscode = false }
        }
    }

    /// Locks: removes the class A keys when the keychain has a passcode; otherwise does nothing.
    func lock() {
        state.withLock { state in
            guard state.hasPasscode else { return }
            Self.dropClassA(&state)
        }
    }

    /// Removes every class key (the keychain is being closed or deleted).
    func removeAll() {
        state.withLock { $0.classes.removeAll() }
    }

    /// Sets the auto-lock interval (nil: none).
    func setAutoLock(_ interval: TimeInterval?) {
        let now = clock.now
        let schedule: TimeInterval? = state.withLock { state in
            // Uses are timed only while an auto-lock is set: the interval starts now.
            if state.autoLock == nil { state.lastActivity = now }
            state.autoLock = interval
            return Self.claimTimer(&state)
        }
        if let schedule { scheduleTimer(after: schedule) }
    }

    /// The storage of a class's metadata key, so tests can observe that dropping a class frees
    /// (and therefore zeroes) it.
    func keyStorageForTesting(_ keyClass: KeybagClass) -> SecureBytes? {
        state.withLock { $0.classes[keyClass]?.metadata.bytes }
    }

    // MARK: - Auto-lock

    private static func dropClassA(_ state: inout State) {
        for keyClass in KeybagClass.allCases where keyClass.tier == .a { state.classes.removeValue(forKey: keyClass) }
    }

    private static func expireIfIdle(_ state: inout State, now: Date) {
        guard state.hasPasscode, let interval = state.autoLock, state.classes[.whenUnlocked] != nil else { return }
        if now.timeIntervalSince(state.lastActivity) >= interval { dropClassA(&state) }
    }

    /// When a timer should be started (and marks it started): the time left before the A keys
    /// expire, if they can and no timer is pending.
    private static func claimTimer(_ state: inout State) -> TimeInterval? {
        guard !state.timerScheduled, state.hasPasscode, let interval = state.autoLock,
            state.classes[.whenUnlocked] != nil
        else { return nil }
        state.timerScheduled = true
        return interval
    }

    private func scheduleTimer(after seconds: TimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + max(seconds, 0.01)) { [weak self] in
            self?.timerFired()
        }
    }

    private func timerFired() {
        let now = clock.now
        let schedule: TimeInterval? = state.withLock { state in
            state.timerScheduled = false
            Self.expireIfIdle(&state, now: now)
            guard let interval = state.autoLock, state.classes[.whenUnlocked] != nil, state.hasPasscode else { return nil }
            state.timerScheduled = true
            return max(interval - now.timeIntervalSince(state.lastActivity), 0.01)
        }
        if let schedule { scheduleTimer(after: schedule) }
    }
}

extension KeychainError {
    /// `errSecInteractionNotAllowed`: the keys of an item's protection class are not in memory.
    static var classLocked: KeychainError {
        KeychainError(.interactionNotAllowed, "the keychain is locked: items of this accessibility are unavailable")
    }
}
