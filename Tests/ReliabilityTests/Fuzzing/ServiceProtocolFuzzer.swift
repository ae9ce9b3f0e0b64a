import Foundation
import KeychainService

/// (e) `keychaind`'s protocol: what a client or a hostile peer sends the daemon, and what a
/// daemon sends back.
///
/// The first byte picks the input: 0 a byte stream of frames, cut into chunks of the size the
/// second byte gives and fed to `ServiceFrame.decodeFrame` as they would arrive from a socket,
/// each payload then decoded as a request and as a response; 1 a request payload; 2 a
/// response payload. Properties:
/// - nothing traps, and every refusal is a `WireError` (no engine error, no other type leaks);
/// - the stream decoder never returns more payload bytes than it was given, nor a payload over
///   `ServiceFrame.maximumPayloadSize`, and keeps only bytes it has not consumed;
/// - what decodes encodes to bytes that decode again and encode to the same bytes (a stable
///   canonical form).
enum ServiceProtocolFuzzer {
    static func run(_ input: inout FuzzInput) throws {
        let selector = input.byte() % 3
        switch selector {
        case 0:
            let chunk = Int(input.byte()) + 1
            try stream(Data(input.remainder()), chunk: chunk)
        case 1: try request(Data(input.remainder()))
        default: try response(Data(input.remainder()))
        }
    }

    /// Feeds `bytes` in chunks and decodes every complete frame.
    static func stream(_ bytes: Data, chunk: Int) throws {
        var buffer = Data()
        var fed = 0
        var taken = 0
        while fed < bytes.count {
            let next = bytes[(bytes.startIndex + fed)..<(bytes.startIndex + min(fed + chunk, bytes.count))]
            buffer.append(next)
            fed += next.count
            while true {
                let payload: Data?
                do {
                    payload = try ServiceFrame.decodeFrame(from: &buffer)
                } catch is WireError {
                    return
                } catch {
                    throw FuzzFailure("the frame decoder threw \(type(of: error)), not a WireError")
                }
                guard let payload else { break }
                guard payload.count <= ServiceFrame.maximumPayloadSize else {
                    throw FuzzFailure("a payload over the frame limit came out")
                }
                taken += ServiceFrame.headerSize + payload.count
                guard taken + buffer.count == fed else { throw FuzzFailure("the frame decoder lost or invented bytes") }
                try request(payload)
                try response(payload)
            }
        }
    }

    static func request(_ payload: Data) throws {
        try stable(payload, decode: { try ServiceRequest(payload: $0) }, encode: { try $0.frame() })
    }

    static func response(_ payload: Data) throws {
        try stable(payload, decode: { try ServiceResponse(payload: $0) }, encode: { try $0.frame() })
    }

    /// Decodes `payload`; when it decodes, checks that its encoding decodes and encodes again
    /// to the same frame.
    static func stable<T>(_ payload: Data, decode: (Data) throws -> T, encode: (T) throws -> Data) throws {
        let value: T
        do {
            value = try decode(payload)
        } catch is WireError {
            return
        } catch {
            throw FuzzFailure("decoding threw \(type(of: error)), not a WireError")
        }
        let frame = try encode(value)
        var buffer = frame
        guard let again = try ServiceFrame.decodeFrame(from: &buffer), buffer.isEmpty else {
            throw FuzzFailure("an encoded message is not one whole frame")
        }
        let second: T
        do {
            second = try decode(again)
        } catch {
            throw FuzzFailure("an encoded message does not decode: \(error)")
        }
        guard try encode(second) == frame else { throw FuzzFailure("a decoded message does not re-encode stably") }
    }
}
