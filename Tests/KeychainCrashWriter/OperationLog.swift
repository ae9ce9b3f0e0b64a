import Foundation

/// An append-only log of operations: one line per event, written with a single `write` (so a
/// kill never leaves half a line before a complete one) and, for acknowledgements, `fsync`.
final class OperationLog: Sendable {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw HelperError("cannot open the log \(path) (errno \(errno))") }
    }

    deinit { close(descriptor) }

    /// Appends `line` (a newline is added); `durable` syncs it to disk before returning.
    func append(_ line: String, durable: Bool = false) {
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "log write failed (errno \(errno))")
        if durable { precondition(fsync(descriptor) == 0, "log fsync failed (errno \(errno))") }
    }
}
