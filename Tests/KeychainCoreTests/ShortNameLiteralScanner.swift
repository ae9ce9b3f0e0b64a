import Foundation

@testable import KeychainCore

/// Finds Apple short names (`"agrp"`, `"pdmn"`, `"m_Limit"`, `"v_Ref"`, `"class"`, …) used as
/// keys in Swift source: code that names an attribute or a request key by its string instead of
/// by its catalog descriptor.
///
/// Many short names are also ordinary words (`path`, `type`, `port`, `next`, `sign`, `class`), so a
/// literal counts only where it is used as a key: a subscript key (`x["agrp"]`), a dictionary
/// literal key or case-list item (`["svce": v]`, `case "kcls", "type":`), a case pattern, one side
/// of `==`/`!=`, a call's first argument (`value("type")`, `append("accc", …)`), a `forKey:`,
/// `named:` or `name:` argument, or an element of a collection literal all of whose elements are
/// short names (`["labl", "alis"]`). Comments, multi-line and raw literals are not code and are
/// never findings.
enum ShortNameLiteralScanner {
    /// One short name used as a key.
    struct Finding: CustomStringConvertible, Equatable {
        let path: String
        let line: Int
        let name: String

        var description: String { "\(path):\(line): \"\(name)\"" }
    }

    /// The files that may spell short names: the catalog (it declares them), the record codec (the
    /// stored form), the public constants, and the surface's dictionary decoder and encoder.
    static let allowedFiles: Set<String> = [
        "Sources/KeychainCore/Catalog/AttributeCatalog.swift",
        "Sources/KeychainCore/Store/RecordCodec.swift",
        "Sources/Security/SecItemConstants.swift",
        "Sources/Security/Decoding/RequestParser.swift",
        "Sources/Security/Decoding/RequestParser+References.swift",
        "Sources/Security/Decoding/RequestValue.swift",
        "Sources/Security/Decoding/RequestEntries.swift",
        "Sources/Security/Decoding/AttributeCoercion.swift",
        "Sources/Security/RequestBridge.swift",
    ]

    /// Whether `path` (relative to the repository) may spell short names: an allowed file, or the
    /// surface's result encoder (`Sources/Security/ResultBridge*.swift`).
    static func isAllowed(_ path: String) -> Bool {
        allowedFiles.contains(path) || (path.hasPrefix("Sources/Security/ResultBridge") && path.hasSuffix(".swift"))
    }

