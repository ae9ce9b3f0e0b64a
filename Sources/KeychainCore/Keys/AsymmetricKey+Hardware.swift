import Foundation
import KeychainCrypto
import KeychainHardware

/// Keys held by the TPM, the Secure Enclave's stand-in (`kSecAttrTokenIDSecureEnclave`): a P-256
/// private key created inside the TPM under its storage key, known to the keychain only as a
/// TPM-wrapped blob that loads on that TPM alone. Signing, ECDH and ECIES decryption send the
/// blob to the TPM; the public key, verification and encryption stay in software.
extension AsymmetricKey {
    /// The token ID of keys held by the TPM: Apple's `kSecAttrTokenIDSecureEnclave`.
    public static let secureEnclaveTokenID = "com.apple.setoken"

    /// The error of exporting a TPM-held private key, as Apple's for a Secure Enclave key
    /// (`errSecUnimplemented`): the key never leaves the TPM.
    static let tokenExportRefusal = KeychainError(.unimplemented, "export not implemented for a Secure Enclave (TPM) private key")

    /// Whether a TPM is configured for this process (`KEYCHAIN_TPM`, else a readable and
    /// writable `/dev/tpmrm0`).
    public static var isHardwareConfigured: Bool { TPMContext.configuredTCTI() != nil }

    /// A new P-256 private key created inside the TPM (`SecKeyCreateRandomKey` with
    /// `kSecAttrTokenIDSecureEnclave`).
    ///
    /// - Throws: `errSecParam` for any type or size but EC 256 bits (the token holds P-256 keys
    ///   only); `errSecNotAvailable` when no TPM is configured or it cannot be reached.
    public static func generateInHardware(type: KeyType, bits: Int) throws -> AsymmetricKey {
        guard type == .ellipticCurve, bits == 256 else {
            throw KeychainError.param("the Secure Enclave token holds only 256-bit EC (P-256) keys")
        }
        return try HardwareSession.run { try AsymmetricKey(hardware: $0.createKey()) }
    }

    /// A TPM-held private key from the bytes `hardwareRepresentation` gave (what the keychain
    /// stores as a token key item's data). No TPM is contacted: the blob is checked for shape only.
    ///
    /// - Throws: `errSecDecode` when the bytes are not such a blob.
    public init(hardwareRepresentation data: Data) throws {
        let blob: TPMKeyBlob
        do {
            blob = try TPMKeyBlob(encoded: data)
        } catch {
            throw KeychainError(.decode, "the token key item's data is not a TPM key blob")
        }
        try self.init(hardware: blob)
    }

    /// Whether `data` has the shape of a `hardwareRepresentation` (its magic prefix; an external
    /// representation never starts so).
    public static func isHardwareRepresentation(_ data: Data) -> Bool { TPMKeyBlob.looksEncoded(data) }

    /// The bytes the keychain stores for a TPM-held key (its wrapped blobs, useless off its
    /// TPM); nil for a software key.
    public var hardwareRepresentation: Data? { hardware?.encoded }

    /// Whether the private key is held by the TPM.
    public var isHardwareBacked: Bool { hardware != nil }

    /// The bytes a key travels or is stored as: the hardware representation for a TPM-held key,
    /// else the external representation.
    public func storedRepresentation() throws -> SecureBytes {
        if let blob = hardware { return SecureBytes(copying: blob.encoded) }
        return try externalRepresentation()
    }

    /// ECDSA over `digest` in X9.62 DER, by the TPM for a TPM-held key, else by OpenSSL.
    func ecdsaSign(digest: Data) throws -> Data {
        guard let blob = hardware else { return try digest.withUnsafeBytes { try backing.sign($0, padding: nil) } }
        guard [20, 32, 48, 64].contains(digest.count) else {
            throw KeychainError.param("the Secure Enclave token signs SHA-1, SHA-256, SHA-384 or SHA-512 digests only")
        }
        return try HardwareSession.run { try $0.sign(digest: digest, with: blob) }
    }

    /// The ECDH shared secret (the X coordinate) with `peer`'s public key, by the TPM for a
    /// TPM-held key, else by OpenSSL.
    func sharedSecret(with peer: AsymmetricKey) throws -> SecureBytes {
        guard let blob = hardware else { return try backing.deriveSharedSecret(with: try peer.publicKey().backing) }
        let point = peer.publicKeyBytes
        return try HardwareSession.run { context in
            try context.sharedSecret(with: blob, peerPoint: point) { SecureBytes(copying: $0) }
        }
    }
}

/// One TPM session per operation: opened from the configured TCTI, closed (storage key flushed)
/// when the operation ends, its failures turned into engine errors.
enum HardwareSession {
    /// Runs `body` with a fresh TPM context.
    ///
    /// - Throws: `errSecNotAvailable` when no TPM is configured or it cannot be reached (also
    ///   when it goes away during the call); `errSecDecode` when the TPM rejects the key blob (it
    ///   belongs to another TPM or was altered); `errSecParam` for a malformed blob or point.
    static func run<Result>(_ body: (TPMContext) throws -> Result) throws -> Result {
        guard let tcti = TPMContext.configuredTCTI() else {
            throw KeychainError(.notAvailable, "no TPM is available (set KEYCHAIN_TPM or make /dev/tpmrm0 accessible)")
        }
        do {
            let context = try TPMContext(tcti: tcti)
            defer { context.close() }
            return try body(context)
        } catch let error as TPMError {
            switch error.kind {
            case .unavailable: throw KeychainError(.notAvailable, "the TPM is not available: \(error.description)")
            case .keyRejected: throw KeychainError(.decode, "the TPM rejected the key (made by another TPM or altered): \(error.description)")
            case .invalidInput: throw KeychainError.param("TPM input rejected: \(error.description)")
            case .failed: throw KeychainError(.internal, "TPM operation failed: \(error.description)")
            case .authorizationFailed, .lockedOut:
                throw KeychainError(.authFailed, "the TPM refused the key's authorization: \(error.description)")
            }
        }
    }
}
