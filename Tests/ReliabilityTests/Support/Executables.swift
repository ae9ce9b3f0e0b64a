import Foundation

/// The executables `swift test` builds next to the test bundle.
enum Executables {
    /// The reliability helper (`Tests/KeychainCrashWriter`).
    static let crashWriter = locate("keychain-crash-writer")
    /// The `security` command.
    static let security = locate("security")

    private static func locate(_ name: String) -> String {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
        }
        fatalError("\(name) was not built next to the tests (looked in \(candidates))")
    }

    /// Runs the helper to completion, in the test's environment plus `environment`.
    static func runHelper(_ arguments: [String], environment: [String: String] = [:], in directory: String) throws -> ChildProcess {
        let child = try ChildProcess(crashWriter, arguments, environment: environment, in: directory)
        child.wait()
        return child
    }

    /// Runs `security` to completion with its keychains under `home` (`XDG_DATA_HOME`), plus
    /// `environment`.
    static func runSecurity(
        _ arguments: [String], home: String, environment: [String: String] = [:], input: String? = nil, in directory: String
    ) throws -> ChildProcess {
        let child = try ChildProcess(
            security, arguments, environment: environment.merging(["XDG_DATA_HOME": home]) { $1 }, input: input, in: directory)
        child.wait()
        return child
    }
}

/// A fresh private directory, removed when released.
final class TemporaryDirectory {
    let path: String

    /// A directory in the temporary directory, or in `base` when given.
    init(_ prefix: String, in base: String? = nil) throws {
        let parent = base.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        path = parent.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path inside the directory.
    func file(_ name: String) -> String { path + "/" + name }
}

/// The environment variable `name` as a number, or `fallback`.
func environmentNumber(_ name: String, default fallback: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
}
