import Foundation
import KeychainCore
import KeychainService
import Testing

@Suite("Wire hostile input")
struct WireHostileInputTests {
    /// A request and a response that use every kind of field.
    static let request = ServiceRequest(
        keychainPath: "/k/ü", operation: .update(WireSamples.fullRequest, WireSamples.changes))
    static let response = ServiceResponse.itemsWithDamage(
        WireSamples.results, KeychainDamage(unreadableItems: 1, missingItems: 0))

    static func payload<T: WireCodable>(_ value: T) throws -> Data {
        var writer = WireWriter()
        try writer.write(value)
        return writer.data
    }

    /// Decodes `bytes` as a whole request or response: the error must be a `WireError`, and
    /// what decodes must encode to the same bytes again.
    static func decodeProperly(_ bytes: Data, asRequest: Bool) throws -> Bool {
        do {
            if asRequest {
                let decoded = try ServiceRequest(payload: bytes)
                #expect(try ServiceRequest(payload: payload(decoded)).operation == decoded.operation)
            } else {
                let decoded = try ServiceResponse(payload: bytes)
                #expect(try ServiceResponse(payload: payload(decoded)) == decoded)
            }
            return true
        } catch is WireError {
            return false
        }
    }

    @Test("A payload cut at any byte is refused with a WireError, never a crash", arguments: [true, false])
    func truncations(asRequest: Bool) throws {
        let whole = asRequest ? try Self.payload(Self.request) : try Self.payload(Self.response)
        #expect(try Self.decodeProperly(whole, asRequest: asRequest))
        for length in 0..<whole.count {
            #expect(try !Self.decodeProperly(whole.prefix(length), asRequest: asRequest), "cut at \(length) of \(whole.count)")
        }
    }

    @Test("A frame whose header announces fewer bytes than its message is refused at any length")
    func shortFrames() throws {
        let payload = try Self.payload(Self.request)
        for length in stride(from: 0, to: payload.count, by: 1) {
            var buffer = ServiceFrameTests.header(length: UInt32(length)) + payload
            let cut = try #require(try ServiceFrame.decodeFrame(from: &buffer))
            #expect(throws: WireError.self) { try ServiceRequest(payload: cut) }
        }
    }

