import Foundation
import Testing

/// Every comment in the repository's Swift sources states its rule itself: none points at a
/// document that does not ship with the repository. Files of the repository (`README.md`,
/// `docs/reliability.md`) may be named.
@Suite("Comments stand alone")
struct StandaloneCommentTests {
    @Test("No comment in Sources, Tests or Benchmarks refers to a document outside the repository")
    func noOutsideReferences() throws {
        let files = try SourceCommentScanner.swiftSources()
        // The repository was found: its sources are there (a wrong root would find nothing).
        #expect(files.count > 200)
        var comments = 0
        var findings: [SourceCommentScanner.Finding] = []
        let root = SourceCommentScanner.repositoryRoot.standardized.path + "/"
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let path = String(file.standardized.path.dropFirst(root.count))
            comments += SourceCommentScanner.comments(in: text).count
            findings += SourceCommentScanner.findings(in: text, path: path)
        }
        #expect(comments > 2_000)
        let list = findings.map(\.description).joined(separator: "\n")
        #expect(findings.isEmpty, "\(findings.count) comments refer outside the repository:\n\(list)")
    }

    @Test("Each rule catches the reference it names, in line and block comments")
    func rulesCatchReferences() {
        let source = """
            /// Searches match both kinds (spec D4).
            // any other search key is refused (D11)
            let a = 1  // seed 000, "Identity"
            /* as issue 2 stored it */
            /// Apple's statuses (apple-semantics §8.5); platform facts A.3; see ../shared/spec/README.md
            /// The wrapper from keychain-fundamentals.md.
            /// macOS's getopt strings (spec E.2).
            """
        let findings = SourceCommentScanner.findings(in: source, path: "Example.swift")
        let spec = "a decision or section of the private spec", decision = "a bare decision number"
        let note = "a private reference note"
        #expect(findings.map { "\($0.line) \($0.rule)" } == [
            "1 \(spec)", "1 \(decision)", "2 \(decision)", "3 a numbered reference document",
            "4 an issue of the tracker", "5 \(note)", "5 ../shared/spec/README.md is not a file of the repository",
            "6 keychain-fundamentals.md is not a file of the repository", "7 \(spec)",
        ])
    }

    @Test("Comments that stand alone, and text in string literals, are not findings")
    func allowedText() {
        let source = #"""
            /// Rollback and removal (docs/reliability.md §4; README.md). Records an issue unless
            /// every item reads back. The seed is printed; `KEYCHAIN_CRASH_SEED` replays it.
            /// ANSI X9.63 (SEC 1 §3.6.1); the certificate's issuer; P-256 and SHA-256.
            let url = "https://example.com/spec D4 // seed 000"
            let raw = #"a "quoted" // issue 2 "#
            let interpolated = "\(value("// seed 001")) // apple-semantics"
            let block = """
                // spec D1 inside a multi-line literal
                """
            """#
        #expect(SourceCommentScanner.findings(in: source, path: "Example.swift").isEmpty)
    }

    @Test("The lexer finds each comment's line and text, and none inside strings")
    func lexer() {
        let source = #"""
            let a = "// not a comment" // one
            /* two
               three */ let b = #"\(x) "// still a string" "#
            let c = "\(f("/* not */")) /// nor this" /// four
            """#
        let comments = SourceCommentScanner.comments(in: source)
        #expect(comments == [
            .init(line: 1, text: " one"), .init(line: 2, text: " two"), .init(line: 3, text: "   three "),
            .init(line: 4, text: "/ four"),
        ])
    }
}
