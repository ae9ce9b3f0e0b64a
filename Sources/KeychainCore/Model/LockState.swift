/// Which protection classes a keychain can use in this process, as Data Protection defines them:
/// class A only while unlocked, class C from the first unlock on, class D at any time.
public enum LockState: Equatable, Sendable {
    /// Every class is available: the keychain has no passcode, or it was unlocked.
    case unlocked
    /// Locked after an unlock: class A (`…WhenUnlocked…`, `…WhenPasscodeSet…`) is unavailable;
    /// class C (`…AfterFirstUnlock…`) and D (`…Always…`) remain.
    case locked
    /// A passcode is set and it has not been entered in this process: only class D is available.
    case beforeFirstUnlock
}
