#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls the tool needs, in one place: unbuffered writes and line reads (unbuffered, so
/// a password line read from a pipe never swallows the line after it).
enum FileDescriptor {
    /// Standard input.
    static let input: Int32 = 0
    /// Standard output.
    static let output: Int32 = 1
    /// Standard error.
    static let error: Int32 = 2

    /// Writes all of `bytes` to `descriptor`, retrying after interruptions; gives up silently
    /// when the descriptor is closed (a closed pipe must not crash the tool).
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Reads bytes up to a newline (not included) or the end of input, one byte at a time.
    ///
    /// - Returns: the line, or nil when the input ended before any byte was read.
    static func readLine(from descriptor: Int32) -> [UInt8]? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var sawAnything = false
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if count == 0 { break }
            sawAnything = true
            if byte == UInt8(ascii: "\n") { return line }
            line.append(byte)
        }
        byte = 0
        return sawAnything ? line : nil
    }

    /// Reads the whole regular file at `path`.
    ///
    /// - Returns: its bytes, or the `errno` that stopped the read (`EISDIR` for a directory).
    static func readFile(_ path: String) -> Result<[UInt8], Errno> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(Errno(errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(Errno(errno)) }
        if status.st_mode & S_IFMT == S_IFDIR { return .failure(Errno(EISDIR)) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Errno(errno))
            }
            if count == 0 { return .success(bytes) }
            bytes += buffer[..<count]
        }
    }

    /// An `errno` value and its text (`strerror`).
    struct Errno: Error, Equatable {
        let code: Int32
        init(_ code: Int32) { self.code = code }
        var text: String { String(cString: strerror(code)) }
    }

    /// Whether `descriptor` is a terminal.
    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }
}
