// keychain-test-client: a program that uses `import Security` as an app would, for the daemon's
// tests (tests copy it, register it, change it). One operation per run; it prints the status
// (and the secret found), and exits 0 whatever the status, 2 for bad usage.
//
//   keychain-test-client add <service> <account> <secret> [access-group]
//   keychain-test-client find <service> <account> [access-group]
//   keychain-test-client count <service>
//   keychain-test-client find-around-fork <service> <account>
//       finds the item, forks a child that finds it, then finds it again once the child is done
//       (one line each: parent, child, parent).
//   keychain-test-client find-after-biometry <service> <account> <passcode>
//       evaluates biometry on an LAContext before any other use of the keychain (prints
//       "evaluated", or "failed <LAError code>"), unlocks the keychain with the passcode (an app
//       on an unlocked device), then reads the item with that context (kSecUseAuthenticationContext).
//   keys, certificates and identities: see KeyCommands.swift.
import Foundation
import LocalAuthentication
@_spi(Testing) import Security

let arguments = Array(CommandLine.arguments.dropFirst())

func query(service: String, account: String?, group: String?) -> [String: Any] {
    var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    if let account { query[kSecAttrAccount as String] = account }
    if let group { query[kSecAttrAccessGroup as String] = group }
    return query
}

switch (arguments.first, arguments.count) {
case ("add", 4), ("add", 5):
    var item = query(service: arguments[1], account: arguments[2], group: arguments.count == 5 ? arguments[4] : nil)
    item[kSecValueData as String] = Data(arguments[3].utf8)
    print(SecItemAdd(item as CFDictionary, nil))
case ("find", 3), ("find", 4):
    var search = query(service: arguments[1], account: arguments[2], group: arguments.count == 4 ? arguments[3] : nil)
    search[kSecReturnData as String] = true
    var result: CFTypeRef?
    let status = SecItemCopyMatching(search as CFDictionary, &result)
    let secret = (result as? Data).map { String(decoding: $0, as: UTF8.self) } ?? ""
    print(status, secret)
case ("count", 2):
    var search = query(service: arguments[1], account: nil, group: nil)
    search[kSecMatchLimit as String] = kSecMatchLimitAll
    search[kSecReturnAttributes as String] = true
    var result: CFTypeRef?
    let status = SecItemCopyMatching(search as CFDictionary, &result)
    print(status, (result as? [Any])?.count ?? 0)
case ("find-around-fork", 3):
    func find() -> String {
        var search = query(service: arguments[1], account: arguments[2], group: nil)
        search[kSecReturnData as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        return "\(status) " + ((result as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "")
    }
    // Unbuffered: nothing written before the fork is written twice.
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    say(find())
    let child = fork()
    if child == 0 {
        say(find())
        _exit(0)
    }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    say(find())
case ("find-after-biometry", 4):
    /// The evaluation's outcome, handed from its reply queue.
    final class Outcome: @unchecked Sendable {
        var line = ""
    }
    let context = LAContext()
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "read the vault") { success, error in
        outcome.line = success ? "evaluated" : "failed \((error as NSError?)?.code ?? 0)"
        done.signal()
    }
    done.wait()
    print(outcome.line)
    // Unlocked after the evaluation: the context is the process's first use of the keychain.
    let unlocked = SecDataProtectionTesting.unlock(Data(arguments[3].utf8))
    guard unlocked == errSecSuccess else {
        print("unlock", unlocked)
        exit(0)
    }
    var search = query(service: arguments[1], account: arguments[2], group: nil)
    search[kSecReturnData as String] = true
    search[kSecUseAuthenticationContext as String] = context
    var result: CFTypeRef?
    let status = SecItemCopyMatching(search as CFDictionary, &result)
    print(status, (result as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "")
default:
    // The key, certificate and identity commands (KeyCommands.swift).
    guard runKeyCommand(arguments) else {
        FileHandle.standardError.write(Data("usage: keychain-test-client add|find|count|generate-key|sign|… (see its sources)\n".utf8))
        exit(2)
    }
}
