import Foundation

/// Finds the comments and string literals of Swift source text, and the lines of the repository's
/// other text files, that refer to documents not in the repository, so that every comment, test
/// name, test note, message and document can be read with the repository alone.
///
/// The lexer knows enough Swift to tell a comment from the inside of a string literal: `//` and
/// `///` line comments, nested `/* */` block comments, string literals with escapes and
/// interpolation, multi-line literals and raw (`#"…"#`) literals. A `//` inside a string (a URL,
/// a path) is not a comment, and a quote inside a comment does not open a string.
enum SourceCommentScanner {
    /// One line of a comment or of a string literal: its 1-based line number and its text (after
    /// the comment marker; between the quotes, without the interpolated code).
    struct Line: Equatable {
        let line: Int
        let text: String
    }

    /// A line that points outside the repository, and the rule it breaks.
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
        ("a numbered reference document", #"(?i)\bseed\s*\d{3}(?!\d)"#),
        ("an issue of the tracker", #"(?i)\bissue\s+#?\d+"#),
        ("a private reference note",
         #"(?i)platform[ -]facts|apple-semantics|trust-facts|import-facts|linux-source-compat|spec/README|\bseeds/|\.\./shared"#),
    ]

    /// A Markdown file named in a comment (`docs/reliability.md`, `README.md`); it must exist in
    /// the repository. A name built from a shell variable (`docs/$article.md`) is not one.
    static let markdownFile = #"(?<![$\w./-])[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md\b"#

    /// The rules and the Markdown pattern, compiled (ICU regular expressions: the repository's
    /// tens of thousands of lines are read in about a second).
    private static let compiledRules = rules.map { (name: $0.name, regex: try! NSRegularExpression(pattern: $0.pattern)) }
    private static let compiledMarkdownFile = try! NSRegularExpression(pattern: markdownFile)

    /// The repository this file is in.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift sources of the repository's own code: `Sources`, `Tests`, `Benchmarks` and the
    /// package manifest.
    static func swiftSources() throws -> [URL] {
        var files = [repositoryRoot.appendingPathComponent("Package.swift")]
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

    /// Folders whose files are not the project's prose: version control, build products, fuzzer
    /// inputs (bytes), and third-party test vectors kept as their authors published them.
    static let foreignFolders: Set<String> = [
        ".build", ".git", ".swiftpm", "Packages", "Tests/FuzzInputs", "Tests/TestVectors/wycheproof",
    ]

    /// Documents still being rewritten so that they no longer cite the tracker's issues their
    /// measurements were taken under. Each leaves this set once it states its rules itself (the
    /// test fails while a listed document has nothing left to find).
    static let documentsBeingRewritten: Set<String> = []

    /// The files whose string literals are the rules above and the examples that test them.
    static let ruleExamples: Set<String> = [
        "Tests/KeychainCoreTests/SourceCommentScanner.swift", "Tests/KeychainCoreTests/StandaloneCommentTests.swift",
    ]

    /// The repository's text files that are not Swift: README, documents, scripts, CI, C sources,
    /// module maps and data files, outside `foreignFolders`. A file that is not UTF-8 text (a
    /// keychain database, a DER key) is skipped.
    static func textFiles() throws -> [URL] {
        let root = repositoryRoot.standardized
        let prefix = root.path + "/"
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else {
            return []
        }
        var files: [URL] = []
        for case let file as URL in walker {
            let path = String(file.standardized.path.dropFirst(prefix.count))
            if foreignFolders.contains(path) {
                walker.skipDescendants()  // `.git` is a file in a worktree: nothing to skip then
                continue
            }
            if try file.resourceValues(forKeys: [.isDirectoryKey]).isDirectory == true { continue }
            guard file.pathExtension != "swift", let data = FileManager.default.contents(atPath: file.path),
                  !data.contains(0), String(data: data, encoding: .utf8) != nil else { continue }
            files.append(file)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Every finding in the comments of `text`, the Swift source of the file at `path` (relative to
    /// the repository).
    static func findings(in text: String, path: String) -> [Finding] {
        references(in: comments(in: text), path: path)
    }

    /// Every finding in the string literals of `text`, the Swift source of the file at `path`: test
    /// names, the notes of expectations and issues, messages.
    static func literalFindings(in text: String, path: String) -> [Finding] {
        references(in: literals(in: text), path: path)
    }

    /// Every finding in `text`, the contents of the text file at `path` that is not Swift, line by
    /// line.
    static func textFindings(in text: String, path: String) -> [Finding] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return references(in: lines.enumerated().map { Line(line: $0.offset + 1, text: String($0.element)) }, path: path)
    }

    /// The references `lines` of the file at `path` make to documents outside the repository: each
    /// match of a rule, and each Markdown file named that is neither at that path from the
    /// repository's root nor from the file's own folder (a link between two documents).
    static func references(in lines: [Line], path: String) -> [Finding] {
        let root = repositoryRoot.standardized
        let folder = root.appendingPathComponent(path).deletingLastPathComponent()
        var found: [Finding] = []
        for line in lines {
            let text = line.text as NSString
            let whole = NSRange(location: 0, length: text.length)
            for rule in compiledRules where rule.regex.firstMatch(in: line.text, range: whole) != nil {
                found.append(Finding(path: path, line: line.line, rule: rule.name, text: line.text))
            }
            for match in compiledMarkdownFile.matches(in: line.text, range: whole) {
                let name = text.substring(with: match.range)
                let exists = [root, folder].contains { base in
                    let file = base.appendingPathComponent(name).standardized
                    return file.path.hasPrefix(root.path + "/") && FileManager.default.fileExists(atPath: file.path)
                }
                if !exists {
                    found.append(Finding(
                        path: path, line: line.line, rule: "\(name) is not a file of the repository", text: line.text))
                }
            }
        }
        return found
    }

    /// The comment lines of Swift source `text`, in order; a block comment gives one per line.
    static func comments(in text: String) -> [Line] {
        var lexer = Lexer(bytes: Array(text.utf8))
        lexer.run()
        return lexer.comments
    }

    /// The string literal lines of Swift source `text`, in order: a multi-line literal gives one
    /// per line, and an interpolation splits a line into the text before and after it (the
    /// interpolated code's own literals come in between). Empty pieces are left out.
    static func literals(in text: String) -> [Line] {
        var lexer = Lexer(bytes: Array(text.utf8))
        lexer.run()
        return lexer.literals
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
        var comments: [Line] = []
        var literals: [Line] = []
        /// Where the piece of string literal being read began (its byte and its line).
        var literalStart = 0
        var literalLine = 1

        init(bytes: [UInt8]) { self.bytes = bytes }

        func byte(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        func startsWith(_ text: StaticString, at offset: Int = 0) -> Bool {
            let start = index + offset
            guard start + text.utf8CodeUnitCount <= bytes.count else { return false }
            return text.withUTF8Buffer { pattern in pattern.indices.allSatisfy { bytes[start + $0] == pattern[$0] } }
        }

        /// The source text in `range`.
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

        /// The number of `#` from `offset` on.
        func hashes(at offset: Int) -> Int {
            var count = 0
            while byte(offset + count) == UInt8(ascii: "#") { count += 1 }
            return count
        }

        /// The literal piece read so far starts here.
        mutating func beginLiteral() {
            literalStart = index
            literalLine = line
        }

        /// The literal piece from its start to here is complete; a piece of only white space (the
        /// indentation before a multi-line literal's closing quotes) is not recorded.
        mutating func endLiteral() {
            let piece = text(literalStart..<index)
            if !piece.allSatisfy(\.isWhitespace) { literals.append(Line(line: literalLine, text: piece)) }
        }

        /// The bytes that may start or end a comment, a literal, an escape, an interpolation or a
        /// line (`/ # " \ ( ) newline`).
        let significant: Set<UInt8> = Set("/#\"\\()\n".utf8)

        mutating func advance(_ count: Int = 1) {
            for _ in 0..<count where index < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                index += 1
            }
        }

        mutating func run() {
            while index < bytes.count {
                // Most bytes start nothing: they are passed over without a closer look.
                if !significant.contains(bytes[index]) {
                    index += 1
                    continue
                }
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
                comments.append(Line(line: line, text: text(start..<index)))
            } else if startsWith("/*") {
                blockComment()
            } else if byte() == UInt8(ascii: "#") {
                let count = hashes(at: 0)
                if startsWith("\"\"\"", at: count) {
                    advance(count + 3)
                    stack.append(.string(hashes: count, multiline: true))
                    beginLiteral()
                } else if byte(count) == UInt8(ascii: "\"") {
                    advance(count + 1)
                    stack.append(.string(hashes: count, multiline: false))
                    beginLiteral()
                } else {
                    advance(count)
                }
            } else if startsWith("\"\"\"") {
                advance(3)
                stack.append(.string(hashes: 0, multiline: true))
                beginLiteral()
            } else if byte() == UInt8(ascii: "\"") {
                advance()
                stack.append(.string(hashes: 0, multiline: false))
                beginLiteral()
            } else if interpolation && byte() == UInt8(ascii: "(") {
                stack[stack.count - 1] = .code(parentheses: parentheses + 1)
                advance()
            } else if interpolation && byte() == UInt8(ascii: ")") {
                if parentheses == 0 {
                    stack.removeLast()
                    advance()
                    beginLiteral()
                } else {
                    stack[stack.count - 1] = .code(parentheses: parentheses - 1)
                    advance()
                }
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
                    comments.append(Line(line: startLine, text: text(start..<index)))
                    advance()
                    start = index
                    startLine = line
                } else {
                    advance()
                }
            }
            comments.append(Line(line: startLine, text: text(start..<index)))
            advance(2)
        }

        mutating func string(hashes count: Int, multiline: Bool) {
            if byte() == UInt8(ascii: "\\") {
                guard hashes(at: 1) == count else {
                    advance()
                    return
                }
                if byte(1 + count) == UInt8(ascii: "(") {
                    endLiteral()
                    advance(2 + count)
                    stack.append(.code(parentheses: 0))
                } else {
                    advance(2 + count)
                }
            } else if multiline && startsWith("\"\"\"") && hashes(at: 3) >= count {
                endLiteral()
                advance(3 + count)
                stack.removeLast()
            } else if !multiline && byte() == UInt8(ascii: "\"") && hashes(at: 1) >= count {
                endLiteral()
                advance(1 + count)
                stack.removeLast()
            } else if !multiline && byte() == UInt8(ascii: "\n") {
                // An unterminated literal ends at the line's end, as the compiler reports it.
                endLiteral()
                stack.removeLast()
            } else if byte() == UInt8(ascii: "\n") {
                endLiteral()
                advance()
                beginLiteral()
            } else {
                advance()
            }
        }
    }
}
