import Foundation

/// A failure of the helper itself (bad arguments, an unusable file), not of the keychain.
struct HelperError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `mode --name value ...`.
struct HelperArguments {
    let mode: String
    private var values: [String: String] = [:]

    init(_ words: ArraySlice<String>) {
        mode = words.first ?? ""
        var index = words.index(after: words.startIndex)
        while index < words.endIndex {
            let word = words[index]
            if word.hasPrefix("--"), words.index(after: index) < words.endIndex {
                values[String(word.dropFirst(2))] = words[words.index(after: index)]
                index = words.index(index, offsetBy: 2)
            } else {
                index = words.index(after: index)
            }
        }
    }

    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw HelperError("missing --\(name)") }
        return value
    }

    func integer(_ name: String, default fallback: Int? = nil) throws -> Int {
        guard let text = values[name] else {
            if let fallback { return fallback }
            throw HelperError("missing --\(name)")
        }
        guard let value = Int(text) else { throw HelperError("--\(name) is not a number") }
        return value
    }
}

/// SplitMix64: a small deterministic generator, so a seed replays the same operations.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