    @Test("Trailing bytes after a message are refused")
    func trailingBytes() throws {
        for response in [ServiceResponse.done, .count(3), .failure(KeychainError(.param, "x"))] {
            let payload = try Self.payload(response) + Data([0])
            #expect(throws: WireError(.trailingBytes, "bytes after the end of the message")) {
                try ServiceResponse(payload: payload)
            }
        }
    }

    @Test("Random byte mutations decode to a WireError or to a value that re-encodes stably", arguments: [true, false])
    func mutations(asRequest: Bool) throws {
        let whole = asRequest ? try Self.payload(Self.request) : try Self.payload(Self.response)
        var generator = SeededGenerator(state: asRequest ? 1 : 2)
        var decodedCount = 0
        for _ in 0..<1000 {
            var bytes = whole
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
                default: bytes[index] = [0x00, 0xFF, 0x7F, 0x80].randomElement(using: &generator)!
                }
            }
            if try Self.decodeProperly(bytes, asRequest: asRequest) { decodedCount += 1 }
        }
        // Flips inside secrets and names still decode; a mutation test that refused everything
        // would prove nothing about the values that get through.
        #expect(decodedCount > 0)
    }

    @Test("Huge counts and lengths are refused before anything is allocated")
    func hugeCounts() throws {
        // `.items` announcing 2^32-1 results in a 5-byte message.
        #expect(throws: WireError(.limitExceeded, "an array announces more elements than the message can hold")) {
            try ServiceResponse(payload: Data([3, 0xFF, 0xFF, 0xFF, 0xFF]))
        }
        // More than the bytes left, though under the array limit.
        #expect(throws: WireError.self) { try ServiceResponse(payload: Data([3, 0, 0, 0x10, 0]) + Data(count: 100)) }
        // A path announcing 4 GiB.
        #expect(throws: WireError(.truncated, "a length runs past the end of the message")) {
            try ServiceRequest(payload: Data([0xFF, 0xFF, 0xFF, 0xFF, 9]))
        }
        // A negative count in a summary.
        var writer = WireWriter()
        writer.u8(8)
        writer.int(-1)
        writer.int(0)
        #expect(throws: WireError(.invalidValue, "a count is negative")) { try ServiceResponse(payload: writer.data) }
    }

    @Test("Unknown tags, bad flags, invalid UTF-8 and unknown attribute names are refused")
    func invalidFields() throws {
        func request(_ build: (inout WireWriter) -> Void) -> Data {
            var writer = WireWriter()
            writer.string("/k")
            build(&writer)
            return writer.data
        }
        #expect(throws: WireError(.unknownTag, "unknown operation")) { try ServiceRequest(payload: request { $0.u8(0) }) }
        #expect(throws: WireError(.unknownTag, "unknown operation")) { try ServiceRequest(payload: request { $0.u8(30) }) }
        #expect(throws: WireError(.unknownTag, "unknown response")) { try ServiceResponse(payload: Data([19])) }
        #expect(throws: WireError(.invalidValue, "a flag byte is neither 0 nor 1")) {
            try ServiceRequest(payload: request { $0.u8(1); $0.u8(2) })
        }
        #expect(throws: WireError(.invalidUTF8, "text is not valid UTF-8")) {
            try ServiceRequest(payload: Data([0, 0, 0, 2, 0xC3, 0x28, 9]))
        }
        #expect(throws: WireError(.unknownTag, "unknown item class")) {
            try ServiceRequest(payload: request { $0.u8(4); $0.string("genq") })
        }
        // An attribute set naming "zzzz": a criterion this side does not know is not dropped.
        var record = Data([1, 0, 0, 0, 1, 4]) + Data("zzzz".utf8) + Data([3]) + Data(count: 8)
        #expect(throws: WireError(.invalidValue, "an attribute set is not valid")) {
            try ServiceRequest(payload: request { $0.u8(5); $0.string("genp"); $0.bytes(record) })
        }
        // The same record naming a catalog attribute decodes.
        record.replaceSubrange(6..<10, with: Data("acct".utf8))
        var writer = WireWriter()
        writer.bytes(record)
        var reader = WireReader(writer.data)
        #expect(try reader.read(ItemAttributes.self) == [.account: .integer(0)])
        // An access control the engine refuses (both `or` and `and`).
        #expect(throws: WireError(.invalidValue, "an access control is not valid")) {
            var writer = WireWriter()
            writer.string("ak")
            writer.integer(AccessControlPolicy.Flags([.or, .and]).rawValue)
            var reader = WireReader(writer.data)
            _ = try reader.read(AccessControlPolicy.self)
        }
        // A key whose bytes are no key, and a certificate whose DER is none.
        #expect(throws: WireError(.invalidValue, "a key is not valid")) {
            var writer = WireWriter()
            writer.u8(1)
            writer.integer(Int64(73))
            writer.integer(Int64(1))
            writer.bytes(Data([4, 1, 2, 3]))
            var reader = WireReader(writer.data)
            _ = try reader.read(ItemReference.self)
        }
        #expect(throws: WireError(.invalidValue, "a certificate is not valid")) {
            var writer = WireWriter()
            writer.u8(2)
            writer.bytes(Data([0x30, 0x03, 0x02, 0x01, 0x01]))
            var reader = WireReader(writer.data)
            _ = try reader.read(ItemReference.self)
        }
        #expect(throws: WireError(.unknownTag, "unknown error code")) {
            var writer = WireWriter()
            writer.u8(11)
            writer.integer(UInt16(999))
            writer.string("x")
            writer.u8(0)
            _ = try ServiceResponse(payload: writer.data)
        }
    }
}
