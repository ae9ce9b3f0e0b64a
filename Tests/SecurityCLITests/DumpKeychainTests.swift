import Foundation
import KeychainCore
import Testing

/// `dump-keychain` and keychain arguments, through the built binary.
@Suite struct DumpKeychainTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    @Test func dumpListsEveryPasswordWithoutSecrets() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "generic-secret")
        _ = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-w", "internet-secret")
        let run = try tool.run("dump-keychain")
        #expect(run.status == 0)
        #expect(run.error.isEmpty)
        let blocks = run.output.components(separatedBy: "keychain: ").filter { !$0.isEmpty }
        #expect(blocks.count == 2)
        #expect(blocks[0].hasPrefix("\"\(tool.defaultKeychainPath)\"\nversion: 512\nclass: \"genp\"\nattributes:\n"))
        #expect(blocks[1].hasPrefix("\"\(tool.defaultKeychainPath)\"\nversion: 512\nclass: \"inet\"\nattributes:\n"))
        #expect(!run.output.contains("secret"))
        #expect(!run.output.contains("data:"))
    }

    @Test func dumpWithDShowsEachSecretAfterADataLine() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "generic-secret")
        _ = try tool.run("add-generic-password", "-a", "bin", "-s", "svc", "-X", "0001")
        let run = try tool.run("dump-keychain", "-d")
        #expect(run.status == 0)
        #expect(run.output.contains("    \"type\"<uint32>=<NULL>\ndata:\n\"generic-secret\"\nkeychain: "))
        #expect(run.output.hasSuffix("    \"type\"<uint32>=<NULL>\ndata:\n0x0001 \n"))
    }

    @Test func dumpShowsOtherItemClasses() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw")
        try tool.withKeychainInProcess(tool.defaultKeychainPath) {
            let keychain = try Keychain.open(path: tool.defaultKeychainPath, create: false)
            let context = AccessContext(accessGroups: ["test"])
            var certificate = ItemRequest(itemClass: .certificate)
            certificate.attributes = [
                "ctyp": .integer(1), "cenc": .integer(3), "labl": .string("My Cert"),
                "issr": .data(Data([0x30, 0x00])), "slnr": .data(Data([0x01])), "subj": .data(Data([0x30, 0x00])),
            ]
            certificate.secret = Data([0x30, 0x03, 0x02, 0x01, 0x01])
            _ = try keychain.add(certificate, context: context)
            var key = ItemRequest(itemClass: .key)
            key.attributes = ["kcls": .integer(1), "type": .integer(42), "bsiz": .integer(2048), "labl": .string("My Key")]
            key.secret = Data([0xAA])
            _ = try keychain.add(key, context: context)
        }

        let run = try tool.run("dump-keychain")
        #expect(run.status == 0)
        #expect(run.output.contains("class: 0x80001000 \nattributes:\n    \"alis\"<blob>=<NULL>\n    \"cenc\"<uint32>=0x00000003 \n"))
        #expect(run.output.contains("    \"labl\"<blob>=\"My Cert\"\n"))
        #expect(run.output.contains("    \"snbr\"<blob>=0x01 \n"))
        #expect(run.output.contains("class: 0x00000010 \nattributes:\n    0x00000000 <uint32>=0x00000001 \n    0x00000001 <blob>=\"My Key\"\n"))
        // 0x2A is "*": a value with printable bytes also shows its quoted form.
        #expect(run.output.contains("    0x00000009 <uint32>=0x0000002A  \"\\000\\000\\000*\"\n    0x0000000A <uint32>=0x00000800 \n"))
        #expect(!run.output.contains("data:"))
    }

    @Test func dumpWithAReportsNoAccessControlLists() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw")
        let run = try tool.run("dump-keychain", "-a")
        #expect(run.output.hasSuffix("    \"type\"<uint32>=<NULL>\nno access control for this item\n"))
    }

    @Test func dumpWithOWritesAPrivateFile() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw")
        let file = tool.home + "/dump.txt"
        let run = try tool.run("dump-keychain", "-d", "-o", file)
        #expect(run.status == 0)
        #expect(run.output.isEmpty)
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.hasSuffix("data:\n\"pw\"\n"))
        let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test func rawDataIsNotImplemented() throws {
        let run = try tool.run("dump-keychain", "-r")
        #expect(run.status == 252)
        #expect(run.error == "security: dump-keychain: -r: Function or operation not implemented.\n")
    }

    @Test func emptyKeychainDumpsNothing() throws {
        let run = try tool.run("dump-keychain")
        #expect(run.status == 0)
        #expect(run.output.isEmpty)
    }

    @Test func aNamedKeychainIsUsed() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw")
        let byPath = try tool.run("find-generic-password", "-a", "me", "-w", tool.defaultKeychainPath)
        #expect(byPath.output == "pw\n")
        let byName = try tool.run("find-generic-password", "-a", "me", "-w", "login")
        #expect(byName.output == "pw\n")
        let relative = try tool.run("dump-keychain", "swift-keychain/login.keychain-db")
        #expect(relative.output.hasPrefix("keychain: \"\(tool.defaultKeychainPath)\"\n"))
    }

    @Test(arguments: [
        ["find-generic-password", "-a", "me"], ["delete-generic-password", "-a", "me"],
        ["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw"], ["dump-keychain"],
        ["find-internet-password", "-s", "host"],
    ])
    func aMissingKeychainExitsWith50(_ command: [String]) throws {
        let run = try tool.run(arguments: command + ["/nonexistent/missing.keychain-db"])
        #expect(run.status == 50)
        #expect(
            run.error
                == "security: SecKeychainOpen /nonexistent/missing.keychain-db: The specified keychain could not be found.\n")
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent/missing.keychain-db"))
    }

    @Test func addTakesAtMostOneKeychain() throws {
        let run = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw", "login", "login")
        #expect(run.status == 2)
    }
}
