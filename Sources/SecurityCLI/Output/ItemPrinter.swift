import Foundation
import KeychainCore

/// Renders items in macOS's dump format (`print_keychain_item_attributes` in `security`'s source):
///
/// ```
/// keychain: "/home/me/.local/share/swift-keychain/login.keychain-db"
/// version: 512
/// class: "genp"
/// attributes:
///     0x00000007 <blob>="svc"
///     0x00000008 <blob>=<NULL>
///     "acct"<blob>="me"
///     ...
/// ```
///
/// Numbers print as their 4 big-endian bytes, dates as `YYYYMMDDhhmmssZ` plus a NUL, absent
/// (or empty) values as `<NULL>`. With data, a `data:` line and the secret follow.
enum ItemPrinter {
    /// The keychain format version macOS prints for `login.keychain-db`.
    static let version = 512

    /// The dump block of `item`, which lives in the keychain at `keychainPath`.
    static func render(_ item: ItemResult, keychainPath: String, includeData: Bool = false) -> [UInt8] {
        render(
            itemClass: item.itemClass, attributes: item.attributes ?? [:], data: item.data, keychainPath: keychainPath,
            includeData: includeData)
    }

    /// The dump block of an item of `itemClass` with `attributes` and secret `data`.
    static func render(
        itemClass: ItemClass, attributes: ItemAttributes, data: Data?, keychainPath: String, includeData: Bool
    ) -> [UInt8] {
        let schema = DumpSchema.schema(for: itemClass, keyClass: attributes[.keyClass].flatMap(integer))
        var text = "keychain: " + ByteFormat.dumpValue(Array(keychainPath.utf8)) + "\n"
        text += "version: \(version)\n"
        text += "class: " + ByteFormat.dumpValue(schema.recordType) + "\n"
        text += "attributes:\n"
        for attribute in schema.attributes {
            text += "    " + ByteFormat.dumpValue(attribute.tag) + attribute.format.rawValue + "="
            if let bytes = attributes[attribute.source].map(bytes(of:)), !bytes.isEmpty {
                text += ByteFormat.dumpValue(bytes)
            } else {
                text += "<NULL>"
            }
            text += "\n"
        }
        if includeData {
            text += "data:\n" + ByteFormat.dumpValue([UInt8](data ?? Data())) + "\n"
        }
        return Array(text.utf8)
    }

    /// The bytes a stored value prints as: text as UTF-8, numbers as 4 big-endian bytes, dates
    /// as CSSM time-date strings.
    static func bytes(of value: AttributeValue) -> [UInt8] {
        switch value {
        case .string(let text):
            return Array(text.utf8)
        case .data(let data):
            return [UInt8](data)
        case .integer(let number):
            return ByteFormat.bigEndianBytes(UInt32(truncatingIfNeeded: number))
        case .date(let date):
            return timedate(date)
        }
    }

    /// `YYYYMMDDhhmmssZ` in UTC followed by a NUL, as CSSM time-date attributes are stored.
    static func timedate(_ date: Date) -> [UInt8] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let text = pad(parts.year, 4) + pad(parts.month, 2) + pad(parts.day, 2) + pad(parts.hour, 2)
            + pad(parts.minute, 2) + pad(parts.second, 2) + "Z"
        return Array(text.utf8) + [0]
    }

    private static func integer(_ value: AttributeValue) -> Int64? {
        switch value {
        case .integer(let number): return number
        case .string(let text): return Int64(text)
        default: return nil
        }
    }
}
