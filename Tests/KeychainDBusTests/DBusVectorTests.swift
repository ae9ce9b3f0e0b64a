import Foundation
import KeychainDBus
import Testing

/// The marshalling pinned in `Tests/TestVectors/dbus-marshalling.txt`, bytes derived by hand from
/// the D-Bus specification: each value and message encodes to its bytes and decodes back, and
/// each invalid entry is refused.
@Suite("D-Bus vectors")
struct DBusVectorTests {
    struct Entry {
        let kind: String
        let name: String
        let signature: String?
        let bytes: [UInt8]
    }

    static let entries: [Entry] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TestVectors/dbus-marshalling.txt")
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Entry? in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: " ").map(String.init)
            let hasSignature = fields[0] == "value" || fields[0] == "invalid-value"
            return Entry(
                kind: fields[0], name: fields[1], signature: hasSignature ? fields[2] : nil,
                bytes: hex(fields[hasSignature ? 3 : 2]))
        }
    }()

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static func nestedVariants(_ count: Int) -> DBusValue {
        (1..<count).reduce(DBusValue.variant(.byte(5))) { inner, _ in .variant(inner) }
    }

    /// The value each `value` entry holds.
    static let values: [String: [DBusValue]] = [
        "byte": [.byte(255)],
        "boolean-true": [.boolean(true)],
        "boolean-false": [.boolean(false)],
        "int16": [.int16(-2)],
        "uint16": [.uint16(0x1234)],
        "int32": [.int32(-1)],
        "uint32": [.uint32(0x1234_5678)],
        "int64": [.int64(-2)],
        "uint64": [.uint64(0x0102_0304_0506_0708)],
        "double": [.double(1.0)],
        "string": [.string("hi")],
        "string-utf8": [.string("ü")],
        "string-empty": [.string("")],
        "object-path": [.objectPath("/a/b")],
        "signature": [.signature("a{sv}")],
        "byte-then-uint64": [.byte(1), .uint64(2)],
        "structure": [.structure([.byte(1), .uint32(2)])],
        "array-uint32": [.array(.uint32, [.uint32(1), .uint32(2)])],
        "array-int64-empty": [.array(.int64, [])],
        "array-int64": [.array(.int64, [.int64(5)])],
        "dictionary": [.dictionary(key: .string, value: .variant, [(.string("k"), .variant(.uint32(7)))])],
        "variant-string": [.variant(.string("x"))],
        "variant-in-variant": [.variant(.variant(.byte(5)))],
        "variants-64-deep": [nestedVariants(64)],
    ]

    /// The message each `message` and `decoded-message` entry holds.
    static let messages: [String: DBusMessage] = {
        var hello = DBusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "Hello")
        hello.serial = 1
        var signal = DBusMessage.signal(path: "/a", interface: "a.b", member: "C", arguments: [.boolean(true)])
        signal.serial = 7
        var error = DBusMessage(kind: .error)
        error.serial = 9
        error.errorName = "a.E"
        error.replySerial = 3
        error.destination = ":1.5"
        error.body = [.string("boom")]
        var bigEndian = DBusMessage(kind: .methodReturn)
        bigEndian.serial = 2
        bigEndian.replySerial = 1
        bigEndian.body = [.uint32(0x0102_0304)]
        var unknownField = DBusMessage(kind: .methodReturn)
        unknownField.serial = 2
        unknownField.replySerial = 1
        return [
            "hello": hello, "signal-boolean": signal, "error": error, "return-big-endian": bigEndian,
            "return-unknown-field": unknownField,
        ]
    }()

    static func decodeValues(_ signature: String, _ bytes: [UInt8]) throws -> [DBusValue] {
        var reader = DBusReader(bytes, bigEndian: false)
        let values = try DBusSignature.parse(signature).map { try reader.read($0) }
        guard reader.isAtEnd else { throw DBusError.invalidMessage("bytes left over") }
        return values
    }

    @Test("the file holds every kind of entry")
    func fileIsComplete() {
        let kinds = Set(Self.entries.map(\.kind))
        #expect(kinds == ["value", "message", "decoded-message", "invalid-value", "invalid-message"])
        #expect(Self.entries.filter { $0.kind == "value" }.count == Self.values.count)
        #expect(Self.entries.filter { $0.kind.hasSuffix("message") && !$0.kind.hasPrefix("invalid") }.count == Self.messages.count)
    }

    @Test("each value encodes to its bytes and decodes back to the value", arguments: entries.filter { $0.kind == "value" }.map(\.name))
    func valueVector(name: String) throws {
        let entry = try #require(Self.entries.first { $0.name == name })
        let values = try #require(Self.values[name])
        #expect(values.map(\.type.signature).joined() == entry.signature)
        var writer = DBusWriter()
        for value in values { try writer.write(value) }
        #expect(writer.bytes == entry.bytes, "\(name)")
        #expect(try Self.decodeValues(entry.signature!, entry.bytes) == values, "\(name)")
    }

    @Test("each message encodes to its bytes and decodes back", arguments: entries.filter { $0.kind == "message" }.map(\.name))
    func messageVector(name: String) throws {
        let entry = try #require(Self.entries.first { $0.name == name })
        let message = try #require(Self.messages[name])
        #expect(try message.encoded() == entry.bytes)
        #expect(try DBusMessage(decoding: entry.bytes) == message)
        #expect(try DBusMessage.length(ofMessageStartingWith: entry.bytes[...]) == entry.bytes.count)
    }

    @Test("a big-endian message, and one with a header field of an unknown code, decode to their messages",
          arguments: entries.filter { $0.kind == "decoded-message" }.map(\.name))
    func decodedMessageVector(name: String) throws {
        let entry = try #require(Self.entries.first { $0.name == name })
        let message = try #require(Self.messages[name])
        let decoded = try DBusMessage(decoding: entry.bytes)
        #expect(decoded == message)
        // Re-encoded (little-endian, without the unknown field), it decodes to the same message.
        #expect(try DBusMessage(decoding: try decoded.encoded()) == message)
    }

    @Test("each invalid value is refused with invalidMessage", arguments: entries.filter { $0.kind == "invalid-value" }.map(\.name))
    func invalidValueVector(name: String) throws {
        let entry = try #require(Self.entries.first { $0.name == name })
        #expect {
            _ = try Self.decodeValues(entry.signature!, entry.bytes)
        } throws: { error in
            guard case .invalidMessage? = error as? DBusError else { return false }
            return true
        }
    }

    @Test("each invalid message is refused with invalidMessage", arguments: entries.filter { $0.kind == "invalid-message" }.map(\.name))
    func invalidMessageVector(name: String) throws {
        let entry = try #require(Self.entries.first { $0.name == name })
        #expect {
            _ = try DBusMessage(decoding: entry.bytes)
        } throws: { error in
            guard case .invalidMessage? = error as? DBusError else { return false }
            return true
        }
    }
}
