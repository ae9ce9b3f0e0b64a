import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainService

#if canImport(Glibc)
import Glibc
#endif

/// `keychaind --system`: one daemon for every user, running as a dedicated service user, with
/// every user's keychains in a state directory no user can read.
///
/// The layout, made at start (started as root: before the switch to the service user):
/// - `<state>/` (default `/var/lib/swift-keychain`), 0700, owned by the service user; in it
///   `<state>/<uid>/`, 0700, the keychains of user `uid` (files 0600), all the service user's.
/// - `<runtime>/` (default `/run/swift-keychain`), 0755, owned by the service user; in it
///   `<runtime>/<uid>/`, 0711, owned by the service user (no user can rename or replace what is
///   in it), holding `keychaind.sock`, owned by `uid` and mode 0600: the kernel lets only that
///   user (and root) connect. The daemon checks the peer's uid (`SO_PEERCRED`) against the
///   socket's user on every connection as well, and refuses another before any request.
///   `<runtime>/keychaind.lock` is held while a daemon serves, so a second one exits.
///
/// The users served are fixed at start: those given with `--uid`, else (started as root) every
/// login user of the user database (uid 1000–60000) or (started as another user) that user
/// alone. A user added later is served after a restart. Sockets belong to their users, so only
/// root can serve users other than itself: the sockets are made and handed over before the
/// daemon becomes the service user.
enum SystemDaemon {
    /// The login users' uid range (Debian's `UID_MIN`–`UID_MAX`).
    static let loginUsers: ClosedRange<uid_t> = 1000...60000

    /// Serves until the process ends; returns an exit status when it cannot start.
    static func run(_ options: DaemonOptions) -> Int32 {
        let startedAsRoot = geteuid() == 0
        let serviceUser: ServiceUser
        let uids: [uid_t]
        let listeners: [(uid: uid_t, listener: UnixListener)]
        do {
            if startedAsRoot {
                serviceUser = try ServiceUser.named(options.user)
            } else {
                serviceUser = .current
                if options.userGiven, try ServiceUser.named(options.user).uid != serviceUser.uid {
                    throw ServiceUserError(message: "started as uid \(serviceUser.uid), it cannot become \(options.user) (start it as root)")
                }
            }
            uids = options.users.isEmpty ? (startedAsRoot ? loginUIDs(except: serviceUser.uid) : [serviceUser.uid]) : options.users
            guard !uids.isEmpty else { throw ServiceUserError(message: "no user to serve (name them with --uid)") }
            try makeOwnedDirectory(options.stateDirectory, mode: 0o700, by: serviceUser, chown: startedAsRoot)
            try makeOwnedDirectory(options.runtimeDirectory, mode: 0o755, by: serviceUser, chown: startedAsRoot)
            guard try lockRuntime(options.runtimeDirectory) else {
                log("another keychaind --system serves \(options.runtimeDirectory)")
                return 75
            }
            listeners = try uids.map { uid in
                (uid, try makeSocket(for: uid, in: options.runtimeDirectory, serviceUser: serviceUser, chown: startedAsRoot))
            }
            if startedAsRoot { try serviceUser.become() }
        } catch {
            log("cannot start in system mode: \(error)")
            return 77
        }
        Daemon.harden()
        TerminationSignals.exitNormallyOnTermination()
        let servers: [DaemonServer]
        do {
            // As the service user from here on: what it creates is its own.
            try FileSystem.requirePrivateDirectory(options.stateDirectory)
            let state = try resolved(options.stateDirectory)
            let administrators = try CallerPolicy.administratorPaths(besideDaemonWith: [])
            let flatpakInfo = options.flatpakInfoDirectory.map { directory in
                FlatpakInfoLocation { "\(directory)/\($0)/.flatpak-info" }
            } ?? .sandboxRoot
            let digests = ExecutableDigestCache()
            servers = try listeners.map { uid, listener in
                let directory = UserKeychainDirectory(path: "\(state)/\(uid)", stateDirectory: state)
                try FileSystem.makePrivateDirectory(directory.path)
                var handler = RequestHandler(
                    defaultKeychainPath: directory.defaultKeychainPath,
                    policy: CallerPolicy(expectedUID: uid, administratorPaths: administrators, flatpakInfo: flatpakInfo, digests: digests))
                handler.confinement = directory
                // fprintd verifies the user by name: the service user asks on its behalf.
                if let name = userName(of: uid) {
                    handler.biometrics = FingerprintBiometrics.reader(forUser: name, lockoutFile: directory.path + "/biometry-failures")
                }
                return DaemonServer(listener: listener, handler: handler)
            }
        } catch {
            log("cannot start in system mode: \(error)")
            return 77
        }
        log("serving \(uids.count) user(s) on \(options.runtimeDirectory)/<uid>/\(ServiceLocation.socketName) as uid \(geteuid())")
        for server in servers.dropLast() {
            let thread = Thread { server.serve() }
            thread.start()
        }
        servers.last!.serve()
    }

