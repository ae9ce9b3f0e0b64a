import CTSS2
import Foundation

/// A connection to a TPM 2.0 with its storage primary key loaded: every key operation of this
/// module runs through one. The storage key is ECC P-256 from the standard template, so the
/// owner hierarchy's seed yields the same key after every restart and blobs made under it load
/// again. Closing (or releasing) the context flushes the storage key and finalizes the TSS.
///
/// A context is used by one thread at a time (the ESAPI context is not thread-safe). SIGPIPE is
/// blocked on the calling thread during every TSS call, so a TPM whose socket closes during a
/// command fails the call (`TPMError` `.unavailable`) instead of ending the process.
package final class TPMContext {
    private var esys: OpaquePointer?
    private var tcti: OpaquePointer?
    private var storageKey: ESYS_TR = ESYS_TR(ESYS_TR_NONE)

    /// The TCTI configuration to use: `KEYCHAIN_TPM` when set and not empty (a TCTI string such
    /// as `swtpm:host=127.0.0.1,port=2321` or `device:/dev/tpmrm0`), else `device:/dev/tpmrm0`
    /// when that device is readable and writable, else nil (no TPM).
    /// A selection made with `withTCTI` on the calling thread comes first.
    package static func configuredTCTI(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let selected = Thread.current.threadDictionary[threadSelectionKey] as? String { return selected.isEmpty ? nil : selected }
        if let configured = environment["KEYCHAIN_TPM"], !configured.isEmpty { return configured }
        if access("/dev/tpmrm0", R_OK | W_OK) == 0 { return "device:/dev/tpmrm0" }
        return nil
    }

    /// Runs `body` with `tcti` as the configured TPM on the calling thread ("" for none, whatever
    /// `KEYCHAIN_TPM` and `/dev/tpmrm0` say), restoring the previous selection after. The
    /// process's environment is not touched, so other threads and child processes keep theirs
    /// (tests select a TPM of their own this way while other tests run).
    package static func withTCTI<T>(_ tcti: String, _ body: () throws -> T) rethrows -> T {
        let dictionary = Thread.current.threadDictionary
        let saved = dictionary[threadSelectionKey]
        dictionary[threadSelectionKey] = tcti
        defer { dictionary[threadSelectionKey] = saved }
        return try body()
    }

    private static let threadSelectionKey = "swift-keychain.tpm-tcti"

    /// Opens `tcti` and, unless `storageKey` is false (a context for NV counters only), creates
    /// the storage primary key.
    ///
    /// - Throws: `TPMError` `.unavailable` when the TPM cannot be reached.
    package init(tcti configuration: String, storageKey createsStorageKey: Bool = true) throws {
        var reason = [CChar](repeating: 0, count: 256)
        guard CTSS2_LoadLibrary(&reason, reason.count) == 0 else {
            let text = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw TPMError(.unavailable, "the TPM software stack (libtss2) could not be loaded: \(text)")
        }
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        var tctiContext: OpaquePointer?
        var rc = CTSS2_TctiLdr_Initialize(configuration, &tctiContext)
        guard rc == TSS2_RC_SUCCESS, let tctiContext else { throw TPMError(step: "open", code: rc) }
        tcti = tctiContext
        var esysContext: OpaquePointer?
        rc = CTSS2_Esys_Initialize(&esysContext, tctiContext, nil)
        guard rc == TSS2_RC_SUCCESS, let esysContext else {
            close()
            throw TPMError(step: "open", code: rc)
        }
        esys = esysContext
        guard createsStorageKey else { return }
        var handle = ESYS_TR(ESYS_TR_NONE)
        rc = CTSS2_CreateStoragePrimary(esysContext, &handle)
        guard rc == TSS2_RC_SUCCESS else {
            close()
            throw TPMError(step: "create the storage key", code: rc)
        }
        storageKey = handle
    }

    deinit { close() }

    /// Flushes the storage key and releases the TSS contexts; a second call does nothing.
    package func close() {
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        if let esys {
            if storageKey != ESYS_TR(ESYS_TR_NONE) { _ = CTSS2_Esys_FlushContext(esys, storageKey) }
            var pointer: OpaquePointer? = esys
            CTSS2_Esys_Finalize(&pointer)
        }
        if let tcti {
            var pointer: OpaquePointer? = tcti
            CTSS2_TctiLdr_Finalize(&pointer)
        }
        esys = nil
        tcti = nil
        storageKey = ESYS_TR(ESYS_TR_NONE)
    }

    /// Creates a P-256 key inside the TPM under the storage key (fixedTPM, fixedParent,
    /// sensitiveDataOrigin, userWithAuth; sign and decrypt) and returns its blobs.
    package func createKey() throws -> TPMKeyBlob {
        let esys = try opened()
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        var publicArea = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PUBLIC>.size)
        var privateArea = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PRIVATE>.size)
        var publicLength = publicArea.count
        var privateLength = privateArea.count
        let rc = CTSS2_CreateKey(esys, storageKey, &publicArea, &publicLength, &privateArea, &privateLength)
        guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "create", code: rc) }
        return try TPMKeyBlob(publicArea: Data(publicArea[0..<publicLength]), privateArea: Data(privateArea[0..<privateLength]))
    }

    /// Signs `digest` (20, 32, 48 or 64 bytes) with ECDSA and returns the signature as X9.62
    /// DER `SEQUENCE { r, s }`.
    ///
    /// - Throws: `TPMError` `.keyRejected` when this TPM does not accept the blob.
    package func sign(digest: Data, with key: TPMKeyBlob) throws -> Data {
        try withLoaded(key) { esys, handle in
            var r = [UInt8](repeating: 0, count: 66)
            var s = [UInt8](repeating: 0, count: 66)
            var rLength = r.count
            var sLength = s.count
            let rc = digest.withUnsafeBytes { bytes in
                CTSS2_SignECDSA(esys, handle, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &r, &rLength, &s, &sLength)
            }
            guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "sign", code: rc) }
            return DERSignature.encode(r: r[0..<rLength], s: s[0..<sLength])
        }
    }

    /// ECDH (`TPM2_ECDH_ZGen`): the X coordinate of the key's private scalar times `peerPoint`
    /// (uncompressed `04 ‖ X ‖ Y`), handed to `body` in a buffer zeroed afterwards.
    ///
    /// - Throws: `TPMError` `.invalidInput` for a point that is not an uncompressed P-256 point;
    ///   `.keyRejected` when this TPM does not accept the blob.
    package func sharedSecret<Result>(
        with key: TPMKeyBlob, peerPoint: Data, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        let point = [UInt8](peerPoint)
        guard point.count == 65, point[0] == 0x04 else { throw TPMError(.invalidInput, "the peer key is not an uncompressed P-256 point") }
        return try withLoaded(key) { esys, handle in
            var shared = [UInt8](repeating: 0, count: 32)
            var sharedLength = shared.count
            defer { for index in shared.indices { shared[index] = 0 } }
            let rc = CTSS2_ECDHZGen(esys, handle, Array(point[1...32]), 32, Array(point[33...64]), 32, &shared, &sharedLength)
            guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "ECDH", code: rc) }
            return try shared.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<sharedLength])) }
        }
    }

    /// Seals `data` (1 to 128 bytes) in a new data object under the storage key (fixedTPM,
    /// fixedParent) and returns its blobs: the data comes back only from `unseal` on this TPM.
    /// Without `authValue` the object needs no authorization and is noDA; with one (1 to 32
    /// bytes) every `unseal` with a wrong value counts toward the TPM's dictionary-attack lockout.
    ///
    /// - Throws: `TPMError` `.invalidInput` for an empty or longer `data` or `authValue`;
    ///   `.unavailable` when the TPM cannot be reached.
    package func seal(_ data: UnsafeRawBufferPointer, authValue: UnsafeRawBufferPointer? = nil) throws -> TPMSealedBlob {
        guard (1...128).contains(data.count), authValue.map({ (1...32).contains($0.count) }) ?? true else {
            throw TPMError(.invalidInput, "sealed data must be 1 to 128 bytes, an authorization value 1 to 32")
        }
        let esys = try opened()
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        var publicArea = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PUBLIC>.size)
        var privateArea = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PRIVATE>.size)
        var publicLength = publicArea.count
        var privateLength = privateArea.count
        let rc = CTSS2_CreateSealed(
            esys, storageKey, data.bindMemory(to: UInt8.self).baseAddress, data.count,
            authValue?.bindMemory(to: UInt8.self).baseAddress, authValue?.count ?? 0, &publicArea, &publicLength,
            &privateArea, &privateLength)
        guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "seal", code: rc) }
        return try TPMSealedBlob(publicArea: Data(publicArea[0..<publicLength]), privateArea: Data(privateArea[0..<privateLength]))
    }

    /// Unseals `blob` with `authValue` (none for a noDA object) and hands its data to `body` in
    /// a buffer zeroed afterwards.
    ///
    /// - Throws: `TPMError` `.keyRejected` when this TPM does not accept the blob (sealed by
    ///   another TPM, or altered); `.authorizationFailed` for a wrong `authValue` (counted by the
    ///   TPM when the object counts failures); `.lockedOut` while the TPM is in
    ///   dictionary-attack lockout; `.unavailable` when the TPM cannot be reached.
    package func unseal<Result>(
        _ blob: TPMSealedBlob, authValue: UnsafeRawBufferPointer? = nil, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        guard (authValue?.count ?? 0) <= 32 else { throw TPMError(.invalidInput, "an authorization value is at most 32 bytes") }
        return try withLoaded(publicArea: blob.publicArea, privateArea: blob.privateArea) { esys, handle in
            var data = [UInt8](repeating: 0, count: 128)
            var dataLength = data.count
            defer { for index in data.indices { data[index] = 0 } }
            let rc = CTSS2_Unseal(
                esys, handle, authValue?.bindMemory(to: UInt8.self).baseAddress, authValue?.count ?? 0, &data, &dataLength)
            guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "unseal", code: rc) }
            return try data.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<dataLength])) }
        }
    }

    /// The NV counter at `index` (an NV index handle, 0x01xxxxxx): nil when none is defined
    /// there, 0 when it was defined but never incremented, else its value.
    ///
    /// - Throws: `TPMError` `.invalidInput` when the index there is not such a counter;
    ///   `.unavailable` when the TPM cannot be reached.
    package func counter(at index: UInt32) throws -> UInt64? {
        let esys = try opened()
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        var state: Int32 = 0
        var value: UInt64 = 0
        let rc = CTSS2_ReadCounter(esys, index, &state, &value)
        guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "read the NV counter", code: rc) }
        switch state {
        case 0: return nil
        case 1: return 0
        case 2: return value
        default: throw TPMError(.invalidInput, "NV index 0x\(String(index, radix: 16)) is not a rollback counter")
        }
    }

    /// Defines an NV counter at `index` (owner hierarchy, empty owner authorization; its own
    /// authorization empty, noDA). Its first increment gives it the highest value any counter of
    /// this TPM ever had, plus one.
    ///
    /// - Throws: `TPMError` when the index is taken, NV space is full, or the owner hierarchy
    ///   has an authorization value; `.unavailable` when the TPM cannot be reached.
    package func defineCounter(at index: UInt32) throws {
        let esys = try opened()
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        let rc = CTSS2_DefineCounter(esys, index)
        guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "define the NV counter", code: rc) }
    }

    /// Increments the NV counter at `index` and returns its new value.
    ///
    /// - Throws: `TPMError` `.unavailable` when the TPM cannot be reached.
    package func incrementCounter(at index: UInt32) throws -> UInt64 {
        let esys = try opened()
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        var value: UInt64 = 0
        let rc = CTSS2_IncrementCounter(esys, index, &value)
        guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "increment the NV counter", code: rc) }
        return value
    }

    /// The TPM's dictionary-attack state and parameters (TPM2_GetCapability).
    ///
    /// - Throws: `TPMError` `.unavailable` when the TPM cannot be reached.
    package func dictionaryAttackState() throws -> TPMDictionaryAttackState {
        let esys = try opened()
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        var counter: UInt32 = 0
        var maxTries: UInt32 = 0
        var recoveryTime: UInt32 = 0
        var lockoutRecovery: UInt32 = 0
        let rc = CTSS2_ReadDictionaryAttackState(esys, &counter, &maxTries, &recoveryTime, &lockoutRecovery)
        guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "read the dictionary-attack state", code: rc) }
        return TPMDictionaryAttackState(
            failures: Int(counter), maxTries: Int(maxTries), recoveryTime: Int(recoveryTime), lockoutRecovery: Int(lockoutRecovery))
    }

    /// Loads `key` under the storage key, runs `body` with its handle, and flushes it whatever
    /// `body` does.
    private func withLoaded<Result>(_ key: TPMKeyBlob, _ body: (OpaquePointer, ESYS_TR) throws -> Result) throws -> Result {
        try withLoaded(publicArea: key.publicArea, privateArea: key.privateArea, body)
    }

    /// Loads an object from its blobs under the storage key, runs `body` with its handle, and
    /// flushes it whatever `body` does.
    private func withLoaded<Result>(
        publicArea publicBlob: Data, privateArea privateBlob: Data, _ body: (OpaquePointer, ESYS_TR) throws -> Result
    ) throws -> Result {
        let esys = try opened()
        var guardState = CTSS2_BlockSIGPIPE()
        defer { CTSS2_RestoreSIGPIPE(&guardState) }
        var handle = ESYS_TR(ESYS_TR_NONE)
        let rc = publicBlob.withUnsafeBytes { publicArea in
            privateBlob.withUnsafeBytes { privateArea in
                CTSS2_Load(
                    esys, storageKey, publicArea.bindMemory(to: UInt8.self).baseAddress, publicArea.count,
                    privateArea.bindMemory(to: UInt8.self).baseAddress, privateArea.count, &handle)
            }
        }
        guard rc == TSS2_RC_SUCCESS else { throw TPMError(step: "load", code: rc) }
        defer { _ = CTSS2_Esys_FlushContext(esys, handle) }
        return try body(esys, handle)
    }

    private func opened() throws -> OpaquePointer {
        guard let esys else { throw TPMError(.unavailable, "the TPM context is closed") }
        return esys
    }
}
