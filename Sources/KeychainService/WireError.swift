import KeychainCore

/// Why bytes received from the other end of a `keychaind` connection are not a valid frame or
/// message. Decoding never traps: every malformed input ends in one of these.
///
/// The reason names the field or rule that failed, never a value, so it is safe to log. A
/// server answers it by closing the connection (the stream cannot be trusted past a bad frame);
/// `keychainError` is the engine error (`errSecDecode`) a client reports for it.
public struct WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rule that failed.
    public enum Kind: Equatable, Sendable {
        /// The frame does not start with the protocol's magic bytes: not a `keychaind` peer.
        case badMagic
        /// The peer speaks a protocol version this side does not (the version it sent).
        case unsupportedVersion(UInt16)
        /// A frame's announced length exceeds `ServiceFrame.maximumPayloadSize`.
        case frameTooLarge
        /// A field runs past the end of the message.
        case truncated
        /// A count or length exceeds its limit (`WireReader.maximumArrayCount`, the bytes left).
        case limitExceeded
        /// A tag (an operation, a case, a code) that this version does not define.
        case unknownTag
        /// Text that is not valid UTF-8.
        case invalidUTF8
        /// A value that decodes but is not valid for its field (a key that does not parse, an
        /// access control the engine refuses, a flag byte other than 0 or 1).
        case invalidValue
        /// Bytes after the end of the message.
        case trailingBytes
    }

    /// The rule that failed.
    public let kind: Kind
    /// The field or rule, in words (no value).
    public let reason: String

    /// An error of `kind` with a reason.
    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// `keychaind protocol: <reason>`.
    public var description: String { "keychaind protocol: \(reason)" }

    /// The engine error a caller reports for this: `.decode` (errSecDecode), with this reason.
    public var keychainError: KeychainError { KeychainError(.decode, description) }
}
