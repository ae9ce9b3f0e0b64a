import Foundation

/// Best-effort hygiene for passwords the tool handles: overwrite buffers once they are used,
/// compare without an early exit.
enum SecretWiping {
    /// Overwrites `bytes` with zeroes and empties it.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            for index in buffer.indices { buffer[index] = 0 }
        }
        bytes.removeAll()
    }

    /// Overwrites `data` with zeroes (in place when no other copy shares its storage) and clears it.
    static func wipe(_ data: inout Data?) {
        guard var bytes = data else { return }
        data = nil
        bytes.resetBytes(in: bytes.startIndex..<bytes.endIndex)
    }

    /// Whether two secrets are equal, looking at every byte whatever the first difference.
    static func equal(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
