import Foundation
import Testing

/// Command lines that name nothing sensible get a clear usage error (exit status 2) or a clear
/// message, and change nothing, through the built binary.
@Suite struct BadInputTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    private var keychainDirectory: String { tool.home + "/swift-keychain" }

    @Test("create-keychain refuses an empty name (or a path ending in /) and creates nothing")
    func createKeychainRefusesAnEmptyName() throws {
        for names in [[""], ["good", ""], ["dir/"]] {
            let run = try tool.run(arguments: ["create-keychain", "-p", "x"] + names)
            #expect(run.status == 2, "\(names)")
            #expect(run.error.hasPrefix("security: a keychain name cannot be empty\nUsage: create-keychain "))
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: keychainDirectory)) ?? []
        #expect(!files.contains { $0.hasPrefix(".") || $0.hasPrefix("good") }, "\(files)")
        #expect(!FileManager.default.fileExists(atPath: tool.home + "/dir"))
        #expect(try tool.run("list-keychains").output == "    \"\(keychainDirectory)/login.keychain-db\"\n")
    }

    @Test("import of a directory says it is a directory")
    func importOfADirectorySaysSo() throws {
        try FileManager.default.createDirectory(atPath: tool.home + "/certificates", withIntermediateDirectories: true)
        let run = try tool.run("import", "certificates")
        #expect(run.status == 1)
        #expect(run.error == "security: certificates: Is a directory\n")
        let missing = try tool.run("import", "missing.pem")
        #expect(missing.error == "security: missing.pem: No such file or directory\n")
    }

    @Test("import refuses -f and -t names macOS does not know, and accepts those it does")
    func importRefusesUnknownFormatsAndTypes() throws {
        let format = try tool.run("import", "missing.pem", "-f", "bogus")
        #expect(format.status == 2)
        #expect(format.error.hasPrefix("security: unknown import format \"bogus\"\nUsage: import inputfile "))
        let type = try tool.run("import", "missing.pem", "-t", "bogus", "-f", "x509")
        #expect(type.status == 2)
        #expect(type.error.hasPrefix("security: unknown import type \"bogus\"\nUsage: import inputfile "))
        for (type, format) in [("cert", "x509"), ("agg", "pkcs12"), ("priv", "openssl"), ("pub", "pemseq"), ("session", "raw")] {
            let accepted = try tool.run("import", "missing.pem", "-t", type, "-f", format)
            #expect(accepted.status == 1, "-t \(type) -f \(format): \(accepted.error)")
            #expect(accepted.error == "security: missing.pem: No such file or directory\n")
        }
    }

    @Test("error refuses a code that does not fit in 32 bits instead of truncating it")
    func errorRefusesCodesOutOfRange() throws {
        for code in ["-99999999999", "4294967296", "-2147483649", "0x100000000", "99999999999999999999999"] {
            let run = try tool.run("error", code)
            #expect(run.status == 2, "\(code)")
            #expect(run.output.isEmpty)
            #expect(run.error.hasPrefix("security: error: \"\(code)\" is out of range (codes are 32-bit: -2147483648 through 4294967295)\n"))
        }
        let edges = try tool.run("error", "4294967295", "-2147483648")
        #expect(edges.status == 1)
        #expect(edges.output.hasPrefix("Error: 0xFFFFFFFF -1 "))
        #expect(edges.output.contains("\nError: 0x80000000 -2147483648 "))
    }
}
