import Foundation
import KeychainCore
import KeychainService

/// Values for the wire tests: every operation and response, with every kind of attribute value,
/// secrets with zero bytes, empty data, non-ASCII text and keys, certificates and identities.
enum WireSamples {
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TestVectors")

    /// A P-256 leaf certificate from the certificate vectors.
    static let certificate: Certificate = {
        let der = try! Data(contentsOf: vectors.appendingPathComponent("certificates/leaf-ec-p256.der"))
        return try! Certificate(der: der)
    }()

    /// The certificate's public key, rebuilt from its point (a fixed key for the vectors).
    static let publicKey = try! AsymmetricKey(
        externalRepresentation: certificate.publicKeyBits, type: .ellipticCurve, keyClass: .public)

    /// The persistent reference of a key item.
    static let heldKeyItem = PersistentReference(itemClass: .key, uuid: Data(repeating: 0x6B, count: 16)).data

    /// A reference to a private key the keychain holds (the certificate's key pair).
    static let heldKey = try! AsymmetricKey.heldByKeychain(item: heldKeyItem, publicHalf: publicKey)

    /// A search result holding `heldKey`.
    static var heldKeyResult: ItemResult {
        var result = ItemResult(itemClass: .key)
        result.reference = .key(heldKey)
        return result
    }

    /// A key generation's add request: a tagged P-256 key with access control.
    static var generateRequest: ItemRequest {
        var request = ItemRequest(itemClass: .key)
        request.attributes = [.type: .integer(73), .applicationTag: .data(Data("t".utf8))]
        request.accessControl = try! AccessControlPolicy(protection: .whenUnlocked, flags: [.privateKeyUsage, .userPresence])
        request.returns = [.reference]
        return request
    }

    /// X9.63 key exchange parameters.
    static var exchangeParameters: KeyOperationParameters {
        var parameters = KeyOperationParameters()
        parameters.requestedSize = 32
        parameters.sharedInfo = Data([1, 2])
        return parameters
    }

    /// Fresh private keys (never committed): an EC P-256 and an RSA 1024 key.
    static let ecPrivateKey = try! AsymmetricKey.generate(type: .ellipticCurve, bits: 256)
    static let rsaPrivateKey = try! AsymmetricKey.generate(type: .rsa, bits: 1024)

    /// Text that is not ASCII, with a NUL and characters outside the BMP.
    static let unicode = "pässwörd \u{0} 🔑 — 日本語 e\u{301}"

    /// Every attribute value kind, including extreme integers, dates before the reference date
    /// and data with zero bytes.
    static let attributes: ItemAttributes = [
        .account: .string(unicode),
        .service: .string(""),
        .generic: .data(Data([0, 0, 1, 0, 255])),
        .label: .data(Data()),
        .creator: .integer(Int64.min),
        .type: .integer(Int64.max),
        .creationDate: .date(Date(timeIntervalSinceReferenceDate: -1234.5678)),
        .modificationDate: .date(Date(timeIntervalSinceReferenceDate: 7.25e8)),
        .accessGroup: .string("TEAM.group"),
        .accessible: .string("ak"),
    ]

    static let accessControl = try! AccessControlPolicy(
        protection: .whenPasscodeSetThisDeviceOnly, flags: [.biometryCurrentSet, .or, .devicePasscode])

    /// A request with every field set.
    static var fullRequest: ItemRequest {
        var request = ItemRequest(itemClass: .internetPassword)
        request.attributes = attributes
        request.accessControl = accessControl
        request.synchronizable = .only(true)
        request.secret = Data([0, 1, 0, 0, 2])
        request.persistentReference = PersistentReference(itemClass: .internetPassword, uuid: Data(repeating: 0xA5, count: 16))
        request.identity = Identity(certificate: certificate, privateKey: ecPrivateKey)
        request.matchLimit = .count(17)
        request.returns = [.data, .attributes, .reference, .persistentReference]
        request.caseInsensitive = true
        request.hostOrSubdomain = "example.com"
        request.authenticationUI = .skip
        return request
    }

    /// A request with no optional field set.
    static var bareRequest: ItemRequest { ItemRequest(itemClass: .genericPassword) }

    static var changes: ItemChanges {
        var changes = ItemChanges()
        changes.attributes = [.label: .string(unicode), .isInvisible: .integer(1)]
        changes.accessControl = try! AccessControlPolicy(protection: .afterFirstUnlock, flags: [])
        changes.synchronizable = false
        changes.secret = Data()
        return changes
    }

