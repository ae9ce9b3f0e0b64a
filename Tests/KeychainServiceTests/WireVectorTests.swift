import Foundation
import KeychainCore
import KeychainService
import Testing

/// Frames pinned in `Tests/TestVectors/keychaind-frames.txt` (one `name hex` line each): any
/// change of the format (a tag, a field's order or width, an error code's number) changes a
/// frame, and this fails until the file, the protocol version and docs/keychaind-protocol.md
/// are changed with it.
@Suite("Wire vectors")
struct WireVectorTests {
    enum Message {
        case request(ServiceRequest)
        case response(ServiceResponse)

        func frame() throws -> Data {
            switch self {
            case .request(let request): return try request.frame()
            case .response(let response): return try response.frame()
            }
        }

        /// Whether `payload` decodes to this message.
        func isDecoded(from payload: Data) throws -> Bool {
            switch self {
            case .request(let request):
                let decoded = try ServiceRequest(payload: payload)
                return decoded.keychainPath == request.keychainPath && decoded.operation == request.operation
            case .response(let response):
                return try ServiceResponse(payload: payload) == response
            }
        }
    }

    /// The pinned messages: fixed values only (no generated key).
    static var messages: [(name: String, message: Message)] {
        var add = ItemRequest(itemClass: .internetPassword)
        add.attributes = WireSamples.attributes
        add.accessControl = WireSamples.accessControl
        add.synchronizable = .only(false)
        add.secret = Data([0, 0x73, 0x65, 0, 0x63])
        add.persistentReference = PersistentReference(itemClass: .internetPassword, uuid: Data(repeating: 0xA5, count: 16))
        add.matchLimit = .count(5)
        add.returns = [.data, .persistentReference]
        add.caseInsensitive = true
        add.hostOrSubdomain = "example.com"
        add.authenticationUI = .fail
        var search = ItemRequest(itemClass: .genericPassword)
        search.attributes = [.service: .string("svc"), .account: .string("me")]
        search.matchLimit = .all
        search.returns = [.attributes]
        var authenticated = search
        authenticated.returns = [.data]
        authenticated.authentication = ItemAuthentication(grant: Data(repeating: 0x47, count: 32), applicationPassword: Data("app".utf8))
        var full = ItemResult(itemClass: .genericPassword)
        full.attributes = [.account: .string("me"), .creationDate: .date(Date(timeIntervalSinceReferenceDate: 1.5))]
        full.data = Data([0, 1])
        full.persistentReference = Data("genp".utf8) + Data(repeating: 1, count: 16)
        var certificate = ItemResult(itemClass: .certificate)
        certificate.reference = .certificate(WireSamples.certificate)
        var key = ItemResult(itemClass: .key)
        key.reference = .key(WireSamples.publicKey)
        var messages: [(String, Message)] = [
            ("request-status", .request(ServiceRequest(keychainPath: "/k", operation: .status))),
            ("request-open", .request(ServiceRequest(keychainPath: "/home/ü/k", operation: .open(create: true)))),
            ("request-unlock", .request(ServiceRequest(keychainPath: "/k", operation: .unlock(passcode: Data("1234".utf8))))),
            ("request-add", .request(ServiceRequest(keychainPath: "/k", operation: .add(add)))),
            ("request-search", .request(ServiceRequest(keychainPath: "/k", operation: .search(search)))),
            ("request-update", .request(ServiceRequest(keychainPath: "/k", operation: .update(search, WireSamples.changes)))),
            ("request-change-passcode", .request(ServiceRequest(keychainPath: "/k", operation: .changePasscode(old: nil, new: Data([0]))))),
            ("request-backup", .request(ServiceRequest(keychainPath: "/k", operation: .backup(path: "/b", password: Data("pw".utf8))))),
            ("request-search-authenticated", .request(ServiceRequest(keychainPath: "/k", operation: .search(authenticated)))),
            ("request-authenticate", .request(ServiceRequest(keychainPath: "/k", operation: .authenticate(passcode: Data("2580".utf8), grant: Data(repeating: 0x47, count: 32))))),
            ("request-authenticate-biometry", .request(ServiceRequest(keychainPath: "/k", operation: .authenticateBiometry(reason: "r", grant: nil)))),
            ("request-revoke-authentication", .request(ServiceRequest(keychainPath: "/k", operation: .revokeAuthentication(grant: Data([1, 2]))))),
            ("request-use-key-sign", .request(ServiceRequest(keychainPath: "/k", operation: .useKey(KeyUse(
                item: WireSamples.heldKeyItem, operation: .sign(algorithm: "algid:sign:ECDSA:message-X962:SHA256", data: Data("m".utf8)),
                authentication: ItemAuthentication(grant: Data(repeating: 0x47, count: 32)), authenticationUI: .fail))))),
            ("request-use-key-exchange", .request(ServiceRequest(keychainPath: "/k", operation: .useKey(KeyUse(
                item: WireSamples.heldKeyItem,
                operation: .keyExchange(algorithm: "algid:keyexchange:ECDH:standard:X963SHA256", peer: WireSamples.publicKey, parameters: WireSamples.exchangeParameters)))))),
            ("request-use-key-export", .request(ServiceRequest(keychainPath: "/k", operation: .useKey(KeyUse(item: WireSamples.heldKeyItem, operation: .export))))),
            ("request-generate-key", .request(ServiceRequest(keychainPath: "/k", operation: .generateKey(WireSamples.generateRequest, type: .ellipticCurve, bits: 256)))),
            ("request-generate-ephemeral-key", .request(ServiceRequest(keychainPath: "/k", operation: .generateEphemeralKey(WireSamples.generateRequest, type: .ellipticCurve, bits: 256)))),
            ("request-forget-ephemeral-key", .request(ServiceRequest(keychainPath: "/k", operation: .forgetEphemeralKey(handle: Data("KCEPHK01".utf8) + Data(repeating: 0x47, count: 32))))),
            ("response-key-output", .response(.keyOutput(Data([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02])))),
            ("response-item-held-key", .response(.item(WireSamples.heldKeyResult))),
            ("response-grant", .response(.grant(Data(repeating: 0x47, count: 32)))),
            ("response-failure-authentication-needed-constraints", .response(.failure(KeychainError(authenticationNeededFor: [.biometryAny, .or, .devicePasscode])))),
            ("request-register-program", .request(ServiceRequest(keychainPath: "/k", operation: .registerProgram(executablePath: "/bin/a", entitlements: Data("<d/>".utf8))))),
            ("response-done", .response(.done)),
            ("response-items", .response(.items([full, certificate, key]))),
            ("response-count", .response(.count(42))),
            ("response-status", .response(.status(KeychainStatus(lockState: .locked, hasPasscode: true, passcodeRetryDelay: 2.5, daemonProcess: 77)))),
            ("response-settings", .response(.settings(KeychainSettings(lockOnSleep: true, useLockInterval: true, lockInterval: 300)))),
            ("response-damage", .response(.itemsWithDamage([], KeychainDamage(unreadableItems: 1, missingItems: 2)))),
            ("response-restore", .response(.restore(RestoreSummary(restoredCount: 3, thisDeviceOnlyItemsLeftOut: 1, isSameDevice: true)))),
            ("response-programs", .response(.programs([RegisteredProgram(
                executablePath: "/bin/a", executableDigest: Data([1, 2, 3]),
                entitlements: Entitlements(applicationIdentifier: "T.a", keychainAccessGroups: ["T.g"], applicationGroups: []))]))),
            ("request-sync-now", .request(ServiceRequest(keychainPath: "/k", operation: .syncNow))),
            ("request-sync-status", .request(ServiceRequest(keychainPath: "/k", operation: .syncStatus))),
            ("response-sync-progress", .response(.syncProgress(applied: 1000, total: 2500))),
            ("response-sync-report", .response(.syncReport(SyncExchangeReport(
                uploaded: 3, uploadedDeletions: 1, applied: 2, appliedDeletions: 0, refused: ["record r"], fullRefetch: true,
                damagedLocally: true)))),
            ("response-sync-status", .response(.syncStatus(SyncStatusReport(
                accountID: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)),
                deviceID: UUID(uuid: (0xA1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xA2)),
                devices: [.init(id: UUID(uuid: (0xA1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xA2)), standing: .trusted)],
                serverError: nil, lastSync: Date(timeIntervalSinceReferenceDate: 8.5e8), lastError: "e", pendingChanges: 2)))),
            ("response-sync-failure", .response(.syncFailure(SyncFailure(code: 2, message: "m", sqlState: "40001")))),
            ("response-failure-unsafe-file", .response(.failure(KeychainError(refusing: UnsafeFile(
                path: "/k", role: "keybag", isDirectory: false, problem: .openToOthers(mode: 0o644)))))),
        ]
        for code in KeychainError.Code.allCases {
            messages.append(("response-failure-\(code)", .response(.failure(KeychainError(code, "r")))))
        }
        return messages
    }

    static let file = WireSamples.vectors.appendingPathComponent("keychaind-frames.txt")

    /// The file's frames by name.
    static func pinned() throws -> [String: String] {
        var frames: [String: String] = [:]
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            guard fields.count == 2 else { continue }
            frames[String(fields[0])] = String(fields[1])
        }
        return frames
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func bytes(_ hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            data.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return data
    }

    @Test("Each message encodes to the frame pinned for it, byte for byte")
    func encodesAsPinned() throws {
        let messages = Self.messages
        let pinned = try Self.pinned()
        #expect(Set(pinned.keys) == Set(messages.map(\.name)))
        for (name, message) in messages {
            let frame = Self.hex(try message.frame())
            #expect(pinned[name] == frame, "\(name) encodes as: \(name) \(frame)")
        }
    }

    @Test("Each pinned frame decodes to its message")
    func decodesPinned() throws {
        let pinned = try Self.pinned()
        for (name, message) in Self.messages {
            var buffer = Self.bytes(try #require(pinned[name], "\(name) is not pinned"))
            let payload = try #require(try ServiceFrame.decodeFrame(from: &buffer), "\(name) is not a whole frame")
            #expect(buffer.isEmpty, "\(name)")
            #expect(try message.isDecoded(from: payload), "\(name)")
        }
    }
}
