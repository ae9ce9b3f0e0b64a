import Foundation
@_spi(Testing) import Security

// The key, certificate and identity operations of keychain-test-client, for the sync tests (a key
// made on one device used on another). Each prints its status first (0 for success, else the
// OSStatus), then what it found:
//
//   generate-key <tag> sync|local|this-device-only|this-device-only-sync|token|token-sync
//       SecKeyCreateRandomKey (P-256, permanent, tagged and labelled <tag>); prints the status
//       and the public key's external representation in hexadecimal
//   sign <tag> <message>            prints the status and the ECDSA signature (hexadecimal)
//   verify <tag> <message> <hex>    verifies with the public half of the private key <tag>
//   key-label <tag>                 prints the status and the key's label
//   update-key-label <tag> <label>  SecItemUpdate of the private key's label
//   delete-key <tag>                SecItemDelete of the keys tagged <tag>
//   import-identity <p12> <password>
//       SecPKCS12Import, then SecItemAdd of the identity, synchronizable
//   identity-sign <message>
//       finds the identity, signs with its private key and verifies with its certificate's key;
//       prints both statuses and the certificate's subject summary
//   count-class cert|key            prints the status and the number of items of the class
//   delete-class cert|key           SecItemDelete of every item of the class

private func status(of error: Unmanaged<CFError>?) -> Int {
    error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? -1
}

private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

private func bytes(hex text: String) -> Data {
    var data = Data()
    var index = text.startIndex
    while let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex), index != text.endIndex {
        data.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return data
}

private func privateKeyQuery(_ tag: String) -> [String: Any] {
    [
        kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
        kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
    ]
}

private func findPrivateKey(_ tag: String) -> (OSStatus, SecKey?) {
    var search = privateKeyQuery(tag)
    search[kSecReturnRef as String] = true
    var result: CFTypeRef?
    let status = SecItemCopyMatching(search as CFDictionary, &result)
    return (status, result.map { $0 as! SecKey })
}

private let signing = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256

/// Runs one of the commands above; false when `arguments` names none of them.
func runKeyCommand(_ arguments: [String]) -> Bool {
    switch (arguments.first, arguments.count) {
    case ("generate-key", 3):
        let tag = arguments[1]
        var privateAttributes: [String: Any] = [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data(tag.utf8), kSecAttrLabel as String: tag,
        ]
        var parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        switch arguments[2] {
        case "sync": privateAttributes[kSecAttrSynchronizable as String] = true
        case "local": break
        case "this-device-only": privateAttributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case "this-device-only-sync":
            privateAttributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            privateAttributes[kSecAttrSynchronizable as String] = true
        case "token": parameters[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave
        case "token-sync":
            parameters[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave
            privateAttributes[kSecAttrSynchronizable as String] = true
        default: return false
        }
        parameters[kSecPrivateKeyAttrs as String] = privateAttributes
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
            print(status(of: error))
            return true
        }
        let publicKey = SecKeyCopyPublicKey(key).flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? } ?? Data()
        print(0, hex(publicKey))
    case ("sign", 3):
        let (found, key) = findPrivateKey(arguments[1])
        guard let key else {
            print(found)
            return true
        }
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, signing, Data(arguments[2].utf8) as CFData, &error) as Data? else {
            print(status(of: error))
            return true
        }
        print(0, hex(signature))
    case ("verify", 4):
        let (found, key) = findPrivateKey(arguments[1])
        guard let publicKey = key.flatMap(SecKeyCopyPublicKey) else {
            print(found == errSecSuccess ? -1 : Int(found))
            return true
        }
        var error: Unmanaged<CFError>?
        let valid = SecKeyVerifySignature(
            publicKey, signing, Data(arguments[2].utf8) as CFData, bytes(hex: arguments[3]) as CFData, &error)
        print(valid ? 0 : status(of: error))
    case ("key-label", 2):
        var search = privateKeyQuery(arguments[1])
        search[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        print(status, ((result as? [String: Any])?[kSecAttrLabel as String] as? String) ?? "")
    case ("update-key-label", 3):
        print(SecItemUpdate(privateKeyQuery(arguments[1]) as CFDictionary, [kSecAttrLabel as String: arguments[2]] as CFDictionary))
    case ("delete-key", 2):
        print(SecItemDelete([
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(arguments[1].utf8),
            kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        ] as CFDictionary))
    case ("import-identity", 3):
        guard let data = FileManager.default.contents(atPath: arguments[1]) else {
            print(errSecIO)
            return true
        }
        var items: CFArray?
        let imported = SecPKCS12Import(data as CFData, [kSecImportExportPassphrase as String: arguments[2]] as CFDictionary, &items)
        guard imported == errSecSuccess, let item = (items as? [[String: Any]])?.first,
            let identity = item[kSecImportItemIdentity as String].map({ $0 as! SecIdentity })
        else {
            print(imported == errSecSuccess ? errSecDecode : imported)
            return true
        }
        print(SecItemAdd([kSecValueRef as String: identity, kSecAttrSynchronizable as String: true] as CFDictionary, nil))
    case ("identity-sign", 2):
        var result: CFTypeRef?
        let found = SecItemCopyMatching([
            kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true,
            kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        ] as CFDictionary, &result)
        guard found == errSecSuccess, let identity = result.map({ $0 as! SecIdentity }) else {
            print(found)
            return true
        }
        var key: SecKey?
        var certificate: SecCertificate?
        guard SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess, SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess,
            let key, let certificate, let publicKey = SecCertificateCopyKey(certificate)
        else {
            print(errSecInternalError)
            return true
        }
        let message = Data(arguments[1].utf8) as CFData
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, signing, message, &error) else {
            print(status(of: error))
            return true
        }
        let valid = SecKeyVerifySignature(publicKey, signing, message, signature, &error)
        print(0, valid ? 0 : status(of: error), (SecCertificateCopySubjectSummary(certificate) as String?) ?? "")
    case ("count-class", 2), ("delete-class", 2):
        let itemClass: CFString
        switch arguments[1] {
        case "cert": itemClass = kSecClassCertificate
        case "key": itemClass = kSecClassKey
        default: return false
        }
        let everything: [String: Any] = [kSecClass as String: itemClass, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]
        guard arguments[0] == "count-class" else {
            print(SecItemDelete(everything as CFDictionary))
            return true
        }
        var search = everything
        search[kSecMatchLimit as String] = kSecMatchLimitAll
        search[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        print(status, (result as? [Any])?.count ?? 0)
    default:
        return false
    }
    return true
}
