import Foundation
import KeychainCore

/// A key use: `bytes` the key item's persistent reference, `u8` operation (1 sign, 2 decrypt,
/// 3 key exchange, 4 export), then for sign and decrypt `string` algorithm and `bytes` input, for
/// key exchange `string` algorithm, the peer's public key, `int?` requested size and `bytes?`
/// shared info; then the authentication UI, `bytes?` grant and `bytes?` application password.
extension KeyUse: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) throws {
        writer.bytes(item)
        switch operation {
        case .sign(let algorithm, let data):
            writer.u8(1)
            writer.string(algorithm)
            writer.bytes(data)
        case .decrypt(let algorithm, let data):
            writer.u8(2)
            writer.string(algorithm)
            writer.bytes(data)
        case .keyExchange(let algorithm, let peer, let parameters):
            writer.u8(3)
            writer.string(algorithm)
            try writer.write(try peer.publicKey())
            writer.optional(parameters.requestedSize) { $0.int($1) }
            writer.optional(parameters.sharedInfo) { $0.bytes($1) }
        case .export:
            writer.u8(4)
        }
        try writer.write(authenticationUI)
        writer.optional(authentication.grant) { $0.bytes($1) }
        writer.optional(authentication.applicationPassword) { $0.bytes($1) }
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        let item = try reader.bytes()
        let operation: Operation
        switch try reader.u8() {
        case 1: operation = .sign(algorithm: try reader.string(), data: try reader.bytes())
        case 2: operation = .decrypt(algorithm: try reader.string(), data: try reader.bytes())
        case 3:
            let algorithm = try reader.string()
            let peer = try reader.read(AsymmetricKey.self)
            guard peer.keyClass == .public else { throw WireError(.invalidValue, "a key exchange's peer must be a public key") }
            var parameters = KeyOperationParameters()
            parameters.requestedSize = try reader.optional { try $0.int() }
            parameters.sharedInfo = try reader.optional { try $0.bytes() }
            operation = .keyExchange(algorithm: algorithm, peer: peer, parameters: parameters)
        case 4: operation = .export
        default: throw WireError(.unknownTag, "unknown key operation")
        }
        self.init(item: item, operation: operation)
        authenticationUI = try reader.read()
        authentication.grant = try reader.optional { try $0.bytes() }
        authentication.applicationPassword = try reader.optional { try $0.bytes() }
    }
}
