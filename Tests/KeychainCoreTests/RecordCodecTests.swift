import Foundation
import Testing

@testable import KeychainCore

@Suite("The metadata record codec")
struct RecordCodecTests {
    let sample: ItemAttributes = [
        "acct": .string("ünïcode account"),
        "svce": .data(Data([0, 1, 2, 255])),
        "port": .integer(-443),
        "cdat": .date(Date(timeIntervalSinceReferenceDate: 12345.678)),
        "labl": .string(""),
        "gena": .data(Data()),
    ]

    @Test("round-trips every value kind")
    func roundTrip() throws {
        #expect(try RecordCodec.decode(RecordCodec.encode(sample)) == sample)
    }

    @Test("rejects an attribute name that is not UTF-8 with errSecDecode (fuzz crash record-decoder/crash-fba67b61d099e6eb)")
    func invalidName() throws {
        var record = Data([1, 0, 0, 0, 1, 255])
        record.append(contentsOf: [UInt8](repeating: 0xFF, count: 255))
        record.append(contentsOf: [3, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(throws: KeychainError(.decode, "record attribute name is not UTF-8")) { try RecordCodec.decode(record) }
    }

    @Test("decodes text exactly: ASCII of every length to 17 bytes, non-ASCII text, and invalid UTF-8 anywhere is errSecDecode")
    func textValues() throws {
        let ascii = "abcdefghijklmnopq"
        for length in 0...ascii.utf8.count {
            let text = String(ascii.prefix(length))
            let attributes: ItemAttributes = ["acct": .string(text)]
            #expect(try RecordCodec.decode(RecordCodec.encode(attributes)) == attributes)
        }
        let accented: ItemAttributes = ["acct": .string("Zürich, 東京 and ascii after"), "svce": .string("abcdefgh\u{7f}")]
        #expect(try RecordCodec.decode(RecordCodec.encode(accented)) == accented)
        // One byte of the value made invalid, in the first eight-byte word, in the second, and last.
        let encoded = RecordCodec.encode(["acct": .string(ascii)])
        let start = try #require(encoded.firstRange(of: Data(ascii.utf8))).lowerBound
        for (offset, byte) in [(2, 0xFF), (9, 0x80), (16, 0xC3)] as [(Int, UInt8)] {
            var damaged = encoded
            damaged[start + offset] = byte
            #expect(throws: KeychainError(.decode, "record text is not UTF-8")) { try RecordCodec.decode(damaged) }
        }
    }

    @Test("rejects every truncation with errSecDecode")
    func truncation() throws {
        let encoded = RecordCodec.encode(sample)
        for length in 0..<encoded.count {
            #expect(throws: KeychainError.self) { try RecordCodec.decode(encoded.prefix(length)) }
        }
    }

    @Test("never crashes on corrupted bytes")
    func corruption() throws {
        let encoded = RecordCodec.encode(sample)
        var generator = SystemRandomNumberGenerator()
        var decodedCount = 0
        for _ in 0..<2000 {
            var mutated = encoded
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if (try? RecordCodec.decode(mutated)) != nil { decodedCount += 1 }
        }
        // Some mutations only change values and still decode; many must fail.
        #expect(decodedCount < 2000)
    }
}