    /// The name of `uid` in the user database, or nil.
    private static func userName(of uid: uid_t) -> String? {
        guard let entry = getpwuid(uid) else { return nil }
        return String(cString: entry.pointee.pw_name)
    }

    /// The login users of the user database, but `serviceUID`.
    private static func loginUIDs(except serviceUID: uid_t) -> [uid_t] {
        var uids: Set<uid_t> = []
        setpwent()
        while let entry = getpwent() {
            let uid = entry.pointee.pw_uid
            if loginUsers.contains(uid) && uid != serviceUID { uids.insert(uid) }
        }
        endpwent()
        return uids.sorted()
    }

    /// Creates `path` (its parents must exist) with `mode`, or takes the directory there: not a
    /// symbolic link, and owned by the service user (given to it when `chown`) with `mode`.
    private static func makeOwnedDirectory(_ path: String, mode: mode_t, by user: ServiceUser, chown: Bool) throws {
        if mkdir(path, mode) != 0 && errno != EEXIST {
            throw ServiceUserError(message: "cannot create \(path) (errno \(errno))")
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw ServiceUserError(message: "\(path) is not a directory (errno \(errno))") }
        defer { close(descriptor) }
        if chown && fchown(descriptor, user.uid, user.gid) != 0 {
            throw ServiceUserError(message: "cannot give \(path) to uid \(user.uid) (errno \(errno))")
        }
        guard fchmod(descriptor, mode) == 0 else { throw ServiceUserError(message: "cannot set the mode of \(path) (errno \(errno))") }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_uid == user.uid else {
            throw ServiceUserError(message: "\(path) belongs to another user than uid \(user.uid)")
        }
    }

    /// Takes the exclusive lock of the runtime directory, held (its descriptor open) for the life
    /// of the process; false when another daemon holds it.
    private static func lockRuntime(_ directory: String) throws -> Bool {
        let path = directory + "/keychaind.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw ServiceUserError(message: "cannot open \(path) (errno \(errno))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return false
        }
        return true
    }

    /// The socket of `uid`: `<runtime>/<uid>/keychaind.sock` in a directory of the service user
    /// (0711), the socket itself `uid`'s with mode 0600.
    private static func makeSocket(for uid: uid_t, in runtime: String, serviceUser: ServiceUser, chown: Bool) throws -> UnixListener {
        guard chown || uid == serviceUser.uid else {
            throw ServiceUserError(message: "only a daemon started as root can serve uid \(uid)")
        }
        let directory = "\(runtime)/\(uid)"
        try makeOwnedDirectory(directory, mode: 0o711, by: serviceUser, chown: chown)
        let path = ServiceLocation.systemSocket(for: uid, in: runtime)
        unlink(path)  // a socket left by a daemon that ended (the runtime lock is held)
        let listener = try UnixListener(path: path)
        // Bound with mode 0600 and owned by the daemon: nobody else connects until it is handed over.
        guard Glibc.chown(path, uid, serviceUser.gid) == 0 else {
            throw ServiceUserError(message: "cannot give the socket of uid \(uid) to it (errno \(errno))")
        }
        return listener
    }

    /// `path` with every symbolic link resolved.
    private static func resolved(_ path: String) throws -> String {
        guard let real = realpath(path, nil) else { throw ServiceUserError(message: "cannot resolve \(path) (errno \(errno))") }
        defer { free(real) }
        return String(cString: real)
    }

    private static func log(_ message: String) { Daemon.log(message) }
}
