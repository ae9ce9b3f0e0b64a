import CTSS2
import Foundation

/// A sealed data object as it leaves the TPM: its marshalled TPM2B_PUBLIC (a keyed-hash object,
/// fixedTPM | fixedParent, no policy) and TPM2B_PRIVATE (the data and its authorization value,
/// encrypted and integrity-protected by the storage key). Only `TPMContext.unseal` on the TPM
/// that sealed it, with its authorization value, returns the data; the blob alone reveals
/// nothing of either.
package struct TPMSealedBlob: Hashable, Sendable {
    /// The marshalled TPM2B_PUBLIC.
    package let publicArea: Data
    /// The marshalled TPM2B_PRIVATE (wrapped by the parent).
    package let privateArea: Data
    /// Whether the object has an authorization value whose failures the TPM counts (no noDA);
    /// false for an object with an empty authorization value (noDA).
    package let countsFailedAuthorizations: Bool

    /// The blobs of a sealed object, checked to have the attributes `TPMContext.seal` gives.
    ///
    /// - Throws: `TPMError` `.invalidInput` when the public part is not such an object.
    package init(publicArea: Data, privateArea: Data) throws {
        var counts: Int32 = 0
        let rc = publicArea.withUnsafeBytes { area in
            CTSS2_CheckSealedPublic(area.bindMemory(to: UInt8.self).baseAddress, area.count, &counts)
        }
        countsFailedAuthorizations = counts != 0
        guard rc == TSS2_RC_SUCCESS, !privateArea.isEmpty else {
            throw TPMError(.invalidInput, "the sealed blob is not a TPM sealed data object")
        }
        self.publicArea = publicArea
        self.privateArea = privateArea
    }

    /// The blob as one byte string: the magic `TPM2SEAL`, then each part with a 2-byte
    /// big-endian length.
    package var encoded: Data {
        var out = Self.magic
        for part in [publicArea, privateArea] {
            out.append(UInt8(part.count >> 8))
            out.append(UInt8(part.count & 0xFF))
            out.append(part)
        }
        return out
    }

    /// Decodes `encoded`.
    ///
    /// - Throws: `TPMError` `.invalidInput` when the bytes are not an encoded sealed blob.
    package init(encoded data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.starts(with: Self.magic) else { throw TPMError(.invalidInput, "not a TPM sealed blob") }
        var offset = Self.magic.count
        var parts: [Data] = []
        for _ in 0..<2 {
            guard offset + 2 <= bytes.count else { throw TPMError(.invalidInput, "truncated TPM sealed blob") }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard offset + length <= bytes.count else { throw TPMError(.invalidInput, "truncated TPM sealed blob") }
            parts.append(Data(bytes[offset..<offset + length]))
            offset += length
        }
        guard offset == bytes.count else { throw TPMError(.invalidInput, "trailing bytes after a TPM sealed blob") }
        try self.init(publicArea: parts[0], privateArea: parts[1])
    }

    private static let magic = Data("TPM2SEAL".utf8)
}
