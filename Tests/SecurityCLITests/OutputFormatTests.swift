import Foundation
import KeychainCore
import Testing

@testable import SecurityCLI

/// A console that records what the tool writes and answers prompts from a script.
final class RecordingConsole: Console {
    var output: [UInt8] = []
    var error = ""
    var answers: [String]
    var prompts: [String] = []

    init(answers: [String] = []) { self.answers = answers }

    func writeOutput(_ bytes: [UInt8]) { output += bytes }
    func writeError(_ bytes: [UInt8]) { error += String(decoding: bytes, as: UTF8.self) }
    func readSecret(prompt: String) -> [UInt8]? {
        prompts.append(prompt)
        return answers.isEmpty ? nil : Array(answers.removeFirst().utf8)
    }
    func readCommandLine(prompt: String) -> [UInt8]? { answers.isEmpty ? nil : Array(answers.removeFirst().utf8) }
}

/// The dump format and in-process runs that need no keychain.
@Suite struct OutputFormatTests {
    @Test func dumpValuesFollowPrintBuffer() {
        #expect(ByteFormat.dumpValue(Array("plain".utf8)) == "\"plain\"")
        #expect(ByteFormat.dumpValue([0, 0, 0, 0]) == "0x00000000 ")
        #expect(ByteFormat.dumpValue([0x41, 0x00]) == "0x4100  \"A\\000\"")
        #expect(ByteFormat.dumpValue(Array("a\\b".utf8)) == "0x615C62  \"a\\134b\"")
        #expect(ByteFormat.dumpValue([]) == "")
        #expect(ByteFormat.dumpValue(UInt32(7)) == "0x00000007 ")
        #expect(ByteFormat.dumpValue(DumpSchema.code("acct")) == "\"acct\"")
        #expect(ByteFormat.dumpValue(UInt32(0x2020)) == "0x00002020  \"\\000\\000  \"")
    }

    @Test func passwordOnlyOutputIsRawOrLowercaseHex() {
        #expect(ByteFormat.passwordOnly(Array("a\\b c~".utf8)) == Array("a\\b c~".utf8))
        #expect(ByteFormat.passwordOnly([0xC3, 0xA9]) == Array("c3a9".utf8))
        #expect(ByteFormat.passwordOnly([0x41, 0x0A]) == Array("410a".utf8))
    }

    @Test func timedateIsUTCWithATrailingNul() {
        let date = Date(timeIntervalSince1970: 1_715_825_389)  // 2024-05-16 02:09:49 UTC
        #expect(ItemPrinter.timedate(date) == Array("20240516020949Z".utf8) + [0])
        let line = ByteFormat.dumpValue(ItemPrinter.timedate(date))
        #expect(line == "0x32303234303531363032303934395A00  \"20240516020949Z\\000\"")
    }

    @Test func renderedItemFollowsTheSchemaOrder() {
        let attributes: ItemAttributes = [
            "acct": .string("me"), "srvr": .string("host"), "labl": .string("host"), "ptcl": .string("htps"),
            "port": .integer(8080), "atyp": .string("dflt"), "path": .string(""), "crtr": .integer(0x6162_6364),
        ]
        let rendered = ItemPrinter.render(
            itemClass: .internetPassword, attributes: attributes, data: Data("pw".utf8),
            keychainPath: "/k/login.keychain-db", includeData: true)
        let text = String(decoding: rendered, as: UTF8.self)
        #expect(
            text == """
                keychain: "/k/login.keychain-db"
                version: 512
                class: "inet"
                attributes:
                    0x00000007 <blob>="host"
                    0x00000008 <blob>=<NULL>
                    "acct"<blob>="me"
                    "atyp"<blob>="dflt"
                    "cdat"<timedate>=<NULL>
                    "crtr"<uint32>="abcd"
                    "cusi"<sint32>=<NULL>
                    "desc"<blob>=<NULL>
                    "icmt"<blob>=<NULL>
                    "invi"<sint32>=<NULL>
                    "mdat"<timedate>=<NULL>
                    "nega"<sint32>=<NULL>
                    "path"<blob>=<NULL>
                    "port"<uint32>=0x00001F90 
                    "prot"<blob>=<NULL>
                    "ptcl"<uint32>="htps"
                    "scrp"<sint32>=<NULL>
                    "sdmn"<blob>=<NULL>
                    "srvr"<blob>="host"
                    "type"<uint32>=<NULL>
                data:
                "pw"

                """)
    }

    @Test func inProcessRunsReportStatusesAndUsage() {
        let console = RecordingConsole()
        #expect(SecurityTool.run(["error", "-25308"], console: console) == 1)
        #expect(String(decoding: console.output, as: UTF8.self) == "Error: 0xFFFF9D24 -25308 User interaction is not allowed.\n")

        let usage = RecordingConsole()
        #expect(SecurityTool.run(["find-internet-password", "-r", "toolong"], console: usage) == 1)
        #expect(usage.error == "Error: four-character types must be exactly 4 characters long.\n")

        let unknown = RecordingConsole()
        #expect(SecurityTool.run(["help", "zzz"], console: unknown) == 1)
        #expect(SecurityTool.run(["-p"], console: unknown) == 2)
        #expect(unknown.error.hasSuffix("security: option requires an argument -- p\n"))
    }

    @Test func promptAsksTwiceAndRetriesOnMismatch() throws {
        let console = RecordingConsole(answers: ["a", "b", "c", "c"])
        let password = try AddPasswordCommand.promptTwice(console)
        #expect(password == Data("c".utf8))
        #expect(console.prompts == [
            "password data for new item: ", "retype password for new item: ",
            "password data for new item: ", "retype password for new item: ",
        ])
        #expect(console.error == "passwords don't match\n")
        #expect(throws: ToolError.failed(result: 1, message: nil)) {
            try AddPasswordCommand.promptTwice(RecordingConsole(answers: ["1", "2", "3", "4", "5", "6"]))
        }
    }
}
