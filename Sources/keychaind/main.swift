import Foundation
import KeychainDaemon

// keychaind: the keychain as a per-user (or system) service. See `DaemonOptions.usage`.
switch Result(catching: { try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst())) }) {
case .success(.help):
    print(DaemonOptions.usage, terminator: "")
    exit(0)
case .success(.serve(let options)):
    exit(Daemon.run(options))
case .failure(let error):
    FileHandle.standardError.write(Data("keychaind: \(error)\n\(DaemonOptions.usage)".utf8))
    exit(64)
}
