import Foundation

/// Finds the comments of Swift source text and the references in them to documents that are not
/// in the repository, so that every comment can be read with the repository alone.
///
/// The lexer knows enough Swift to tell a comment from the inside of a string literal: `//` and
/// `///` line comments, nested `/* */` block comments, string literals with escapes and
/// interpolation, multi-line literals and raw (`#"…"#`) literals. A `//` inside a string (a URL,
/// a path) is not a comment.
enum SourceCommentScanner {
    /// One comment line: its 1-based line number and its text after the comment marker.
    struct Comment: Equatable {
        let line: Int
        let text: String
    }

    /// A comment line that points outside the repository, and the rule it breaks.
    struct Finding: CustomStringConvertible {
        let path: String
        let line: Int
        let rule: String
        let text: String

        var description: String { "\(path):\(line): \(rule): \(text.trimmingCharacters(in: .whitespaces))" }
    }

    /// The references a comment may not make: each a name and a pattern. They match the ways the
    /// project's private notes were cited (its numbered behaviour decisions and the sections of its
    /// CLI notes, its reference notes by file name, its numbered source documents, the issue
    /// tracker's numbers), none of which ships with the repository.
    static let rules: [(name: String, pattern: String)] = [
        ("a decision or section of the private spec", #"(?i)\bspec\s+(D\d+|E\b|E\.\d|§)"#),
        ("a bare decision number", #"\bD(1[0-7]|[1-9])\b"#),
        ("a numbered reference document", #"(?i)\bseed\s+\d{3}\b"#),
        ("an issue of the tracker", #"(?i)\bissue\s+#?\d+"#),
        ("a private reference note",
         #"(?i)platform[ -]facts|apple-semantics|trust-facts|import-facts|linux-source-compat|spec/README|\bseeds/|\.\./shared"#),
    ]

    /// A Markdown file named in a comment (`docs/reliability.md`, `README.md`); it must exist in
    /// the repository.
    static let markdownFile = #"[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md\b"#

    /// The repository this file is in.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift sources of the repository's own code: `Sources`, `Tests` and `Benchmarks`.
    static func swiftSources() throws -> [URL] {
        var files: [URL] = []
        for folder in ["Sources", "Tests", "Benchmarks"] {
            let root = repositoryRoot.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in walker where file.pathExtension == "swift" {
                files.append(file)
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Every finding in `text`, the contents of the file at `path` (relative to the repository).
    static func findings(in text: String, path: String) -> [Finding] {
        let patterns = rules.map { (name: $0.name, regex: try! Regex($0.pattern)) }
        let markdown = try! Regex(markdownFile)
        var found: [Finding] = []
        for comment in comments(in: text) {
            for rule in patterns where comment.text.contains(rule.regex) {
                found.append(Finding(path: path, line: comment.line, rule: rule.name, text: comment.text))
            }
            for match in comment.text.matches(of: markdown) {
                let name = String(comment.text[match.range])
                let file = repositoryRoot.appendingPathComponent(name).standardized
                let inside = file.path.hasPrefix(repositoryRoot.standardized.path + "/")
                if !inside || !FileManager.default.fileExists(atPath: file.path) {
                    found.append(Finding(
                        path: path, line: comment.line, rule: "\(name) is not a file of the repository",
                        text: comment.text))
                }
            }
        }
        return found
    }

    /// The comment lines of Swift source `text`, in order; a block comment gives one per line.
    static func comments(in text: String) -> [Comment] {
        let bytes = Array(text.utf8)
        var lexer = Lexer(bytes: bytes)
        lexer.run()
        return lexer.comments
    }

    /// Where the lexer is: in code (top level, or inside a string's `\( … )` with its depth of
    /// open parentheses), or in a string literal with its number of `#` and whether it spans lines.
    private enum Context {
        case code(parentheses: Int)
        case string(hashes: Int, multiline: Bool)
    }

    private struct Lexer {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var stack: [Context] = [.code(parentheses: 0)]
        var comments: [Comment] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        func byte(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        func startsWith(_ text: String, at offset: Int = 0) -> Bool {
            let pattern = Array(text.utf8)
            guard index + offset + pattern.count <= bytes.count else { return false }
            return Array(bytes[(index + offset)..<(index + offset + pattern.count)]) == pattern
        }

        /// The source text in `range`.
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

        /// The number of `#` from `offset` on.
        func hashes(at offset: Int) -> Int {
            var count = 0
            while byte(offset + count) == UInt8(ascii: "#") { count += 1 }
            return count
        }

        mutating func advance(_ count: Int = 1) {
            for _ in 0..<count where index < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                index += 1
            }
        }

        mutating func run() {
            while index < bytes.count {
                switch stack[stack.count - 1] {
                case .code(let parentheses): code(parentheses: parentheses)
                case .string(let hashes, let multiline): string(hashes: hashes, multiline: multiline)
                }
            }
        }

        mutating func code(parentheses: Int) {
            let interpolation = stack.count > 1
            if startsWith("//") {
                advance(2)
                let start = index
                while let next = byte(), next != UInt8(ascii: "\n") { index += 1 }
                comments.append(Comment(line: line, text: text(start..<index)))
            } else if startsWith("/*") {
                blockComment()
            } else if byte() == UInt8(ascii: "#") {
                let count = hashes(at: 0)
                if startsWith("\"\"\"", at: count) {
                    advance(count + 3)
                    stack.append(.string(hashes: count, multiline: true))
                } else if byte(count) == UInt8(ascii: "\"") {
                    advance(count + 1)
                    stack.append(.string(hashes: count, multiline: false))
                } else {
                    advance(count)
                }
            } else if startsWith("\"\"\"") {
                advance(3)
                stack.append(.string(hashes: 0, multiline: true))
            } else if byte() == UInt8(ascii: "\"") {
                advance()
                stack.append(.string(hashes: 0, multiline: false))
            } else if interpolation && byte() == UInt8(ascii: "(") {
                stack[stack.count - 1] = .code(parentheses: parentheses + 1)
                advance()
            } else if interpolation && byte() == UInt8(ascii: ")") {
                if parentheses == 0 {
                    stack.removeLast()
                } else {
                    stack[stack.count - 1] = .code(parentheses: parentheses - 1)
                }
                advance()
            } else {
                advance()
            }
        }

        /// A `/* … */` comment, which may nest; each of its lines is recorded.
        mutating func blockComment() {
            advance(2)
            var depth = 1
            var start = index
            var startLine = line
            while index < bytes.count && depth > 0 {
                if startsWith("/*") {
                    depth += 1
                    advance(2)
                } else if startsWith("*/") {
                    depth -= 1
                    if depth == 0 { break }
                    advance(2)
                } else if byte() == UInt8(ascii: "\n") {
                    comments.append(Comment(line: startLine, text: text(start..<index)))
                    advance()
                    start = index
                    startLine = line
                } else {
                    advance()
                }
            }
            comments.append(Comment(line: startLine, text: text(start..<index)))
            advance(2)
        }

        mutating func string(hashes count: Int, multiline: Bool) {
            if byte() == UInt8(ascii: "\\") {
                guard hashes(at: 1) == count else {
                    advance()
                    return
                }
                if byte(1 + count) == UInt8(ascii: "(") {
                    advance(2 + count)
                    stack.append(.code(parentheses: 0))
                } else {
                    advance(2 + count)
                }
            } else if multiline && startsWith("\"\"\"") && hashes(at: 3) >= count {
                advance(3 + count)
                stack.removeLast()
            } else if !multiline && byte() == UInt8(ascii: "\"") && hashes(at: 1) >= count {
                advance(1 + count)
                stack.removeLast()
            } else if !multiline && byte() == UInt8(ascii: "\n") {
                // An unterminated literal ends at the line's end, as the compiler reports it.
                stack.removeLast()
            } else {
                advance()
            }
        }
    }
}
