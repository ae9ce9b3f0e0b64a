import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A pseudo-terminal whose slave side becomes a child's standard streams, so tests can see
/// what a user at a terminal would see (prompts, echo).
final class PseudoTerminal {
    struct Failure: Error { let what: String }

    private let master: Int32
    private let slave: Int32

    init() throws {
        // posix_openpt and friends are not in the Glibc module map; look them up in libc.
        typealias DescriptorCall = @convention(c) (Int32) -> Int32
        typealias NameCall = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        func symbol<T>(_ name: String, as type: T.Type) throws -> T {
            guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
                throw Failure(what: "\(name) is unavailable")
            }
            return unsafeBitCast(address, to: type)
        }
        let openMaster = try symbol("posix_openpt", as: DescriptorCall.self)
        let grant = try symbol("grantpt", as: DescriptorCall.self)
        let unlock = try symbol("unlockpt", as: DescriptorCall.self)
        let slaveName = try symbol("ptsname", as: NameCall.self)
        master = openMaster(O_RDWR | O_NOCTTY)
        guard master >= 0, grant(master) == 0, unlock(master) == 0, let name = slaveName(master) else {
            throw Failure(what: "no pseudo-terminal")
        }
        slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw Failure(what: "cannot open the pseudo-terminal's slave side") }
    }

    deinit {
        close(master)
    }

    /// A started child.
    final class Child {
        let process: Process
        init(_ process: Process) { self.process = process }

        /// Waits for the child and returns its exit status.
        func wait() -> Int32 {
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Starts `executable` with the terminal as its standard input, output and error, in the
    /// test's environment plus `extra`.
    func start(_ executable: URL, _ arguments: [String], home: String, environment extra: [String: String] = [:]) throws -> Child {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home
        environment.merge(extra) { $1 }
        process.environment = environment
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        close(slave)
        return Child(process)
    }

    /// Types `text`.
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
    }

    /// Reads what the terminal shows until `marker` appears (at most ten seconds).
    func read(until marker: String) throws -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains(marker) {
            guard Date() < deadline, let chunk = readChunk(timeoutMilliseconds: 200) else {
                if Date() >= deadline { throw Failure(what: "timed out waiting for \(marker); saw \(text)") }
                continue
            }
            text += chunk
        }
        return text
    }

    /// Whatever is left to read now.
    func readAvailable() -> String {
        var text = ""
        while let chunk = readChunk(timeoutMilliseconds: 100), !chunk.isEmpty { text += chunk }
        return text
    }

    /// One read, or nil when nothing arrives in time or the terminal closed.
    private func readChunk(timeoutMilliseconds: Int32) -> String? {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
