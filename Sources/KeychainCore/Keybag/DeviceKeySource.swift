import Foundation
import KeychainCrypto
import KeychainHardware

/// Where the device key comes from: the secret, standing in for Apple's hardware UID, that every
/// keybag key is wrapped with, and that binds `…ThisDeviceOnly` items to this machine.
protocol DeviceKeySource: Sendable {
    /// The device key, created on first use.
    ///
    /// - Throws: `errSecNotAvailable` when it cannot be read or created (or its TPM cannot be
    ///   reached), `errSecInvalidKeychain` when the stored key is malformed or sealed by another
    ///   TPM, `errSecWrPerm` when its file is not private to the calling user.
    func deviceKey() throws -> SymmetricKey
}

/// The device key of a keychain directory, kept in a 0600 file, `device.key`, in the 0700
/// directory. It never goes into a keychain, keybag or backup file; every keychain of the
/// directory shares it, so a backup restores its `…ThisDeviceOnly` items into any keychain of
/// the same directory. The file holds either:
///
/// - the key itself (`DeviceBinding.file`), when no TPM answers; or
/// - the key sealed by the TPM (`DeviceBinding.tpm`): a sealed data object under the TPM's
///   storage key (fixedTPM, fixedParent), which only that TPM unseals. A copy of the directory
///   then opens on no other machine.
///
/// With a TPM configured (`KEYCHAIN_TPM`, else a usable `/dev/tpmrm0`) and answering, a new
/// directory's key is created sealed, and a key found in the clear is sealed in place: the file
/// is replaced by one rename (a crash leaves the old or the new file, both opening), and the old
/// file's bytes are then overwritten. The key's value does not change, so keybags and backups
/// made before stay valid. A configured TPM that does not answer leaves the key in the clear
/// (sealed at the next use where it answers); it never stops a keychain from opening. A sealed
/// key never leaves the TPM again: keychains move to other machines through backups.
struct FileDeviceKey: DeviceKeySource {
    /// The magic and format version of a file holding the key in the clear.
    private static let plainMagic = Data("SKC-DEVICE-KEY-v1\n".utf8)
    /// The magic and format version of a file holding the key sealed by a TPM.
    private static let sealedMagic = Data("SKC-DEVICE-KEY-TPM-v1\n".utf8)

    /// The file's name inside the keychain directory.
    static let fileName = "device.key"

    /// The key file.
    let path: String
    /// The TPM to seal to and unseal with (a TCTI string); nil when none is configured.
    let tcti: String?

