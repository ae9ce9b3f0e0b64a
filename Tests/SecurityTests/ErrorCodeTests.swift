import Foundation
import Security
import Testing

/// One row of `scripts/data/SecBase-errors.tsv`, the source of the error table.
struct ErrorCodeRow: Sendable, CustomTestStringConvertible {
    let name: String
    let value: OSStatus
    let message: String

    var testDescription: String { "\(name) (\(value))" }

    /// Every row of the file that is not an alias, read from the repository (located from #filePath).
    static let all: [ErrorCodeRow] = {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let file = tests.appendingPathComponent("../../scripts/data/SecBase-errors.tsv").standardized
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 2, !fields[1].hasPrefix("="), let value = OSStatus(fields[1]) else { return nil }
            return ErrorCodeRow(name: fields[0], value: value, message: fields.count > 2 ? fields[2] : "")
        }
    }()
}

@Suite("Error codes and messages")
struct ErrorCodeTests {
    @Test("The error table file is found and holds Apple's catalogue")
    func tableIsComplete() {
        #expect(ErrorCodeRow.all.count >= 380)
        #expect(Set(ErrorCodeRow.all.map(\.value)).count == ErrorCodeRow.all.count)
    }

    @Test("SecCopyErrorMessageString returns the header's message, or the name when it has none", arguments: ErrorCodeRow.all)
    func message(row: ErrorCodeRow) {
        let message = SecCopyErrorMessageString(row.value, nil) as String?
        #expect(message == (row.message.isEmpty ? row.name : row.message))
    }

    @Test("Unknown and private codes give \"OSStatus <n>\"", arguments: [1, 12345, -12345, -34019, -25330, -26276, Int32.min, Int32.max])
    func unknownCode(status: OSStatus) {
        #expect(SecCopyErrorMessageString(status, nil) as String? == "OSStatus \(status)")
    }

    @Test("SecCopyErrorMessageString's result cast to String is the message")
    func messageAsString() {
        let status = errSecDuplicateItem
        let message = SecCopyErrorMessageString(status, nil) as? String ?? "Unknown error"
        #expect(message == "The specified item already exists in the keychain.")
    }

    @Test(
        "Status constants, aliases included, carry Apple's values",
        arguments: [
            ("errSecSuccess", errSecSuccess, 0), ("errSecUnimplemented", errSecUnimplemented, -4),
            ("errSecIO", errSecIO, -36), ("errSecParam", errSecParam, -50), ("errSecAllocate", errSecAllocate, -108),
            ("errSecUserCanceled", errSecUserCanceled, -128), ("errSecBadReq", errSecBadReq, -909),
            ("errSecInternalComponent", errSecInternalComponent, -2070),
            ("errSecNotAvailable", errSecNotAvailable, -25291), ("errSecReadOnly", errSecReadOnly, -25292),
            ("errSecAuthFailed", errSecAuthFailed, -25293), ("errSecNoSuchKeychain", errSecNoSuchKeychain, -25294),
            ("errSecDuplicateItem", errSecDuplicateItem, -25299), ("errSecItemNotFound", errSecItemNotFound, -25300),
            ("errSecNoSuchAttr", errSecNoSuchAttr, -25303), ("errSecInvalidItemRef", errSecInvalidItemRef, -25304),
            ("errSecNoSuchClass", errSecNoSuchClass, -25306),
            ("errSecInteractionNotAllowed", errSecInteractionNotAllowed, -25308),
            ("errSecDecode", errSecDecode, -26275), ("errSecMissingEntitlement", errSecMissingEntitlement, -34018),
            ("errSecRestrictedAPI", errSecRestrictedAPI, -34020), ("errSecVerifyFailed", errSecVerifyFailed, -67808),
            ("errSecDiskFull", errSecDiskFull, -34), ("errSecDskFull (alias)", errSecDskFull, -34),
            ("errSecInvaldCRLAuthority (alias)", errSecInvaldCRLAuthority, errSecInvalidCRLAuthority),
            ("errSecInvalidTupleCredendtials (alias)", errSecInvalidTupleCredendtials, errSecInvalidTupleCredentials),
            ("noErr", noErr, 0),
        ] as [(String, OSStatus, OSStatus)])
    func constant(name: String, constant: OSStatus, expected: OSStatus) {
        #expect(constant == expected)
    }

    @Test("Messages of the codes the keychain returns", arguments: [
        (errSecParam, "One or more parameters passed to a function were not valid."),
        (errSecItemNotFound, "The specified item could not be found in the keychain."),
        (errSecMissingEntitlement, "A required entitlement isn't present."),
        (errSecInternalComponent, "errSecInternalComponent"),
        (errSecSuccess, "No error."),
    ] as [(OSStatus, String)])
    func keychainMessages(status: OSStatus, message: String) {
        #expect(SecCopyErrorMessageString(status, nil) as String? == message)
    }
}
