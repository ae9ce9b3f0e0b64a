import Foundation
import KeychainCore
import KeychainDaemon
import Testing

@Suite("Executable digests")
struct ExecutableDigestTests {
    @Test("a registration made in-process and the daemon's reading of the same file give the same SHA-256, the file's own")
    func oneDigestForBothSides() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        // More than one 64 KiB chunk, and not a multiple of it.
        let contents = Data((0..<200_003).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try contents.write(to: URL(fileURLWithPath: file))
        let expected = try CertificateDigest.sha256(contents)
        #expect(try ExecutableDigest.of(fileAt: file) == expected)
        #expect(try ExecutableIdentity.of(file: file, digests: ExecutableDigestCache()).digest == expected)
        #expect(throws: KeychainError.self) { try ExecutableDigest.of(fileAt: FileManager.default.temporaryDirectory.path) }
    }
}
