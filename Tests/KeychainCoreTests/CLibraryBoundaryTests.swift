import Foundation
import Testing

/// Each C library is imported by one place in the library's sources: SQLite by the
/// `KeychainSQLite` module, OpenSSL by the `KeychainCrypto` module, the TPM's TSS by the
/// `KeychainHardware` module, which only the engine (`KeychainCore`) imports, and libpq by the
/// `KeychainSync` module. Swift lets any module of the package import a C module its dependencies
/// use, so the boundary is checked here.
@Suite("C libraries are imported behind their one wrapper")
struct CLibraryBoundaryTests {
    /// Where each C module may be imported, as path prefixes under `Sources/`.
    static let allowed: [String: [String]] = [
        "CSQLite": ["Sources/KeychainSQLite/"],
        "COpenSSL": ["Sources/KeychainCrypto/"],
        "CTSS2": ["Sources/KeychainHardware/"],
        "KeychainHardware": ["Sources/KeychainCore/"],
        "CLibPQ": ["Sources/KeychainSync/"],
    ]

    /// The files under `Sources/` importing `module`, as paths from the repository root.
    static func importers(of module: String, in files: [(path: String, text: String)]) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:\\w+\\s+)?import\\s+\(module)\\b", options: [.anchorsMatchLines])
        return files.filter { file in
            pattern.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
        }.map(\.path)
    }

    static func librarySources() throws -> [(path: String, text: String)] {
        let root = SourceCommentScanner.repositoryRoot.standardized
        return try SourceCommentScanner.swiftSources().compactMap { url in
            let path = url.standardized.path.replacingOccurrences(of: root.path + "/", with: "")
            guard path.hasPrefix("Sources/") else { return nil }
            return (path, try String(contentsOf: url, encoding: .utf8))
        }
    }

    @Test("SQLite, OpenSSL and the TPM library are each imported only by their wrapper, the TPM wrapper only by the engine")
    func importsStayBehindWrappers() throws {
        let files = try Self.librarySources()
        #expect(files.count > 100)
        for (module, prefixes) in Self.allowed {
            let importers = Self.importers(of: module, in: files)
            #expect(!importers.isEmpty, "no file imports \(module): the check would pass vacuously")
            let outside = importers.filter { path in !prefixes.contains { path.hasPrefix($0) } }
            #expect(outside.isEmpty, "\(module) imported outside its wrapper: \(outside)")
        }
    }

    @Test("the import rule sees the spellings Swift accepts")
    func recognisesImportForms() {
        let files = [
            ("a", "import CSQLite\n"), ("b", "internal import CSQLite\n"), ("c", "@preconcurrency import CSQLite\n"),
            ("d", "@_implementationOnly import CSQLite\n"), ("e", "// import CSQLite\n"), ("f", "import CSQLiteExtras\n"),
        ].map { (path: $0.0, text: $0.1) }
        #expect(Self.importers(of: "CSQLite", in: files) == ["a", "b", "c", "d"])
    }
}
