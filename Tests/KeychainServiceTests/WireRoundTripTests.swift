import Foundation
import KeychainCore
import KeychainService
import Testing

@Suite("Wire round trips")
struct WireRoundTripTests {
    /// The payload of `frame` through the stream decoder, checking the frame is consumed whole.
    static func payload(of frame: Data) throws -> Data {
        var buffer = frame
        let payload = try #require(try ServiceFrame.decodeFrame(from: &buffer))
        #expect(buffer.isEmpty)
        return payload
    }

    @Test("Every operation decodes to the request that was encoded, field by field")
    func everyOperation() throws {
        for operation in WireSamples.operations {
            let request = ServiceRequest(keychainPath: "/home/ü/keychains/login.keychain-db", operation: operation)
            let decoded = try ServiceRequest(payload: Self.payload(of: try request.frame()))
            #expect(decoded.keychainPath == request.keychainPath)
            #expect(decoded.operation == operation, "\(operation)")
        }
    }

    @Test("Every response decodes to the response that was encoded, field by field")
    func everyResponse() throws {
        for response in WireSamples.responses {
            let decoded = try ServiceResponse(payload: Self.payload(of: try response.frame()))
            #expect(decoded == response, "\(response)")
        }
    }

    @Test("Private keys and identities keep their private key across the wire")
    func privateKeys() throws {
        for key in [WireSamples.ecPrivateKey, WireSamples.rsaPrivateKey] {
            var result = ItemResult(itemClass: .identity)
            result.reference = .identity(Identity(certificate: WireSamples.certificate, privateKey: key))
            let decoded = try ServiceResponse(payload: Self.payload(of: try ServiceResponse.item(result).frame()))
            guard case .item(let item?) = decoded, case .identity(let identity)? = item.reference else {
                Issue.record("not an identity: \(decoded)")
                continue
            }
            #expect(identity.privateKey.keyClass == .private)
            let sent = try key.externalRepresentation()
            let received = try identity.privateKey.externalRepresentation()
            #expect(sent.withUnsafeBytes { Data($0) } == received.withUnsafeBytes { Data($0) })
            #expect(identity.certificate.der == WireSamples.certificate.der)
        }
    }

    @Test("A 16 MiB secret with zero bytes crosses in one frame, unchanged")
    func largeSecret() throws {
        var secret = Data(count: 16 << 20)
        secret[secret.count - 1] = 0x5A
        secret[12345] = 1
        var request = ItemRequest(itemClass: .genericPassword)
        request.secret = secret
        request.attributes = WireSamples.attributes
        let frame = try ServiceRequest(keychainPath: "/k", operation: .add(request)).frame()
        #expect(frame.count <= ServiceFrame.headerSize + ServiceFrame.maximumPayloadSize)
        guard case .add(let decoded) = try ServiceRequest(payload: Self.payload(of: frame)).operation else {
            Issue.record("not an add")
            return
        }
        #expect(decoded.secret == secret)
        var result = ItemResult(itemClass: .genericPassword)
        result.data = secret
        let response = try ServiceResponse(payload: Self.payload(of: try ServiceResponse.items([result]).frame()))
        #expect(response == .items([result]))
    }

    @Test("A message over the frame limit is refused when encoding, not sent")
    func oversizeEncoding() throws {
        var request = ItemRequest(itemClass: .genericPassword)
        request.secret = Data(count: ServiceFrame.maximumPayloadSize)
        #expect(throws: WireError(.frameTooLarge, "a message is larger than the 64 MiB frame limit")) {
            try ServiceRequest(keychainPath: "/k", operation: .add(request)).frame()
        }
    }

    @Test("Every error code has its own wire number and comes back as itself")
    func errorCodes() throws {
        let tags = KeychainError.Code.allCases.map(\.wireTag)
        #expect(Set(tags).count == tags.count)
        for code in KeychainError.Code.allCases {
            #expect(try KeychainError.Code(wireTag: code.wireTag) == code)
        }
        #expect(throws: WireError.self) { try KeychainError.Code(wireTag: 0) }
        #expect(throws: WireError.self) { try KeychainError.Code(wireTag: 28) }
    }
}
