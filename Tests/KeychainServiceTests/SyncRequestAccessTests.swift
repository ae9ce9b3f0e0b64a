import Foundation
import KeychainCore
import KeychainService
import Testing

@testable import KeychainDaemon

/// Who may make `keychaind` sync (`ServiceOperation.syncNow`, `.syncStatus`): a caller entitled to
/// the sync state's access group `swift-keychain.sync`, whatever else it is; and no caller of the
/// system daemon. A request that passes reaches the sync engine, which answers `syncFailure` for
/// a keychain that does not sync.
@Suite("Daemon sync request access")
struct SyncRequestAccessTests {
    /// A keychain that does not sync, served to this test process as the daemon sees it from the
    /// other end of a socket pair.
    struct Fixture {
        let directory: String
        let path: String
        let keychain: Keychain
        let caller: PeerCredentials
        let sockets: (UnixSocket, UnixSocket)

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("kc-sync-access-\(UUID().uuidString)").path
            path = directory + "/test.keychain-db"
            keychain = try Keychain.open(path: path, create: true)
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw KeychainError(.io, "socketpair") }
            sockets = (UnixSocket(descriptor: pair[0]), UnixSocket(descriptor: pair[1]))
            caller = try PeerCredentials(socket: pair[0])
        }

        /// A handler whose policy makes this process an administrator when `administrator`.
        func handler(administrator: Bool = false) throws -> RequestHandler {
            let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            return RequestHandler(
                defaultKeychainPath: path, policy: CallerPolicy(expectedUID: getuid(), administratorPaths: administrator ? [own] : []))
        }

        /// Registers this process's executable with `groups`.
        func register(groups: [String]) throws {
            let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            try keychain.registerProgram(RegisteredProgram(
                executablePath: own, executableDigest: try ExecutableIdentity.of(file: own, digests: ExecutableDigestCache()).digest,
                entitlements: Entitlements(applicationIdentifier: nil, keychainAccessGroups: groups)))
        }

        func send(_ operation: ServiceOperation, to handler: RequestHandler) -> ServiceResponse {
            handler.handle(ServiceRequest(keychainPath: path, operation: operation), for: caller)
        }

        func remove() {
            Keychain.dropOpenInstance(path: path)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The code of a `failure` response; nil for any other response.
    static func failureCode(_ response: ServiceResponse) -> KeychainError.Code? {
        if case .failure(let error) = response { return error.code }
        return nil
    }

    /// The sync engine's code of a `syncFailure` response (5: the keychain does not sync); nil
    /// for any other response.
    static func syncFailureCode(_ response: ServiceResponse) -> UInt8? {
        if case .syncFailure(let failure) = response { return failure.code }
        return nil
    }

    @Test("an ordinary program, and a registered program without the sync group, are refused with errSecMissingEntitlement")
    func unentitledCallersAreRefused() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let handler = try fixture.handler()
        for operation in [ServiceOperation.syncNow, .syncStatus] {
            #expect(Self.failureCode(fixture.send(operation, to: handler)) == .missingEntitlement, "\(operation)")
        }
        try fixture.register(groups: ["TEAM.mail"])
        let registered = try fixture.handler()
        for operation in [ServiceOperation.syncNow, .syncStatus] {
            #expect(Self.failureCode(fixture.send(operation, to: registered)) == .missingEntitlement, "\(operation)")
        }
    }

    @Test("a registered program entitled to the sync group, and the administration tool, reach the sync engine")
    func entitledCallersReachTheEngine() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.register(groups: ["TEAM.mail", "swift-keychain.sync"])
        let registered = try fixture.handler()
        let administrator = try fixture.handler(administrator: true)
        for handler in [registered, administrator] {
            for operation in [ServiceOperation.syncNow, .syncStatus] {
                #expect(Self.syncFailureCode(fixture.send(operation, to: handler)) == 5, "\(operation)")
            }
        }
    }

    @Test("the system daemon runs no sync, even for the administration tool: errSecUnimplemented")
    func systemDaemonRunsNoSync() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        var handler = try fixture.handler(administrator: true)
        handler.confinement = UserKeychainDirectory(path: fixture.directory, stateDirectory: (fixture.directory as NSString).deletingLastPathComponent)
        for operation in [ServiceOperation.syncNow, .syncStatus] {
            #expect(Self.failureCode(fixture.send(operation, to: handler)) == .unimplemented, "\(operation)")
        }
    }
}
