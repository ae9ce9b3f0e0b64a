import Foundation

/// What a request brings to open items whose access control has constraints: a grant the
/// keychain issued when the user authenticated (`Keychain.authenticate(passcode:…)`), and the
/// application password of items protected with `.applicationPassword`.
///
/// A grant is only a name for what the keychain itself verified and remembers; a request cannot
/// claim a factor, only point at one the keychain recorded for the same caller.
public struct ItemAuthentication: Sendable, Equatable {
    /// The grant's identifier, as `Keychain.authenticate` returned it; nil for none.
    public var grant: Data?
    /// The application password; nil for none.
    public var applicationPassword: Data?

    /// No grant and no password.
    public init(grant: Data? = nil, applicationPassword: Data? = nil) {
        self.grant = grant
        self.applicationPassword = applicationPassword
    }

    /// Whether it carries nothing.
    public var isEmpty: Bool { grant == nil && applicationPassword == nil }
}
