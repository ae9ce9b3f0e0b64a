import Foundation
import Security
import Testing

/// The public-key hash shared by the certificate and the private key of an identity.
private let hash = Data((1...20).map { UInt8($0) })

private func certificate(serial: String = "01", publicKeyHash: Data = hash, label: String = "Client certificate") -> Query {
    merged(certificateItem(serial: serial), [
        kSecAttrPublicKeyHash as String: publicKeyHash, kSecAttrLabel as String: label,
        kSecValueData as String: Data("DER \(serial)".utf8),
    ])
}

private func privateKey(applicationLabel: Data = hash, keyClass: CFString = kSecAttrKeyClassPrivate) -> Query {
    merged(keyItem(tag: "com.example.client"), [
        kSecAttrKeyClass as String: keyClass, kSecAttrApplicationLabel as String: applicationLabel,
        kSecValueData as String: Data("key bytes".utf8), kSecAttrLabel as String: "Client key",
    ])
}

private var identities: Query { [kSecClass as String: kSecClassIdentity] }

@Suite("Identities (dictionary level)")
struct IdentityTests {
    @Test("A certificate and a private key with matching hashes form an identity")
    func certificateAndKeyFormIdentity() throws {
        try TemporaryKeychain.run { _ in
            #expect(copyMatching(identities).status == errSecItemNotFound)
            #expect(add(certificate()) == errSecSuccess)
            #expect(copyMatching(identities).status == errSecItemNotFound)
            #expect(add(privateKey()) == errSecSuccess)
            let (status, result) = copyMatching(merged(identities, [kSecReturnAttributes as String: true]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned[kSecAttrPublicKeyHash as String] as? Data == hash)
            #expect(returned[kSecAttrLabel as String] as? String == "Client certificate")
            #expect(returned[kSecAttrSerialNumber as String] as? Data == Data("01".utf8))
            #expect(number(returned[kSecAttrKeyClass as String]) == 1)
        }
    }

    @Test("An identity's persistent reference starts with idnt and finds it again")
    func persistentReference() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(certificate()) == errSecSuccess)
            #expect(add(privateKey()) == errSecSuccess)
            let (status, result) = copyMatching(merged(identities, [kSecReturnPersistentRef as String: true]))
            #expect(status == errSecSuccess)
            let reference = try #require(result as? Data)
            #expect(reference.count == 20)
            #expect(reference.prefix(4) == Data("idnt".utf8))
            let again = copyMatching([kSecValuePersistentRef as String: reference, kSecReturnAttributes as String: true])
            #expect(again.status == errSecSuccess)
            #expect((again.result as? [String: Any])?[kSecAttrPublicKeyHash as String] as? Data == hash)
        }
    }

    @Test("Only private keys form identities; hashes must match")
    func onlyMatchingPrivateKeys() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(certificate()) == errSecSuccess)
            #expect(add(privateKey(keyClass: kSecAttrKeyClassPublic)) == errSecSuccess)
            #expect(add(merged(privateKey(applicationLabel: Data(repeating: 9, count: 20)), [kSecAttrApplicationTag as String: Data("other".utf8)])) == errSecSuccess)
            #expect(copyMatching(identities).status == errSecItemNotFound)
        }
    }

    @Test("Deleting the certificate makes the identity disappear and keeps the key")
    func deletingCertificate() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(certificate()) == errSecSuccess)
            #expect(add(privateKey()) == errSecSuccess)
            #expect(copyMatching(identities).status == errSecSuccess)
            #expect(delete([kSecClass as String: kSecClassCertificate]) == errSecSuccess)
            #expect(copyMatching(identities).status == errSecItemNotFound)
            #expect(count([kSecClass as String: kSecClassKey]) == 1)
        }
    }

    @Test("Deleting the key makes the identity disappear")
    func deletingKey() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(certificate()) == errSecSuccess)
            #expect(add(privateKey()) == errSecSuccess)
            #expect(delete([kSecClass as String: kSecClassKey]) == errSecSuccess)
            #expect(copyMatching(identities).status == errSecItemNotFound)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 1)
        }
    }

    @Test("Two certificates for one key are two identities; identity searches filter by certificate attributes")
    func twoCertificatesOneKey() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(certificate(serial: "01", label: "first")) == errSecSuccess)
            #expect(add(certificate(serial: "02", label: "second")) == errSecSuccess)
            #expect(add(privateKey()) == errSecSuccess)
            #expect(count(identities) == 2)
            let second = attributes(merged(identities, [kSecAttrLabel as String: "second"]))
            #expect(second?[kSecAttrSerialNumber as String] as? Data == Data("02".utf8))
            #expect(copyMatching(merged(identities, [kSecAttrLabel as String: "Client key"])).status == errSecItemNotFound)
        }
    }

    @Test("Deleting an identity deletes its certificate, and its key once no certificate uses it")
    func deletingIdentity() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(certificate(serial: "01", label: "first")) == errSecSuccess)
            #expect(add(certificate(serial: "02", label: "second")) == errSecSuccess)
            #expect(add(privateKey()) == errSecSuccess)
            #expect(delete(merged(identities, [kSecAttrLabel as String: "first"])) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 1)
            #expect(count([kSecClass as String: kSecClassKey]) == 1)
            #expect(delete(identities) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 0)
            #expect(count([kSecClass as String: kSecClassKey]) == 0)
            #expect(delete(identities) == errSecItemNotFound)
        }
    }

    @Test("kSecReturnRef on an identity whose halves hold no certificate or key data finds nothing to return")
    func referenceNeedsData() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(certificate()) == errSecSuccess)
            #expect(add(privateKey()) == errSecSuccess)
            // These attribute-only items have no DER or key bytes, so no SecIdentity can be built
            // (IdentityReferenceTests covers real identities).
            #expect(copyMatching(merged(identities, [kSecReturnRef as String: true])).status == errSecItemNotFound)
            #expect(copyMatching(merged(identities, [kSecReturnAttributes as String: true])).status == errSecSuccess)
        }
    }
}
