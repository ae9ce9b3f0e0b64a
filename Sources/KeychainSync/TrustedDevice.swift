import Foundation

/// A device another device trusts: the public points it verified (through a TLK holder's vouch,
/// a trusted device's signed list, or the approving device's signed key share), kept in the
/// truster's sync state so the server cannot swap them later.
struct TrustedDevice: Codable, Equatable {
    /// The device's P-256 signing point (uncompressed): its device lists and key shares verify
    /// under it.
    var signing: Data
    /// The device's P-256 key-agreement point (uncompressed): key shares are encrypted to it.
    var agreement: Data
}
