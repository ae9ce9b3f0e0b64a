import Foundation
import KeychainCrypto

#if canImport(Glibc)
import Glibc
#endif

/// The client side of an Assuan conversation over one socket: commands out, response lines in,
/// with a deadline on every read so a server that stops answering cannot hold the caller.
///
/// Lines are read into one fixed buffer that is zeroed after each line and when the connection
/// ends, and data lines are decoded straight into a `SecureBytes`, so a secret the server sends
/// leaves no copy behind in this process's ordinary memory.
package final class AssuanConnection {
    /// Why a conversation ended early.
    package enum Failure: Error, Equatable {
        /// The server did not answer before the deadline.
        case timedOut
        /// The server closed the connection (or it failed).
        case closed
        /// The server sent something Assuan does not allow (a line too long, a bad escape, an
        /// unknown response, data beyond the limit).
        case protocolViolation(String)
    }

    /// The most secret data one exchange may return, in bytes.
    package static let maximumDataLength = 4096

    private let descriptor: Int32
    /// When the server's next answer is overdue; a client waiting for the user moves it on.
    package var deadline: ContinuousClock.Instant
    /// Bytes received and not yet consumed; `filled` of them are valid.
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * AssuanEscaping.maximumLineLength, alignment: 16)
    private var filled = 0

    /// A conversation over `descriptor` (which the caller keeps and closes), ending at `deadline`.
    package init(descriptor: Int32, deadline: ContinuousClock.Instant) {
        self.descriptor = descriptor
        self.deadline = deadline
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        SecureBytes.wipe(buffer)
        buffer.deallocate()
    }

    /// Sends `command` followed by its already escaped `argument`.
    package func send(_ command: String, _ argument: String? = nil) throws(Failure) {
        var line = command
        if let argument { line += " " + argument }
        line += "\n"
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            // A socket, so a server that went away is an error rather than SIGPIPE.
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .closed
            }
            offset += sent
        }
    }

    /// Reads responses until one that ends the exchange (`OK`, `ERR` or `INQUIRE`); comments and
    /// status lines are skipped. Data lines are decoded into `data` when given, and refused otherwise.
    package func response(collecting data: SecretCollector? = nil) throws(Failure) -> AssuanResponse {
        while true {
            let length = try nextLine()
            defer { consume(length + 1) }
            let line = UnsafeRawBufferPointer(start: buffer.baseAddress, count: length)
            if length >= 1, line[0] == UInt8(ascii: "D"), length == 1 || line[1] == UInt8(ascii: " ") {
                guard let data else { throw .protocolViolation("unexpected data") }
                let payload = UnsafeRawBufferPointer(rebasing: line[min(2, length)...])
                guard AssuanEscaping.unescape(payload, { data.append($0) }) else {
                    throw .protocolViolation("a malformed escape in data")
                }
                guard !data.overflowed else { throw .protocolViolation("more data than a passcode") }
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            guard let response = AssuanResponse(line: text[...]) else {
                throw .protocolViolation("an unknown response")
            }
            switch response {
            case .comment, .status: continue
            case .ok, .error, .inquire: return response
            }
        }
    }

    /// Waits for a whole line in the buffer; returns its length without the line feed.
    private func nextLine() throws(Failure) -> Int {
        while true {
            if let end = UnsafeRawBufferPointer(start: buffer.baseAddress, count: filled).firstIndex(of: UInt8(ascii: "\n")) {
                guard end < AssuanEscaping.maximumLineLength else { throw .protocolViolation("a line too long") }
                return end
            }
            guard filled < AssuanEscaping.maximumLineLength else { throw .protocolViolation("a line too long") }
            try waitReadable()
            let count = Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .closed }
            filled += count
        }
    }

    /// Waits until the socket can be read, or throws `.timedOut` at the deadline.
    private func waitReadable() throws(Failure) {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw .timedOut }
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: milliseconds))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .closed }
        }
    }

    /// Drops the first `count` bytes (a line and its line feed), zeroing what moves.
    private func consume(_ count: Int) {
        let base = buffer.baseAddress!
        let left = filled - count
        if left > 0 { memmove(base, base + count, left) }
        SecureBytes.wipe(UnsafeMutableRawBufferPointer(start: base + max(left, 0), count: buffer.count - max(left, 0)))
        filled = max(left, 0)
    }
}

/// Collects the bytes of a secret as they are decoded, in memory that is zeroed when released.
package final class SecretCollector {
    private let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: AssuanConnection.maximumDataLength, alignment: 16)
    private var count = 0
    /// Whether more bytes arrived than the collector holds (the extra ones were dropped).
    package private(set) var overflowed = false

    package init() { storage.initializeMemory(as: UInt8.self, repeating: 0) }

    deinit {
        SecureBytes.wipe(storage)
        storage.deallocate()
    }

    /// Appends one byte.
    package func append(_ byte: UInt8) {
        guard count < storage.count else { overflowed = true; return }
        storage[count] = byte
        count += 1
    }

    /// The bytes collected so far, in a new `SecureBytes`.
    package func secret() -> SecureBytes {
        SecureBytes(copying: UnsafeRawBufferPointer(start: storage.baseAddress, count: count))
    }
}
