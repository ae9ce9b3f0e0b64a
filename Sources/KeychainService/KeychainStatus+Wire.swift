import Foundation
import KeychainCore

/// A status: lock state (1 unlocked, 2 locked, 3 before first unlock), has-passcode flag,
/// retry delay? (seconds as a Double), daemon process? (Int32).
extension KeychainStatus: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        switch lockState {
        case .unlocked: writer.u8(1)
        case .locked: writer.u8(2)
        case .beforeFirstUnlock: writer.u8(3)
        }
        writer.bool(hasPasscode)
        writer.optional(passcodeRetryDelay) { $0.double($1) }
        writer.optional(daemonProcess) { $0.integer($1) }
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        let lockState: LockState
        switch try reader.u8() {
        case 1: lockState = .unlocked
        case 2: lockState = .locked
        case 3: lockState = .beforeFirstUnlock
        default: throw WireError(.unknownTag, "unknown lock state")
        }
        self.init(
            lockState: lockState, hasPasscode: try reader.bool(),
            passcodeRetryDelay: try reader.optional { try $0.double() },
            daemonProcess: try reader.optional { try $0.integer(Int32.self) })
    }
}

/// Lock settings: lock-on-sleep flag, use-lock-interval flag, interval? (seconds, Int64).
extension KeychainSettings: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        writer.bool(lockOnSleep)
        writer.bool(useLockInterval)
        writer.optional(lockInterval) { $0.int($1) }
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        self.init(
            lockOnSleep: try reader.bool(), useLockInterval: try reader.bool(),
            lockInterval: try reader.optional { try $0.int() })
    }
}

/// Damage: unreadable items, missing items (non-negative Int64 each).
extension KeychainDamage: WireCodable {
    /// Writes both counts.
    public func encode(to writer: inout WireWriter) {
        writer.int(unreadableItems)
        writer.int(missingItems)
    }

    /// Reads both counts.
    public init(from reader: inout WireReader) throws {
        self.init(unreadableItems: try reader.count(), missingItems: try reader.count())
    }
}

/// A backup's summary: items written, passcode-only items left out (non-negative Int64 each).
extension BackupSummary: WireCodable {
    /// Writes both counts.
    public func encode(to writer: inout WireWriter) {
        writer.int(itemCount)
        writer.int(passcodeOnlyItemsLeftOut)
    }

    /// Reads both counts.
    public init(from reader: inout WireReader) throws {
        self.init(itemCount: try reader.count(), passcodeOnlyItemsLeftOut: try reader.count())
    }
}

/// A restore's summary: items restored, this-device-only items left out (non-negative Int64
/// each), same-device flag.
extension RestoreSummary: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        writer.int(restoredCount)
        writer.int(thisDeviceOnlyItemsLeftOut)
        writer.bool(isSameDevice)
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        self.init(
            restoredCount: try reader.count(), thisDeviceOnlyItemsLeftOut: try reader.count(),
            isSameDevice: try reader.bool())
    }
}
