import Foundation

/// Reads, front to back, what `AssociatedData` wrote: a length-prefixed label, UUIDs as 16
/// bytes, integers as 8 little-endian bytes, length-prefixed bytes. Anything short, too long or
/// not as expected is `SyncError.refused` (what it reads came through the server).
struct FieldReader {
    private let data: Data
    private var offset = 0

    /// A reader of `data`, which must start with `label`.
    init(_ data: Data, label: String) throws {
        self.data = data
        guard try bytes() == Data(label.utf8) else { throw SyncError(.refused, "a sealed value is not a \(label)") }
    }

    /// Whether everything was read.
    var isAtEnd: Bool { offset == data.count }

    /// The next `count` bytes.
    mutating func take(_ count: Int) throws -> Data {
        guard count >= 0, data.count - offset >= count else { throw SyncError(.refused, "a sealed value is truncated") }
        defer { offset += count }
        return Data(data[(data.startIndex + offset)..<(data.startIndex + offset + count)])
    }

    /// An integer.
    mutating func integer() throws -> Int64 {
        Int64(littleEndian: try take(8).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
    }

    /// A UUID.
    mutating func uuid() throws -> UUID {
        try take(16).withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// Length-prefixed bytes.
    mutating func bytes() throws -> Data {
        let count = try integer()
        guard count >= 0, count <= Int64(data.count - offset) else { throw SyncError(.refused, "a sealed value is truncated") }
        return try take(Int(count))
    }
}
