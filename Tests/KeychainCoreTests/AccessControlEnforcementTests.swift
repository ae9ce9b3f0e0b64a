import Foundation
import KeychainCrypto
import Synchronization
import Testing

@_spi(Testing) @testable import KeychainCore

/// A fingerprint reader for the engine's tests: a set of enrolled fingers that the test changes,
/// and the verdict the next touch gives.
final class ReaderDouble: BiometricVerifier, Sendable {
    private let state = Mutex<(enrolled: [UInt8]?, outcome: BiometricOutcome, touches: Int)>((Array("right-index".utf8), .matched, 0))

    func enrolledSet() throws -> [UInt8]? { state.withLock { $0.enrolled } }

    func verify(reason: String) -> BiometricOutcome {
        state.withLock { current in
            current.touches += 1
            return current.outcome
        }
    }

    func enroll(_ fingers: String) { state.withLock { $0.enrolled = Array(fingers.utf8) } }
    func answer(_ outcome: BiometricOutcome) { state.withLock { $0.outcome = outcome } }
    var touches: Int { state.withLock { $0.touches } }
}

@Suite("Access control enforced by the engine")
struct AccessControlEnforcementTests {
    static let passcode = Data("2580".utf8)
    static let context = AccessContext(accessGroups: ["default"])

    /// Adds a password protected by `flags` and returns the request that reads its secret.
    static func protectedItem(_ keychain: Keychain, _ flags: AccessControlPolicy.Flags, account: String = "me") throws -> ItemRequest {
        var add = ItemRequest(itemClass: .genericPassword)
        add.attributes = [.service: .string("svc"), .account: .string(account)]
        add.accessControl = try AccessControlPolicy(protection: .whenUnlockedThisDeviceOnly, flags: flags)
        add.secret = Data("secret".utf8)
        _ = try keychain.add(add, context: context)
        var read = ItemRequest(itemClass: .genericPassword)
        read.attributes = [.service: .string("svc"), .account: .string(account)]
        read.returns = .data
        return read
    }

    static func code(_ body: () throws -> Void) -> KeychainError.Code? {
        do {
            try body()
            return nil
        } catch let error as KeychainError {
            return error.code
        } catch {
            return .internal
        }
    }

    @Test("A devicePasscode item's secret needs a grant holding the passcode; its attributes and its deletion need none")
    func passcodeGuardsSecretOnly() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        var read = try Self.protectedItem(keychain, .devicePasscode)
        do {
            _ = try keychain.search(read, context: Self.context)
            Issue.record("the secret was returned without authentication")
        } catch let error as KeychainError {
            #expect(error.code == .authenticationNeeded)
            #expect(error.constraints == .devicePasscode)
        }
        // A made-up grant proves nothing.
        read.authentication.grant = Data(repeating: 7, count: 32)
        #expect(Self.code { _ = try keychain.search(read, context: Self.context) } == .authenticationNeeded)
        #expect(Self.code { _ = try keychain.authenticate(passcode: Data("0000".utf8), grant: nil, context: Self.context) } == .authFailed)
        read.authentication.grant = try keychain.authenticate(passcode: Self.passcode, grant: nil, context: Self.context)
        #expect(try keychain.search(read, context: Self.context).first?.data == Data("secret".utf8))

