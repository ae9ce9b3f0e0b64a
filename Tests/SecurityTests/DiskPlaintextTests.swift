import Foundation
import Security
import Testing

/// Distinctive values stored through the API; none may appear in any file of the keychain.
private enum Canary {
    static let accessGroup = "group.canary.Plaintext-AG-7f3a"
    static let strings = [
        "SECRET-canary-Zebra-0042-generic", "SECRET-canary-Heron-7781-internet",
        "acct-canary-Quartz-9921", "svc-canary-Orchid-4711", "label-canary-Tulip-5532",
        "desc-canary-Maple-1187", "server-canary-heron.example", "/path-canary-Lynx", "realm-canary-Otter",
        "comment-canary-Birch-6604", "label-canary-Renamed-3310", accessGroup,
    ]
    static let data: [Data] = [
        Data([0xDE, 0xAD, 0xBE, 0xEF, 0x13, 0x37, 0xC0, 0xDE, 0x5A, 0xA5, 0x0F, 0xF0, 0x42, 0x24, 0x99, 0x66]),
        Data([0x8B, 0x1F, 0x33, 0xE7, 0x05, 0xD2, 0x6C, 0x91, 0xAA, 0x17, 0x4E, 0xB3, 0x70, 0x0D, 0xC8, 0x2B]),
        Data("tag-canary-Falcon-2290".utf8),
        Data("issuer-canary-Walrus-5108".utf8),
    ]

    /// Every byte pattern to look for: strings as UTF-8 and UTF-16, data as raw bytes.
    static var patterns: [(String, Data)] {
        strings.flatMap { text in
            [("\(text) (UTF-8)", Data(text.utf8)), ("\(text) (UTF-16LE)", text.data(using: .utf16LittleEndian)!)]
        } + data.map { ("\($0 as NSData) (raw)", $0) }
    }
}

/// Every regular file under `directory`, recursively.
private func files(under directory: URL) -> [URL] {
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
    return (enumerator?.allObjects as? [URL] ?? []).filter {
        (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }
}

/// The patterns found in `file`.
private func leaks(in file: URL) -> [String] {
    guard let contents = FileManager.default.contents(atPath: file.path) else { return ["<unreadable>"] }
    return Canary.patterns.compactMap { name, bytes in contents.range(of: bytes) == nil ? nil : name }
}

private func permissions(_ url: URL) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
}

@Suite("Nothing in plaintext on disk")
struct DiskPlaintextTests {
    private func addCanaries() {
        #expect(add([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc-canary-Orchid-4711",
            kSecAttrAccount as String: "acct-canary-Quartz-9921", kSecAttrLabel as String: "label-canary-Tulip-5532",
            kSecAttrDescription as String: "desc-canary-Maple-1187", kSecAttrGeneric as String: Canary.data[0],
            kSecAttrComment as String: "comment-canary-Birch-6604",
            kSecValueData as String: Data("SECRET-canary-Zebra-0042-generic".utf8),
        ]) == errSecSuccess)
        #expect(add([
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "server-canary-heron.example",
            kSecAttrPath as String: "/path-canary-Lynx", kSecAttrSecurityDomain as String: "realm-canary-Otter",
            kSecAttrAccount as String: "acct-canary-Quartz-9921", kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
            kSecValueData as String: Data("SECRET-canary-Heron-7781-internet".utf8),
        ]) == errSecSuccess)
        #expect(add([
            kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrApplicationTag as String: Canary.data[2], kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            kSecValueData as String: Canary.data[1],
        ]) == errSecSuccess)
        #expect(add([
            kSecClass as String: kSecClassCertificate, kSecAttrIssuer as String: Canary.data[3],
            kSecAttrSerialNumber as String: Data([7]), kSecValueData as String: Data("cert".utf8),
        ]) == errSecSuccess)
        #expect(update(
            [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct-canary-Quartz-9921"],
            [kSecAttrLabel as String: "label-canary-Renamed-3310"]) == errSecSuccess)
    }

    @Test("No secret, attribute value or access group name appears in any keychain file")
    func noPlaintext() throws {
        try TemporaryKeychain.run(entitlements: .accessGroups(Canary.accessGroup)) { environment in
            addCanaries()
            // The items are readable through the API, so the values really were stored.
            #expect(secret([kSecClass as String: kSecClassGenericPassword]) == Data("SECRET-canary-Zebra-0042-generic".utf8))
            #expect(attributes([kSecClass as String: kSecClassGenericPassword])?[kSecAttrAccessGroup as String] as? String == Canary.accessGroup)

            let found = files(under: environment.keychainDirectory)
            let names = Set(found.map(\.lastPathComponent))
            #expect(names.contains("login.keychain-db"))
            #expect(names.contains("login.keychain-db.keybag"))
            #expect(names.contains("device.key"))
            #expect(found.reduce(0) { $0 + (FileManager.default.contents(atPath: $1.path)?.count ?? 0) } > 0)
            for file in found {
                #expect(leaks(in: file) == [], "plaintext in \(file.lastPathComponent)")
            }
        }
    }

    @Test("The scan finds a canary when one is there (control)")
    func scannerWorks() throws {
        try TemporaryKeychain.run { environment in
            let control = environment.dataHome.appendingPathComponent("control.bin")
            try (Data("header".utf8) + Canary.data[1] + Data("acct-canary-Quartz-9921".utf8)).write(to: control)
            #expect(leaks(in: control).count == 2)
        }
    }

    @Test("A keychain directory other users can write is refused")
    func writableDirectoryIsRefused() throws {
        try TemporaryKeychain.run { environment in
            try FileManager.default.createDirectory(at: environment.keychainDirectory, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: environment.keychainDirectory.path)
            #expect(add(newGenericPassword()) == errSecWrPerm)
            #expect(copyMatching(genericPassword()).status == errSecWrPerm)
            #expect(files(under: environment.keychainDirectory).isEmpty)
        }
    }

    @Test("The keychain directory is 0700 and its files 0600")
    func permissionsArePrivate() throws {
        try TemporaryKeychain.run { environment in
            addCanaries()
            #expect(permissions(environment.keychainDirectory) == 0o700)
            let found = files(under: environment.keychainDirectory)
            #expect(!found.isEmpty)
            for file in found {
                #expect(permissions(file) == 0o600, "\(file.lastPathComponent)")
            }
        }
    }
}
