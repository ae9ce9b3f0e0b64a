import Foundation
import Security

/// `memory-probe`: reads a secret with `SecItemCopyMatching`, then stops itself (SIGSTOP) at
/// three moments so that the test, its parent, can scan its memory through `/proc/<pid>/mem`
/// while nothing in it moves:
///
/// 1. while the caller holds the result (the scan must find it: the control that it works);
/// 2. after the result was released (the scan must find no copy);
/// 3. after a copy was put in a block of its own and freed without zeroing (the scan must find
///    it: the control that copies left in freed memory are found).
///
/// Between the release and the stop the probe allocates nothing, so no allocation can reuse a
/// freed block before the scan. The secret was added by another process, so no copy comes from
/// the add. The probe is given the secret masked (each byte XOR 0xA5, in hex) and unmasks it
/// only into the control block of step 3.
struct MemoryProbe {
    static let mask: UInt8 = 0xA5

    let account: String
    let masked: [UInt8]

    init(_ arguments: HelperArguments) throws {
        account = try arguments.string("account")
        let hex = Array(try arguments.string("masked").utf8)
        masked = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
            UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
    }

    func run() throws {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "memory.probe",
            kSecAttrAccount as String: account, kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        // No reference to the result may outlive `result` itself.
        guard status == errSecSuccess, (result as? NSData)?.length == masked.count else {
            throw HelperError("SecItemCopyMatching returned \(status)")
        }
        raise(SIGSTOP)  // 1: held
        result = nil
        raise(SIGSTOP)  // 2: released
        let control = malloc(masked.count)!.assumingMemoryBound(to: UInt8.self)
        for index in masked.indices { control[index] = masked[index] ^ Self.mask }
        free(control)
        raise(SIGSTOP)  // 3: a copy freed without zeroing
    }
}
