import Foundation
import KeychainDBus

/// (g) What the system bus sends the daemon's D-Bus client: byte streams cut as a socket delivers
/// them, whole messages, and values of a signature the input names.
///
/// The first byte picks the input: 0 a byte stream, cut into chunks of the size the second byte
/// gives and framed as the connection frames it (`DBusMessage.length(ofMessageStartingWith:)`,
/// then one decode per whole message); 1 one message; 2 a signature (its length from the second
/// byte) and bytes decoded as values of it. Properties:
/// - nothing traps, and every refusal is `DBusError.invalidMessage` (no other error leaks);
/// - the framer never announces a message over `DBusMessage.maximumLength` nor takes bytes it
///   was not given;
/// - what decodes encodes (little-endian) to bytes that decode again and encode to the same
///   bytes (a stable canonical form).
enum DBusMessageFuzzer {
    static func run(_ input: inout FuzzInput) throws {
        switch input.byte() % 3 {
        case 0:
            let chunk = Int(input.byte()) + 1
            try stream(input.remainder(), chunk: chunk)
        case 1:
            try message(input.remainder())
        default:
            let signature = String(decoding: input.bytes(Int(input.byte() % 32)), as: UTF8.self)
            try values(signature, input.remainder())
        }
    }

    /// Feeds `bytes` in chunks and decodes every whole message, as the connection's reader does.
    static func stream(_ bytes: [UInt8], chunk: Int) throws {
        var buffer: [UInt8] = []
        var fed = 0
        while fed < bytes.count {
            let next = bytes[fed..<min(fed + chunk, bytes.count)]
            buffer.append(contentsOf: next)
            fed += next.count
            while true {
                let length: Int?
                do {
                    length = try DBusMessage.length(ofMessageStartingWith: buffer[...])
                } catch let error as DBusError {
                    guard case .invalidMessage = error else { throw FuzzFailure("the framer threw \(error)") }
                    return
                }
                guard let length, buffer.count >= length else { break }
                guard length <= DBusMessage.maximumLength, length >= DBusMessage.fixedHeaderLength else {
                    throw FuzzFailure("the framer announced a length out of bounds")
                }
                try message(Array(buffer[..<length]))
                buffer.removeFirst(length)
            }
        }
    }

    static func message(_ bytes: [UInt8]) throws {
        let decoded: DBusMessage
        do {
            decoded = try DBusMessage(decoding: bytes)
        } catch let error as DBusError {
            guard case .invalidMessage = error else { throw FuzzFailure("decoding threw \(error)") }
            return
        } catch {
            throw FuzzFailure("decoding threw \(type(of: error)), not a DBusError")
        }
        let encoded: [UInt8]
        do {
            encoded = try decoded.encoded()
        } catch {
            throw FuzzFailure("a decoded message does not encode: \(error)")
        }
        let again: DBusMessage
        do {
            again = try DBusMessage(decoding: encoded)
        } catch {
            throw FuzzFailure("an encoded message does not decode: \(error)")
        }
        guard try again.encoded() == encoded else { throw FuzzFailure("a decoded message does not re-encode stably") }
    }

    static func values(_ signature: String, _ bytes: [UInt8]) throws {
        var decoded: [DBusValue] = []
        do {
            var reader = DBusReader(bytes, bigEndian: bytes.first.map { $0 & 1 == 1 } ?? false)
            for type in try DBusSignature.parse(signature) { decoded.append(try reader.read(type)) }
        } catch let error as DBusError {
            guard case .invalidMessage = error else { throw FuzzFailure("decoding threw \(error)") }
            return
        } catch {
            throw FuzzFailure("decoding threw \(type(of: error)), not a DBusError")
        }
        var writer = DBusWriter()
        do {
            for value in decoded { try writer.write(value) }
        } catch {
            throw FuzzFailure("decoded values do not encode: \(error)")
        }
        var reader = DBusReader(writer.bytes, bigEndian: false)
        var second = DBusWriter()
        do {
            for value in decoded { try second.write(try reader.read(value.type)) }
        } catch {
            throw FuzzFailure("encoded values do not decode: \(error)")
        }
        guard reader.isAtEnd, second.bytes == writer.bytes else { throw FuzzFailure("decoded values do not re-encode stably") }
    }
}
