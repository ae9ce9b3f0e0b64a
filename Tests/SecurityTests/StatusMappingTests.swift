import KeychainCore
import Testing

@testable import Security

/// The engine's error (this target's seed snippets declare a `KeychainError` of their own).
typealias EngineError = KeychainCore.KeychainError

/// The engine's error codes reach callers as the `errSec…` statuses Apple returns for the same
/// situations: the surface's mapping is total and agrees, code by code, with the generated table
/// of Apple's statuses (`secBaseCodes`, made from scripts/data/SecBase-errors.tsv).
@Suite("Engine errors as OSStatus")
struct StatusMappingTests {
    /// The status each engine code is reported as, by its name in Apple's SecBase.h.
    static let intendedNames: [EngineError.Code: String] = [
        .unimplemented: "errSecUnimplemented", .diskFull: "errSecDiskFull", .io: "errSecIO",
        .writePermission: "errSecWrPerm", .param: "errSecParam", .allocate: "errSecAllocate",
        .notAvailable: "errSecNotAvailable", .readOnly: "errSecReadOnly", .authFailed: "errSecAuthFailed",
        .noSuchKeychain: "errSecNoSuchKeychain", .invalidKeychain: "errSecInvalidKeychain",
        .duplicateKeychain: "errSecDuplicateKeychain", .duplicateItem: "errSecDuplicateItem",
        .itemNotFound: "errSecItemNotFound", .noSuchAttribute: "errSecNoSuchAttr", .noSuchClass: "errSecNoSuchClass",
        .keySizeNotAllowed: "errSecKeySizeNotAllowed", .unsupportedFormat: "errSecUnsupportedFormat",
        .unknownFormat: "errSecUnknownFormat", .passphraseRequired: "errSecPassphraseRequired",
        .verifyFailed: "errSecVerifyFailed", .interactionNotAllowed: "errSecInteractionNotAllowed",
        .decode: "errSecDecode", .missingEntitlement: "errSecMissingEntitlement",
        // Reported only when no one could ask the user (the `Security` surface asks and retries).
        .authenticationNeeded: "errSecInteractionNotAllowed", .userCanceled: "errSecUserCanceled",
    ]

    /// The one code whose status is not in SecBase.h: `.internal` is errSecInternal (-26276),
    /// which Apple declares in its private SecBasePriv.h.
    static let privateStatuses: [EngineError.Code: OSStatus] = [.internal: -26276]

    @Test("Every engine error code has an intended status, named once")
    func everyCodeIsNamed() {
        let named = Set(Self.intendedNames.keys).union(Self.privateStatuses.keys)
        let unnamed = EngineError.Code.allCases.filter { !named.contains($0) }
        #expect(unnamed.isEmpty, "codes without an intended status: \(unnamed)")
        #expect(Set(Self.intendedNames.keys).isDisjoint(with: Self.privateStatuses.keys))
    }

    @Test("Each engine error code maps to the status Apple's table gives its errSec name", arguments: EngineError.Code.allCases)
    func codeMapsToItsNamedStatus(code: EngineError.Code) throws {
        let mapped = StatusMapping.status(for: code)
        if let status = Self.privateStatuses[code] {
            #expect(mapped == status)
            #expect(!secBaseCodes.contains { $0.status == status }, "a private status is not among SecBase.h's codes")
            #expect(StatusMapping.errSecInternal == status)
            return
        }
        let name = try #require(Self.intendedNames[code])
        let entry = try #require(secBaseCodes.first { $0.name == name }, "\(name) is in the generated table")
        #expect(mapped == entry.status, "\(code) maps to \(mapped), not \(name) (\(entry.status))")
        #expect(secBaseCodes.first { $0.status == mapped }?.name == name, "the table's name for \(mapped) is \(name)")
    }

    @Test("An engine error is reported with its code's status, as a status and as a CFError", arguments: EngineError.Code.allCases)
    func errorMapsThroughItsCode(code: EngineError.Code) {
        let error = EngineError(code, "a reason")
        #expect(StatusMapping.status(for: error) == StatusMapping.status(for: code))
        #expect(StatusMapping.run { throw error } == StatusMapping.status(for: code))
        #expect(StatusMapping.cfError(for: error).code == Int(StatusMapping.status(for: code)))
    }

    @Test("An error that is not the engine's is errSecInternalComponent")
    func otherErrorsAreInternalComponent() {
        struct Unknown: Error {}
        #expect(StatusMapping.status(for: Unknown()) == errSecInternalComponent)
        #expect(StatusMapping.run { throw Unknown() } == errSecInternalComponent)
    }
}