        var attributes = read
        attributes.authentication = ItemAuthentication()
        attributes.returns = .attributes
        #expect(try keychain.search(attributes, context: Self.context).count == 1)
        #expect(try keychain.delete(attributes, context: Self.context) == 1)
    }

    @Test("Locking the keychain forgets every grant: after the next unlock the user authenticates again")
    func lockForgetsGrants() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        var read = try Self.protectedItem(keychain, .devicePasscode)
        read.authentication.grant = try keychain.authenticate(passcode: Self.passcode, grant: nil, context: Self.context)
        #expect(try keychain.search(read, context: Self.context).first?.data == Data("secret".utf8))
        keychain.lock()
        try keychain.unlock(passcode: Self.passcode)
        #expect(Self.code { _ = try keychain.search(read, context: Self.context) } == .authenticationNeeded)
    }

    @Test("A grant serves only the caller that obtained it")
    func grantIsBoundToItsCaller() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        var read = try Self.protectedItem(keychain, .userPresence)
        var first = Self.context
        first.peer = "1000:41:7"
        var second = Self.context
        second.peer = "1000:42:9"
        read.authentication.grant = try keychain.authenticate(passcode: Self.passcode, grant: nil, context: first)
        #expect(try keychain.search(read, context: first).first?.data == Data("secret".utf8))
        #expect(Self.code { _ = try keychain.search(read, context: second) } == .authenticationNeeded)
    }

    @Test("Fail answers errSecInteractionNotAllowed, Skip leaves the items out, and an unsatisfiable constraint is errSecAuthFailed")
    func userInterfaceModes() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        var read = try Self.protectedItem(keychain, .devicePasscode)
        _ = try Self.protectedItem(keychain, .watch, account: "watch")
        read.authenticationUI = .fail
        #expect(Self.code { _ = try keychain.search(read, context: Self.context) } == .interactionNotAllowed)
        read.authenticationUI = .skip
        #expect(Self.code { _ = try keychain.search(read, context: Self.context) } == .itemNotFound)
        var all = ItemRequest(itemClass: .genericPassword)
        all.returns = .data
        all.matchLimit = .all
        all.authenticationUI = .skip
        #expect(Self.code { _ = try keychain.search(all, context: Self.context) } == .itemNotFound)
        var watch = read
        watch.attributes[.account] = .string("watch")
        watch.authenticationUI = .allow
        #expect(Self.code { _ = try keychain.search(watch, context: Self.context) } == .authFailed)
    }

    @Test("k-of-n: with .or one satisfied constraint opens the item, with .and every one is needed")
    func kOfN() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        let reader = ReaderDouble()
        keychain.useBiometrics(reader)
        var either = try Self.protectedItem(keychain, [.biometryAny, .or, .devicePasscode], account: "either")
        var both = try Self.protectedItem(keychain, [.biometryAny, .and, .devicePasscode], account: "both")
        let passcodeOnly = try keychain.authenticate(passcode: Self.passcode, grant: nil, context: Self.context)
        either.authentication.grant = passcodeOnly
        both.authentication.grant = passcodeOnly
        #expect(try keychain.search(either, context: Self.context).first?.data == Data("secret".utf8))
        #expect(Self.code { _ = try keychain.search(both, context: Self.context) } == .authenticationNeeded)
        both.authentication.grant = try keychain.authenticateBiometry(reason: "r", grant: passcodeOnly, context: Self.context)
        #expect(try keychain.search(both, context: Self.context).first?.data == Data("secret".utf8))
    }

    @Test("Without a reader biometry is unavailable: a biometric item is errSecAuthFailed unless .or allows the passcode")
    func noReader() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        let biometric = try Self.protectedItem(keychain, .biometryAny)
        #expect(Self.code { _ = try keychain.search(biometric, context: Self.context) } == .authFailed)
        #expect(Self.code { _ = try keychain.authenticateBiometry(reason: "r", grant: nil, context: Self.context) } == .authFailed)
        let either = try Self.protectedItem(keychain, [.biometryCurrentSet, .or, .devicePasscode], account: "either")
        #expect(Self.code { _ = try keychain.search(either, context: Self.context) } == .authenticationNeeded)
    }

    @Test("biometryCurrentSet stops opening once the enrolled set changes (errSecAuthFailed); biometryAny survives")
    func enrollmentChange() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        let reader = ReaderDouble()
        keychain.useBiometrics(reader)
        var current = try Self.protectedItem(keychain, .biometryCurrentSet, account: "current")
        var any = try Self.protectedItem(keychain, .biometryAny, account: "any")
        let grant = try keychain.authenticateBiometry(reason: "r", grant: nil, context: Self.context)
        current.authentication.grant = grant
        any.authentication.grant = grant
        #expect(try keychain.search(current, context: Self.context).first?.data == Data("secret".utf8))
        #expect(try keychain.search(any, context: Self.context).first?.data == Data("secret".utf8))

        reader.enroll("right-index,left-thumb")
        let after = try keychain.authenticateBiometry(reason: "r", grant: nil, context: Self.context)
        current.authentication.grant = after
        any.authentication.grant = after
        #expect(Self.code { _ = try keychain.search(current, context: Self.context) } == .authFailed)
        #expect(try keychain.search(any, context: Self.context).first?.data == Data("secret".utf8))
        // The binding is a keyed digest: the stored access control does not hold the set itself.
        reader.answer(.noMatch)
        #expect(Self.code { _ = try keychain.authenticateBiometry(reason: "r", grant: nil, context: Self.context) } == .authFailed)
        reader.answer(.cancelled)
        #expect(Self.code { _ = try keychain.authenticateBiometry(reason: "r", grant: nil, context: Self.context) } == .userCanceled)
    }

    @Test("A biometryCurrentSet grant stops opening the item once a finger is added after the match (errSecAuthFailed); biometryAny still opens")
    func enrollmentChangeAfterTheMatch() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        let reader = ReaderDouble()
        keychain.useBiometrics(reader)
        var current = try Self.protectedItem(keychain, .biometryCurrentSet, account: "current")
        var any = try Self.protectedItem(keychain, .biometryAny, account: "any")
        let grant = try keychain.authenticateBiometry(reason: "r", grant: nil, context: Self.context)
        current.authentication.grant = grant
        any.authentication.grant = grant
        #expect(try keychain.search(current, context: Self.context).first?.data == Data("secret".utf8))
        reader.enroll("right-index,left-thumb")
        #expect(Self.code { _ = try keychain.search(current, context: Self.context) } == .authFailed)
        #expect(try keychain.search(any, context: Self.context).first?.data == Data("secret".utf8))
        #expect(reader.touches == 1)
    }

    @Test("A verified factor serves ten minutes from its verification, on the keychain's clock; verifying again starts a new period")
    func grantsExpire() throws {
        let clock = ManualClock()
        var options = TemporaryKeychain.options
        options.clock = clock
        let keychain = try TemporaryKeychain(passcode: "2580", options: options).keychain
        let reader = ReaderDouble()
        keychain.useBiometrics(reader)
        var passcodeItem = try Self.protectedItem(keychain, .devicePasscode, account: "passcode")
        var fingerItem = try Self.protectedItem(keychain, .biometryAny, account: "finger")
        let grant = try keychain.authenticate(passcode: Self.passcode, grant: nil, context: Self.context)
        passcodeItem.authentication.grant = grant
        clock.advance(by: 300)
        fingerItem.authentication.grant = try keychain.authenticateBiometry(reason: "r", grant: grant, context: Self.context)
        #expect(fingerItem.authentication.grant == grant)
        clock.advance(by: 299)
        #expect(try keychain.search(passcodeItem, context: Self.context).first?.data == Data("secret".utf8))
        clock.advance(by: 1)
        // Ten minutes after the passcode: the passcode is asked again, the finger still serves.
        #expect(Self.code { _ = try keychain.search(passcodeItem, context: Self.context) } == .authenticationNeeded)
        #expect(try keychain.search(fingerItem, context: Self.context).first?.data == Data("secret".utf8))
        _ = try keychain.authenticate(passcode: Self.passcode, grant: grant, context: Self.context)
        clock.advance(by: 300)
        #expect(Self.code { _ = try keychain.search(fingerItem, context: Self.context) } == .authenticationNeeded)
        #expect(try keychain.search(passcodeItem, context: Self.context).first?.data == Data("secret".utf8))
        clock.advance(by: 300)
        #expect(Self.code { _ = try keychain.search(passcodeItem, context: Self.context) } == .authenticationNeeded)
    }

    @Test("A revoked grant opens nothing")
    func revokedGrant() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        var read = try Self.protectedItem(keychain, .devicePasscode)
        let grant = try keychain.authenticate(passcode: Self.passcode, grant: nil, context: Self.context)
        read.authentication.grant = grant
        #expect(try keychain.search(read, context: Self.context).first?.data == Data("secret".utf8))
        keychain.revokeAuthentication(grant: grant, context: Self.context)
        #expect(Self.code { _ = try keychain.search(read, context: Self.context) } == .authenticationNeeded)
    }

    @Test("The keychain's biometric errors tell a wrong finger, a lockout, a cancel and an unavailable reader apart, across the error's reason")
    func biometricErrorsRoundTrip() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        let reader = ReaderDouble()
        keychain.useBiometrics(reader)
        for outcome: BiometricOutcome in [.noMatch, .lockedOut, .cancelled, .unavailable(reason: "no fingerprint reader: x"), .unavailable(reason: "")] {
            reader.answer(outcome)
            do {
                _ = try keychain.authenticateBiometry(reason: "r", grant: nil, context: Self.context)
                Issue.record("\(outcome) issued a grant")
            } catch let error as KeychainError {
                #expect(BiometricOutcome(failure: error) == outcome)
            }
        }
        #expect(BiometricOutcome(failure: KeychainError(.io, "disk")) == nil)
    }

    @Test("An update cannot lift an access control without satisfying it; changing the data needs nothing")
    func updateCannotLiftConstraints() throws {
        let keychain = try TemporaryKeychain(passcode: "2580").keychain
        var read = try Self.protectedItem(keychain, .devicePasscode)
        var query = read
        query.returns = []
        query.authenticationUI = .fail
        var lift = ItemChanges()
        lift.accessControl = try AccessControlPolicy(protection: .whenUnlocked, flags: [])
        #expect(Self.code { try keychain.update(query, changes: lift, context: Self.context) } == .interactionNotAllowed)
        var data = ItemChanges()
        data.secret = Data("new".utf8)
        try keychain.update(query, changes: data, context: Self.context)
        read.authentication.grant = try keychain.authenticate(passcode: Self.passcode, grant: nil, context: Self.context)
        #expect(try keychain.search(read, context: Self.context).first?.data == Data("new".utf8))
    }
}

