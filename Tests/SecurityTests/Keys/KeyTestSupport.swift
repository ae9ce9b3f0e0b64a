import Foundation
import Security

/// Generates a key with `SecKeyCreateRandomKey`, or records why not.
func makeKey(_ type: CFString, bits: Int, extra: [String: Any] = [:]) throws -> SecKey {
    var error: Unmanaged<CFError>?
    let parameters = merged([kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits], extra)
    guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
        throw error!.takeRetainedValue() as any Error
    }
    return key
}

/// The `CFError` code a failing SecKey call reports.
func errorCode(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> AnyObject?) -> Int? {
    var error: Unmanaged<CFError>?
    let result = body(&error)
    guard result == nil, let failure = error?.takeRetainedValue() else { return nil }
    return failure.domain == kCFErrorDomainOSStatus as String ? failure.code : Int.min
}

/// Signs, failing the test on error.
func sign(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) throws -> Data {
    var error: Unmanaged<CFError>?
    guard let signature = SecKeyCreateSignature(key, algorithm, data as CFData, &error) else {
        throw error!.takeRetainedValue() as any Error
    }
    return signature as Data
}

/// Verifies, returning the status (errSecSuccess or the CFError's code).
func verifyStatus(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data, _ signature: Data) -> OSStatus {
    var error: Unmanaged<CFError>?
    if SecKeyVerifySignature(key, algorithm, data as CFData, signature as CFData, &error) { return errSecSuccess }
    return OSStatus(error?.takeRetainedValue().code ?? -1)
}

/// A key's external representation.
func external(_ key: SecKey) -> Data {
    SecKeyCopyExternalRepresentation(key, nil)! as Data
}

/// A public key as a PEM file openssl reads.
func publicKeyPEM(_ key: SecKey, openssl: OpenSSLCommand, name: String) throws {
    let publicKey = SecKeyCopyPublicKey(key)!
    let bytes = external(publicKey)
    let attributes = SecKeyCopyAttributes(publicKey) as! [String: Any]
    if attributes[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeRSA as String {
        try openssl.write(bytes, to: "\(name).pkcs1.der")
        try openssl.require("rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", "\(name).pkcs1.der", "-pubout", "-out", name)
    } else {
        try openssl.write(OpenSSLCommand.subjectPublicKeyInfo(ecPoint: bytes), to: "\(name).der")
        try openssl.require("pkey", "-pubin", "-inform", "DER", "-in", "\(name).der", "-out", name)
    }
}
