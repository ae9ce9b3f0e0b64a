import Foundation

/// The state of the authentication domains a context knows (`LAContext.domainState`).
public final class LADomainState: Sendable {
    /// The biometric domain.
    public let biometry: LADomainStateBiometry
    /// The companion domain.
    public let companion: LADomainStateCompanion

    init(biometry: LADomainStateBiometry, companion: LADomainStateCompanion) {
        self.biometry = biometry
        self.companion = companion
    }

    /// A hash combining the domains' hashes: nil while no domain has enrolled entities.
    public var stateHash: Data? {
        switch (biometry.stateHash, companion.stateHash) {
        case (nil, nil): return nil
        case (let first, let second): return (first ?? Data()) + (second ?? Data())
        }
    }
}

/// The biometric domain's state (`LADomainStateBiometry`).
public final class LADomainStateBiometry: Sendable {
    /// The biometry available: `.touchID` with a fingerprint reader and an enrolled finger.
    public let biometryType: LABiometryType
    /// A keyed hash of the enrolled set, changing when it changes, different per program; nil
    /// before a successful biometric check on the context.
    public let stateHash: Data?

    init(biometryType: LABiometryType, stateHash: Data?) {
        self.biometryType = biometryType
        self.stateHash = stateHash
    }
}

/// A kind of companion device (`LACompanionType`).
public enum LACompanionType: Int, Sendable, Hashable {
    /// A paired watch.
    case watch = 1
    /// A paired Mac.
    case mac = 2
}

/// The companion domain's state (`LADomainStateCompanion`): no companion devices exist here.
public final class LADomainStateCompanion: Sendable {
    /// The companion kinds paired; always empty here.
    public let availableCompanionTypes: Set<LACompanionType>
    /// A hash of the paired companions; nil when none is paired.
    public let stateHash: Data?

    init() {
        availableCompanionTypes = []
        stateHash = nil
    }

    /// The hash of the companions of `type`; nil when none is paired.
    public func stateHash(for type: LACompanionType) -> Data? { nil }
}