@Suite("The application password: an encryption layer, not a check")
struct ApplicationPasswordTests {
    static let context = AccessControlEnforcementTests.context

    static func add(_ keychain: Keychain, password: String?, flags: AccessControlPolicy.Flags = .applicationPassword) throws -> ItemRequest {
        var add = ItemRequest(itemClass: .genericPassword)
        add.attributes = [.service: .string("svc"), .account: .string("app")]
        add.accessControl = try AccessControlPolicy(protection: .whenUnlocked, flags: flags)
        add.secret = Data("sealed twice".utf8)
        add.authentication.applicationPassword = password.map { Data($0.utf8) }
        _ = try keychain.add(add, context: context)
        var read = ItemRequest(itemClass: .genericPassword)
        read.attributes = [.service: .string("svc"), .account: .string("app")]
        read.returns = .data
        return read
    }

    static func code(_ body: () throws -> Void) -> KeychainError.Code? { AccessControlEnforcementTests.code(body) }

    @Test("Right password opens the item; a wrong one is errSecAuthFailed; none asks for it; adding without one asks for it")
    func rightAndWrong() throws {
        let keychain = try TemporaryKeychain().keychain
        #expect(Self.code { _ = try Self.add(keychain, password: nil) } == .authenticationNeeded)
        var read = try Self.add(keychain, password: "hunter2")
        #expect(Self.code { _ = try keychain.search(read, context: Self.context) } == .authenticationNeeded)
        read.authentication.applicationPassword = Data("hunter3".utf8)
        #expect(Self.code { _ = try keychain.search(read, context: Self.context) } == .authFailed)
        read.authentication.applicationPassword = Data("hunter2".utf8)
        #expect(try keychain.search(read, context: Self.context).first?.data == Data("sealed twice".utf8))
    }

