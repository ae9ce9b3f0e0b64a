import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal for a program that opens its terminal by name (pinentry's
/// `OPTION ttyname`): the test holds the master side, reads what the program shows and types.
final class TerminalPair {
    struct Failure: Error { let what: String }

    private let master: Int32
    /// The slave side's device name, for the program to open.
    let slaveName: String

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
        master = try symbol("posix_openpt", as: DescriptorCall.self)(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0, try symbol("grantpt", as: DescriptorCall.self)(master) == 0,
            try symbol("unlockpt", as: DescriptorCall.self)(master) == 0,
            let name = try symbol("ptsname", as: NameCall.self)(master)
        else { throw Failure(what: "no pseudo-terminal") }
        slaveName = String(cString: name)
    }

    deinit { close(master) }

    /// Types `text`.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads what the terminal shows until `marker` appears (gives up after about ten seconds
    /// of waiting, returning what it saw).
    func read(until marker: String) -> String {
        var text = ""
        var waits = 0
        while !text.contains(marker), waits < 100 {
            var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else {
                waits += 1
                continue
            }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            if count <= 0 {
                waits += 1
                usleep(100_000)
                continue
            }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return text
    }
}
