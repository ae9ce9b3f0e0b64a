import Foundation
import Testing

/// Which native libraries a `security` run loads (the dynamic loader's own account, `LD_DEBUG`).
@Suite struct LibraryLoadingTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    /// The libraries the loader reported opening in `run` (its `file=<name> [0];  needed by` and
    /// `dynamically loaded by` lines).
    private static func loadedLibraries(_ run: ToolRun) -> [String] {
        run.error.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "file=") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    @Test("A command that does not sync never loads libpq (and the twenty libraries it brings)")
    func libpqIsNotLoadedWithoutSync() throws {
        let run = try tool.start(["find-generic-password", "-s", "nothing-here"], environment: ["LD_DEBUG": "files"]).finish()
        #expect(run.status == 44)
        let loaded = Self.loadedLibraries(run)
        try #require(loaded.contains { $0.hasPrefix("libswiftCore.so") }, "the loader's account was not read")
        #expect(!loaded.contains { $0.hasPrefix("libpq.so") })
        #expect(!loaded.contains { $0.hasPrefix("libgssapi_krb5.so") || $0.hasPrefix("libldap") })
    }

    @Test("SQLite and libcrypto are loaded by the process that opens the keychain: a client of keychaind binds neither, a command that opens its keychain itself binds both")
    func storageAndCryptoAreLoadedOnlyWhereTheKeychainOpens() throws {
        let add = try tool.start(["add-generic-password", "-a", "me", "-s", "loading", "-w", "secret"]).finish()
        try #require(add.status == 0, "\(add.error)")
        let find = try tool.start(["find-generic-password", "-a", "me", "-s", "loading", "-w"], environment: ["LD_DEBUG": "files"]).finish()
        #expect(find.output == "secret\n")
        let loaded = Self.loadedLibraries(find)
        try #require(loaded.contains { $0.hasPrefix("libswiftCore.so") }, "the loader's account was not read")
        #expect(loaded.contains { $0.hasPrefix("libsqlite3.so") } == !SecurityBinary.throughDaemon)
        #expect(loaded.contains { $0.hasPrefix("libcrypto.so") } == !SecurityBinary.throughDaemon)
        #expect(!loaded.contains { $0.hasPrefix("libtss2") })
    }

    @Test("Sync loads libpq when it first connects, and an unreachable server is a clear error")
    func libpqIsLoadedBySync() throws {
        let run = try tool.start(["sync", "init-server", "host=127.0.0.1 port=1 connect_timeout=2"], environment: ["LD_DEBUG": "files"]).finish()
        #expect(run.status != 0)
        #expect(Self.loadedLibraries(run).contains { $0.hasPrefix("libpq.so.5") })
        #expect(run.error.contains("cannot connect to the sync server"))
    }
}