    @Test("The stored secret is useless without the password: a full passcode grant opens nothing, and the row holds neither secret nor password")
    func storedRecordNeedsPassword() throws {
        let temporary = try TemporaryKeychain(passcode: "2580")
        let keychain = temporary.keychain
        var read = try Self.add(keychain, password: "hunter2", flags: [.devicePasscode, .applicationPassword])
        read.authentication.grant = try keychain.authenticate(passcode: Data("2580".utf8), grant: nil, context: Self.context)
        #expect(Self.code { _ = try keychain.search(read, context: Self.context) } == .authenticationNeeded)
        // The sealed row, opened with every key the keychain holds, still needs the password.
        let current = try #require(try storedRow(of: .genericPassword, in: keychain))
        let blob = try #require(current.secret)
        #expect(ItemSealer.isPasswordSealed(blob))
        #expect(blob.range(of: Data("sealed twice".utf8)) == nil)
        #expect(blob.range(of: Data("hunter2".utf8)) == nil)
        #expect(Self.code { _ = try keychain.store.sealer.openPasswordSecret(blob, sealedIn: current, password: nil) } == .authenticationNeeded)
        #expect(Self.code { _ = try keychain.store.sealer.openPasswordSecret(blob, sealedIn: current, password: SecureBytes(copying: Data("x".utf8))) } == .authFailed)

        // A passcode change seals the row again for new keys; the password layer stays.
        try keychain.changePasscode(from: Data("2580".utf8), to: Data("1470".utf8))
        read.authentication.grant = try keychain.authenticate(passcode: Data("1470".utf8), grant: nil, context: Self.context)
        read.authentication.applicationPassword = Data("hunter2".utf8)
        #expect(try keychain.search(read, context: Self.context).first?.data == Data("sealed twice".utf8))
    }

