import Foundation
import KeychainCore
import KeychainHardware
import KeychainService
import KeychainTestSupport
import Testing

/// A private key stored with access control stays in `keychaind`: what the daemon sends its
/// client, read as raw bytes from the socket, never holds the private key.
@Suite("keychaind keeps private keys with access control", .serialized)
struct HeldKeyProtocolTests {
    /// One request on a raw connection: the reply's bytes as they arrived, and its payload.
    static func exchange(_ socket: UnixSocket, _ request: ServiceRequest) throws -> (raw: Data, payload: Data) {
        try socket.send(try ServiceMessageCoding.frame(request))
        var buffer = Data()
        var raw = Data()
        while true {
            let before = buffer.count
            guard try socket.receive(into: &buffer) else { throw KeychainError(.notAvailable, "closed") }
            raw.append(buffer[(buffer.startIndex + before)...])
            var copy = buffer
            if let payload = try ServiceMessageCoding.nextPayload(from: &copy) { return (raw, payload) }
        }
    }

    static func response(_ socket: UnixSocket, _ path: String, _ operation: ServiceOperation) throws -> (raw: Data, response: ServiceResponse) {
        let (raw, payload) = try exchange(socket, ServiceRequest(keychainPath: path, operation: operation))
        return (raw, try ServiceMessageCoding.response(fromPayload: payload))
    }

    @Test("Stored with privateKeyUsage access control: the daemon returns a reference, signs only with a grant, and its replies never hold the private key")
    func privateKeyStaysInTheDaemon() throws {
        let fixture = try DaemonFixture()
        let socket = try UnixSocket.connect(to: fixture.socket)
        let path = fixture.root + "/keys.keychain-db"
        guard case .done = try Self.response(socket, path, .create(passcode: Data("2580".utf8))).response else {
            Issue.record("the keychain was not created")
            return
        }
        let key = try AsymmetricKey.generate(type: .ellipticCurve, bits: 256)
        let representation = try key.externalRepresentation().withUnsafeBytes { Data($0) }
        let scalar = representation.suffix(32)
        var add = ItemRequest(itemClass: .key)
        add.attributes = key.itemAttributes
        add.attributes[.applicationTag] = .data(Data("held".utf8))
        add.secret = representation
        add.accessControl = try AccessControlPolicy(protection: .whenUnlocked, flags: [.privateKeyUsage, .devicePasscode])
        add.returns = [.reference, .persistentReference]

        let added = try Self.response(socket, path, .add(add))
        #expect(added.raw.range(of: scalar) == nil)
        guard case .item(let result?) = added.response, case .key(let held)? = result.reference else {
            Issue.record("the add returned no key: \(added.response)")
            return
        }
        #expect(held.isHeldByKeychain)
        #expect(held.keychainItemReference == result.persistentReference)
        #expect(held.publicKeyBytes == key.publicKeyBytes)
        let item = try #require(held.keychainItemReference)

        var search = ItemRequest(itemClass: .key)
        search.attributes = [.applicationTag: .data(Data("held".utf8))]
        search.returns = [.reference, .attributes]
        let found = try Self.response(socket, path, .search(search))
        #expect(found.raw.range(of: scalar) == nil)
        guard case .items(let results) = found.response, case .key(let foundKey)? = results.first?.reference else {
            Issue.record("the search returned no key: \(found.response)")
            return
        }
        #expect(foundKey == held)

        let message = Data("message".utf8)
        let algorithm = "algid:sign:ECDSA:message-X962:SHA256"
        var use = KeyUse(item: item, operation: .sign(algorithm: algorithm, data: message), authenticationUI: .fail)
        guard case .failure(let refused) = try Self.response(socket, path, .useKey(use)).response else {
            Issue.record("a signature was made without authentication")
            return
        }
        #expect(refused.code == .interactionNotAllowed)
        use.authenticationUI = .allow
        guard case .failure(let asked) = try Self.response(socket, path, .useKey(use)).response else {
            Issue.record("a signature was made without authentication")
            return
        }
        #expect(asked.code == .authenticationNeeded)
        var export = KeyUse(item: item, operation: .export)
        guard case .failure(let exportRefused) = try Self.response(socket, path, .useKey(export)).response else {
            Issue.record("the key was exported without authentication")
            return
        }
        #expect(exportRefused.code == .authenticationNeeded)

        guard case .grant(let grant) = try Self.response(socket, path, .authenticate(passcode: Data("2580".utf8), grant: nil)).response else {
            Issue.record("the passcode was not accepted")
            return
        }
        use.authentication.grant = grant
        let signed = try Self.response(socket, path, .useKey(use))
        guard case .keyOutput(let signature) = signed.response else {
            Issue.record("no signature: \(signed.response)")
            return
        }
        // The reply is the frame header, the tag and the signature: nothing else.
        var expected = Data([0x4B, 0x43, 0, UInt8(ServiceFrame.version)])
        let length = UInt32(1 + 4 + signature.count)
        expected.append(contentsOf: withUnsafeBytes(of: length.bigEndian) { Array($0) })
        expected.append(14)
        expected.append(contentsOf: withUnsafeBytes(of: UInt32(signature.count).bigEndian) { Array($0) })
        expected.append(signature)
        #expect(signed.raw == expected)
        #expect(signed.raw.range(of: scalar) == nil)
        try key.publicKey().verify(algorithm, message, signature: signature)

        export.authentication.grant = grant
        guard case .keyOutput(let exported) = try Self.response(socket, path, .useKey(export)).response else {
            Issue.record("the key was not exported with the grant")
            return
        }
        #expect(exported == representation)
    }

