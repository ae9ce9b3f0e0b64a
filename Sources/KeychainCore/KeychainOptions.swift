import Foundation

/// How a process opens a keychain: costs of the key derivations and the clock. The defaults are
/// what a user's keychain needs; tests lower the costs and inject a clock.
///
/// Options apply when a keychain is first opened in a process (instances are shared per path).
public struct KeychainOptions: Sendable {
    /// PBKDF2 iterations for a passcode set through this instance; nil calibrates them to about
    /// 80 ms on this machine (`PasscodeKDF.calibrate`). Existing passcodes keep the count stored
    /// in their keybag.
    public var passcodeIterations: Int?
    /// The scrypt cost of new backups as log2(N) (r = 8, p = 1); 17 uses 128 MiB and a fraction
    /// of a second. Restores use the cost recorded in the backup.
    public var backupWorkFactor: Int
    /// The time source for passcode delays and auto-lock.
    public var clock: any KeychainClock
    /// The device key (a file in the keychain's directory unless a test supplies another).
    var deviceKeySource: (any DeviceKeySource)?
    /// Fails the version-1 migration after this many rows, to prove a failure loses nothing.
    var migrationFailureAfterRows: Int?
    /// Called at each point of a passcode change; throwing there interrupts the change as a
    /// crash would (tests prove that every point leaves a keychain that opens).
    var passcodeChangeInterruption: (@Sendable (Keychain.PasscodeChangePoint) throws -> Void)?
    /// Whether the planner may answer a search from the search index; false reads the class
    /// instead (tests compare the two answers, which must be the same).
    var usesSearchIndex = true

    /// Options with the given costs and clock.
    public init(passcodeIterations: Int? = nil, backupWorkFactor: Int = 17, clock: any KeychainClock = SystemClock()) {
        self.passcodeIterations = passcodeIterations
        self.backupWorkFactor = backupWorkFactor
        self.clock = clock
    }

    /// The defaults.
    public static var standard: KeychainOptions { KeychainOptions() }
}