    @Test("Updating an application-password item's attributes needs the password (the secret is sealed again)")
    func updateNeedsPassword() throws {
        let keychain = try TemporaryKeychain().keychain
        var read = try Self.add(keychain, password: "hunter2")
        var query = read
        query.returns = []
        var label = ItemChanges()
        label.attributes = [.label: .string("renamed")]
        #expect(Self.code { try keychain.update(query, changes: label, context: Self.context) } == .authenticationNeeded)
        query.authentication.applicationPassword = Data("hunter2".utf8)
        try keychain.update(query, changes: label, context: Self.context)
        read.authentication.applicationPassword = Data("hunter2".utf8)
        #expect(try keychain.search(read, context: Self.context).first?.data == Data("sealed twice".utf8))
    }
}

@Suite("The application password of a key the keychain holds")
struct KeyApplicationPasswordTests {
    static let context = AccessControlEnforcementTests.context
    static let algorithm = "algid:sign:ECDSA:message-X962:SHA256"

    static func code(_ body: () throws -> Void) -> KeychainError.Code? { AccessControlEnforcementTests.code(body) }

    /// Generates a P-256 key with `.applicationPassword` (and `extra` flags) sealed under
    /// "hunter2"; its reference.
    static func generate(_ keychain: Keychain, extra: AccessControlPolicy.Flags = []) throws -> AsymmetricKey {
        var request = ItemRequest(itemClass: .key)
        request.attributes = [.type: .integer(KeyType.ellipticCurve.rawValue), .applicationTag: .data(Data("app-key".utf8))]
        request.accessControl = try AccessControlPolicy(protection: .whenUnlocked, flags: extra.union(.applicationPassword))
        request.returns = [.reference]
        #expect(code { _ = try keychain.generateKey(request, type: .ellipticCurve, bits: 256, context: context) } == .authenticationNeeded)
        request.authentication.applicationPassword = Data("hunter2".utf8)
        let result = try keychain.generateKey(request, type: .ellipticCurve, bits: 256, context: context)
        guard case .key(let key)? = result?.reference else { throw KeychainError(.internal, "no reference") }
        return key
    }

