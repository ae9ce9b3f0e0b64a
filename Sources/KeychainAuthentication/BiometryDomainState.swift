import Foundation
import KeychainCore
import KeychainCrypto

/// Computes `LAContext.evaluatedPolicyDomainState`: a value that changes when the enrolled
/// fingers change, and differs between programs so that it cannot be used to follow a user
/// from one program to another.
///
/// The value is HMAC-SHA256, under a per-user secret key, of a label, the program's identity
/// (length-prefixed) and `EnrolledFingerprints.canonicalBytes`. The key is 32 random bytes the
/// first use creates in the user's keychain directory (`biometry-state.key`, mode 0600, created
/// exclusively so concurrent first uses agree), so the value is stable across calls and
/// processes, cannot be computed from the public enrolment (reader and finger names) without
/// the key, and is only as secret as the user's own files.
package struct BiometryDomainState: Sendable {
    private let key: SecureBytes

    /// A computation under `key`.
    package init(key: SecureBytes) {
        self.key = key
    }

    /// The user's key, created on first use.
    ///
    /// - Throws: `KeychainError` when the key file cannot be read or created, or is not private.
    package static func user() throws -> BiometryDomainState {
        let directory = KeychainLocation.userDirectory
        try FileSystem.makePrivateDirectory(directory)
        return try BiometryDomainState(keyFile: (directory as NSString).appendingPathComponent("biometry-state.key"))
    }

    /// The key in the private file at `keyFile`, created (32 random bytes) if missing.
    package init(keyFile: String) throws {
        if var existing = try FileSystem.readPrivate(keyFile, role: .biometryStateKey) {
            defer { existing.wipe() }
            guard existing.count == Self.keyLength else {
                throw KeychainError(.notAvailable, "the \(FileRole.biometryStateKey.rawValue) is damaged")
            }
            self.init(key: SecureBytes(copying: existing))
            return
        }
        var fresh = Data(count: Self.keyLength)
        defer { fresh.wipe() }
        try fresh.withUnsafeMutableBytes { try OpenSSL.randomBytes($0) }
        if try FileSystem.createExclusively(keyFile, contents: fresh, role: .biometryStateKey) {
            self.init(key: SecureBytes(copying: fresh))
        } else {
            try self.init(keyFile: keyFile)  // another process created it first
        }
    }

    static let keyLength = 32
    static let label = Array("swift-keychain biometry domain state v1".utf8)

    /// The domain state of `enrolled` as `program` sees it.
    ///
    /// - Throws: `OpenSSLError` when OpenSSL cannot compute the HMAC.
    package func hash(of enrolled: EnrolledFingerprints, program: String) throws -> Data {
        var message = Self.label
        let identity = Array(program.utf8)
        withUnsafeBytes(of: UInt32(identity.count).bigEndian) { message.append(contentsOf: $0) }
        message.append(contentsOf: identity)
        message.append(contentsOf: enrolled.canonicalBytes)
        return try key.withUnsafeBytes { key in
            try message.withUnsafeBytes { try OpenSSL.hmacSHA256(key: key, message: $0) }
        }
    }
}
