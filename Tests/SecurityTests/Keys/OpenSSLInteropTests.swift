import Foundation
import Security
import Testing

/// Signatures, ciphertexts and keys exchanged with the `openssl` command, both ways.
@Suite("Interoperability with the openssl command", .enabled(if: OpenSSLCommand.path != nil))
struct OpenSSLInteropTests {
    @Test("openssl verifies our ECDSA and RSA signatures", arguments: [
        ("73", 256, "sha256"), ("73", 384, "sha384"), ("73", 521, "sha512"), ("42", 2048, "sha256"),
    ])
    func opensslVerifiesOurSignatures(type: String, bits: Int, digest: String) throws {
        let openssl = try OpenSSLCommand()
        let key = try makeKey(type as CFString, bits: bits)
        try publicKeyPEM(key, openssl: openssl, name: "pub.pem")
        let message = Data("interoperable message".utf8)
        try openssl.write(message, to: "message")
        let algorithm: SecKeyAlgorithm
        switch (type, digest) {
        case ("73", "sha256"): algorithm = .ecdsaSignatureMessageX962SHA256
        case ("73", "sha384"): algorithm = .ecdsaSignatureMessageX962SHA384
        case ("73", _): algorithm = .ecdsaSignatureMessageX962SHA512
        default: algorithm = .rsaSignatureMessagePKCS1v15SHA256
        }
        try openssl.write(try sign(key, algorithm, message), to: "signature")
        try openssl.require("dgst", "-\(digest)", "-verify", "pub.pem", "-signature", "signature", "message")
        if type == "42" {
            try openssl.write(try sign(key, .rsaSignatureMessagePSSSHA256, message), to: "pss")
            try openssl.require(
                "dgst", "-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32", "-verify", "pub.pem",
                "-signature", "pss", "message")
        }
    }

    @Test("We verify signatures openssl makes (ECDSA P-256, RSA PKCS#1 v1.5 and PSS)")
    func weVerifyOpensslSignatures() throws {
        let openssl = try OpenSSLCommand()
        let message = Data("signed by openssl".utf8)
        try openssl.write(message, to: "message")
        try openssl.require("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.pem")
        try openssl.require("dgst", "-sha256", "-sign", "ec.pem", "-out", "ec.sig", "message")
        let spki = try openssl.require("pkey", "-in", "ec.pem", "-pubout", "-outform", "DER")
        let ecKey = try #require(SecKeyCreateWithData(spki.suffix(65) as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
        ] as CFDictionary, nil))
        #expect(verifyStatus(ecKey, .ecdsaSignatureMessageX962SHA256, message, try openssl.read("ec.sig")) == errSecSuccess)

        try openssl.require("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem")
        try openssl.require("dgst", "-sha256", "-sign", "rsa.pem", "-out", "rsa.sig", "message")
        try openssl.require(
            "dgst", "-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32", "-sign", "rsa.pem", "-out",
            "pss.sig", "message")
        let rsaKey = try #require(SecKeyCreateWithData(try openssl.require("pkey", "-in", "rsa.pem", "-pubout", "-outform", "DER") as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
        ] as CFDictionary, nil))
        #expect(verifyStatus(rsaKey, .rsaSignatureMessagePKCS1v15SHA256, message, try openssl.read("rsa.sig")) == errSecSuccess)
        #expect(verifyStatus(rsaKey, .rsaSignatureMessagePSSSHA256, message, try openssl.read("pss.sig")) == errSecSuccess)
    }

    @Test("RSA ciphertexts cross over: openssl decrypts ours (PKCS#1, OAEP-SHA256), we decrypt openssl's")
    func rsaCiphertexts() throws {
        let openssl = try OpenSSLCommand()
        try openssl.require("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem")
        let pkcs1 = try openssl.require("rsa", "-in", "rsa.pem", "-traditional", "-outform", "DER")
        let key = try #require(SecKeyCreateWithData(pkcs1 as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ] as CFDictionary, nil))
        let plaintext = Data("sealed for openssl".utf8)
        try openssl.write(SecKeyCreateEncryptedData(SecKeyCopyPublicKey(key)!, .rsaEncryptionOAEPSHA256, plaintext as CFData, nil)! as Data, to: "oaep.bin")
        let opened = try openssl.require(
            "pkeyutl", "-decrypt", "-inkey", "rsa.pem", "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256",
            "-pkeyopt", "rsa_mgf1_md:sha256", "-in", "oaep.bin")
        #expect(opened == plaintext)
        try openssl.write(SecKeyCreateEncryptedData(SecKeyCopyPublicKey(key)!, .rsaEncryptionPKCS1, plaintext as CFData, nil)! as Data, to: "pkcs1.bin")
        #expect(try openssl.require("pkeyutl", "-decrypt", "-inkey", "rsa.pem", "-in", "pkcs1.bin") == plaintext)

        try openssl.write(plaintext, to: "plain")
        try openssl.require(
            "pkeyutl", "-encrypt", "-inkey", "rsa.pem", "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha1",
            "-in", "plain", "-out", "theirs.bin")
        #expect(SecKeyCreateDecryptedData(key, .rsaEncryptionOAEPSHA1, try openssl.read("theirs.bin") as CFData, nil) as Data? == plaintext)
    }

    @Test("Exported keys load in openssl, and openssl's keys load here (X9.63 and PKCS#1 forms)")
    func keyFormats() throws {
        let openssl = try OpenSSLCommand()
        let ec = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        try publicKeyPEM(ec, openssl: openssl, name: "ec.pub.pem")
        let text = String(decoding: try openssl.require("pkey", "-pubin", "-in", "ec.pub.pem", "-text", "-noout"), as: UTF8.self)
        #expect(text.contains("prime256v1") || text.contains("P-256"))
        let rsa = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
        try openssl.write(external(rsa), to: "rsa.der")
        #expect(try openssl.run(["rsa", "-inform", "DER", "-in", "rsa.der", "-check", "-noout"]).status == 0)

        try openssl.require("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "p384.pem")
        let ecdhPeer = try openssl.require("pkey", "-in", "p384.pem", "-pubout", "-outform", "DER")
        let peer = try #require(SecKeyCreateWithData(ecdhPeer.suffix(97) as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
        ] as CFDictionary, nil))
        let ours = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        try publicKeyPEM(ours, openssl: openssl, name: "ours.pem")
        let shared = SecKeyCopyKeyExchangeResult(ours, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, nil) as Data?
        let theirs = try openssl.require("pkeyutl", "-derive", "-inkey", "p384.pem", "-peerkey", "ours.pem")
        #expect(shared == theirs)
    }
}
