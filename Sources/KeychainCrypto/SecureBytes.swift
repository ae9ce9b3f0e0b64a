import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fixed-size buffer for key material that is zeroed when released.
///
/// Keys never leave this type as `Data` or `[UInt8]` copies inside the engine: callers borrow the
/// bytes with `withUnsafeBytes` for the duration of one cryptographic call.
public final class SecureBytes: @unchecked Sendable {
    private let pointer: UnsafeMutableRawBufferPointer

    /// The number of bytes held.
    public var count: Int { pointer.count }

    /// Allocates `count` bytes and fills them from `initializer`; if it throws, the bytes are
    /// wiped and freed before the error propagates.
    package convenience init(count: Int, _ initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try initializer(buffer)
        } catch {
            Self.wipe(buffer)
            buffer.deallocate()
            throw error
        }
        self.init(owning: buffer)
    }

    /// Takes ownership of an initialized buffer.
    private init(owning buffer: UnsafeMutableRawBufferPointer) {
        pointer = buffer
        if Self.locksMemory.load(ordering: .relaxed), let base = buffer.baseAddress, buffer.count > 0 {
            // Best effort: a process over its RLIMIT_MEMLOCK keeps the key, unlocked.
            _ = mlock(base, buffer.count)
        }
    }

    /// Whether new buffers are locked in RAM (`mlock`), so that key material is never written to
    /// swap (pages stay locked once locked). `keychaind`, which holds unlocked keys for every client, turns it on at start.
    package static let locksMemory = Atomic<Bool>(false)

    /// Copies `bytes` into a new secure buffer.
    package convenience init<Bytes: ContiguousBytes>(copying bytes: Bytes) {
        let length = bytes.withUnsafeBytes { $0.count }
        self.init(count: length) { destination in
            bytes.withUnsafeBytes { source in
                if let base = source.baseAddress, length > 0 {
                    destination.baseAddress!.copyMemory(from: base, byteCount: length)
                }
            }
        }
    }

    /// The bytes of `parts`, one after another, in a new secure buffer.
    package static func concatenating(_ parts: [SecureBytes]) -> SecureBytes {
        SecureBytes(count: parts.reduce(0) { $0 + $1.count }) { destination in
            var offset = 0
            for part in parts {
                part.withUnsafeBytes { source in
                    if let base = source.baseAddress, source.count > 0 {
                        (destination.baseAddress! + offset).copyMemory(from: base, byteCount: source.count)
                    }
                    offset += source.count
                }
            }
        }
    }

    deinit {
        // A locked page stays locked when freed: `munlock` is not counted, and would unlock a
        // neighbour's key sharing the page.
        Self.wipe(pointer)
        pointer.deallocate()
    }

    /// Lends the bytes to `body`; the pointer must not escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(pointer))
    }

    /// Zeroes memory in a way the optimiser may not remove.
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        OpenSSL.cleanse(base, buffer.count)
    }
}

extension Data {
    /// Overwrites the bytes of this value with zeroes (best effort: copies made earlier are not reached).
    package mutating func wipe() {
        let count = self.count
        withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress, count > 0 { OpenSSL.cleanse(base, count) }
        }
    }
}

extension SecureBytes: ContiguousBytes {}
