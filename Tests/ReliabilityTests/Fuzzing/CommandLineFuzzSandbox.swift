import Foundation

@_spi(Testing) import KeychainCore
@testable import SecurityCLI

/// The directory `scripts/fuzz` (or a sandboxed test) runs the command-line target in, named
/// by `KEYCHAIN_FUZZ_SANDBOX`: it holds `HOME`, `XDG_DATA_HOME` and the working directory, so
/// every file the tool touches for a word that `staysInside` is in it.
struct CommandLineFuzzSandbox {
    /// The keychain directory's parent (`XDG_DATA_HOME`).
    let dataHome: String
    /// The working directory.
    let workingDirectory: String

    /// The sandbox this process runs in, or nil when it runs in none (or the environment points
    /// anywhere outside it).
    static func current() -> CommandLineFuzzSandbox? {
        guard let root = ProcessInfo.processInfo.environment["KEYCHAIN_FUZZ_SANDBOX"], root.hasPrefix("/"),
            let home = ProcessInfo.processInfo.environment["HOME"],
            let dataHome = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        else { return nil }
        let inside = { (path: String) in path.hasPrefix(root.hasSuffix("/") ? root : root + "/") && !path.contains("..") }
        let workingDirectory = FileManager.default.currentDirectoryPath
        guard inside(home), inside(dataHome), inside(workingDirectory) else { return nil }
        return CommandLineFuzzSandbox(dataHome: dataHome, workingDirectory: workingDirectory)
    }

    /// Whether a word can only name files in the keychain directory or the working directory.
    static func staysInside(_ word: Argument) -> Bool {
        !word.bytes.contains(UInt8(ascii: "/")) && !word.bytes.contains(UInt8(ascii: "~")) && word.bytes != [0x2E]
            && word.bytes != [0x2E, 0x2E]
    }

    /// Empties the keychain directory and the working directory, forgetting the keychains this
    /// process holds open there, so each input starts from the same state.
    func reset() throws {
        let keychains = (dataHome as NSString).appendingPathComponent("swift-keychain")
        for file in (try? FileManager.default.contentsOfDirectory(atPath: keychains)) ?? [] where file.hasSuffix(".keychain-db") {
            Keychain.forgetOpenInstance(path: (keychains as NSString).appendingPathComponent(file))
        }
        for directory in [dataHome, workingDirectory] {
            for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
                let path = (directory as NSString).appendingPathComponent(file)
                do {
                    try FileManager.default.removeItem(atPath: path)
                } catch let error as CocoaError where error.code == .fileNoSuchFile {
                    // Gone already: SQLite removes a database's -wal and -shm when the last
                    // connection of a forgotten keychain closes, which may happen meanwhile.
                    continue
                }
            }
        }
    }
}
