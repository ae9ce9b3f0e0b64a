import Foundation
import KeychainTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

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

    /// A program built beside `security`.
    static func product(_ name: String) -> String {
        (security as NSString).deletingLastPathComponent + "/" + name
    }

    /// Runs `security` in-process mode on `home`'s keychain with the double's bus as the system bus.
    private static func run(_ arguments: [String], home: String, bus: String) throws -> (status: Int32, output: String) {
        try run(security, arguments, environment: [
            "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": home, "KEYCHAIN_MODE": "embedded",
            "DBUS_SYSTEM_BUS_ADDRESS": bus, "KEYCHAIN_PINENTRY": "/nonexistent",
        ])
    }

    /// Runs `executable` with `arguments` in `environment`; returns its status and standard output.
    private static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A reader with one enrolled finger on `fprintd`, and a keychain in a new home holding a
    /// `.biometryAny` item (account "me", service "vault", secret "finger-secret"); returns the home.
    private static func biometricItem(_ fprintd: FprintdDouble) throws -> String {
        try fprintd.setReader(present: true)
        try fprintd.setEnrolled(["right-index-finger"])
        let home = NSTemporaryDirectory() + "keychain-biometry-" + UUID().uuidString
        let add = try run(
            ["add-generic-password", "-a", "me", "-s", "vault", "-w", "finger-secret", "-A", "biometryAny"], home: home, bus: fprintd.address)
        try #require(add.status == 0, "add failed with \(add.status)")
        return home
    }

    @Test("A matching finger opens a biometryAny item read with security -w; a wrong one does not")
    func biometricItemThroughFprintd() throws {
        let fprintd = try FprintdDouble()
        let home = try Self.biometricItem(fprintd)
        defer { try? FileManager.default.removeItem(atPath: home) }

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

    @Test("A reader locked out by five wrong fingers: reading a biometryAny item is errSecAuthFailed (exit 51) and asks no finger")
    func lockoutDuringARead() throws {
        let fprintd = try FprintdDouble()
        let home = try Self.biometricItem(fprintd)
        defer { try? FileManager.default.removeItem(atPath: home) }
        try fprintd.setScript(Array(repeating: [("verify-no-match", true)], count: 5))
        for _ in 0..<5 {
            let refused = try Self.run(["find-generic-password", "-a", "me", "-s", "vault", "-w"], home: home, bus: fprintd.address)
            #expect(refused.status == 51)
            if (try fprintd.calls().filter { $0.hasPrefix("VerifyStart") }.count) >= 5 { break }
        }
        let startsBefore = try fprintd.calls().filter { $0.hasPrefix("VerifyStart") }.count
        #expect(startsBefore == 5)
        try fprintd.setScript([[("verify-match", true)]])
        let lockedOut = try Self.run(["find-generic-password", "-a", "me", "-s", "vault", "-w"], home: home, bus: fprintd.address)
        #expect(lockedOut.status == 51)
        #expect(!lockedOut.output.contains("finger-secret"))
        #expect(try fprintd.calls().filter { $0.hasPrefix("VerifyStart") }.count == startsBefore)
    }

    @Test("An app's LAContext evaluated with a finger reads a biometryCurrentSet item without a second finger, in-process and through keychaind")
    func evaluatedContextInBothModes() throws {
        for throughDaemon in [false, true] {
            let fprintd = try FprintdDouble()
            try fprintd.setReader(present: true)
            try fprintd.setEnrolled(["right-index-finger"])
            let home = NSTemporaryDirectory() + "keychain-biometry-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(atPath: home) }
            var environment = [
                "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": home, "HOME": home, "KEYCHAIN_MODE": "embedded",
                "DBUS_SYSTEM_BUS_ADDRESS": fprintd.address, "KEYCHAIN_PINENTRY": "/nonexistent",
            ]
            var daemon: Process?
            defer {
                if let daemon, daemon.isRunning {
                    kill(daemon.processIdentifier, SIGKILL)
                    daemon.waitUntilExit()
                }
            }
            if throughDaemon {
                // The daemon verifies fingers with the reader on its own system bus: the double's.
                let socket = home + "/keychaind.sock"
                environment["KEYCHAIN_MODE"] = "daemon"
                environment["KEYCHAIND_SOCKET"] = socket
                let process = Process()
                process.executableURL = URL(fileURLWithPath: Self.product("keychaind"))
                process.arguments = ["--foreground", "--socket", socket, "--idle-exit", "0"]
                process.environment = environment
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                daemon = process
                for _ in 0..<2_000 where !FileManager.default.fileExists(atPath: socket) { usleep(5_000) }
                try #require(FileManager.default.fileExists(atPath: socket), "keychaind did not start")
            }
            let mode = throughDaemon ? "daemon" : "in-process"
            // Added before the passcode is set: a new process finds a passcode keychain locked.
            let add = try Self.run(
                Self.security, ["add-generic-password", "-a", "me", "-s", "vault", "-w", "finger-secret", "-A", "biometryCurrentSet"],
                environment: environment)
            try #require(add.status == 0, "\(mode): add failed with \(add.status)")
            let passcode = try Self.run(Self.security, ["set-keychain-password", "-o", "", "-p", "4321"], environment: environment)
            try #require(passcode.status == 0, "\(mode): set-keychain-password failed with \(passcode.status)")

            try fprintd.setScript([[("verify-match", true)]])
            let read = try Self.run(Self.product("keychain-test-client"), ["find-after-biometry", "vault", "me", "4321"], environment: environment)
            #expect(read.output == "evaluated\n0 finger-secret\n", "\(mode)")
            #expect(try fprintd.calls().filter { $0 == "VerifyStart any" }.count == 1, "\(mode)")
        }
    }
}
