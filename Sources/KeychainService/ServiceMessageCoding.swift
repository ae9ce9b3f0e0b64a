import Foundation
import KeychainCore

/// Requests and responses as frames on the socket, for the client and the daemon alike; wire
/// failures become the engine's errors here, once.
public enum ServiceMessageCoding {
    /// The frame carrying `request`.
    ///
    /// - Throws: `.param` when it exceeds the frame limit; the engine's error when a value cannot
    ///   be written (a key that cannot be exported).
    public static func frame(_ request: ServiceRequest) throws -> Data {
        try engineErrors { try ServiceFrame.encode { try request.encode(to: &$0) } }
    }

    /// The frame carrying `response`; a response over the frame limit is replaced by a failure
    /// saying so (the request was carried out, its answer cannot be sent).
    public static func frame(_ response: ServiceResponse) -> Data {
        do {
            return try engineErrors { try ServiceFrame.encode { try response.encode(to: &$0) } }
        } catch let error as KeychainError {
            return (try? ServiceFrame.encode { try ServiceResponse.failure(error).encode(to: &$0) }) ?? Data()
        } catch {
            return Data()
        }
    }

    /// The next complete frame's payload in `buffer`, or nil when more bytes are needed.
    ///
    /// - Throws: `.param` when the stream is not frames this version reads.
    public static func nextPayload(from buffer: inout Data) throws -> Data? {
        try engineErrors { try ServiceFrame.decodeFrame(from: &buffer) }
    }

    /// The request in a frame's payload.
    public static func request(fromPayload payload: Data) throws -> ServiceRequest {
        try engineErrors {
            var reader = WireReader(payload)
            let request = try ServiceRequest(from: &reader)
            try reader.finish()
            return request
        }
    }

    /// The response in a frame's payload.
    public static func response(fromPayload payload: Data) throws -> ServiceResponse {
        try engineErrors {
            var reader = WireReader(payload)
            let response = try ServiceResponse(from: &reader)
            try reader.finish()
            return response
        }
    }

    /// Runs `body`, turning `WireError` into the engine's error: a frame over the limit is
    /// `.param` (as an oversized value is in-process), anything malformed `.decode`.
    private static func engineErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as WireError {
            if case .frameTooLarge = error.kind { throw KeychainError(.param, error.reason) }
            throw error.keychainError
        }
    }
}
