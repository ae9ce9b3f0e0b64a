import Foundation
@_spi(Testing) import KeychainCore
import KeychainService
import Security

/// The entitlements a test's process pretends to have (the access groups its keychain calls may
/// use; see `AccessContext`).
enum TestEntitlements: Sendable {
    /// `KEYCHAIN_ENTITLEMENTS` unset: the single access group `"default"`.
    case none
    /// An Apple-format `.entitlements` property list with these values (nil/empty are left out).
    case groups(applicationIdentifier: String?, keychainAccessGroups: [String])
    /// A property list written as given.
    case propertyList(String)

    /// Keychain access groups only, no application identifier.
    static func accessGroups(_ groups: String...) -> TestEntitlements {
        .groups(applicationIdentifier: nil, keychainAccessGroups: groups)
    }

    /// The file's contents, or nil for `.none`.
    var fileContents: String? {
        switch self {
        case .none:
            return nil
        case .propertyList(let text):
            return text
        case .groups(let identifier, let groups):
            var body = ""
            if let identifier {
                body += "    <key>application-identifier</key>\n    <string>\(identifier)</string>\n"
            }
            if !groups.isEmpty {
                body += "    <key>keychain-access-groups</key>\n    <array>\n"
                for group in groups { body += "        <string>\(group)</string>\n" }
                body += "    </array>\n"
            }
            return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \(body)</dict>
                </plist>

                """
        }
    }
}

/// Runs a test body against a keychain of its own.
///
/// The keychain location (`XDG_DATA_HOME`) and the entitlements (`KEYCHAIN_ENTITLEMENTS`) are
/// process-wide environment variables, read by every SecItem call, while Swift Testing runs tests
/// in parallel. `run` therefore holds one process-wide lock for the whole body, points
/// `XDG_DATA_HOME` at a fresh temporary directory, sets or unsets `KEYCHAIN_ENTITLEMENTS`, and
/// restores both (and removes the directory) afterwards. Every test in this target uses it.
enum TemporaryKeychain {
    /// What a running test can see of its environment.
    final class Environment {
        /// The temporary `XDG_DATA_HOME`.
        let dataHome: URL
        private var entitlementFiles = 0

        init(dataHome: URL) { self.dataHome = dataHome }

        /// The directory the keychain lives in (`$XDG_DATA_HOME/swift-keychain`).
        var keychainDirectory: URL { dataHome.appendingPathComponent("swift-keychain") }

        /// Switches the process's entitlements for the following SecItem calls. Each switch
        /// writes a new file, so nothing cached for an earlier file applies.
        ///
        /// Through `keychaind` a process cannot declare its own entitlements: the test registers
        /// this test executable with the file in the test's keychain, as its owner would
        /// (`security entitlements add`), or removes the registration for `.none`.
        func useEntitlements(_ entitlements: TestEntitlements) throws {
            guard let contents = entitlements.fileContents else {
                // Emptied, not unset: see `TemporaryKeychain.restore`.
                setenv("KEYCHAIN_ENTITLEMENTS", "", 1)
                if TestMode.throughDaemon && entitlementFiles > 0 {
                    try TestMode.security("entitlements", "remove", TestMode.testExecutable)
                }
                return
            }
            entitlementFiles += 1
            let file = dataHome.appendingPathComponent("app-\(entitlementFiles).entitlements")
            try Data(contents.utf8).write(to: file)
            setenv("KEYCHAIN_ENTITLEMENTS", file.path, 1)
            if TestMode.throughDaemon {
                try TestMode.security("entitlements", "add", TestMode.testExecutable, file.path)
            }
        }
    }

    private static let lock = NSLock()

    /// Runs `body` with a fresh keychain and `entitlements`, serialized with every other test.
    static func run<T>(
        entitlements: TestEntitlements = .none, _ body: (Environment) throws -> T
    ) throws -> T {
        lock.lock()
        defer { lock.unlock() }

        let savedDataHome = getenv("XDG_DATA_HOME").map { String(cString: $0) }
        let savedEntitlements = getenv("KEYCHAIN_ENTITLEMENTS").map { String(cString: $0) }
        let dataHome = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift-keychain-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataHome, withIntermediateDirectories: true)
        let environment = Environment(dataHome: dataHome)
        defer {
            // The process's instance of the test's keychain goes with it: its connections and
            // holder lock are closed, instead of staying open on deleted files for the rest of
            // the run (hundreds of descriptors by the end).
            Keychain.forgetOpenInstance(path: environment.keychainDirectory.appendingPathComponent(KeychainLocation.defaultKeychainName).path)
            restore("XDG_DATA_HOME", savedDataHome)
            restore("KEYCHAIN_ENTITLEMENTS", savedEntitlements)
            try? FileManager.default.removeItem(at: dataHome)
        }
        setenv("XDG_DATA_HOME", dataHome.path, 1)
        try environment.useEntitlements(entitlements)
        return try body(environment)
    }

    /// Puts a variable back; one that was not set is left empty, which the keychain reads as
    /// unset. Never `unsetenv`: other suites start processes meanwhile, and removing a variable
    /// (or adding one) moves the environment array a concurrent `Process.run` is copying (a
    /// crash in its `memcpy`), while overwriting one that exists does not.
    private static func restore(_ name: String, _ value: String?) {
        setenv(name, value ?? "", 1)
    }
}

/// Whether the tests reach their keychains through `keychaind` (`KEYCHAIN_MODE=daemon`), and what
/// they need to then.
enum TestMode {
    /// `KEYCHAIN_MODE=daemon`.
    static var throughDaemon: Bool { (try? ServiceLocation.requestedMode()) == .daemon }

    /// This test process's executable.
    static let testExecutable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""

    /// Runs the `security` command built beside this test executable (the daemon's
    /// administration tool), in this process's environment; through a daemon the calling thread
    /// selected (`TPMKeychainDaemon.serving`), with that daemon's socket.
    ///
    /// - Throws: when it cannot start or exits with a status other than 0.
    static func security(_ arguments: String...) throws {
        let tool = (testExecutable as NSString).deletingLastPathComponent + "/security"
        if throughDaemon, let socket = ServiceLocation.namedSocket {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging([ServiceLocation.socketVariable: socket]) { _, selected in selected }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.featureUnsupported, userInfo: ["status": process.terminationStatus, "arguments": arguments])
            }
            return
        }
        guard let pid = DetachedProcess.spawn(tool, arguments: ["security"] + arguments),
            let status = DetachedProcess.wait(for: pid)
        else { throw CocoaError(.executableLoad) }
        guard status == 0 else { throw CocoaError(.featureUnsupported, userInfo: ["status": status, "arguments": arguments]) }
    }
}
