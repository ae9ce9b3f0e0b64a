import Foundation
import Glibc

/// Executables a test writes and then runs, without the `ETXTBSY` race of a multi-threaded test
/// process.
///
/// While one test writes a program, another test's `fork` may copy the writing descriptor into a
/// child that has not yet called `exec`; until it does, the kernel refuses to run the program
/// ("Text file busy"). Files are therefore written with close-on-exec descriptors, and a launch
/// that meets `ETXTBSY` waits briefly and tries again (the descriptor goes away with the child's
/// `exec`).
enum ExecutableFile {
    /// Writes `contents` to a new file at `path`, mode 0755 (fails if `path` exists).
    static func write(_ contents: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        try contents.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                offset += written
            }
        }
        guard fchmod(descriptor, 0o755) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Copies the executable at `source` to a new file at `path` (0755).
    static func copy(_ source: String, to path: String) throws {
        try write(Data(contentsOf: URL(fileURLWithPath: source)), to: path)
    }

    /// Runs the process `make()` builds; a launch refused with `ETXTBSY` is retried with a fresh
    /// process for up to ten seconds. Other failures are thrown at once.
    @discardableResult
    static func launch(_ make: () throws -> Process) throws -> Process {
        var attempt = 0
        while true {
            let process = try make()
            do {
                try process.run()
                return process
            } catch where isTextFileBusy(error) && attempt < 500 {
                attempt += 1
                usleep(20_000)
            }
        }
    }

    private static func isTextFileBusy(_ error: any Error) -> Bool {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain && ns.code == Int(ETXTBSY) { return true }
        guard let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError else { return false }
        return underlying.domain == NSPOSIXErrorDomain && underlying.code == Int(ETXTBSY)
    }
}
