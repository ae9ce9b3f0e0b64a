import Foundation
import Testing

/// The keychain's own check of biometric constraints uses the machine's fingerprint service: a
/// `security` process opening its keychain in-process asks fprintd (here the scripted one on a
/// private bus named as the system bus) for a finger before it gives out a `.biometryAny` secret.
@Suite("Biometric items checked by the keychain through fprintd", .serialized)
struct KeychainBiometryTests {
    /// The built `security` executable, beside the test bundle.
    static let security: String = {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("security").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return directory.appendingPathComponent("security").path
    }()

    /// Runs `security` in-process mode on `home`'s keychain with the double's bus as the system bus.
    private static func run(_ arguments: [String], home: String, bus: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: security)
        process.arguments = arguments
        process.environment = [
            "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": home, "KEYCHAIN_MODE": "embedded",
            "DBUS_SYSTEM_BUS_ADDRESS": bus, "KEYCHAIN_PINENTRY": "/nonexistent",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("A matching finger opens a biometryAny item read with security -w; a wrong one does not")
    func biometricItemThroughFprintd() throws {
        let fprintd = try FprintdDouble()
        try fprintd.setReader(present: true)
        try fprintd.setEnrolled(["right-index-finger"])
        let home = NSTemporaryDirectory() + "keychain-biometry-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        let add = try Self.run(
            ["add-generic-password", "-a", "me", "-s", "vault", "-w", "finger-secret", "-A", "biometryAny"], home: home, bus: fprintd.address)
        try #require(add.status == 0, "add failed with \(add.status)")

        try fprintd.setScript([[("verify-match", true)]])
        let matched = try Self.run(["find-generic-password", "-a", "me", "-s", "vault", "-w"], home: home, bus: fprintd.address)
        #expect(matched.status == 0)
        #expect(matched.output == "finger-secret\n")
        #expect(try fprintd.calls().contains { $0.hasPrefix("VerifyStart") })

        try fprintd.setScript([[("verify-no-match", true)], [("verify-no-match", true)], [("verify-no-match", true)]])
        let refused = try Self.run(["find-generic-password", "-a", "me", "-s", "vault", "-w"], home: home, bus: fprintd.address)
        #expect(refused.status != 0)
        #expect(!refused.output.contains("finger-secret"))
    }
}