    /// Every catalog short name (result-only ones included) and the string of every request key
    /// in `SecItemConstants.swift`: `kSecClass`, the attribute keys, and the search, return,
    /// value and other keys (not the values of attributes, such as protocols or key types).
    static func shortNames(constants: String) -> Set<String> {
        var names = Set(AttributeCatalog.descriptors.map(\.name))
        var inKeySection = false
        for line in constants.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("// MARK: - ") {
                let title = line.dropFirst("// MARK: - ".count)
                inKeySection = title == "Attribute keys" || ["Search keys", "Return keys", "Value keys", "Other keys"]
                    .contains(String(title))
                continue
            }
            let line = String(line)
            guard let match = constantPattern.firstMatch(in: line, range: NSRange(location: 0, length: line.utf16.count)),
                let constantRange = Range(match.range(at: 1), in: line), let valueRange = Range(match.range(at: 2), in: line)
            else { continue }
            if inKeySection || line[constantRange] == "kSecClass" { names.insert(String(line[valueRange])) }
        }
        return names
    }

    private static let constantPattern = try! NSRegularExpression(pattern: #"public let (kSec\w+): CFString = "([^"]*)""#)

    /// The repository this file is in.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The short names used as keys in every Swift file under `Sources` that may not spell them.
    static func findingsInSources() throws -> [Finding] {
        let constants = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Sources/Security/SecItemConstants.swift"), encoding: .utf8)
        let names = shortNames(constants: constants)
        let sources = repositoryRoot.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
        var findings: [Finding] = []
        for case let file as URL in walker where file.pathExtension == "swift" {
            let path = "Sources/" + file.path.dropFirst(sources.path.count + 1)
            guard !isAllowed(path) else { continue }
            findings += self.findings(in: try String(contentsOf: file, encoding: .utf8), path: path, names: names)
        }
        return findings.sorted { ($0.path, $0.line) < ($1.path, $1.line) }
    }

    /// The short names of `names` used as keys in Swift source `text`.
    static func findings(in text: String, path: String, names: Set<String>) -> [Finding] {
        let masked = mask(text)
        let range = NSRange(location: 0, length: masked.utf16.count)
        var offsets: [(Int, String)] = []
        for pattern in keyPatterns {
            for match in pattern.matches(in: masked, range: range) {
                let literal = match.range(at: 1)
                let name = (masked as NSString).substring(with: literal)
                if names.contains(name) { offsets.append((literal.location, name)) }
            }
        }
        for match in collectionPattern.matches(in: masked, range: range) {
            let elements = literalPattern.matches(in: masked, range: match.range)
            let values = elements.map { (masked as NSString).substring(with: $0.range(at: 1)) }
            guard values.allSatisfy(names.contains) else { continue }
            for (element, value) in zip(elements, values) { offsets.append((element.range(at: 1).location, value)) }
        }
        var seen = Set<Int>()
        let utf16 = Array(masked.utf16)
        return offsets.sorted { $0.0 < $1.0 }.compactMap { offset, name in
            guard seen.insert(offset).inserted else { return nil }
            let line = utf16[..<offset].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
            return Finding(path: path, line: line, name: name)
        }
    }

    /// The contexts in which a plain literal (group 1, its text) is a key.
    private static let keyPatterns: [NSRegularExpression] = [
        #"\[\s*"([^"\n]*)"\s*\]"#,  // subscript, or a one-element collection
        #"[\[,]\s*"([^"\n]*)"\s*:"#,  // dictionary-literal key, case-list item
        #"\bcase\s+"([^"\n]*)""#,  // case pattern
        #"[=!]=\s*"([^"\n]*)""#, #""([^"\n]*)"\s*[=!]="#,  // comparison
        #"\(\s*"([^"\n]*)"\s*[,)]"#,  // a call's first argument
        #"\b(?:forKey|named|name):\s*"([^"\n]*)""#,  // a key argument
    ].map { try! NSRegularExpression(pattern: $0) }

    private static let literalPattern = try! NSRegularExpression(pattern: #""([^"\n]*)""#)
    private static let collectionPattern = try! NSRegularExpression(
        pattern: #"\[\s*"[^"\n]*"(?:\s*,\s*"[^"\n]*")+\s*,?\s*\]"#)

    /// `text` with comments blanked, multi-line and raw literals blanked, and the text of every
    /// plain literal replaced by `x`s unless it could be a short name (letters, digits and `_`):
    /// only code and candidate literals remain, each at its original offset and line.
    static func mask(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out = bytes
        var index = 0
        func blank(_ range: Range<Int>) {
            for position in range where bytes[position] != 10 { out[position] = 32 }
        }
        func at(_ offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }
        func code(untilCloseParenthesis: Bool) {
            var depth = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") && at(index + 1) == UInt8(ascii: "/") {
                    let start = index
                    while index < bytes.count && bytes[index] != 10 { index += 1 }
                    blank(start..<index)
                } else if byte == UInt8(ascii: "/") && at(index + 1) == UInt8(ascii: "*") {
                    let start = index
                    var nesting = 0
                    repeat {
                        if bytes[index] == UInt8(ascii: "/") && at(index + 1) == UInt8(ascii: "*") {
                            nesting += 1
                            index += 2
                        } else if bytes[index] == UInt8(ascii: "*") && at(index + 1) == UInt8(ascii: "/") {
                            nesting -= 1
                            index += 2
                        } else {
                            index += 1
                        }
                    } while nesting > 0 && index < bytes.count
                    blank(start..<index)
                } else if byte == UInt8(ascii: "#") && (at(index + 1) == UInt8(ascii: "\"") || at(index + 1) == UInt8(ascii: "#")) {
                    let start = index
                    var hashes = 0
                    while at(index) == UInt8(ascii: "#") {
                        hashes += 1
                        index += 1
                    }
                    guard at(index) == UInt8(ascii: "\"") else { continue }
                    let closing = [UInt8(ascii: "\"")] + [UInt8](repeating: UInt8(ascii: "#"), count: hashes)
                    index += 1
                    while index < bytes.count && Array(bytes[index..<min(bytes.count, index + closing.count)]) != closing {
                        index += 1
                    }
                    index = min(bytes.count, index + closing.count)
                    blank(start..<index)
                } else if byte == UInt8(ascii: "\"") && at(index + 1) == UInt8(ascii: "\"") && at(index + 2) == UInt8(ascii: "\"") {
                    let start = index
                    index += 3
                    while index < bytes.count
                        && !(bytes[index] == UInt8(ascii: "\"") && at(index + 1) == UInt8(ascii: "\"") && at(index + 2) == UInt8(ascii: "\""))
                    {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    index = min(bytes.count, index + 3)
                    blank(start..<index)
                } else if byte == UInt8(ascii: "\"") {
                    string()
                } else {
                    if untilCloseParenthesis {
                        if byte == UInt8(ascii: "(") { depth += 1 }
                        if byte == UInt8(ascii: ")") {
                            if depth == 0 { return }
                            depth -= 1
                        }
                    }
                    index += 1
                }
            }
        }
        func string() {
            index += 1
            var segmentStart = index
            var isCandidate = true
            func closeSegment(_ end: Int) {
                if !isCandidate || end == segmentStart {
                    for position in segmentStart..<end { out[position] = UInt8(ascii: "x") }
                }
            }
            while index < bytes.count && bytes[index] != 10 {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    closeSegment(index)
                    index += 1
                    return
                }
                if byte == UInt8(ascii: "\\") && at(index + 1) == UInt8(ascii: "(") {
                    isCandidate = false
                    closeSegment(index)
                    index += 2
                    code(untilCloseParenthesis: true)
                    index += 1
                    segmentStart = index
                    continue
                }
                if byte == UInt8(ascii: "\\") {
                    isCandidate = false
                    index += 2
                    continue
                }
                let isNameByte = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_")
                if !isNameByte { isCandidate = false }
                index += 1
            }
            closeSegment(index)
        }
        code(untilCloseParenthesis: false)
        return String(decoding: out, as: UTF8.self)
    }
}