    /// Every operation.
    static var operations: [ServiceOperation] {
        var legacy = ItemRequest(itemClass: .key)
        legacy.persistentReference = try! PersistentReference(data: Data("keys".utf8) + Data([0, 0, 0, 0, 0, 0, 1, 2]))
        legacy.matchLimit = .all
        legacy.synchronizable = .any
        legacy.authenticationUI = .fail
        var one = ItemRequest(itemClass: .certificate)
        one.matchLimit = .one
        one.synchronizable = .only(false)
        return [
            .open(create: true), .open(create: false), .create(passcode: Data("1234".utf8)), .create(passcode: nil),
            .deleteKeychain, .add(fullRequest), .add(bareRequest), .search(legacy), .search(one),
            .update(fullRequest, changes), .update(bareRequest, ItemChanges()), .delete(fullRequest),
            .allItems(includingData: true), .allItems(includingData: false), .status,
            .unlock(passcode: Data([0, 0, 0])), .lock, .changePasscode(old: Data("old".utf8), new: nil),
            .changePasscode(old: nil, new: Data("néw".utf8)), .settings,
            .updateSettings(KeychainSettings(lockOnSleep: true, useLockInterval: true, lockInterval: 300)),
            .updateSettings(KeychainSettings()), .backup(path: "/tmp/b ü.backup", password: Data([0, 9])),
            .restore(path: "/tmp/b.backup", password: Data()),
            .registerProgram(executablePath: "/usr/bin/app", entitlements: Data("<plist/>".utf8)),
            .registeredPrograms, .removeProgram(executablePath: "/usr/bin/app"), .defaultAccessGroup,
            .useKey(KeyUse(item: heldKeyItem, operation: .sign(algorithm: "algid:sign:RSA:raw", data: Data([0, 1])))),
            .useKey(KeyUse(
                item: heldKeyItem, operation: .decrypt(algorithm: "algid:encrypt:RSA:OAEP:SHA256", data: Data()),
                authentication: ItemAuthentication(grant: Data([7]), applicationPassword: Data("pw".utf8)), authenticationUI: .skip)),
            .useKey(KeyUse(item: heldKeyItem, operation: .keyExchange(algorithm: "algid:keyexchange:ECDH", peer: publicKey, parameters: KeyOperationParameters()))),
            .useKey(KeyUse(item: heldKeyItem, operation: .export, authenticationUI: .fail)),
            .generateKey(fullRequest, type: .rsa, bits: 2048), .generateKey(bareRequest, type: .ellipticCurve, bits: 256),
            .generateEphemeralKey(fullRequest, type: .ellipticCurve, bits: 256), .forgetEphemeralKey(handle: Data([1, 2, 3])),
            .syncNow, .syncStatus,
        ]
    }

    static var results: [ItemResult] {
        var full = ItemResult(itemClass: .genericPassword)
        full.attributes = attributes
        full.accessControl = accessControl
        full.data = Data([0, 0, 0])
        full.persistentReference = Data(repeating: 7, count: 20)
        var key = ItemResult(itemClass: .key)
        key.reference = .key(rsaPrivateKey)
        key.attributes = rsaPrivateKey.itemAttributes
        var publicKey = ItemResult(itemClass: .key)
        publicKey.reference = .key(Self.publicKey)
        var certificate = ItemResult(itemClass: .certificate)
        certificate.reference = .certificate(Self.certificate)
        var identity = ItemResult(itemClass: .identity)
        identity.reference = .identity(Identity(certificate: Self.certificate, privateKey: ecPrivateKey))
        identity.data = Data()
        return [full, ItemResult(itemClass: .internetPassword), key, publicKey, certificate, identity, heldKeyResult]
    }

    static let unsafeFile = UnsafeFile(
        path: "/home/ü/.local/share/keychains", role: "keychain directory", isDirectory: true,
        problem: .openToOthers(mode: 0o1777))

