import Foundation
import Testing

@testable import KeychainCore

@Suite("Apple short names are spelled only by the catalog, the record codec, the constants and the dictionary decoder")
struct ShortNameLiteralTests {
    static let names: Set<String> = {
        let constants = try! String(
            contentsOf: ShortNameLiteralScanner.repositoryRoot.appendingPathComponent("Sources/Security/SecItemConstants.swift"),
            encoding: .utf8)
        return ShortNameLiteralScanner.shortNames(constants: constants)
    }()

    @Test("No Swift file in Sources uses an attribute's or a request key's short name as a key outside the allowed files")
    func sourcesUseDescriptors() throws {
        let findings = try ShortNameLiteralScanner.findingsInSources()
        #expect(findings.isEmpty, "short names used as keys:\n\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test("The short names are the catalog's and the request keys of SecItemConstants.swift, not the values of attributes")
    func shortNameList() {
        for name in ["agrp", "pdmn", "svce", "acct", "labl", "accc", "sync", "tomb", "musr", "class", "m_Limit", "r_Data",
            "r_Attributes", "r_Ref", "r_PersistentRef", "v_Data", "v_Ref", "v_PersistentRef", "u_AuthUI", "nleg"]
        {
            #expect(Self.names.contains(name), "\(name)")
        }
        for value in ["genp", "keys", "htps", "dflt", "ak", "42", "com.apple.setoken", "passphrase"] {
            #expect(!Self.names.contains(value), "\(value)")
        }
    }

    @Test("A short name is found in each key form: subscript, dictionary key, case pattern, comparison, call argument, name list")
    func keyForms() {
        let source = """
            let a = attributes["agrp"]
            request.attributes = ["svce": .string("x"), "acct": .string("y")]
            switch name { case "kcls", "type": break; default: break }
            if attribute.name != "sync" {}
            if "m_Limit" == key {}
            _ = attributes.removeValue(forKey: "accc")
            _ = AttributeCatalog.attribute(named: "pdmn")
            guard let type = value("type") else {}
            entries.append("v_Data", secret)
            let side: Set<String> = ["labl", "alis", "issr"]
            print("\\(attributes["klbl"])")
            """
        let found = ShortNameLiteralScanner.findings(in: source, path: "sample", names: Self.names)
        #expect(found.map(\.name) == [
            "agrp", "svce", "acct", "kcls", "type", "sync", "m_Limit", "accc", "pdmn", "type", "v_Data", "labl", "alis", "issr",
            "klbl",
        ])
        #expect(found.map(\.line) == [1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 11])
    }

    @Test("Ordinary words, comments, messages and literals that only contain a short name are not findings")
    func ordinaryText() {
        let source = #"""
            let name = baseID == EVP_PKEY_RSA ? "d" : "priv"
            static let typeNames: Set = ["pub", "priv", "session", "cert", "agg"]
            // request.attributes["agrp"] = x
            /* ["svce": x] */
            let aad = Data("agrp-name v2".utf8)
            let token = Data("agrp\u{0}\(group)".utf8)
            throw KeychainError.param("the path is wrong")
            let help = """
                attributes["agrp"]
                """
            let raw = #"["acct": 1]"#
            let value = "type"
            """#
        #expect(ShortNameLiteralScanner.findings(in: source, path: "sample", names: Self.names).isEmpty)
    }
}
