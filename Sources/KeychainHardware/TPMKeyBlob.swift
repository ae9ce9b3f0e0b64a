import CTSS2
import Foundation

/// A TPM key as it leaves the TPM: its marshalled TPM2B_PUBLIC and TPM2B_PRIVATE (the private
/// part encrypted and integrity-protected by the storage key, usable only on that TPM) and the
/// public point read from the public part.
package struct TPMKeyBlob: Hashable, Sendable {
    /// The marshalled TPM2B_PUBLIC.
    package let publicArea: Data
    /// The marshalled TPM2B_PRIVATE (wrapped by the parent; not the private key).
    package let privateArea: Data
    /// The uncompressed P-256 point `04 ‖ X ‖ Y`.
    package let publicPoint: Data

    /// The blobs of a key, checked to be a P-256 key with the attributes this module creates.
    ///
    /// - Throws: `TPMError` `.invalidInput` when the public part is not such a key.
    package init(publicArea: Data, privateArea: Data) throws {
        var x = [UInt8](repeating: 0, count: 32)
        var y = [UInt8](repeating: 0, count: 32)
        var xLength = 32
        var yLength = 32
        let rc = publicArea.withUnsafeBytes { area in
            CTSS2_PublicPoint(area.bindMemory(to: UInt8.self).baseAddress, area.count, &x, &xLength, &y, &yLength)
        }
        guard rc == TSS2_RC_SUCCESS, !privateArea.isEmpty else {
            throw TPMError(.invalidInput, "the key blob is not a TPM P-256 key")
        }
        self.publicArea = publicArea
        self.privateArea = privateArea
        publicPoint = Data([0x04]) + Self.padded(x[0..<xLength]) + Self.padded(y[0..<yLength])
    }

    /// The blob as one byte string: the magic `TPM2KEY1`, then each part with a 2-byte
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

    /// Whether `data` starts as an encoded blob does.
    package static func looksEncoded(_ data: Data) -> Bool { data.starts(with: magic) }

    /// Decodes `encoded`.
    ///
    /// - Throws: `TPMError` `.invalidInput` when the bytes are not an encoded blob.
    package init(encoded data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.starts(with: Self.magic) else { throw TPMError(.invalidInput, "not a TPM key blob") }
        var offset = Self.magic.count
        var parts: [Data] = []
        for _ in 0..<2 {
            guard offset + 2 <= bytes.count else { throw TPMError(.invalidInput, "truncated TPM key blob") }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard offset + length <= bytes.count else { throw TPMError(.invalidInput, "truncated TPM key blob") }
            parts.append(Data(bytes[offset..<offset + length]))
            offset += length
        }
        guard offset == bytes.count else { throw TPMError(.invalidInput, "trailing bytes after a TPM key blob") }
        try self.init(publicArea: parts[0], privateArea: parts[1])
    }

    private static let magic = Data("TPM2KEY1".utf8)

    private static func padded(_ coordinate: ArraySlice<UInt8>) -> Data {
        Data(repeating: 0, count: 32 - coordinate.count) + Data(coordinate)
    }
}
