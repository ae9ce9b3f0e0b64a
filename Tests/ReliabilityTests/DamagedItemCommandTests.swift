import Foundation
import Testing

@testable import KeychainCore

/// A damaged item through the `security` command: errSecDecode for it, the rest readable.
@Suite("Damaged items through the security command")
struct DamagedItemCommandTests {
    @Test("find and delete report errSecDecode (exit 93) for a damaged item; the other items stay readable")
    func damagedItem() throws {
        let directory = try TemporaryDirectory("damaged-cli")
        let home = directory.file("home")
        func security(_ arguments: String...) throws -> ChildProcess {
            try Executables.runSecurity(arguments, home: home, in: directory.path)
        }
        #expect(try security("add-generic-password", "-a", "one", "-s", "svc", "-w", "first-secret").exitCode == 0)
        #expect(try security("add-generic-password", "-a", "two", "-s", "svc", "-w", "second-secret").exitCode == 0)
        let connection = try SQLiteConnection(path: home + "/swift-keychain/login.keychain-db")
        // Byte 31 set to a value it does not hold (a fixed value would change nothing one time in 256).
        try connection.execute(
            """
            UPDATE items SET metadata = substr(metadata, 1, 30)
                || (CASE WHEN substr(metadata, 31, 1) = X'00' THEN X'01' ELSE X'00' END) || substr(metadata, 32)
            WHERE rowid = 1
            """)

        let damaged = try security("find-generic-password", "-a", "one", "-s", "svc", "-w")
        #expect(damaged.exitCode == 93)
        #expect(damaged.error.contains("Unable to decode the provided data"), "\(damaged.error)")
        #expect(!damaged.output.contains("secret"))
        #expect(try security("find-generic-password", "-a", "two", "-s", "svc", "-w").output == "second-secret\n")
        let dump = try security("dump-keychain", "-d")
        #expect(dump.exitCode == 0 && dump.output.contains("second-secret") && !dump.output.contains("first-secret"))
        // The command prints the item it deletes, which it cannot read (SecItemDelete removes it).
        #expect(try security("delete-generic-password", "-a", "one", "-s", "svc").exitCode == 93)
        #expect(try security("delete-generic-password", "-a", "two", "-s", "svc").exitCode == 0)
    }
}