    /// Every response.
    static var responses: [ServiceResponse] {
        [
            .done, .keyOutput(Data()), .keyOutput(Data([0x30, 1, 2])), .item(nil), .item(results[0]), .items([]), .items(results), .count(0), .count(Int.max), .group("TEAM.app"), .group(""),
            .itemsWithDamage(results, KeychainDamage(unreadableItems: 2, missingItems: 3)),
            .status(KeychainStatus(lockState: .locked, hasPasscode: true, passcodeRetryDelay: 0.5, daemonProcess: 4242)),
            .status(KeychainStatus(lockState: .beforeFirstUnlock, hasPasscode: false, passcodeRetryDelay: nil, daemonProcess: nil)),
            .status(KeychainStatus(lockState: .unlocked, hasPasscode: false, passcodeRetryDelay: nil, daemonProcess: -1)),
            .settings(KeychainSettings(lockOnSleep: false, useLockInterval: true, lockInterval: nil)),
            .backup(BackupSummary(itemCount: 10, passcodeOnlyItemsLeftOut: 1)),
            .restore(RestoreSummary(restoredCount: 9, thisDeviceOnlyItemsLeftOut: 2, isSameDevice: false)),
            .programs([]),
            .syncProgress(applied: 0, total: 0), .syncProgress(applied: 1000, total: Int.max),
            .syncReport(SyncExchangeReport(uploaded: 0, uploadedDeletions: 0, applied: 0, appliedDeletions: 0, refused: [], fullRefetch: false)),
            .syncReport(SyncExchangeReport(
                uploaded: 3, uploadedDeletions: 1, applied: Int.max, appliedDeletions: 2, refused: ["record 1", unicode], fullRefetch: true,
                damagedLocally: true)),
            .syncStatus(SyncStatusReport(
                accountID: UUID(), deviceID: UUID(), devices: nil, serverError: unicode, lastSync: nil, lastError: nil, pendingChanges: 0)),
            .syncStatus(SyncStatusReport(
                accountID: UUID(), deviceID: UUID(),
                devices: [.init(id: UUID(), standing: .trusted), .init(id: UUID(), standing: .notTrusted), .init(id: UUID(), standing: .pending)],
                serverError: nil, lastSync: Date(timeIntervalSinceReferenceDate: -0.5), lastError: "refused: r", pendingChanges: 7)),
            .syncFailure(SyncFailure(code: 1, message: "the server cannot be reached")),
            .syncFailure(SyncFailure(code: 2, message: unicode, sqlState: "40001")),
            .programs([
                RegisteredProgram(
                    executablePath: "/opt/app", executableDigest: Data(repeating: 0xEE, count: 32),
                    entitlements: Entitlements(
                        applicationIdentifier: "TEAM.app", keychainAccessGroups: ["TEAM.shared", unicode],
                        applicationGroups: ["group.x"])),
                RegisteredProgram(
                    executablePath: "/opt/b", executableDigest: Data(),
                    entitlements: Entitlements(applicationIdentifier: nil, keychainAccessGroups: [])),
            ]),
            .failure(KeychainError(.itemNotFound, "no item matched")),
            .failure(KeychainError(refusing: unsafeFile)),
            .failure(KeychainError(.writePermission, "custom reason", unsafeFile: UnsafeFile(
                path: "/k", role: "keybag", isDirectory: false, problem: .ownedByAnotherUser(owner: 0, caller: 1000)))),
            .failure(KeychainError(.writePermission, "link", unsafeFile: UnsafeFile(
                path: "/k", role: "keybag", isDirectory: false, problem: .symbolicLink))),
            .failure(KeychainError(.writePermission, "type", unsafeFile: UnsafeFile(
                path: "/k", role: "keybag", isDirectory: true, problem: .wrongType))),
        ] + KeychainError.Code.allCases.map { .failure(KeychainError($0, "reason")) }
    }
}

// Field-by-field equality for the tests: a field the codec dropped on both sides would make a
// comparison of re-encoded bytes pass, a comparison of values does not.

extension ItemRequest: Equatable {
    public static func == (a: ItemRequest, b: ItemRequest) -> Bool {
        a.itemClass == b.itemClass && a.attributes == b.attributes && a.accessControl == b.accessControl
            && a.synchronizable == b.synchronizable && a.secret == b.secret
            && a.persistentReference == b.persistentReference && a.identity == b.identity
            && a.matchLimit == b.matchLimit && a.returns == b.returns && a.caseInsensitive == b.caseInsensitive
            && a.hostOrSubdomain == b.hostOrSubdomain && a.authenticationUI == b.authenticationUI
            && a.authentication == b.authentication
    }
}

extension ItemChanges: Equatable {
    public static func == (a: ItemChanges, b: ItemChanges) -> Bool {
        a.attributes == b.attributes && a.accessControl == b.accessControl && a.synchronizable == b.synchronizable
            && a.secret == b.secret
    }
}

