import Foundation
@_spi(Testing) import KeychainCore
import KeychainHardware
import Security

/// The cost of a signature by a key held by the TPM (`kSecAttrTokenIDSecureEnclave`), against a
/// software P-256 signature as floor; and of an unlock and an open of a keychain bound to the TPM
/// (the passcode checked by the TPM's gate; the device key unsealed) and of an add (the rollback
/// counter incremented), against the same keychain without a TPM. Run only when `KEYCHAIN_TPM` selects a TPM; the figures of a software TPM
/// (swtpm) say what the TSS round trips cost, not what a hardware TPM would.
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
        let kind = tcti.hasPrefix("swtpm") || tcti.hasPrefix("mssim") ? "swtpm, software TPM" : tcti
        rows.append(ResultRow("TPM signature (\(kind))", items: 0, samples: tpm, floor: ("software P-256 signature", floor)))
        try runUnlocks(kind: kind)
    }

    /// Times unlocks and opens of a keychain with a passcode bound to the TPM against one that is
    /// not (both with PBKDF2 at 1,000 iterations, so the difference is the TPM's part).
    private mutating func runUnlocks(kind: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keychain-bench-tpm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let options = KeychainOptions(passcodeIterations: 1_000)
        let passcode = Data("bench passcode".utf8)
        let bound = directory + "/tpm/bench.keychain-db"
        let plain = directory + "/file/bench.keychain-db"
        try Keychain.create(path: bound, passcode: passcode, options: options)
        try TPMContext.withTCTI("") { _ = try Keychain.create(path: plain, passcode: passcode, options: options) }
        var unlockTPM = Samples(), unlockFloor = Samples(), openTPM = Samples(), openFloor = Samples()
        /// One open (from a fresh instance, as a new process would) and one unlock of `path`.
        func measure(_ path: String, open: inout Samples, unlock: inout Samples) throws {
            Keychain.forgetOpenInstance(path: path)
            var keychain: Keychain?
            try open.measure { keychain = try Keychain.open(path: path, create: false, options: options) }
            try unlock.measure { try keychain?.unlock(passcode: passcode) }
        }
        for _ in 0..<signatures / 4 {
            try measure(bound, open: &openTPM, unlock: &unlockTPM)
            try TPMContext.withTCTI("") { try measure(plain, open: &openFloor, unlock: &unlockFloor) }
        }
        // A write of a keychain bound to the TPM increments its rollback counter once.
        var addTPM = Samples(), addFloor = Samples()
        let context = AccessContext(accessGroups: ["bench"])
        func add(_ path: String, _ index: Int, into samples: inout Samples) throws {
            let keychain = try Keychain.open(path: path, create: false, options: options)
            var request = ItemRequest(itemClass: .genericPassword)
            request.attributes[.service] = .string("bench.tpm")
            request.attributes[.account] = .string("account \(index)")
            request.secret = Data("secret".utf8)
            try samples.measure { _ = try keychain.add(request, context: context) }
        }
        for index in 0..<signatures {
            try add(bound, index, into: &addTPM)
            try TPMContext.withTCTI("") { try add(plain, index, into: &addFloor) }
        }
        Keychain.forgetOpenInstance(path: bound)
        Keychain.forgetOpenInstance(path: plain)
        rows.append(ResultRow("TPM-bound add, rollback counter (\(kind))", items: 0, samples: addTPM, floor: ("add without a TPM", addFloor)))
        rows.append(ResultRow("TPM unlock, passcode gate (\(kind))", items: 0, samples: unlockTPM, floor: ("unlock without a TPM", unlockFloor)))
        rows.append(ResultRow("TPM open, device key unsealed (\(kind))", items: 0, samples: openTPM, floor: ("open without a TPM", openFloor)))
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
