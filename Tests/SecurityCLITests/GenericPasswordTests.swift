import Foundation
import Testing

/// `add-`, `find-` and `delete-generic-password`, through the built binary.
@Suite struct GenericPasswordTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    static let notFound = "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n"

    @Test func addedPasswordIsPrintedAloneByFindWithW() throws {
        let add = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw")
        #expect(add.status == 0)
        #expect(add.output.isEmpty && add.error.isEmpty)

        let find = try tool.run("find-generic-password", "-a", "me", "-s", "svc", "-w")
        #expect(find.status == 0)
        #expect(find.output == "pw\n")
        #expect(find.error.isEmpty)
    }

    @Test func addingTheSameAccountAndServiceTwiceExitsWith45() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw")
        let again = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "other")
        #expect(again.status == 45)
        #expect(
            again.error
                == "security: SecKeychainItemCreateFromContent (<default>): The specified item already exists in the keychain.\n")
        #expect(try tool.run("find-generic-password", "-a", "me", "-s", "svc", "-w").output == "pw\n")
    }

    @Test func updateFlagReplacesThePasswordAndGivenAttributes() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "old", "-j", "first")
        let update = try tool.run("add-generic-password", "-U", "-a", "me", "-s", "svc", "-w", "new", "-l", "renamed")
        #expect(update.status == 0)
        #expect(try tool.run("find-generic-password", "-a", "me", "-s", "svc", "-w").output == "new\n")
        let shown = try tool.run("find-generic-password", "-a", "me", "-s", "svc")
        #expect(shown.output.contains("    0x00000007 <blob>=\"renamed\"\n"))
        #expect(shown.output.contains("    \"icmt\"<blob>=\"first\"\n"))
    }

    @Test func updateFlagAddsWhenNothingMatches() throws {
        let run = try tool.run("add-generic-password", "-U", "-a", "me", "-s", "svc", "-w", "pw")
        #expect(run.status == 0)
        #expect(try tool.run("find-generic-password", "-s", "svc", "-w").output == "pw\n")
    }

    @Test func findWithoutAMatchExitsWith44() throws {
        let run = try tool.run("find-generic-password", "-a", "nobody", "-s", "nothing")
        #expect(run.status == 44)
        #expect(run.error == Self.notFound)
        #expect(run.output.isEmpty)
    }

    @Test func findWithGPrintsTheAttributeBlockAndThePasswordOnStandardError() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "p\\w", "-c", "abcd", "-C", "note")
        let run = try tool.run("find-generic-password", "-a", "me", "-s", "svc", "-g")
        #expect(run.status == 0)
        #expect(run.error == "password: 0x705C77  \"p\\134w\"\n")
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 21)
        #expect(lines[0] == "keychain: \"\(tool.defaultKeychainPath)\"")
        #expect(lines[1] == "version: 512")
        #expect(lines[2] == "class: \"genp\"")
        #expect(lines[3] == "attributes:")
        let expectedOrder = [
            "    0x00000007 <blob>=\"svc\"", "    0x00000008 <blob>=<NULL>", "    \"acct\"<blob>=\"me\"",
            "    \"cdat\"<timedate>=", "    \"crtr\"<uint32>=\"abcd\"", "    \"cusi\"<sint32>=<NULL>",
            "    \"desc\"<blob>=<NULL>", "    \"gena\"<blob>=<NULL>", "    \"icmt\"<blob>=<NULL>",
            "    \"invi\"<sint32>=<NULL>", "    \"mdat\"<timedate>=", "    \"nega\"<sint32>=<NULL>",
            "    \"prot\"<blob>=<NULL>", "    \"scrp\"<sint32>=<NULL>", "    \"svce\"<blob>=\"svc\"",
            "    \"type\"<uint32>=\"note\"",
        ]
        for (offset, prefix) in expectedOrder.enumerated() {
            #expect(lines[4 + offset].hasPrefix(prefix), "line \(4 + offset): \(lines[4 + offset])")
        }
        #expect(lines[20].isEmpty)
        let date = try #require(lines[7].split(separator: "=").last.map(String.init))
        #expect(date.wholeMatch(of: /0x(3[0-9]){14}5A00  "\d{14}Z\\000"/) != nil, "\(date)")
    }

    @Test func binaryPasswordsPrintAsLowercaseHexWithW() throws {
        _ = try tool.run("add-generic-password", "-a", "bin", "-s", "svc", "-X", "00FF41")
        let run = try tool.run("find-generic-password", "-a", "bin", "-w")
        #expect(run.output == "00ff41\n")
        let shown = try tool.run("find-generic-password", "-a", "bin", "-g")
        #expect(shown.error == "password: 0x00FF41  \"\\000\\377A\"\n")
    }

    @Test func hexPasswordOfPrintableBytesIsStoredAsThoseBytes() throws {
        #expect(try tool.run("add-generic-password", "-a", "a", "-s", "s", "-X", "48692a").status == 0)
        #expect(try tool.run("find-generic-password", "-a", "a", "-s", "s", "-w").output == "Hi*\n")
    }

    @Test func malformedHexPasswordIsBadUsage() throws {
        let run = try tool.run("add-generic-password", "-a", "a", "-s", "s", "-X", "abc")
        #expect(run.status == 2)
        #expect(run.error.hasPrefix("security: -X needs an even number of hexadecimal digits\nUsage: add-generic-password "))
    }

    @Test func addWithoutAPasswordStoresAnEmptyOne() throws {
        #expect(try tool.run("add-generic-password", "-a", "a", "-s", "s").status == 0)
        #expect(try tool.run("find-generic-password", "-a", "a", "-w").output == "\n")
    }

    @Test func labelDefaultsToTheServiceAndFindMatchesOnOtherAttributes() throws {
        _ = try tool.run("add-generic-password", "-a", "one", "-s", "svc", "-w", "1", "-G", "gen", "-D", "kind")
        _ = try tool.run("add-generic-password", "-a", "two", "-s", "svc", "-w", "2", "-l", "special")
        #expect(try tool.run("find-generic-password", "-l", "svc", "-w").output == "1\n")
        #expect(try tool.run("find-generic-password", "-l", "special", "-w").output == "2\n")
        #expect(try tool.run("find-generic-password", "-G", "gen", "-w").output == "1\n")
        #expect(try tool.run("find-generic-password", "-D", "kind", "-w").output == "1\n")
        #expect(try tool.run("find-generic-password", "-D", "other", "-w").status == 44)
    }

    @Test func accountAndServiceTogetherIgnoreTheOtherMatchFlags() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw", "-l", "label")
        let run = try tool.run("find-generic-password", "-a", "me", "-s", "svc", "-l", "not the label", "-w")
        #expect(run.status == 0)
        #expect(run.output == "pw\n")
        #expect(try tool.run("find-generic-password", "-a", "me", "-l", "not the label", "-w").status == 44)
    }

    @Test func findReturnsTheFirstMatch() throws {
        _ = try tool.run("add-generic-password", "-a", "first", "-s", "shared", "-w", "1")
        _ = try tool.run("add-generic-password", "-a", "second", "-s", "shared", "-w", "2")
        #expect(try tool.run("find-generic-password", "-s", "shared", "-w").output == "1\n")
    }

    @Test func deletePrintsTheItemThenConfirmsOnStandardError() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw")
        let run = try tool.run("delete-generic-password", "-a", "me", "-s", "svc")
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("keychain: \"\(tool.defaultKeychainPath)\"\nversion: 512\nclass: \"genp\"\n"))
        #expect(run.output.contains("    \"acct\"<blob>=\"me\"\n"))
        #expect(!run.output.contains("pw"))
        #expect(run.error == "password has been deleted.\n")
        #expect(try tool.run("find-generic-password", "-a", "me", "-s", "svc").status == 44)
    }

    @Test func deleteRemovesOnlyTheFirstMatch() throws {
        _ = try tool.run("add-generic-password", "-a", "first", "-s", "shared", "-w", "1")
        _ = try tool.run("add-generic-password", "-a", "second", "-s", "shared", "-w", "2")
        #expect(try tool.run("delete-generic-password", "-s", "shared").status == 0)
        #expect(try tool.run("find-generic-password", "-s", "shared", "-w").output == "2\n")
    }

    @Test func deleteWithoutAnyCriterionIsBadUsage() throws {
        _ = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw")
        let run = try tool.run("delete-generic-password")
        #expect(run.status == 2)
        #expect(run.error.hasPrefix("Usage: delete-generic-password [-a account] [-s service]"))
        #expect(run.error.hasSuffix("\n        Delete a generic password item.\n"))
        #expect(try tool.run("find-generic-password", "-a", "me", "-w").output == "pw\n")
    }

    @Test func deleteWithoutAMatchExitsWith44() throws {
        let run = try tool.run("delete-generic-password", "-a", "ghost")
        #expect(run.status == 44)
        #expect(run.error == Self.notFound)
    }

    @Test func accessOptionsAreAcceptedAndIgnored() throws {
        let run = try tool.run("add-generic-password", "-A", "-T", "/usr/bin/true", "-T", "", "-a", "me", "-s", "svc", "-w", "pw")
        #expect(run.status == 0)
        #expect(try tool.run("find-generic-password", "-a", "me", "-w").output == "pw\n")
    }
}
