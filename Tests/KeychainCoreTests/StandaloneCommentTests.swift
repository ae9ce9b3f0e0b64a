import Foundation
import Testing

/// Every comment, test name, test note and message in the repository's Swift sources, and every
/// line of its other text files, states its rule itself: none points at a document that does not
/// ship with the repository. Files of the repository (`README.md`, `docs/reliability.md`) may be
/// named.
@Suite("Comments, test names and documents stand alone")
struct StandaloneCommentTests {
    @Test("No comment in Sources, Tests, Benchmarks or the package manifest refers to a document outside the repository")
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

    @Test("No test name, test note or other string literal in the Swift sources refers to a document outside the repository")
    func noOutsideReferencesInStrings() throws {
        let files = try SourceCommentScanner.swiftSources()
        #expect(files.count > 200)
        var literals = 0, testNames = 0
        var findings: [SourceCommentScanner.Finding] = []
        let root = SourceCommentScanner.repositoryRoot.standardized.path + "/"
        for file in files {
            let path = String(file.standardized.path.dropFirst(root.count))
            guard !SourceCommentScanner.ruleExamples.contains(path) else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            literals += SourceCommentScanner.literals(in: text).count
            testNames += text.components(separatedBy: "@Test(").count - 1
            findings += SourceCommentScanner.literalFindings(in: text, path: path)
        }
        // The literals were read: the test names among them, and many more.
        #expect(testNames > 300)
        #expect(literals > 5_000)
        let list = findings.map(\.description).joined(separator: "\n")
        #expect(findings.isEmpty, "\(findings.count) string literals refer outside the repository:\n\(list)")
    }

    @Test("No other text file (README, documents, scripts, CI, C sources, data) refers to a document outside the repository")
    func noOutsideReferencesInText() throws {
        let files = try SourceCommentScanner.textFiles()
        let root = SourceCommentScanner.repositoryRoot.standardized.path + "/"
        let paths = Set(files.map { String($0.standardized.path.dropFirst(root.count)) })
        // The walk found the project's prose and scripts, and kept out what is not its own.
        #expect(paths.isSuperset(of: ["README.md", ".ci/run", "scripts/fuzz", "scripts/data/SecBase-errors.tsv",
                                      "docs/security-design.md", "Tests/PowerLossVFS/PowerLossVFS.c"]))
        #expect(!paths.contains { $0.hasPrefix(".build/") || $0.hasPrefix("Tests/FuzzInputs/") || $0.hasSuffix(".swift") })
        var findings: [SourceCommentScanner.Finding] = []
        for file in files {
            let path = String(file.standardized.path.dropFirst(root.count))
            let found = SourceCommentScanner.textFindings(in: try String(contentsOf: file, encoding: .utf8), path: path)
            if SourceCommentScanner.documentsBeingRewritten.contains(path) {
                #expect(!found.isEmpty, "\(path) no longer refers outside the repository: take it off documentsBeingRewritten")
            } else {
                findings += found
            }
        }
        #expect(SourceCommentScanner.documentsBeingRewritten.isSubset(of: paths))
        let list = findings.map(\.description).joined(separator: "\n")
        #expect(findings.isEmpty, "\(findings.count) lines refer outside the repository:\n\(list)")
    }

    @Test("Each rule catches the reference it names in string literals: test names, notes, interpolations, multi-line text")
    func rulesCatchReferencesInStrings() {
        let source = #"""
            @Test("Synchronizable items cannot be fetched by persistent reference (seed 000)")
            @Suite("Access groups (D15)")
            #expect(status == errSecParam, "spec D4: searches see both kinds, as \(name) in issue 2")
            let snippet = Seed003()  // the type name is code, not text
            let note = """
                copied from Seed004Snippets and keychain-fundamentals.md
                """
            let raw = #"as ../shared/spec/README.md says"#
            """#
        let findings = SourceCommentScanner.literalFindings(in: source, path: "Example.swift")
        let spec = "a decision or section of the private spec", decision = "a bare decision number"
        let seed = "a numbered reference document", note = "a private reference note"
        #expect(findings.map { "\($0.line) \($0.rule)" } == [
            "1 \(seed)", "2 \(decision)", "3 \(spec)", "3 \(decision)", "3 an issue of the tracker",
            "6 \(seed)", "6 keychain-fundamentals.md is not a file of the repository",
            "8 \(note)", "8 ../shared/spec/README.md is not a file of the repository",
        ])
    }

    @Test("Strings that state their rule, and references in comments, are not string-literal findings")
    func allowedStrings() {
        let source = #"""
            @Test("Synchronizable items cannot be fetched by persistent reference") // seed 000
            #expect(count == 1, "the seed is printed; KEYCHAIN_CRASH_SEED replays run \(seed), as seed 123456 did")
            let path = "docs/reliability.md and README.md, Tests/TestVectors/README.md"
            /* "spec D4" inside a block comment */
            """#
        #expect(SourceCommentScanner.literalFindings(in: source, path: "Example.swift").isEmpty)
    }

    @Test("In a text file every line is read, a Markdown link resolves from the root or the file's folder, and a name built from a shell variable is not a link")
    func textFiles() {
        let text = """
            # Security design
            See [Reliability, §4](reliability.md#4-tamper-evidence) and docs/porting-from-apple-platforms.md.
            Decided in issue 6 (spec D13); seed 004 says so.
            [notes](keychain-fundamentals.md)
            sed -e "s#x#y#" "docs/$article.md" >"$work/Security.docc/$article.md"
            """
        let findings = SourceCommentScanner.textFindings(in: text, path: "docs/security-design.md")
        #expect(findings.map { "\($0.line) \($0.rule)" } == [
            "3 a decision or section of the private spec", "3 a bare decision number", "3 a numbered reference document",
            "3 an issue of the tracker", "4 keychain-fundamentals.md is not a file of the repository",
        ])
        // From another folder the same link does not resolve.
        #expect(SourceCommentScanner.textFindings(in: "(reliability.md)", path: "scripts/fuzz").count == 1)
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

    @Test("The lexer finds each string literal's lines and text, split around interpolations, and none inside comments")
    func literalLexer() {
        let source = #"""
            let a = "one" // "not a literal"
            /* "nor this" */ let b = #"two \(x) "quoted" "#
            let c = "three \(f("four")) five"
            let d = """
                six
                  seven \n
                """
            """#
        #expect(SourceCommentScanner.literals(in: source) == [
            .init(line: 1, text: "one"), .init(line: 2, text: #"two \(x) "quoted" "#), .init(line: 3, text: "three "),
            .init(line: 3, text: "four"), .init(line: 3, text: " five"), .init(line: 5, text: "    six"),
            .init(line: 6, text: #"      seven \n"#),
        ])
    }
}
