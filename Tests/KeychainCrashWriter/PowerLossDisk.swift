import PowerLossVFS

/// The simulated disk that loses power (`Tests/PowerLossVFS`), installed as SQLite's default VFS
/// before any database opens; only this helper ever installs it.
enum PowerLossDisk {
    /// What a power loss does to writes not yet synced, as the helper's `--unsynced` names it.
    static func mode(named name: String) throws -> PowerLossMode {
        switch name {
        case "discard": return PowerLossModeDiscard
        case "scatter": return PowerLossModeScatter
        default: throw HelperError("--unsynced must be discard or scatter, not \(name)")
        }
    }

    /// Installs the disk; power is lost at event `lossAtEvent` (0: only on `losePower()`).
    static func install(lossAtEvent: Int, mode: PowerLossMode, seed: UInt64) throws {
        let status = PowerLossVFS_install(UInt64(lossAtEvent), mode, seed)
        guard status == 0 else { throw HelperError("cannot install the power-loss VFS (SQLite status \(status))") }
    }

    /// Loses power now: unsynced writes go, the process ends with `PowerLossExitStatus`.
    static func losePower() -> Never {
        PowerLossVFS_losePower()
    }

    /// The writes, truncates, syncs and deletes the disk has seen.
    static var events: Int { Int(PowerLossVFS_events()) }
}
