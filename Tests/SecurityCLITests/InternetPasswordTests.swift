import Foundation
import Testing

/// `add-`, `find-` and `delete-internet-password`, through the built binary.
@Suite struct InternetPasswordTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    @Test func protocolPortAndPathRoundTrip() throws {
        let add = try tool.run(
            "add-internet-password", "-a", "me", "-s", "example.com", "-r", "htps", "-P", "443", "-p", "/login",
            "-d", "realm", "-w", "secret")
        #expect(add.status == 0)
        #expect(add.error.isEmpty)

        let find = try tool.run("find-internet-password", "-s", "example.com", "-r", "htps", "-P", "443", "-p", "/login", "-g")
        #expect(find.status == 0)
        #expect(find.error == "password: \"secret\"\n")
        let lines = find.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 24)
        #expect(Array(lines[0...3]) == ["keychain: \"\(tool.defaultKeychainPath)\"", "version: 512", "class: \"inet\"", "attributes:"])
        let expected = [
            "    0x00000007 <blob>=\"example.com\"", "    0x00000008 <blob>=<NULL>", "    \"acct\"<blob>=\"me\"",
            "    \"atyp\"<blob>=\"dflt\"", "    \"cdat\"<timedate>=", "    \"crtr\"<uint32>=<NULL>",
            "    \"cusi\"<sint32>=<NULL>", "    \"desc\"<blob>=<NULL>", "    \"icmt\"<blob>=<NULL>",
            "    \"invi\"<sint32>=<NULL>", "    \"mdat\"<timedate>=", "    \"nega\"<sint32>=<NULL>",
            "    \"path\"<blob>=\"/login\"", "    \"port\"<uint32>=0x000001BB ", "    \"prot\"<blob>=<NULL>",
            "    \"ptcl\"<uint32>=\"htps\"", "    \"scrp\"<sint32>=<NULL>", "    \"sdmn\"<blob>=\"realm\"",
            "    \"srvr\"<blob>=\"example.com\"", "    \"type\"<uint32>=<NULL>",
        ]
        for (offset, prefix) in expected.enumerated() {
            let line = lines[4 + offset]
            #expect(prefix.hasSuffix("=") ? line.hasPrefix(prefix) : line == prefix, "line \(4 + offset): \(line)")
        }
    }

    @Test func findMatchesOnEachInternetAttribute() throws {
        _ = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-r", "http", "-P", "80", "-w", "plain")
        _ = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-r", "htps", "-P", "443", "-w", "tls")
        #expect(try tool.run("find-internet-password", "-s", "host", "-r", "htps", "-w").output == "tls\n")
        #expect(try tool.run("find-internet-password", "-s", "host", "-P", "80", "-w").output == "plain\n")
        #expect(try tool.run("find-internet-password", "-s", "host", "-t", "dflt", "-P", "443", "-w").output == "tls\n")
        #expect(try tool.run("find-internet-password", "-s", "host", "-r", "ftp ", "-w").status == 44)
        #expect(try tool.run("find-internet-password", "-s", "other", "-w").status == 44)
    }

    @Test func unspecifiedPortAndProtocolPrintAsZero() throws {
        _ = try tool.run("add-internet-password", "-a", "me", "-s", "bare", "-w", "x")
        let run = try tool.run("find-internet-password", "-s", "bare")
        #expect(run.output.contains("    \"port\"<uint32>=0x00000000 \n"))
        #expect(run.output.contains("    \"ptcl\"<uint32>=0x00000000 \n"))
        #expect(run.output.contains("    \"path\"<blob>=<NULL>\n"))
        #expect(run.output.contains("    \"sdmn\"<blob>=<NULL>\n"))
    }

    @Test func duplicateInternetPasswordNamesItsAPI() throws {
        _ = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-w", "1")
        let run = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-w", "2")
        #expect(run.status == 45)
        #expect(run.error == "security: SecKeychainAddInternetPassword <NULL>: The specified item already exists in the keychain.\n")
    }

    @Test func samePrimaryKeyWithAnotherPathIsAnotherItem() throws {
        #expect(try tool.run("add-internet-password", "-a", "me", "-s", "host", "-p", "/a", "-w", "1").status == 0)
        #expect(try tool.run("add-internet-password", "-a", "me", "-s", "host", "-p", "/b", "-w", "2").status == 0)
        #expect(try tool.run("find-internet-password", "-s", "host", "-p", "/b", "-w").output == "2\n")
    }

    @Test func updateFlagChangesThePassword() throws {
        _ = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-r", "htps", "-w", "old")
        #expect(try tool.run("add-internet-password", "-U", "-a", "me", "-s", "host", "-r", "htps", "-w", "new").status == 0)
        #expect(try tool.run("find-internet-password", "-a", "me", "-s", "host", "-w").output == "new\n")
    }

    @Test func deleteInternetPassword() throws {
        _ = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-w", "pw")
        let run = try tool.run("delete-internet-password", "-s", "host")
        #expect(run.status == 0)
        #expect(run.output.contains("class: \"inet\"\n"))
        #expect(run.error == "password has been deleted.\n")
        #expect(try tool.run("find-internet-password", "-s", "host").status == 44)
        #expect(try tool.run("delete-internet-password").status == 2)
    }

    @Test(arguments: [["-r", "ftp"], ["-t", "basic"], ["-c", "ab"], ["-C", "abcde"]])
    func fourCharacterCodesMustHaveFourCharacters(_ option: [String]) throws {
        let run = try tool.run(arguments: ["add-internet-password", "-a", "me", "-s", "host", "-w", "pw"] + option)
        #expect(run.status == 1)
        var expected = "Error: four-character types must be exactly 4 characters long.\n"
        if option[1].count == 3 { expected += "(Try \"\(option[1]) \" instead of \"\(option[1])\")\n" }
        #expect(run.error == expected)
        #expect(try tool.run("find-internet-password", "-s", "host").status == 44)
    }

    @Test func paddedThreeCharacterProtocolIsAccepted() throws {
        #expect(try tool.run("add-internet-password", "-a", "me", "-s", "files", "-r", "ftp ", "-w", "pw").status == 0)
        let run = try tool.run("find-internet-password", "-s", "files", "-r", "ftp ")
        #expect(run.output.contains("    \"ptcl\"<uint32>=\"ftp \"\n"))
    }

    @Test func invalidPortIsBadUsage() throws {
        let run = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-P", "http", "-w", "pw")
        #expect(run.status == 2)
        #expect(run.error.hasPrefix("security: invalid port number \"http\"\nUsage: add-internet-password "))
    }
}
