import Foundation
import KeychainCrypto

/// Buffers for secrets that leave the engine: the bytes are zeroed (`OPENSSL_cleanse`) before
/// the memory is freed, so a released result leaves no copy of the secret on the heap.
///
/// Limits: `Data` keeps values of up to 14 bytes inline (in the value itself, not in this
/// buffer), so short secrets cannot be reached; copies a caller makes (by mutating, or by
/// converting to `[UInt8]` or `String`) are ordinary memory.
public enum ZeroingBuffer {
    /// A copy of `bytes` in memory that `release` zeroes and frees.
    ///
    /// - Returns: the copy and its length; hand both to `release` (or to a deallocator calling it).
    public static func copy(_ bytes: UnsafeRawBufferPointer) -> (pointer: UnsafeMutableRawPointer, count: Int) {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        if let base = bytes.baseAddress, bytes.count > 0 {
            pointer.copyMemory(from: base, byteCount: bytes.count)
        }
        return (pointer, bytes.count)
    }

    /// Zeroes `count` bytes at `pointer` and frees a buffer from `copy`.
    public static func release(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
        if count > 0 { OpenSSL.cleanse(pointer, count) }
        pointer.deallocate()
    }
}

extension Data {
    /// A copy of `bytes` whose buffer is zeroed when the last `Data` sharing it is released.
    public static func zeroingCopy<Bytes: ContiguousBytes>(of bytes: Bytes) -> Data {
        bytes.withUnsafeBytes { source in
            guard source.count > 0 else { return Data() }
            let copy = ZeroingBuffer.copy(source)
            return Data(bytesNoCopy: copy.pointer, count: copy.count, deallocator: .custom(ZeroingBuffer.release))
        }
    }
}
