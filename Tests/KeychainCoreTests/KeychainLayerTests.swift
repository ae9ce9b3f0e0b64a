import Foundation
import Testing

/// `Keychain` keeps the lifecycle and the four operations; the store below it owns the database
/// connection, sealing and its randomness, the ledger and the group registry. The `Keychain`
/// type's files therefore name none of those: the check reads them, since within one module the
/// compiler would let them.
@Suite("Keychain works through the store")
struct KeychainLayerTests {
    /// Names that belong to the store's side of the boundary.
    static let storeOnly = ["SQLiteConnection", "import KeychainSQLite", "ItemSealer", "sealer", "RandomDraw"]

    /// Each `(file, name)` where one of `storeOnly` appears outside comments in `files`.
    static func crossings(in files: [(path: String, text: String)]) -> [String] {
        files.flatMap { file in
            let code = file.text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
            }.joined(separator: "\n")
            return storeOnly.filter { name in
                code.range(of: "\\b\(NSRegularExpression.escapedPattern(for: name))\\b", options: .regularExpression) != nil
            }.map { "\(file.path): \($0)" }
        }
    }

    @Test("the Keychain type's files name no connection, sealer or generator")
    func keychainNamesNothingOfTheStore() throws {
        let files = try CLibraryBoundaryTests.librarySources().filter { file in
            let name = (file.path as NSString).lastPathComponent
            return file.path.hasPrefix("Sources/KeychainCore/") && (name == "Keychain.swift" || name.hasPrefix("Keychain+"))
        }
        #expect(files.count >= 8, "the Keychain type's files were not found: the check would pass vacuously")
        #expect(Self.crossings(in: files).isEmpty, "\(Self.crossings(in: files))")
    }

    @Test("the layer rule finds a store name in code and not in comments")
    func ruleSeesCodeOnly() {
        let files = [
            ("a", "let s = store.sealer.open(row)\n"), ("b", "var r = try RandomDraw(count: 1)\n"),
            ("c", "// the sealer opens rows\n"), ("d", "let sealerless = 1\n"),
        ].map { (path: $0.0, text: $0.1) }
        #expect(Self.crossings(in: files) == ["a: sealer", "b: RandomDraw"])
    }
}
