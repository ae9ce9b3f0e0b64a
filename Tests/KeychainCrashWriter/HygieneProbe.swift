import Foundation
import Security

/// `hygiene-probe`: runs SecItem calls that succeed and calls that fail, every one carrying the
/// canary as its secret and in its attribute values, and prints each status with Apple's
/// message and every `CFError` description and user info it gets back. The test checks that
/// none of this output (nor anything else the process writes) contains the canary.
struct HygieneProbe {
    let canary: String

    init(_ arguments: HelperArguments) throws {
        canary = try arguments.string("canary")
    }

    func run() throws {
        let secret = Data(canary.utf8)
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc-\(canary)",
            kSecAttrAccount as String: "acct-\(canary)", kSecAttrLabel as String: "label-\(canary)",
            kSecValueData as String: secret,
        ]
        report("add", SecItemAdd(item as CFDictionary, nil))
        report("add duplicate", SecItemAdd(item as CFDictionary, nil))
        var withBadAttribute = item
        withBadAttribute[kSecAttrApplicationTag as String] = Data(canary.utf8)
        report("add with a key attribute", SecItemAdd(withBadAttribute as CFDictionary, nil))
        var withStringData = item
        withStringData[kSecValueData as String] = canary
        report("add with string data", SecItemAdd(withStringData as CFDictionary, nil))
        var withBadNumber = item
        withBadNumber[kSecAttrCreator as String] = canary
        report("add with a string creator", SecItemAdd(withBadNumber as CFDictionary, nil))

        var missing = item
        missing.removeValue(forKey: kSecValueData as String)
        missing[kSecAttrAccount as String] = "missing-\(canary)"
        missing[kSecReturnData as String] = true
        var result: CFTypeRef?
        report("find missing", SecItemCopyMatching(missing as CFDictionary, &result))
        let badChange: [String: Any] = [kSecAttrKeyClass as String: canary]
        var search = item
        search.removeValue(forKey: kSecValueData as String)
        report("update with a key attribute", SecItemUpdate(search as CFDictionary, badChange as CFDictionary))
        let goodChange: [String: Any] = [kSecValueData as String: Data((canary + "-new").utf8)]
        report("update", SecItemUpdate(search as CFDictionary, goodChange as CFDictionary))
        var findData = search
        findData[kSecReturnData as String] = true
        report("find", SecItemCopyMatching(findData as CFDictionary, &result))
        result = nil
        report("delete", SecItemDelete(search as CFDictionary))
        report("delete again", SecItemDelete(search as CFDictionary))

        var error: Unmanaged<CFError>?
        _ = SecAccessControlCreateWithFlags(nil, canary as CFString, [], &error)
        describe("SecAccessControlCreateWithFlags", error?.takeRetainedValue())
        error = nil
        let keyAttributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrLabel as String: "label-\(canary)", kSecAttrApplicationTag as String: Data(canary.utf8),
        ]
        _ = SecKeyCreateRandomKey(keyAttributes as CFDictionary, &error)
        describe("SecKeyCreateRandomKey", error?.takeRetainedValue())
        print("done")
    }

    private func report(_ operation: String, _ status: OSStatus) {
        let message = (SecCopyErrorMessageString(status, nil) as String?) ?? "-"
        print("\(operation): \(status) \(message)")
    }

    private func describe(_ function: String, _ error: CFError?) {
        guard let error else {
            print("\(function): no error")
            return
        }
        print("\(function): \(CFErrorGetCode(error)) \(String(describing: CFErrorCopyDescription(error)))")
        print("\(function) user info: \(String(describing: CFErrorCopyUserInfo(error)))")
        print("\(function) error: \(error)")
    }
}
