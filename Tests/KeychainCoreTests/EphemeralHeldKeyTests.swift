import Foundation
import KeychainCore
import Testing

/// Keys the keychain keeps in memory only (`Keychain.generateEphemeralKey`): bound to their
/// maker, bounded in number, gone once forgotten or once their owner is.
@Suite("Keys the keychain keeps in memory")
struct EphemeralHeldKeyTests {
    static let algorithm = "algid:sign:ECDSA:message-X962:SHA256"

    static func request(_ flags: AccessControlPolicy.Flags = [.privateKeyUsage, .devicePasscode]) throws -> ItemRequest {
        var request = ItemRequest(itemClass: .key)
        request.attributes = [.type: .integer(KeyType.ellipticCurve.rawValue), .applicationTag: .data(Data("memory".utf8))]
        request.accessControl = try AccessControlPolicy(protection: .whenUnlocked, flags: flags)
        request.returns = [.reference]
        return request
    }

    static func handle(_ keychain: Keychain, owner: String?) throws -> Data {
        var context = AccessControlEnforcementTests.context
        context.peer = owner
        let result = try keychain.generateEphemeralKey(try request(), type: .ellipticCurve, bits: 256, context: context)
        guard case .key(let key)? = result.reference, let handle = key.keychainItemReference else {
            throw KeychainError(.internal, "no reference")
        }
        return handle
    }

    static func context(_ owner: String?) -> AccessContext {
        var context = AccessControlEnforcementTests.context
        context.peer = owner
        return context
    }

    @Test("A caller holds at most EphemeralHeldKeys' bound of keys: the next is errSecAllocate, other callers are unaffected, and forgetting one makes room")
    func boundedPerOwner() throws {
        let keychain = try TemporaryKeychain().keychain
        var handles: [Data] = []
        for _ in 0..<256 { handles.append(try Self.handle(keychain, owner: "1:10:100")) }
        #expect(AccessControlEnforcementTests.code { _ = try Self.handle(keychain, owner: "1:10:100") } == .allocate)
        _ = try Self.handle(keychain, owner: "1:11:100")
        try keychain.forgetEphemeralKey(handles[0], context: Self.context("1:10:100"))
        _ = try Self.handle(keychain, owner: "1:10:100")
    }

    @Test("A key is the maker's alone: another caller's use or forget is errSecItemNotFound; once its owner is gone or it is forgotten, its use is errSecItemNotFound")
    func boundToOwner() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        let handle = try Self.handle(keychain, owner: "1:10:100")
        var use = KeyUse(item: handle, operation: .sign(algorithm: Self.algorithm, data: Data("m".utf8)), authenticationUI: .fail)
        #expect(AccessControlEnforcementTests.code { _ = try keychain.useKey(use, context: Self.context("1:10:100")) } == .interactionNotAllowed)
        #expect(AccessControlEnforcementTests.code { _ = try keychain.useKey(use, context: Self.context("1:12:100")) } == .itemNotFound)
        #expect(AccessControlEnforcementTests.code { try keychain.forgetEphemeralKey(handle, context: Self.context("1:12:100")) } == .itemNotFound)
        use.authentication.grant = try keychain.authenticate(passcode: Data("2580".utf8), grant: nil, context: Self.context("1:10:100"))
        _ = try keychain.useKey(use, context: Self.context("1:10:100"))

        keychain.forgetEphemeralKeys { $0 == "1:10:100" }
        #expect(AccessControlEnforcementTests.code { _ = try keychain.useKey(use, context: Self.context("1:10:100")) } == .itemNotFound)
        let other = try Self.handle(keychain, owner: nil)
        try keychain.forgetEphemeralKey(other, context: Self.context(nil))
        use.item = other
        #expect(AccessControlEnforcementTests.code { _ = try keychain.useKey(use, context: Self.context(nil)) } == .itemNotFound)
    }

    @Test("A key kept in memory is refused while the keychain is locked (errSecInteractionNotAllowed), as a stored key is, and signs again once unlocked")
    func refusedWhileLocked() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        // Without .privateKeyUsage the constraint guards export only: signing needs no grant.
        let result = try keychain.generateEphemeralKey(try Self.request([.devicePasscode]), type: .ellipticCurve, bits: 256, context: Self.context(nil))
        guard case .key(let key)? = result.reference, let handle = key.keychainItemReference else { throw KeychainError(.internal, "no reference") }
        let use = KeyUse(item: handle, operation: .sign(algorithm: Self.algorithm, data: Data("m".utf8)), authenticationUI: .fail)
        _ = try keychain.useKey(use, context: Self.context(nil))
        keychain.lock()
        #expect(AccessControlEnforcementTests.code { _ = try keychain.useKey(use, context: Self.context(nil)) } == .interactionNotAllowed)
        try keychain.unlock(passcode: Data("2580".utf8))
        let signature = try keychain.useKey(use, context: Self.context(nil)).withUnsafeBytes { Data($0) }
        try key.publicKey().verify(Self.algorithm, Data("m".utf8), signature: signature)
    }

    @Test("Only a key whose access control has user constraints and no application password is kept in memory (else errSecParam)")
    func needsUserConstraints() throws {
        let keychain = try TemporaryKeychain().keychain
        for flags: AccessControlPolicy.Flags in [[.privateKeyUsage], [.privateKeyUsage, .applicationPassword], [.privateKeyUsage, .devicePasscode, .applicationPassword]] {
            #expect(AccessControlEnforcementTests.code {
                _ = try keychain.generateEphemeralKey(try Self.request(flags), type: .ellipticCurve, bits: 256, context: Self.context(nil))
            } == .param)
        }
    }
}
