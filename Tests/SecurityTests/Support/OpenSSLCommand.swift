import Foundation

/// Runs the `openssl` command for interoperability checks and test fixtures, each instance in
/// a private temporary directory that is removed afterwards.
final class OpenSSLCommand {
    /// The command's path, or nil when it is not installed (the tests that need it then skip).
    static let path: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The working directory.
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A file in the working directory.
    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Writes `data` to `name`.
    func write(_ data: Data, to name: String) throws { try data.write(to: url(name)) }

    /// Reads `name`.
    func read(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    /// Runs `openssl` with `arguments` in the working directory.
    ///
    /// - Returns: the exit status and standard output.
    @discardableResult
    func run(_ arguments: [String], input: Data? = nil) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path ?? "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        // Standard input and output go through files, not pipes: Foundation's pipe reads trap on
        // a signal-interrupted read (EINTR) on a loaded machine.
        let name = UUID().uuidString
        try (input ?? Data()).write(to: url(name + ".stdin"))
        FileManager.default.createFile(atPath: url(name + ".stdout").path, contents: nil)
        let stdin = try FileHandle(forReadingFrom: url(name + ".stdin"))
        let stdout = try FileHandle(forWritingTo: url(name + ".stdout"))
        defer {
            try? stdin.close()
            try? FileManager.default.removeItem(at: url(name + ".stdin"))
            try? FileManager.default.removeItem(at: url(name + ".stdout"))
        }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try stdout.close()
        return (process.terminationStatus, try read(name + ".stdout"))
    }

    /// Runs `openssl` and requires success.
    @discardableResult
    func require(_ arguments: String...) throws -> Data {
        let (status, output) = try run(arguments)
        guard status == 0 else { throw CommandFailure(arguments: arguments, status: status) }
        return output
    }

    struct CommandFailure: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        var description: String { "openssl \(arguments.joined(separator: " ")) exited with \(status)" }
    }

    /// The SubjectPublicKeyInfo DER of an EC public point on P-256, P-384 or P-521.
    static func subjectPublicKeyInfo(ecPoint point: Data) -> Data {
        let prefixes: [Int: String] = [
            65: "3059301306072a8648ce3d020106082a8648ce3d030107034200",
            97: "3076301006072a8648ce3d020106052b81040022036200",
            133: "30819b301006072a8648ce3d020106052b8104002303818600",
        ]
        return Data(hex: prefixes[point.count]!) + point
    }

    /// A self-signed certificate and its key, made with `openssl req -x509`: files
    /// `<name>.key.pem`, `<name>.cert.pem`, `<name>.cert.der`.
    func makeSelfSigned(_ name: String, subject: String, keyAlgorithm: String = "EC", extra: [String] = []) throws {
        if keyAlgorithm == "EC" {
            try require("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key.pem")
        } else {
            try require("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(name).key.pem")
        }
        let (status, _) = try run(
            ["req", "-x509", "-new", "-key", "\(name).key.pem", "-subj", subject, "-days", "30", "-out", "\(name).cert.pem"]
                + extra)
        guard status == 0 else { throw CommandFailure(arguments: ["req"], status: status) }
        try require("x509", "-in", "\(name).cert.pem", "-outform", "DER", "-out", "\(name).cert.der")
    }
}

extension Data {
    /// Bytes from hexadecimal digits (whitespace ignored).
    init(hex: String) {
        let digits = Array(hex.filter { !$0.isWhitespace }.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < digits.count {
            bytes.append(UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) ?? 0)
            index += 2
        }
        self.init(bytes)
    }

    /// Lowercase hexadecimal digits.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
