import Foundation
import Security

/// `file-modes`: adds an item through SecItem (the keychain is created on this first use) and
/// reads it back, then, with the keychain still open (so SQLite's `-wal` and `-shm` exist),
/// prints `<name> <mode, octal> <owner uid>` for the keychain directory (named `.`) and every
/// entry in it.
struct FileModes {
    let home: String

    init(_ arguments: HelperArguments) throws {
        home = try arguments.string("home")
    }

    func run() throws {
        let client = PasswordClient(service: "modes")
        let added = client.add(account: "me", label: "modes", secret: Data("modes".utf8))
        guard added == errSecSuccess else { throw HelperError("SecItemAdd returned \(added)") }
        let (found, _) = client.read(account: "me")
        guard found == errSecSuccess else { throw HelperError("SecItemCopyMatching returned \(found)") }
        let directory = home + "/swift-keychain"
        print(try Self.describe(".", at: directory))
        for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
            print(try Self.describe(name, at: directory + "/" + name))
        }
    }

    private static func describe(_ name: String, at path: String) throws -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw HelperError("lstat \(name) failed (errno \(errno))") }
        return "\(name) \(String(info.st_mode & 0o7777, radix: 8)) \(info.st_uid)"
    }
}
