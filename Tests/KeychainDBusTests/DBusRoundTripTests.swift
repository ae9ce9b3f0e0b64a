import KeychainDBus
import Testing

/// Values and messages of every type survive encoding and decoding, and values that break a rule
/// are refused before any byte is sent.
@Suite("D-Bus round trips")
struct DBusRoundTripTests {
    static let samples: [DBusValue] = [
        .byte(0), .boolean(true), .int16(.min), .uint16(.max), .int32(.min), .uint32(.max), .int64(.min), .uint64(.max),
        .double(-0.5), .string("päss ✓ 🔑"), .objectPath("/"), .objectPath("/org/freedesktop/login1/session/_31"),
        .signature(""), .signature("a(susso)"),
        .array(.string, [.string("a"), .string(""), .string("ccc")]),
        .array(.array(.byte), [.array(.byte, []), .array(.byte, [.byte(1), .byte(2), .byte(3)])]),
        .array(.structure([.string, .uint32, .string, .string, .objectPath]), [
            .structure([.string("c1"), .uint32(1000), .string("me"), .string("seat0"), .objectPath("/org/freedesktop/login1/session/c1")])
        ]),
        .dictionary(key: .string, value: .variant, [
            (.string("User"), .variant(.structure([.uint32(0), .objectPath("/org/freedesktop/login1/user/_0")]))),
            (.string("Active"), .variant(.boolean(false))),
        ]),
        .dictionary(key: .uint64, value: .double, []),
        .structure([.byte(1), .structure([.int64(2), .variant(.array(.int16, [.int16(3)]))])]),
    ]

    @Test("every sample value, after a byte to unalign it, decodes to itself")
    func valuesRoundTrip() throws {
        for sample in Self.samples {
            var writer = DBusWriter()
            try writer.write(.byte(7))
            try writer.write(sample)
            var reader = DBusReader(writer.bytes, bigEndian: false)
            #expect(try reader.read(.byte) == .byte(7))
            #expect(try reader.read(sample.type) == sample, "\(sample)")
            #expect(reader.isAtEnd)
        }
    }

    @Test("a message carrying every sample decodes to itself, for each message type")
    func messagesRoundTrip() throws {
        var call = DBusMessage.methodCall(
            destination: "net.reactivated.Fprint", path: "/net/reactivated/Fprint/Device/0",
            interface: "net.reactivated.Fprint.Device", member: "VerifyStart", arguments: Self.samples)
        call.flags = [.allowInteractiveAuthorization]
        var signal = DBusMessage.signal(
            path: "/net/reactivated/Fprint/Device/0", interface: "net.reactivated.Fprint.Device", member: "VerifyStatus",
            arguments: [.string("verify-match"), .boolean(true)])
        signal.sender = ":1.42"
        var reply = DBusMessage(kind: .methodReturn)
        reply.replySerial = 41
        reply.destination = ":1.7"
        reply.body = Self.samples
        for var message in [call, signal, reply] {
            message.serial = 1234
            let bytes = try message.encoded()
            #expect(bytes[0] == UInt8(ascii: "l"))
            #expect(try DBusMessage.length(ofMessageStartingWith: bytes[...]) == bytes.count)
            #expect(try DBusMessage(decoding: bytes) == message)
        }
    }

    @Test("values that break a rule are refused before encoding")
    func invalidValuesRefused() {
        let invalid: [DBusValue] = [
            .string("a\u{0}b"), .objectPath("/a/"), .objectPath("a"), .objectPath("/a-b"), .signature("a"), .signature("{sv}"),
            .array(.uint32, [.string("not a number")]), .structure([]),
            .dictEntry(.variant(.byte(1)), .byte(2)),
        ]
        for value in invalid {
            var writer = DBusWriter()
            #expect(throws: DBusError.self, "\(value)") { try writer.write(value) }
        }
        var unnamed = DBusMessage.methodCall(destination: nil, path: "/", interface: "no_dots", member: "M")
        unnamed.serial = 1
        #expect(throws: DBusError.self) { try unnamed.encoded() }
        var noSerial = DBusMessage.signal(path: "/", interface: "a.b", member: "C")
        noSerial.serial = 0
        #expect(throws: DBusError.self) { try noSerial.encoded() }
    }

    @Test("signatures: nesting limits of 32 arrays and 32 structures, complete types only")
    func signatureLimits() throws {
        #expect(try DBusSignature.parse(String(repeating: "a", count: 32) + "y").count == 1)
        #expect(throws: DBusError.self) { try DBusSignature.parse(String(repeating: "a", count: 33) + "y") }
        #expect(try DBusSignature.parse(String(repeating: "(", count: 32) + "y" + String(repeating: ")", count: 32)).count == 1)
        #expect(throws: DBusError.self) { try DBusSignature.parse(String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33)) }
        #expect(throws: DBusError.self) { try DBusSignature.parse(String(repeating: "y", count: 256)) }
        for bad in ["a", "(", ")", "()", "a{vs}", "a{s}", "a{sss}", "{sv}", "h", "z", "(y", "a{sv"] {
            #expect(throws: DBusError.self, "\(bad)") { try DBusSignature.parse(bad) }
        }
        #expect(try DBusSignature.parse("a{sv}(susso)as") == [
            .array(.dictEntry(.string, .variant)), .structure([.string, .uint32, .string, .string, .objectPath]), .array(.string),
        ])
    }
}
