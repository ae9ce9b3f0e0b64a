import Foundation
import Testing

/// Arguments that are not UTF-8, through the built binary: a password is stored as the bytes
/// given; a value the keychain keeps as text (an attribute, a name) is refused with exit status 2,
/// and nothing is stored.
@Suite struct ByteArgumentTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    /// `p`, two bytes that are not UTF-8, `q`.
    static let password: [UInt8] = [0x70, 0xFF, 0xFE, 0x71]
    static let notText: [UInt8] = [0x6D, 0xC3, 0x28, 0xFF]

    private func run(_ words: [String], _ raw: [UInt8]...) throws -> ToolRun {
        try tool.run(rawArguments: words.map { Array($0.utf8) } + raw)
    }

    @Test("a password that is not UTF-8 is stored byte for byte (-w, attached -w, -p, internet -w)")
    func passwordsKeepTheirBytes() throws {
        #expect(try run(["add-generic-password", "-a", "one", "-s", "svc", "-w"], Self.password).status == 0)
        #expect(try run(["add-generic-password", "-a", "two", "-s", "svc"], Array("-w".utf8) + Self.password).status == 0)
        #expect(try run(["add-generic-password", "-a", "three", "-s", "svc", "-p"], Self.password).status == 0)
        #expect(try run(["add-internet-password", "-a", "four", "-s", "host", "-w"], Self.password).status == 0)
        for account in ["one", "two", "three"] {
            let shown = try tool.run("find-generic-password", "-a", account, "-s", "svc", "-w")
            #expect(shown.output == "70fffe71\n", "\(account)")
        }
        #expect(try tool.run("find-internet-password", "-a", "four", "-s", "host", "-w").output == "70fffe71\n")
        let dumped = try tool.run("find-generic-password", "-a", "one", "-s", "svc", "-g")
        #expect(dumped.error == "password: 0x70FFFE71  \"p\\377\\376q\"\n")
    }

    @Test(
        "an attribute value that is not UTF-8 is refused with exit status 2 and nothing is added",
        arguments: [
            (["add-generic-password", "-s", "svc", "-w", "pw", "-a"], "-a"),
            (["add-generic-password", "-a", "me", "-w", "pw", "-s"], "-s"),
            (["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw", "-l"], "-l"),
            (["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw", "-j"], "-j"),
            (["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw", "-D"], "-D"),
            (["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw", "-G"], "-G"),
            (["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw", "-c"], "-c"),
            (["add-internet-password", "-a", "me", "-w", "pw", "-s"], "-s"),
            (["add-internet-password", "-a", "me", "-s", "host", "-w", "pw", "-d"], "-d"),
            (["add-internet-password", "-a", "me", "-s", "host", "-w", "pw", "-p"], "-p"),
            (["add-internet-password", "-a", "me", "-s", "host", "-w", "pw", "-r"], "-r"),
        ])
    func attributesThatAreNotTextAreRefused(_ words: [String], _ option: String) throws {
        let refused = try run(words, Self.notText)
        #expect(refused.status == 2)
        #expect(refused.error.hasPrefix("security: the value of \(option) is not valid UTF-8\nUsage: \(words[0]) "))
        let itemClass = words[0] == "add-generic-password" ? "genp" : "inet"
        #expect(!(try tool.run("dump-keychain").output.contains("class: \"\(itemClass)\"")))
    }

    @Test("a keychain name or search value that is not UTF-8 is refused with exit status 2")
    func namesAndCriteriaThatAreNotTextAreRefused() throws {
        let add = try run(["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw"], Self.notText)
        #expect(add.status == 2)
        #expect(add.error.hasPrefix("security: an argument is not valid UTF-8\nUsage: add-generic-password "))
        let create = try run(["create-keychain", "-p", "pw"], Self.notText)
        #expect(create.status == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tool.home).allSatisfy { $0 != "swift-keychain" })
        #expect(try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw").status == 0)
        let find = try run(["find-generic-password", "-s", "svc", "-a"], Self.notText)
        #expect(find.status == 2)
        #expect(find.output.isEmpty)
        #expect(find.error.hasPrefix("security: the value of -a is not valid UTF-8\n"))
    }

    @Test("a keychain password that is not UTF-8 opens the keychain byte for byte")
    func keychainPasswordsKeepTheirBytes() throws {
        #expect(try run(["create-keychain", "-p"], Self.password, Array("bytes".utf8)).status == 0)
        #expect(try run(["unlock-keychain", "-p"], Self.password, Array("bytes".utf8)).status == 0)
        #expect(try run(["unlock-keychain", "-p"], [0x70, 0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD, 0x71], Array("bytes".utf8)).status == 51)
    }

    @Test("security -i keeps the bytes of its lines: passwords stored exactly, attributes refused")
    func interactiveLinesKeepTheirBytes() throws {
        let script = Array("add-generic-password -a me -s svc -w ".utf8) + Self.password + Array("\n".utf8)
            + Array("find-generic-password -a me -s svc -w\n".utf8)
            + Array("add-generic-password -s svc -w pw -a ".utf8) + Self.notText + Array("\n".utf8)
        let run = try tool.run(rawArguments: [Array("-i".utf8)], input: script)
        #expect(run.output == "70fffe71\n")
        #expect(run.error.hasPrefix("security: the value of -a is not valid UTF-8\nUsage: add-generic-password "))
        #expect(run.error.hasSuffix("add-generic-password: returned 2\n"))
        #expect(run.status == 2)
    }
}
