import Foundation
import KeychainService
import Testing

/// The writer's buffer grows from a small block many times over; what it holds must come out
/// byte for byte as written, with the frame length patched in place.
@Suite("Wire writer")
struct WireWriterTests {
    @Test("a message that outgrows the writer's first block many times comes out byte for byte")
    func growthKeepsEveryByte() throws {
        var writer = WireWriter()
        var expected = Data()
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let field = Data((0..<(round * 37 % 1_000)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            writer.bytes(field)
            withUnsafeBytes(of: UInt32(field.count).bigEndian) { expected.append(contentsOf: $0) }
            expected.append(field)
            writer.u8(UInt8(round & 0xFF))
            expected.append(UInt8(round & 0xFF))
        }
        #expect(writer.count == expected.count)
        #expect(writer.data == expected)
        var reader = WireReader(writer.data)
        for round in 0..<200 {
            #expect(try reader.bytes().count == round * 37 % 1_000)
            #expect(try reader.u8() == UInt8(round & 0xFF))
        }
        try reader.finish()
    }

    @Test("a frame's length is patched into its header after a payload that grew the buffer")
    func frameLengthPatched() throws {
        let payload = Data(repeating: 0xA7, count: 70_000)
        let frame = try ServiceFrame.encode(payload: payload)
        #expect(frame.count == ServiceFrame.headerSize + payload.count)
        #expect(Array(frame.prefix(8)) == [0x4B, 0x43, 0, 5, 0, 1, 0x11, 0x70])
        #expect(frame.suffix(payload.count) == payload)
    }

    @Test("wipe zeroes every byte written, after growth too")
    func wipeZeroesEverything() {
        var writer = WireWriter()
        writer.bytes(Data(repeating: 0x5A, count: 5_000))
        writer.wipe()
        #expect(writer.count == 5_004)
        #expect(writer.data.allSatisfy { $0 == 0 })
    }
}
