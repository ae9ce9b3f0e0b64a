import Foundation
import KeychainCore

/// A response's payload: the case's tag (one byte), then its fields. Tags are fixed per case:
/// 1 done, 2 item (an optional result), 3 items, 4 count (Int64), 5 itemsWithDamage,
/// 6 status, 7 settings, 8 backup, 9 restore, 10 programs, 11 failure, 12 group, 13 grant,
/// 14 keyOutput, 15 syncProgress (`int` applied, `int` total), 16 syncReport, 17 syncStatus,
/// 18 syncFailure.
extension ServiceResponse: WireCodable {
    /// Writes the tag and the fields.
    public func encode(to writer: inout WireWriter) throws {
        switch self {
        case .done: writer.u8(1)
        case .group(let group):
            writer.u8(12)
            writer.string(group)
        case .item(let result):
            writer.u8(2)
            try writer.optional(result) { try $0.write($1) }
        case .items(let results):
            writer.u8(3)
            try writer.array(results) { try $0.write($1) }
        case .count(let count):
            writer.u8(4)
            writer.int(count)
        case .itemsWithDamage(let results, let damage):
            writer.u8(5)
            try writer.array(results) { try $0.write($1) }
            try writer.write(damage)
        case .status(let status):
            writer.u8(6)
            try writer.write(status)
        case .settings(let settings):
            writer.u8(7)
            try writer.write(settings)
        case .backup(let summary):
            writer.u8(8)
            try writer.write(summary)
        case .restore(let summary):
            writer.u8(9)
            try writer.write(summary)
        case .programs(let programs):
            writer.u8(10)
            try writer.array(programs) { try $0.write($1) }
        case .failure(let error):
            writer.u8(11)
            try writer.write(error)
        case .grant(let grant):
            writer.u8(13)
            writer.bytes(grant)
        case .keyOutput(let output):
            writer.u8(14)
            writer.bytes(output)
        case .syncProgress(let applied, let total):
            writer.u8(15)
            writer.int(applied)
            writer.int(total)
        case .syncReport(let report):
            writer.u8(16)
            try writer.write(report)
        case .syncStatus(let status):
            writer.u8(17)
            try writer.write(status)
        case .syncFailure(let failure):
            writer.u8(18)
            try writer.write(failure)
        }
    }

    /// Reads the tag and the fields.
    public init(from reader: inout WireReader) throws {
        switch try reader.u8() {
        case 1: self = .done
        case 2: self = .item(try reader.optional { try $0.read() })
        case 3: self = .items(try reader.array { try $0.read() })
        case 4: self = .count(try reader.int())
        case 5: self = .itemsWithDamage(try reader.array { try $0.read() }, try reader.read())
        case 6: self = .status(try reader.read())
        case 7: self = .settings(try reader.read())
        case 8: self = .backup(try reader.read())
        case 9: self = .restore(try reader.read())
        case 10: self = .programs(try reader.array { try $0.read() })
        case 11: self = .failure(try reader.read())
        case 13: self = .grant(try reader.bytes())
        case 12: self = .group(try reader.string())
        case 14: self = .keyOutput(try reader.bytes())
        case 15: self = .syncProgress(applied: try reader.count(), total: try reader.count())
        case 16: self = .syncReport(try reader.read())
        case 17: self = .syncStatus(try reader.read())
        case 18: self = .syncFailure(try reader.read())
        default: throw WireError(.unknownTag, "unknown response")
        }
    }

    /// The response as one frame (`ServiceFrame`). It holds any secret the response carries:
    /// zero it (`Data.wipe`) once sent.
    ///
    /// - Throws: `WireError.Kind.frameTooLarge`, or the engine's error for a key it cannot export.
    public func frame() throws -> Data { try ServiceFrame.encode { try $0.write(self) } }

    /// Decodes a frame's payload (`ServiceFrame.decodeFrame`); every byte must belong to the response.
    ///
    /// - Throws: `WireError`.
    public init(payload: Data) throws {
        var reader = WireReader(payload)
        self = try reader.read()
        try reader.finish()
    }
}
