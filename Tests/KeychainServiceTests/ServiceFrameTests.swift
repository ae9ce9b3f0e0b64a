import Foundation
import KeychainCore
import KeychainService
import Testing

@Suite("Service frames")
struct ServiceFrameTests {
    /// A frame header with these fields.
    static func header(magic: [UInt8] = ServiceFrame.magic, version: UInt16 = ServiceFrame.version, length: UInt32) -> Data {
        var data = Data(magic)
        withUnsafeBytes(of: version.bigEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: length.bigEndian) { data.append(contentsOf: $0) }
        return data
    }

    @Test("Frames arriving a few bytes at a time come out whole, in order, and leave nothing behind")
    func incremental() throws {
        let frames = try [
            ServiceRequest(keychainPath: "/a", operation: .status).frame(),
            ServiceRequest(keychainPath: "/b", operation: .unlock(passcode: Data([0, 1]))).frame(),
            ServiceFrame.encode(payload: Data()),
        ]
        let stream = frames.reduce(Data(), +)
        for chunk in [1, 3, 7, stream.count] {
            var buffer = Data()
            var payloads: [Data] = []
            var offset = 0
            while offset < stream.count {
                buffer.append(stream[offset..<min(offset + chunk, stream.count)])
                offset += chunk
                while let payload = try ServiceFrame.decodeFrame(from: &buffer) { payloads.append(payload) }
            }
            #expect(buffer.isEmpty)
            #expect(payloads.count == 3)
            #expect(try ServiceRequest(payload: payloads[0]).keychainPath == "/a")
            #expect(try ServiceRequest(payload: payloads[1]).operation == .unlock(passcode: Data([0, 1])))
            #expect(payloads[2].isEmpty)
        }
    }

    @Test("A frame announcing more than the limit is refused from its header, before its body arrives")
    func oversizeHeader() throws {
        var buffer = Self.header(length: UInt32(ServiceFrame.maximumPayloadSize + 1))
        #expect(throws: WireError(.frameTooLarge, "a frame announces more than the 64 MiB limit")) {
            try ServiceFrame.decodeFrame(from: &buffer)
        }
        var largest = Self.header(length: UInt32(ServiceFrame.maximumPayloadSize))
        #expect(try ServiceFrame.decodeFrame(from: &largest) == nil, "the limit itself waits for the body")
        var maximum = Self.header(length: UInt32.max)
        #expect(throws: WireError.self) { try ServiceFrame.decodeFrame(from: &maximum) }
    }

    @Test("Another protocol version is refused with a message naming both versions")
    func unknownVersion() throws {
        var buffer = Self.header(version: 1, length: 0)
        do {
            _ = try ServiceFrame.decodeFrame(from: &buffer)
            Issue.record("version 1 was accepted")
        } catch let error as WireError {
            #expect(error.kind == .unsupportedVersion(1))
            #expect(error.description == "keychaind protocol: the peer speaks protocol version 1; this side speaks version 5")
            #expect(error.keychainError.code == .decode)
        }
    }

    @Test("A stream that does not start with the magic is refused at its first wrong byte")
    func badMagic() throws {
        var http = Data("GET / HTTP/1.1\r\n".utf8)
        #expect(throws: WireError(.badMagic, "the stream does not start with a keychaind frame")) {
            try ServiceFrame.decodeFrame(from: &http)
        }
        var oneByte = Data([0x4B, 0x00])
        #expect(throws: WireError.self) { try ServiceFrame.decodeFrame(from: &oneByte) }
        var partial = Data([0x4B])
        #expect(try ServiceFrame.decodeFrame(from: &partial) == nil)
    }

    @Test("The bytes of a consumed frame are zeroed in the receive buffer before they are dropped")
    func consumedBytesZeroed() throws {
        let frame = try ServiceRequest(keychainPath: "/k", operation: .unlock(passcode: Data("sesame-sesame-sesame".utf8))).frame()
        // A buffer whose storage is observed from outside: the frame's bytes are wiped in place.
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: frame.count, alignment: 1)
        defer { storage.deallocate() }
        _ = frame.copyBytes(to: storage.bindMemory(to: UInt8.self))
        var buffer = Data(bytesNoCopy: storage.baseAddress!, count: frame.count, deallocator: .none)
        let payload = try #require(try ServiceFrame.decodeFrame(from: &buffer))
        #expect(try ServiceRequest(payload: payload).operation == .unlock(passcode: Data("sesame-sesame-sesame".utf8)))
        #expect(storage.allSatisfy { $0 == 0 })
    }
}
