import Foundation
import KeychainCrypto

/// The growing byte buffer under `WireWriter`: appends without Foundation's per-call overhead,
/// and never leaves a copy of what it held behind. When it grows, the old block is zeroed before
/// it is freed, and the last block is zeroed when the buffer is released, so a secret written
/// into a message lingers in no freed memory (`Data` and `Array` growth would free their old
/// blocks as they are).
final class WireBuffer: @unchecked Sendable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// The bytes written.
    private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it first grows.
    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit {
        SecureBytes.wipe(UnsafeMutableRawBufferPointer(start: base, count: count))
        base.deallocate()
    }

    /// The bytes written, lent to `body`.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Appends one byte.
    func append(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends `bytes`.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Overwrites `bytes.count` bytes at `offset`, inside what was written.
    func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) {
        precondition(offset >= 0 && offset + bytes.count <= count, "overwrite past the end of a wire buffer")
        guard let source = bytes.baseAddress else { return }
        (base + offset).copyMemory(from: source, byteCount: bytes.count)
    }

    /// Zeroes what was written (the buffer keeps its length).
    func wipe() {
        SecureBytes.wipe(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// Makes room for `additional` more bytes, doubling the block; the old block is zeroed.
    private func reserve(_ additional: Int) {
        guard count + additional > capacity else { return }
        var larger = capacity
        while count + additional > larger { larger *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 16)
        grown.copyMemory(from: base, byteCount: count)
        SecureBytes.wipe(UnsafeMutableRawBufferPointer(start: base, count: count))
        base.deallocate()
        base = grown
        capacity = larger
    }
}