    /// The device key of the keychains in `directory`, with the TPM `tcti` selects (by default
    /// the configured one, `TPMContext.configuredTCTI`).
    init(directory: String, tcti: String? = TPMContext.configuredTCTI()) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        self.tcti = tcti
    }

    func deviceKey() throws -> SymmetricKey {
        if !FileSystem.exists(path) { try create() }
        // A reader that meets a file being wiped after a migration (its bytes zeroed once the
        // sealed file took its place) reads the path again.
        for _ in 0..<3 {
            guard var contents = try FileSystem.readPrivate(path, role: .deviceKey) else {
                throw KeychainError(.notAvailable, "the device key file cannot be read")
            }
            defer { contents.wipe() }
            if contents.starts(with: Self.sealedMagic) { return try unseal(contents.dropFirst(Self.sealedMagic.count)) }
            if !contents.isEmpty && contents.allSatisfy({ $0 == 0 }) { continue }
            let key = try Self.plainKey(contents)
            sealInPlace(key)
            return key
        }
        throw KeychainError(.invalidKeychain, "the device key file is not valid")
    }

    /// How the device key of the keychains in `directory` is kept, read from its file's header
    /// (nothing is unsealed); nil when there is no device key yet.
    ///
    /// - Throws: `errSecWrPerm` when the file is not private; `errSecInvalidKeychain` when it is
    ///   not a device key file.
    static func binding(directory: String) throws -> DeviceBinding? {
        let path = (directory as NSString).appendingPathComponent(fileName)
        guard var contents = try FileSystem.readPrivate(path, role: .deviceKey) else { return nil }
        defer { contents.wipe() }
        if contents.starts(with: sealedMagic) { return .tpm }
        if contents.starts(with: plainMagic) { return .file }
        throw KeychainError(.invalidKeychain, "the device key file is not valid")
    }

    // MARK: - Creating

    /// Publishes a new random key, sealed when the TPM answers, unless another process
    /// published one first.
    private func create() throws {
        let key = try SecureBytes.random(count: SymmetricKey.byteCount)
        var contents: Data
        if let sealed = seal(key) {
            contents = Self.sealedMagic + sealed.encoded
        } else {
            contents = Self.plainMagic
            key.withUnsafeBytes { contents.append(contentsOf: $0) }
        }
        defer { contents.wipe() }
        _ = try FileSystem.createExclusively(path, contents: contents, role: .deviceKey)
    }

    // MARK: - In the clear

    private static func plainKey(_ contents: Data) throws -> SymmetricKey {
        guard contents.count == plainMagic.count + SymmetricKey.byteCount, contents.prefix(plainMagic.count) == plainMagic
        else { throw KeychainError(.invalidKeychain, "the device key file is not valid") }
        return try SymmetricKey(SecureBytes(copying: contents.suffix(SymmetricKey.byteCount)))
    }

    /// Replaces the file holding `key` in the clear with one holding it sealed, when the TPM
    /// answers, then overwrites the old file's bytes. Any failure leaves the file as it was.
    private func sealInPlace(_ key: SymmetricKey) {
        guard let sealed = seal(key.bytes) else { return }
        var contents = Self.sealedMagic + sealed.encoded
        defer { contents.wipe() }
        FileSystem.replaceWipingOld(path, contents: contents, role: .deviceKey)
    }

    // MARK: - Sealed

    /// `key` sealed by the configured TPM; nil when none is configured or it fails.
    private func seal(_ key: SecureBytes) -> TPMSealedBlob? {
        guard let tcti else { return nil }
        do {
            let context = try TPMContext(tcti: tcti)
            defer { context.close() }
            return try key.withUnsafeBytes { try context.seal($0) }
        } catch {
            return nil
        }
    }

    /// The key a sealed file holds, unsealed by the configured TPM.
    private func unseal(_ encoded: Data) throws -> SymmetricKey {
        let blob: TPMSealedBlob
        do {
            blob = try TPMSealedBlob(encoded: Data(encoded))
        } catch {
            throw KeychainError(.invalidKeychain, "the device key file is not valid")
        }
        guard !blob.countsFailedAuthorizations else { throw KeychainError(.invalidKeychain, "the device key file is not valid") }
        guard let tcti else {
            throw KeychainError(
                .notAvailable, "the keychain is bound to a TPM and none is configured (set KEYCHAIN_TPM or make /dev/tpmrm0 accessible)")
        }
        do {
            let context = try TPMContext(tcti: tcti)
            defer { context.close() }
            return try context.unseal(blob) { data in
                guard data.count == SymmetricKey.byteCount else {
                    throw KeychainError(.invalidKeychain, "the sealed device key is not valid")
                }
                return try SymmetricKey(SecureBytes(copying: Data(data)))
            }
        } catch let error as TPMError {
            switch error.kind {
            case .unavailable:
                throw KeychainError(.notAvailable, "the keychain is bound to a TPM that is not available: \(error.description)")
            case .keyRejected:
                throw KeychainError(
                    .invalidKeychain, "the keychain is bound to another TPM (or its device key file was altered): \(error.description)")
            case .invalidInput, .failed, .authorizationFailed, .lockedOut:
                throw KeychainError(.invalidKeychain, "the TPM could not unseal the device key: \(error.description)")
            }
        }
    }
}