extension ItemResult: Equatable {
    public static func == (a: ItemResult, b: ItemResult) -> Bool {
        a.itemClass == b.itemClass && a.attributes == b.attributes && a.accessControl == b.accessControl
            && a.data == b.data && a.persistentReference == b.persistentReference && a.reference == b.reference
    }
}

extension KeyUse: Equatable {
    public static func == (a: KeyUse, b: KeyUse) -> Bool {
        guard a.item == b.item, a.authentication == b.authentication, a.authenticationUI == b.authenticationUI else { return false }
        switch (a.operation, b.operation) {
        case (.sign(let p, let d), .sign(let q, let e)), (.decrypt(let p, let d), .decrypt(let q, let e)): return p == q && d == e
        case (.keyExchange(let p, let k, let x), .keyExchange(let q, let l, let y)):
            return p == q && k == l && x.requestedSize == y.requestedSize && x.sharedInfo == y.sharedInfo
        case (.export, .export): return true
        default: return false
        }
    }
}

extension ServiceOperation: Equatable {
    public static func == (a: ServiceOperation, b: ServiceOperation) -> Bool {
        switch (a, b) {
        case (.open(let x), .open(let y)): return x == y
        case (.create(let x), .create(let y)): return x == y
        case (.deleteKeychain, .deleteKeychain), (.status, .status), (.lock, .lock), (.settings, .settings),
            (.registeredPrograms, .registeredPrograms), (.defaultAccessGroup, .defaultAccessGroup):
            return true
        case (.add(let x), .add(let y)), (.search(let x), .search(let y)), (.delete(let x), .delete(let y)): return x == y
        case (.update(let x, let c), .update(let y, let d)): return x == y && c == d
        case (.allItems(let x), .allItems(let y)): return x == y
        case (.unlock(let x), .unlock(let y)): return x == y
        case (.changePasscode(let o, let n), .changePasscode(let p, let m)): return o == p && n == m
        case (.updateSettings(let x), .updateSettings(let y)): return x == y
        case (.backup(let p, let w), .backup(let q, let v)), (.restore(let p, let w), .restore(let q, let v)):
            return p == q && w == v
        case (.registerProgram(let p, let e), .registerProgram(let q, let f)): return p == q && e == f
        case (.removeProgram(let p), .removeProgram(let q)): return p == q
        case (.authenticate(let p, let g), .authenticate(let q, let h)): return p == q && g == h
        case (.authenticateBiometry(let r, let g), .authenticateBiometry(let s, let h)): return r == s && g == h
        case (.revokeAuthentication(let g), .revokeAuthentication(let h)): return g == h
        case (.useKey(let x), .useKey(let y)): return x == y
        case (.generateKey(let x, let t, let b), .generateKey(let y, let u, let c)): return x == y && t == u && b == c
        case (.generateEphemeralKey(let x, let t, let b), .generateEphemeralKey(let y, let u, let c)): return x == y && t == u && b == c
        case (.forgetEphemeralKey(let x), .forgetEphemeralKey(let y)): return x == y
        case (.syncNow, .syncNow), (.syncStatus, .syncStatus): return true
        default: return false
        }
    }
}

extension ServiceResponse: Equatable {
    public static func == (a: ServiceResponse, b: ServiceResponse) -> Bool {
        switch (a, b) {
        case (.done, .done): return true
        case (.item(let x), .item(let y)): return x == y
        case (.items(let x), .items(let y)): return x == y
        case (.count(let x), .count(let y)): return x == y
        case (.group(let x), .group(let y)): return x == y
        case (.itemsWithDamage(let x, let d), .itemsWithDamage(let y, let e)): return x == y && d == e
        case (.status(let x), .status(let y)): return x == y
        case (.settings(let x), .settings(let y)): return x == y
        case (.backup(let x), .backup(let y)): return x == y
        case (.restore(let x), .restore(let y)): return x == y
        case (.programs(let x), .programs(let y)): return x == y
        case (.failure(let x), .failure(let y)): return x == y
        case (.grant(let x), .grant(let y)): return x == y
        case (.keyOutput(let x), .keyOutput(let y)): return x == y
        case (.syncProgress(let a, let t), .syncProgress(let b, let u)): return a == b && t == u
        case (.syncReport(let x), .syncReport(let y)): return x == y
        case (.syncStatus(let x), .syncStatus(let y)): return x == y
        case (.syncFailure(let x), .syncFailure(let y)): return x == y
        default: return false
        }
    }
}

/// A deterministic generator (SplitMix64), so a mutation test fails the same way every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