    @Test("generateKey makes the private key inside the daemon: the client gets a reference, and no reply before the granted export holds the private key")
    func generatedInTheDaemon() throws {
        let fixture = try DaemonFixture()
        let socket = try UnixSocket.connect(to: fixture.socket)
        let path = fixture.root + "/keys.keychain-db"
        guard case .done = try Self.response(socket, path, .create(passcode: Data("2580".utf8))).response else {
            Issue.record("the keychain was not created")
            return
        }
        var request = ItemRequest(itemClass: .key)
        request.attributes = [.type: .integer(KeyType.ellipticCurve.rawValue), .applicationTag: .data(Data("made".utf8))]
        request.accessControl = try AccessControlPolicy(protection: .whenUnlocked, flags: [.devicePasscode])
        request.returns = [.reference]
        let generated = try Self.response(socket, path, .generateKey(request, type: .ellipticCurve, bits: 256))
        guard case .item(let result?) = generated.response, case .key(let held)? = result.reference else {
            Issue.record("no key was generated: \(generated.response)")
            return
        }
        #expect(held.isHeldByKeychain)
        #expect(held.sizeInBits == 256)
        let item = try #require(held.keychainItemReference)
        var search = ItemRequest(itemClass: .key)
        search.attributes = [.applicationTag: .data(Data("made".utf8))]
        search.returns = [.reference, .attributes]
        let found = try Self.response(socket, path, .search(search))

        // Without privateKeyUsage, signing needs nothing; export needs the passcode.
        let message = Data("message".utf8)
        let algorithm = "algid:sign:ECDSA:message-X962:SHA256"
        let signed = try Self.response(socket, path, .useKey(KeyUse(item: item, operation: .sign(algorithm: algorithm, data: message), authenticationUI: .fail)))
        guard case .keyOutput(let signature) = signed.response else {
            Issue.record("no signature: \(signed.response)")
            return
        }
        try held.publicKey().verify(algorithm, message, signature: signature)
        guard case .failure(let refused) = try Self.response(socket, path, .useKey(KeyUse(item: item, operation: .export, authenticationUI: .fail))).response else {
            Issue.record("the key was exported without authentication")
            return
        }
        #expect(refused.code == .interactionNotAllowed)
        guard case .grant(let grant) = try Self.response(socket, path, .authenticate(passcode: Data("2580".utf8), grant: nil)).response else {
            Issue.record("the passcode was not accepted")
            return
        }
        let exported = try Self.response(socket, path, .useKey(KeyUse(item: item, operation: .export, authentication: ItemAuthentication(grant: grant))))
        guard case .keyOutput(let representation) = exported.response else {
            Issue.record("the key was not exported with the grant: \(exported.response)")
            return
        }
        #expect(representation.count == 97)
        #expect(representation.prefix(65) == held.publicKeyBytes)
        let scalar = representation.suffix(32)
        for raw in [generated.raw, found.raw, signed.raw] { #expect(raw.range(of: scalar) == nil) }
    }

    @Test("A Secure Enclave key with constraints is made in the daemon's TPM: the client gets a reference, and no reply before the granted read of the item's data holds the TPM blob", .enabled(if: SoftwareTPM.executable != nil))
    func tokenKeyGeneratedInTheDaemon() throws {
        let daemon = try TokenDaemon()
        let (socket, path) = (daemon.socket, daemon.path)
        let request = try TokenDaemon.keyRequest(tag: "token")
        let generated = try Self.response(socket, path, .generateKey(request, type: .ellipticCurve, bits: 256))
        guard case .item(let result?) = generated.response, case .key(let held)? = result.reference else {
            Issue.record("no key was generated: \(generated.response)")
            return
        }
        #expect(held.isHeldByKeychain)
        #expect(!held.isHardwareBacked)
        let item = try #require(held.keychainItemReference)
        var search = ItemRequest(itemClass: .key)
        search.attributes = [.applicationTag: .data(Data("token".utf8))]
        search.returns = [.reference, .attributes]
        let found = try Self.response(socket, path, .search(search))

        let message = Data("message".utf8)
        let algorithm = "algid:sign:ECDSA:message-X962:SHA256"
        let use = KeyUse(item: item, operation: .sign(algorithm: algorithm, data: message), authenticationUI: .fail)
        guard case .failure(let refused) = try Self.response(socket, path, .useKey(use)).response else {
            Issue.record("the token key signed without authentication")
            return
        }
        #expect(refused.code == .interactionNotAllowed)
        guard let (grant, signed) = try daemon.signWithGrant(use, held: held, algorithm: algorithm, message: message) else { return }

        search.returns = [.data]
        search.authentication.grant = grant
        guard case .items(let items) = try Self.response(socket, path, .search(search)).response, let blob = items.first?.data else {
            Issue.record("the item's data was not read with the grant")
            return
        }
        #expect(AsymmetricKey.isHardwareRepresentation(blob))
        // The blob's tail is its TPM2B_PRIVATE (encrypted to the TPM's storage key).
        let wrapped = blob.suffix(48)
        for raw in [generated.raw, found.raw, signed] { #expect(raw.range(of: wrapped) == nil) }
    }
}


/// Token keys not stored: `keychaind` keeps them in memory for the process that made them.
extension HeldKeyProtocolTests {
    /// `request` sent by another process (a Python child with its own connection): the daemon's
    /// reply as raw bytes.
    static func exchangeFromAnotherProcess(socket path: String, _ request: ServiceRequest) throws -> ServiceResponse {
        let script = """
            import socket, struct, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            s.sendall(sys.stdin.buffer.read())
            def take(n):
                out = b""
                while len(out) < n:
                    chunk = s.recv(n - len(out))
                    if not chunk: raise SystemExit(3)
                    out += chunk
                return out
            header = take(8)
            sys.stdout.buffer.write(header + take(struct.unpack(">I", header[4:8])[0]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try ServiceMessageCoding.frame(request))
        try input.fileHandleForWriting.close()
        var reply = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let payload = try ServiceMessageCoding.nextPayload(from: &reply) else {
            throw KeychainError(.notAvailable, "the other process got no reply")
        }
        return try ServiceMessageCoding.response(fromPayload: payload)
    }

    @Test("A token key not stored is made in the daemon's TPM and kept in its memory: the client gets a reference, searches never find it, it signs only with a grant, another process presenting its handle gets errSecItemNotFound, and forgetting it ends it", .enabled(if: SoftwareTPM.executable != nil))
    func ephemeralTokenKeyStaysInTheDaemon() throws {
        let daemon = try TokenDaemon()
        let (fixture, socket, path) = (daemon.fixture, daemon.socket, daemon.path)
        let request = try TokenDaemon.keyRequest(tag: "ephemeral")
        let generated = try Self.response(socket, path, .generateEphemeralKey(request, type: .ellipticCurve, bits: 256))
        guard case .item(let result?) = generated.response, case .key(let held)? = result.reference else {
            Issue.record("no key was generated: \(generated.response)")
            return
        }
        #expect(held.isKeptInKeychainMemory)
        #expect(result.persistentReference == nil)
        // The reply holds the reference alone: its magic, the handle and the public key.
        #expect(generated.raw.range(of: Data("KCEPHK01".utf8)) != nil)
        #expect(!held.isHardwareBacked)
        let handle = try #require(held.keychainItemReference)

        var search = ItemRequest(itemClass: .key)
        search.returns = [.attributes]
        search.matchLimit = .all
        let found = try Self.response(socket, path, .search(search)).response
        if case .items(let items) = found { #expect(items.isEmpty) } else if case .failure(let error) = found {
            #expect(error.code == .itemNotFound)
        } else { Issue.record("unexpected search reply \(found)") }
        guard case .itemsWithDamage(let all, _) = try Self.response(socket, path, .allItems(includingData: false)).response else {
            Issue.record("no dump")
            return
        }
        #expect(all.allSatisfy { $0.itemClass != .key })

        let message = Data("message".utf8)
        let algorithm = "algid:sign:ECDSA:message-X962:SHA256"
        let use = KeyUse(item: handle, operation: .sign(algorithm: algorithm, data: message), authenticationUI: .fail)
        guard case .failure(let refused) = try Self.response(socket, path, .useKey(use)).response else {
            Issue.record("the key signed without authentication")
            return
        }
        #expect(refused.code == .interactionNotAllowed)
        // Another process, with the same handle: the key does not exist for it (not even a refusal).
        guard case .failure(let foreign) = try Self.exchangeFromAnotherProcess(socket: fixture.socket, ServiceRequest(keychainPath: path, operation: .useKey(use))) else {
            Issue.record("another process used the key")
            return
        }
        #expect(foreign.code == .itemNotFound)
        guard case .failure(let foreignForget) = try Self.exchangeFromAnotherProcess(
            socket: fixture.socket, ServiceRequest(keychainPath: path, operation: .forgetEphemeralKey(handle: handle)))
        else {
            Issue.record("another process forgot the key")
            return
        }
        #expect(foreignForget.code == .itemNotFound)

        guard try daemon.signWithGrant(use, held: held, algorithm: algorithm, message: message) != nil else { return }

        guard case .done = try Self.response(socket, path, .forgetEphemeralKey(handle: handle)).response else {
            Issue.record("the key was not forgotten")
            return
        }
        guard case .failure(let gone) = try Self.response(socket, path, .useKey(use)).response else {
            Issue.record("a forgotten key signed")
            return
        }
        #expect(gone.code == .itemNotFound)
    }
}

/// A keychaind on a software TPM of the test's own, with a keychain (passcode "2580") it created.
struct TokenDaemon {
    let tpm: SoftwareTPM
    let fixture: DaemonFixture
    let socket: UnixSocket
    let path: String

    init() throws {
        tpm = try SoftwareTPM()
        fixture = try DaemonFixture(environment: ["KEYCHAIN_TPM": tpm.tcti])
        socket = try UnixSocket.connect(to: fixture.socket)
        path = fixture.root + "/keys.keychain-db"
        let created = try HeldKeyProtocolTests.response(socket, path, .create(passcode: Data("2580".utf8))).response
        guard case .done = created else { throw KeychainError(.internal, "the keychain was not created: \(created)") }
    }

    /// A Secure Enclave P-256 key whose use needs the passcode, tagged `tag`, returned as a reference.
    static func keyRequest(tag: String) throws -> ItemRequest {
        var request = ItemRequest(itemClass: .key)
        request.attributes = [
            .type: .integer(KeyType.ellipticCurve.rawValue), .applicationTag: .data(Data(tag.utf8)),
            .tokenID: .string(AsymmetricKey.secureEnclaveTokenID),
        ]
        request.accessControl = try AccessControlPolicy(protection: .whenUnlocked, flags: [.privateKeyUsage, .devicePasscode])
        request.returns = [.reference]
        return request
    }

    /// Gets a grant for the passcode, checks that `use` (a signature of `message` under
    /// `algorithm`) succeeds with it and verifies under `held`'s public key, and that exporting
    /// the key is refused (`errSecUnimplemented`) even with the grant; returns the grant and the
    /// signing reply's raw bytes, nil (with the issue recorded) when a step fails.
    func signWithGrant(_ use: KeyUse, held: AsymmetricKey, algorithm: String, message: Data) throws -> (grant: Data, signedReply: Data)? {
        guard case .grant(let grant) = try HeldKeyProtocolTests.response(socket, path, .authenticate(passcode: Data("2580".utf8), grant: nil)).response else {
            Issue.record("the passcode was not accepted")
            return nil
        }
        var use = use
        use.authentication.grant = grant
        let signed = try HeldKeyProtocolTests.response(socket, path, .useKey(use))
        guard case .keyOutput(let signature) = signed.response else {
            Issue.record("no signature: \(signed.response)")
            return nil
        }
        try held.publicKey().verify(algorithm, message, signature: signature)
        var export = KeyUse(item: use.item, operation: .export, authentication: ItemAuthentication(grant: grant))
        export.authenticationUI = .fail
        guard case .failure(let exportRefused) = try HeldKeyProtocolTests.response(socket, path, .useKey(export)).response else {
            Issue.record("the token key's private key was exported")
            return nil
        }
        #expect(exportRefused.code == .unimplemented)
        return (grant, signed.raw)
    }
}
