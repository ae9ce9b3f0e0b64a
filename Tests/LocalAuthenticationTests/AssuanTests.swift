import Foundation
import KeychainAuthentication
import Testing

@Suite("Assuan escaping and responses")
struct AssuanTests {
    @Test("Percent, line feed, carriage return and other control characters are sent as %XX; the rest unchanged")
    func escapesWhatBreaksLines() {
        #expect(AssuanEscaping.argument("50% off\nnow\r\tok é", after: "SETDESC") == "50%25 off%0Anow%0D%09ok é")
    }

    @Test("A long argument is cut at a character so the whole line fits Assuan's 1000 bytes, never inside an escape")
    func cutsLongArguments() {
        let escaped = AssuanEscaping.argument(String(repeating: "%", count: 600), after: "SETDESC")
        #expect("SETDESC ".utf8.count + escaped.utf8.count + 1 <= AssuanEscaping.maximumLineLength)
        #expect(escaped.utf8.count % 3 == 0)
        #expect(escaped.hasSuffix("%25"))
    }

    @Test("Data is unescaped byte by byte; a truncated or non-hexadecimal escape is refused")
    func unescapes() {
        func decode(_ text: String) -> [UInt8]? {
            var bytes: [UInt8] = []
            let valid = Array(text.utf8).withUnsafeBytes { AssuanEscaping.unescape($0) { bytes.append($0) } }
            return valid ? bytes : nil
        }
        #expect(decode("a%25b%0A") == Array("a%b\n".utf8))
        #expect(decode("abc%2") == nil)
        #expect(decode("%zz") == nil)
    }

    @Test("OK, ERR with its code, INQUIRE, status and comment lines are told apart; the cancel code is 99 in its low bits")
    func parsesResponses() {
        #expect(AssuanResponse(line: "OK Pleased to meet you") == .ok)
        #expect(AssuanResponse(line: "OK") == .ok)
        let cancelled = AssuanResponse(line: "ERR 83886179 Operation cancelled <Pinentry>")
        #expect(cancelled == .error(code: 83_886_179, text: "Operation cancelled <Pinentry>"))
        #expect(cancelled?.errorCode == AssuanResponse.cancelledCode)
        #expect(AssuanResponse(line: "INQUIRE PINENTRY_LAUNCHED 1") == .inquire("PINENTRY_LAUNCHED 1"))
        #expect(AssuanResponse(line: "S PROGRESS") == .status("PROGRESS"))
        #expect(AssuanResponse(line: "# a comment") == .comment)
        #expect(AssuanResponse(line: "OKAY") == nil)
        #expect(AssuanResponse(line: "ERR notanumber") == nil)
    }
}
