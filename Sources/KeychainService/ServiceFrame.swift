import Foundation
import KeychainCrypto

/// How `keychaind` messages travel on a stream: each is one frame,
///
///     magic "KC" (0x4B 0x43) | version (UInt16) | payload length (UInt32) | payload
///
/// all big-endian, the payload being one `ServiceRequest` or `ServiceResponse`
/// (`docs/keychaind-protocol.md` gives every message's fields). A frame of another magic or
/// version, or announcing more than `maximumPayloadSize` bytes, is refused from its header
/// alone, before its body is read or any memory is set aside for it.
public enum ServiceFrame {
    /// The protocol version this build speaks; a peer with another one is refused.
    public static let version: UInt16 = 5
    /// The two bytes every frame starts with.
    public static let magic: [UInt8] = [0x4B, 0x43]
    /// The bytes before the payload: magic, version, length.
    public static let headerSize = 8
    /// The largest payload accepted or sent: 64 MiB, room for a 16 MiB secret (the largest
    /// value the keychain must store) several times over with its attributes.
    public static let maximumPayloadSize = 64 << 20

    /// A frame holding `payload`.
    ///
    /// - Throws: `WireError.Kind.frameTooLarge` when the payload exceeds `maximumPayloadSize`.
    public static func encode(payload: Data) throws -> Data {
        try encode { $0.raw(payload) }
    }

    /// A frame whose payload `write` writes, built in one buffer (no copy of a large payload).
    ///
    /// - Throws: `WireError.Kind.frameTooLarge` when the payload exceeds `maximumPayloadSize`.
    public static func encode(_ write: (inout WireWriter) throws -> Void) throws -> Data {
        var header = Data(magic)
        withUnsafeBytes(of: version.bigEndian) { header.append(contentsOf: $0) }
        header.append(contentsOf: [0, 0, 0, 0])
        var writer = WireWriter(prefix: header)
        try write(&writer)
        let size = writer.count - headerSize
        guard size <= maximumPayloadSize else {
            writer.wipe()
            throw WireError(.frameTooLarge, "a message is larger than the \(maximumPayloadSize >> 20) MiB frame limit")
        }
        writer.patch(UInt32(size), at: 4)
        // The one copy out of the writer (whose blocks are zeroed as it is released): the frame,
        // which the sender zeroes once sent.
        return writer.data
    }

    /// Takes the first complete frame's payload out of `buffer`, which holds bytes as they
    /// arrived from the stream: nil when more bytes are needed. The frame's bytes are zeroed
    /// in `buffer` before they are removed from it, so a secret does not linger there.
    ///
    /// - Throws: `WireError` as soon as the bytes received show a wrong magic, an unsupported
    ///   version or a length over `maximumPayloadSize`; the stream is then unusable.
    public static func decodeFrame(from buffer: inout Data) throws -> Data? {
        let start = buffer.startIndex
        let available = buffer.count
        if available >= 1, buffer[start] != magic[0] || (available >= 2 && buffer[start + 1] != magic[1]) {
            throw WireError(.badMagic, "the stream does not start with a keychaind frame")
        }
        guard available >= headerSize else { return nil }
        let peerVersion = UInt16(buffer[start + 2]) << 8 | UInt16(buffer[start + 3])
        guard peerVersion == version else {
            throw WireError(
                .unsupportedVersion(peerVersion),
                "the peer speaks protocol version \(peerVersion); this side speaks version \(version)")
        }
        let length = (4..<8).reduce(0) { $0 << 8 | Int(buffer[start + $1]) }
        guard length <= maximumPayloadSize else {
            throw WireError(.frameTooLarge, "a frame announces more than the \(maximumPayloadSize >> 20) MiB limit")
        }
        guard available - headerSize >= length else { return nil }
        let end = start + headerSize + length
        let payload = Data(buffer[(start + headerSize)..<end])
        buffer.withUnsafeMutableBytes { bytes in
            SecureBytes.wipe(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<(headerSize + length)]))
        }
        buffer.removeSubrange(start..<end)
        return payload
    }
}
