import Foundation

// keychain-crash-writer: the process the reliability tests start, kill and inspect.
//
//   crash-writer  --home H --log L --state S --seed N [--ops N]
//   power-loss    --home H --log L --seed N --loss-after E --unsynced discard|scatter [--checkpoint-every K]
//   disk-probe    --home H --synchronous full|off --rows N
//   disk-count    --home H
//   verify        --home H
//   stress        --home H --log-dir D --process P --threads T --seconds S --seed N [--shared K]
//   fill          --home H --log L --populate N [--headroom BYTES]
//   memory-probe  --home H --account A --masked HEX
//   hygiene-probe --home H --canary TEXT
//   rekey         --home H --log L --items N --from K [--fill 1]
//   permission-probe --home H
//   file-modes    --home H
//
// Every mode uses the keychain `$XDG_DATA_HOME/swift-keychain/login.keychain-db` with
// XDG_DATA_HOME = H, through `import Security` only, as a client would. Failures print a line
// on standard error and exit 1; the tests read the logs and dumps the modes write.

let arguments = HelperArguments(CommandLine.arguments.dropFirst())
do {
    setenv("XDG_DATA_HOME", try arguments.string("home"), 1)
    switch arguments.mode {
    case "crash-writer": try CrashWriter(arguments).run()
    case "power-loss": try PowerLossWriter(arguments).run()
    case "disk-probe": try DiskProbe.write(arguments)
    case "disk-count": try DiskProbe.count(arguments)
    case "verify": print(try StateDump.render(), terminator: "")
    case "stress": try StressWorker(arguments).run()
    case "fill": try DiskFiller(arguments).run()
    case "memory-probe": try MemoryProbe(arguments).run()
    case "hygiene-probe": try HygieneProbe(arguments).run()
    case "rekey": try PasscodeChanger(arguments).run()
    case "permission-probe": try PermissionProbe(arguments).run()
    case "file-modes": try FileModes(arguments).run()
    default: throw HelperError("unknown mode \(arguments.mode)")
    }
} catch {
    FileHandle.standardError.write(Data("keychain-crash-writer: \(error)\n".utf8))
    exit(1)
}
