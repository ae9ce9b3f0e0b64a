import Foundation
import KeychainCrypto

/// The keys a backup password gives: scrypt (RFC 7914) of the password, from which HKDF derives
/// the key that wraps migratable classes' backup keys, the header's MAC key, and (mixed with the
/// device key) the key that wraps `…ThisDeviceOnly` classes' backup keys.
struct BackupKeys {
    let passwordWrapping: SymmetricKey
    let deviceWrapping: SymmetricKey
    let mac: SymmetricKey

    /// Derives the keys; this is the slow step (its cost is the file's scrypt parameters).
    init(password: SecureBytes, kdf: BackupFile.KDFParameters, deviceKey: SymmetricKey) throws {
        let material = try withEngineErrors {
            try password.withUnsafeBytes { passwordBytes in
                try kdf.salt.withUnsafeBytes {
                    try OpenSSL.scrypt(password: passwordBytes, salt: $0, log2N: kdf.log2N, r: kdf.r, p: kdf.p, length: 32)
                }
            }
        }
        passwordWrapping = try SymmetricKey.derive(from: material, purpose: "backup password wrapping v1")
        mac = try SymmetricKey.derive(from: material, purpose: "backup mac v1")
        deviceWrapping = try SymmetricKey.derive(
            from: SecureBytes.concatenating([material, deviceKey.bytes]), purpose: "backup device wrapping v1")
    }

    /// The value that tells a restore whether it runs on the device that made backup `uuid`
    /// (it reveals nothing about the device key).
    static func deviceCheck(uuid: Data, deviceKey: SymmetricKey) throws -> Data {
        try deviceKey.derive(purpose: "backup device check v1").authenticationCode(for: uuid)
    }
}
