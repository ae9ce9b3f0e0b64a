import Foundation

/// The values the helper stores: an item's label is a tag naming its write, and its secret is
/// derived from the tag, so a reader can tell a whole item from a torn one (label of one write,
/// secret of another) without any other record.
enum ItemValue {
    /// The tag of write `sequence` by `writer`, whose secret is `length` bytes long.
    static func tag(writer: String, sequence: Int, length: Int) -> String {
        "\(writer)x\(sequence)x\(length)"
    }

    /// The secret a tag stands for.
    static func secret(for tag: String) -> Data {
        let length = tag.split(separator: "x").last.flatMap { Int($0) } ?? 0
        let seed = Array(tag.utf8)
        var bytes = [UInt8](repeating: 0, count: length)
        for index in 0..<length {
            bytes[index] = seed[index % seed.count] &+ UInt8(truncatingIfNeeded: index &* 131 &>> 4)
        }
        return Data(bytes)
    }

    /// Whether `secret` is the one `label` stands for.
    static func isIntact(label: String, secret: Data) -> Bool {
        secret == self.secret(for: label)
    }

    /// A secret length: mostly small, sometimes several pages (so a write spans pages).
    static func randomLength(_ generator: inout SplitMix) -> Int {
        switch generator.below(10) {
        case 0: return 4096 + generator.below(60_000)
        case 1, 2: return 256 + generator.below(3000)
        default: return 16 + generator.below(200)
        }
    }
}
