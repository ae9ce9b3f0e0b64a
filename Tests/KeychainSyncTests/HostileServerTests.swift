import Foundation
import Testing

@testable import KeychainSync

/// A server that changes what it stores: each change is refused by the device and nothing in its
/// keychain changes.
@Suite("Sync against a hostile server", .serialized)
struct HostileServerTests {
    /// Two enrolled devices sharing `items` (service → password), synced on both.
    static func sharedSetup(_ items: [(String, String)]) throws -> (SyncServer, SyncDevice, SyncDevice) {
        let server = try SyncServer()
        let (a, b) = (try SyncDevice(), try SyncDevice())
        try server.enroll(a, b)
        for (service, password) in items {
            #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", service, "-w", password).status == 0)
        }
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        return (server, a, b)
    }

    @Test("a ciphertext changed by the server is refused and the item stays as it was")
    func changedCiphertextIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("mail", "original")])
        defer { server.stop(); a.stop(); b.stop() }
        #expect(try a.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "mail", "-w", "changed").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        // Flip one bit of the last byte (inside the sealed item).
        try server.admin.execute(
            """
            UPDATE keychain_sync.record SET ciphertext = set_byte(ciphertext, length(ciphertext) - 1,
                get_byte(ciphertext, length(ciphertext) - 1) # 1)
            """)
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("refused: record"))
        #expect(try b.password("me", "mail") == "original")
    }

    @Test("a record copied onto another item's record is refused")
    func recordMovedBetweenItemsIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("kept", "untouched")])
        defer { server.stop(); a.stop(); b.stop() }
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "first", "-w", "one").status == 0)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "second", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        // The two new records, both at generation 1, not yet fetched by B: the server puts the
        // first one's ciphertext in the second one's row.
        let rows = try server.admin.execute(
            "SELECT record_id FROM keychain_sync.record ORDER BY change_seq DESC LIMIT 2")
        #expect(rows.count == 2)
        let (source, target) = (try rows.uuid(0, "record_id"), try rows.uuid(1, "record_id"))
        try server.admin.execute(
            """
            UPDATE keychain_sync.record t SET ciphertext = s.ciphertext, parent_key_id = s.parent_key_id
            FROM keychain_sync.record s WHERE s.record_id = $1 AND t.record_id = $2
            """,
            [.uuid(source), .uuid(target)])
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("does not authenticate"))
        #expect(try b.password("me", "kept") == "untouched")
        #expect(try b.password("me", "first") == nil)
        #expect(try b.password("me", "second") == nil)
    }

    @Test("an older generation replayed by the server is refused")
    func replayedGenerationIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("mail", "version-1")])
        defer { server.stop(); a.stop(); b.stop() }
        try server.admin.execute("CREATE TABLE saved AS SELECT * FROM keychain_sync.record")
        #expect(try a.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "mail", "-w", "version-2").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.password("me", "mail") == "version-2")
        try server.admin.execute(
            """
            UPDATE keychain_sync.record r SET ciphertext = s.ciphertext, generation = s.generation,
                change_seq = nextval('keychain_sync.change_seq')
            FROM saved s WHERE s.record_id = r.record_id
            """)
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("older than"))
        #expect(try b.password("me", "mail") == "version-2")
    }

    /// The server puts class keys wrapped by a TLK of its own choosing in place of the account's
    /// (the originals are kept in `saved_keys`), so a device that took the server's TLK would find
    /// keys that open under it, and raises the key epoch.
    static func forgeClassKeys(_ server: SyncServer, account: UUID, topLevel: AccountKeys.Key) throws {
        let forged = AccountKeys(
            accountID: account, topLevel: topLevel,
            classKeys: [AccountKeys.classA: AccountKeys.Key(id: UUID(), bytes: try SyncCrypto.newKey()),
                        AccountKeys.classC: AccountKeys.Key(id: UUID(), bytes: try SyncCrypto.newKey())])
        try server.admin.execute("CREATE TABLE saved_keys AS SELECT * FROM keychain_sync.sync_key")
        try server.admin.execute("DELETE FROM keychain_sync.sync_key")
        for name in [AccountKeys.classA, AccountKeys.classC] {
            try server.admin.execute(
                "INSERT INTO keychain_sync.sync_key (owner, key_id, key_class, parent_key_id, wrapped) VALUES ('alice', $1, $2, $3, $4)",
                [.uuid(forged.classKeys[name]!.id), .text(name), .uuid(topLevel.id), .bytes(try forged.wrapClassKey(named: name))])
        }
        try server.admin.execute("UPDATE keychain_sync.account SET key_epoch = 2")
    }

    /// Puts the account's class keys and key epoch back.
    static func restoreClassKeys(_ server: SyncServer) throws {
        try server.admin.execute("DELETE FROM keychain_sync.sync_key")
        try server.admin.execute("INSERT INTO keychain_sync.sync_key SELECT * FROM saved_keys")
        try server.admin.execute("UPDATE keychain_sync.account SET key_epoch = 1")
    }

    @Test("a device list forged by the server is refused and nothing on the device changes")
    func forgedDeviceListIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("mail", "original")])
        defer { server.stop(); a.stop(); b.stop() }
        let aID = try DeviceTrustTests.deviceID(of: a)
        // The server adds a device of its own to A's signed list (it cannot sign for A).
        let intruder = try DeviceIdentity.generate()
        let (signing, agreement) = try intruder.publicPoints()
        try server.admin.execute(
            "INSERT INTO keychain_sync.device (owner, device_id, signing_key, agreement_key, vouch) VALUES ('alice', $1, $2, $3, $4)",
            [.uuid(intruder.deviceID), .bytes(signing), .bytes(agreement), .bytes(Data(count: 32))])
        try server.admin.execute(
            "UPDATE keychain_sync.device_list SET devices = devices || $1 WHERE signer = $2",
            [.bytes(withUnsafeBytes(of: intruder.deviceID.uuid) { Data($0) }), .uuid(UUID(uuidString: aID)!)])
        #expect(try a.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "mail", "-w", "changed").status == 0)
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("refused the device list of device \(aID): that device did not sign it"))
        #expect(try b.password("me", "mail") == "original")
        let status = try b.run("sync", "status")
        #expect(status.output.contains("\(intruder.deviceID.uuidString.lowercased()) NOT TRUSTED"))
    }

    @Test("a TLK share forged by the server is refused by a trusted device, which keeps its keys")
    func forgedKeyShareIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("mail", "original")])
        defer { server.stop(); a.stop(); b.stop() }
        let (aID, bID) = (try DeviceTrustTests.deviceID(of: a), try DeviceTrustTests.deviceID(of: b))
        let account = try server.admin.execute("SELECT account_id FROM keychain_sync.account").uuid(0, "account_id")
        let agreement = try #require(try server.admin.execute(
            "SELECT agreement_key FROM keychain_sync.device WHERE device_id = $1", [.uuid(UUID(uuidString: bID)!)]).bytes(0, "agreement_key"))
        // A share of a TLK the server chose, in A's name, encrypted to B, signed by the server's key.
        let scalars = try DeviceIdentity.generate().scalars()
        let forger = try DeviceIdentity(deviceID: UUID(uuidString: aID)!, signing: scalars.signing, agreement: scalars.agreement)
        let (signing, forgerAgreement) = try forger.publicPoints()
        let topLevel = AccountKeys.Key(id: UUID(), bytes: try SyncCrypto.newKey())
        let share = try KeyShare.seal(
            KeyShare.Contents(
                epoch: 2, topLevel: topLevel,
                members: [UUID(uuidString: aID)!: TrustedDevice(signing: signing, agreement: forgerAgreement),
                          UUID(uuidString: bID)!: TrustedDevice(signing: signing, agreement: agreement)],
                approval: Data()),
            accountID: account, sender: forger, receiver: UUID(uuidString: bID)!, receiverAgreement: agreement)
        try server.admin.execute(
            "INSERT INTO keychain_sync.key_share (owner, receiver, sender, key_id, wrapped, signature) VALUES ('alice', $1, $2, $3, $4, $5)",
            [.uuid(UUID(uuidString: bID)!), .uuid(UUID(uuidString: aID)!), .uuid(topLevel.id), .bytes(share.wrapped), .bytes(share.signature)])
        try Self.forgeClassKeys(server, account: account, topLevel: topLevel)
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("refused a key share for this device that no device it trusts signed"))
        #expect(try b.password("me", "mail") == "original")
        // Once the server puts the account back, B syncs with the keys it had.
        try server.admin.execute("DELETE FROM keychain_sync.key_share")
        try Self.restoreClassKeys(server)
        #expect(try a.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "mail", "-w", "changed").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.password("me", "mail") == "changed")
    }

    @Test("a join request whose keys the server swapped for its own matches no code: nothing is approved")
    func swappedJoinRequestIsNotApproved() throws {
        let (server, a, b) = try Self.sharedSetup([("mail", "original")])
        defer { server.stop(); a.stop(); b.stop() }
        let c = try SyncDevice()
        defer { c.stop() }
        let join = try c.start("sync", "join", "--server", server.conninfo(), "--timeout", "3")
        let cID = try #require(join.line(startingWith: "this device: "))
        let code = try #require(join.line(startingWith: "code: "))
        let account = try server.admin.execute("SELECT account_id FROM keychain_sync.account").uuid(0, "account_id")
        let verifier = try #require(try server.admin.execute(
            "SELECT verifier FROM keychain_sync.join_request WHERE device_id = $1", [.uuid(UUID(uuidString: cID)!)]).bytes(0, "verifier"))
        // The server keeps the device id and the verifier, puts in its own keys and signs the request.
        let scalars = try DeviceIdentity.generate().scalars()
        let forger = try DeviceIdentity(deviceID: UUID(uuidString: cID)!, signing: scalars.signing, agreement: scalars.agreement)
        let (signing, agreement) = try forger.publicPoints()
        let signature = try forger.sign(JoinCode.requestMessage(
            accountID: account, deviceID: forger.deviceID, signing: signing, agreement: agreement, verifier: verifier))
        try server.admin.execute(
            "UPDATE keychain_sync.join_request SET signing_key = $1, agreement_key = $2, signature = $3 WHERE device_id = $4",
            [.bytes(signing), .bytes(agreement), .bytes(signature), .uuid(forger.deviceID)])
        let approve = try a.run("sync", "approve", code)
        #expect(approve.status == 1)
        #expect(approve.error.contains("no pending join request matches this code: nothing was approved"))
        #expect(try server.admin.execute("SELECT count(*) AS n FROM keychain_sync.key_share").integer(0, "n") == 0)
        #expect(try server.admin.execute("SELECT count(*) AS n FROM keychain_sync.device").integer(0, "n") == 2)
        #expect(join.wait().status == 1)
        #expect(try c.password("me", "mail") == nil)
    }

    @Test("a TLK share the server makes up for a joining device is refused, and the device joins nothing")
    func forgedApprovalIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("mail", "original")])
        defer { server.stop(); a.stop(); b.stop() }
        let c = try SyncDevice()
        defer { c.stop() }
        let join = try c.start("sync", "join", "--server", server.conninfo(), "--timeout", "300")
        let cID = try #require(join.line(startingWith: "this device: "))
        _ = try #require(join.line(startingWith: "code: "))
        let account = try server.admin.execute("SELECT account_id FROM keychain_sync.account").uuid(0, "account_id")
        let agreement = try #require(try server.admin.execute(
            "SELECT agreement_key FROM keychain_sync.join_request WHERE device_id = $1", [.uuid(UUID(uuidString: cID)!)]).bytes(0, "agreement_key"))
        // The server approves in the name of a device of its own, without the code.
        let forger = try DeviceIdentity.generate()
        let (signing, forgerAgreement) = try forger.publicPoints()
        let topLevel = AccountKeys.Key(id: UUID(), bytes: try SyncCrypto.newKey())
        let share = try KeyShare.seal(
            KeyShare.Contents(
                epoch: 2, topLevel: topLevel,
                members: [forger.deviceID: TrustedDevice(signing: signing, agreement: forgerAgreement),
                          UUID(uuidString: cID)!: TrustedDevice(signing: signing, agreement: agreement)],
                approval: try JoinCode.approvalTag(
                    try SyncCrypto.newKey(), accountID: account, approver: forger.deviceID, approverSigning: signing,
                    joiner: UUID(uuidString: cID)!, keyID: topLevel.id)),
            accountID: account, sender: forger, receiver: UUID(uuidString: cID)!, receiverAgreement: agreement)
        try Self.forgeClassKeys(server, account: account, topLevel: topLevel)
        for (id, device) in [(forger.deviceID, signing), (UUID(uuidString: cID)!, signing)] {
            try server.admin.execute(
                "INSERT INTO keychain_sync.device (owner, device_id, signing_key, agreement_key, vouch) VALUES ('alice', $1, $2, $3, $4)",
                [.uuid(id), .bytes(device), .bytes(agreement), .bytes(Data(count: 32))])
        }
        try server.admin.execute(
            "INSERT INTO keychain_sync.key_share (owner, receiver, sender, key_id, wrapped, signature) VALUES ('alice', $1, $2, $3, $4, $5)",
            [.uuid(UUID(uuidString: cID)!), .uuid(forger.deviceID), .uuid(topLevel.id), .bytes(share.wrapped), .bytes(share.signature)])
        let joined = join.wait()
        #expect(joined.status == 1)
        #expect(joined.error.contains("does not carry the approval of this device's code: nothing was joined"))
        #expect(try c.run("sync", "now").error.contains("does not sync"))
        #expect(try c.password("me", "mail") == nil)
    }

    @Test("the server's tables hold no attribute value, no secret and no exact length")
    func serverSeesNoPlaintext() throws {
        let short = "x", long = "a-much-longer-secret-value-of-forty-chars"
        let (server, a, b) = try Self.sharedSetup([("svc-alpha-distinct", short), ("svc-bravo-distinct", long)])
        defer { server.stop(); a.stop(); b.stop() }
        #expect(try b.password("me", "svc-bravo-distinct") == long)
        var dump = ""
        for table in ["account", "device", "device_list", "key_share", "sync_key", "record", "manifest"] {
            let rows = try server.admin.execute("SELECT row_to_json(t)::text AS j FROM keychain_sync.\(table) t")
            for row in 0..<rows.count { dump += try rows.string(row, "j") + "\n" }
        }
        #expect(dump.contains("\\\\x"))  // bytea values are in the dump, as hex
        let hex = { (text: String) in text.utf8.map { String(format: "%02x", $0) }.joined() }
        for value in ["svc-alpha-distinct", "svc-bravo-distinct", long, "distinct"] {
            #expect(!dump.contains(value), "the server holds \(value)")
            #expect(!dump.contains(hex(value)), "the server holds \(value) as bytes")
        }
        let lengths = try server.admin.execute("SELECT DISTINCT length(ciphertext) AS n FROM keychain_sync.record")
        #expect(lengths.count == 1, "two items of different lengths have records of different lengths")
    }
}
