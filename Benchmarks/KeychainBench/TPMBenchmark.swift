import Foundation
import Security

/// The cost of a signature by a key held by the TPM (`kSecAttrTokenIDSecureEnclave`), against a
/// software P-256 signature as floor. Run only when `KEYCHAIN_TPM` selects a TPM; the figures of
/// a software TPM (swtpm) say what the TSS round trips cost, not what a hardware TPM would.
struct TPMBenchmark {
    let signatures: Int
    private(set) var rows: [ResultRow] = []

    /// Whether `KEYCHAIN_TPM` is set.
    static var isConfigured: Bool { !(ProcessInfo.processInfo.environment["KEYCHAIN_TPM"] ?? "").isEmpty }

    /// Creates one transient key of each kind and times `signatures` signatures of each.
    mutating func run() throws {
        let tcti = ProcessInfo.processInfo.environment["KEYCHAIN_TPM"] ?? ""
        let hardware = try Self.key(token: true)
        let software = try Self.key(token: false)
        let message = Data("benchmark message".utf8) as CFData
        var tpm = Samples(), floor = Samples()
        for _ in 0..<signatures {
            try tpm.measure { try Self.sign(hardware, message) }
            try floor.measure { try Self.sign(software, message) }
        }
        let label = tcti.hasPrefix("swtpm") || tcti.hasPrefix("mssim") ? "TPM signature (swtpm, software TPM)" : "TPM signature (\(tcti))"
        rows.append(ResultRow(label, items: 0, samples: tpm, floor: ("software P-256 signature", floor)))
    }

    private static func key(token: Bool) throws -> SecKey {
        var parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        if token { parameters[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave }
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else { throw error!.takeRetainedValue() as any Error }
        return key
    }

    private static func sign(_ key: SecKey, _ message: CFData) throws {
        var error: Unmanaged<CFError>?
        guard SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error) != nil else {
            throw error!.takeRetainedValue() as any Error
        }
    }
}