    @Test("A key with .applicationPassword is held: each use needs the password (none asks for it, a wrong one is errSecAuthFailed), and the signature verifies")
    func useNeedsPassword() throws {
        let keychain = try TemporaryKeychain().keychain
        let key = try Self.generate(keychain)
        #expect(key.isHeldByKeychain)
        let item = try #require(key.keychainItemReference)
        var use = KeyUse(item: item, operation: .sign(algorithm: Self.algorithm, data: Data("m".utf8)))
        #expect(Self.code { _ = try keychain.useKey(use, context: Self.context) } == .authenticationNeeded)
        use.authenticationUI = .fail
        #expect(Self.code { _ = try keychain.useKey(use, context: Self.context) } == .interactionNotAllowed)
        use.authentication.applicationPassword = Data("hunter3".utf8)
        #expect(Self.code { _ = try keychain.useKey(use, context: Self.context) } == .authFailed)
        use.authentication.applicationPassword = Data("hunter2".utf8)
        let signature = try keychain.useKey(use, context: Self.context).withUnsafeBytes { Data($0) }
        try key.publicKey().verify(Self.algorithm, Data("m".utf8), signature: signature)
    }

    @Test("The stored key is useless without the password: its row holds neither the private key nor the password, a passcode grant opens nothing, and its reference needs the password")
    func storedKeyNeedsPassword() throws {
        let temporary = try TemporaryKeychain(passcode: "2580")
        let keychain = temporary.keychain
        let key = try Self.generate(keychain, extra: .devicePasscode)
        let item = try #require(key.keychainItemReference)
        var export = KeyUse(item: item, operation: .export)
        export.authentication.grant = try keychain.authenticate(passcode: Data("2580".utf8), grant: nil, context: Self.context)
        #expect(Self.code { _ = try keychain.useKey(export, context: Self.context) } == .authenticationNeeded)
        export.authentication.applicationPassword = Data("hunter2".utf8)
        let exported = try keychain.useKey(export, context: Self.context).withUnsafeBytes { Data($0) }
        let scalar = exported.suffix(32)

        let current = try #require(try storedRow(of: .key, in: keychain))
        let blob = try #require(current.secret)
        #expect(ItemSealer.isPasswordSealed(blob))
        #expect(blob.range(of: scalar) == nil)
        #expect(blob.range(of: Data("hunter2".utf8)) == nil)
        #expect(Self.code { _ = try keychain.store.sealer.openPasswordSecret(blob, sealedIn: current, password: nil) } == .authenticationNeeded)

        // Finding the key needs the password too: the keychain cannot read its public key without it.
        var search = ItemRequest(itemClass: .key)
        search.attributes = [.applicationTag: .data(Data("app-key".utf8))]
        search.returns = [.reference]
        #expect(Self.code { _ = try keychain.search(search, context: Self.context) } == .authenticationNeeded)
        search.authenticationUI = .skip
        #expect(Self.code { _ = try keychain.search(search, context: Self.context) } == .itemNotFound)
        search.authenticationUI = .allow
        search.authentication.applicationPassword = Data("hunter3".utf8)
        #expect(Self.code { _ = try keychain.search(search, context: Self.context) } == .authFailed)
        search.authentication.applicationPassword = Data("hunter2".utf8)
        guard case .key(let found)? = try keychain.search(search, context: Self.context).first?.reference else {
            Issue.record("the key was not found with its password")
            return
        }
        #expect(found == key)
        // Its attributes need nothing.
        search.returns = [.attributes]
        search.authentication = ItemAuthentication()
        #expect(try keychain.search(search, context: Self.context).count == 1)
    }
}

/// The first stored row of `itemClass` as it lies in the database, marked current (nil when there
/// is none): what someone with the file and every key the keychain holds would have.
func storedRow(of itemClass: ItemClass, in keychain: Keychain) throws -> StoredRow? {
    let row = try keychain.store.snapshot { tx in
        var found: StoredRow?
        try tx.scan(itemClass: itemClass) { row in
            found = row
            return false
        }
        return found
    }
    guard var current = row else { return nil }
    current.isCurrent = true
    return current
}
